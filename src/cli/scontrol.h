/* scontrol.h — what scontrol's command files share. */
#ifndef DRV_CLI_SCONTROL_H
#define DRV_CLI_SCONTROL_H

#include <jansson.h>
#include <stdbool.h>

#include "common/conf.h"
#include "common/error.h"

struct sctl {
	int detail;	       /* -d count */
	bool quiet;	       /* -Q */
	bool oneliner;	       /* -o: one line per record */
	struct drv_conf *conf; /* loaded on first use; owned */
};

/* Loads the config if needed, then calls ctld (body stolen). Returns as
 * drv_client_call; a config that fails to load gives -EINVAL after its
 * message, with err empty. */
int sctl_call(struct sctl *s, const char *type, json_t *body, json_t **reply,
	      struct drv_error *err);

/* The text to print for a failed call (static or borrowed from err). */
const char *sctl_failure_text(int rc, const struct drv_error *err);

/* A job.query body for every state of job id (0: of every job). */
json_t *sctl_job_query_body(int64_t id);

/* Prints one record's text (consumed) to stdout; with -o on one line. */
void sctl_emit(const struct sctl *s, char *text);

/* show step [ID[_T][.STEP]]: the running steps it names. Returns the
 * exit status. */
int sctl_show_step(struct sctl *s, const char *id);

/* A command word matches cmd, abbreviated to no fewer than min chars. */
bool sctl_is_cmd(const char *word, const char *cmd, size_t min);

/* Each returns the exit status. argv[0] is the command word. */
int sctl_requeue(struct sctl *s, int argc, char **argv);
int sctl_hold(struct sctl *s, int argc, char **argv);
int sctl_update(struct sctl *s, int argc, char **argv);
int sctl_ping(struct sctl *s);
/* `scontrol reconfigure`: 0, or 1 with Slurm's message on stderr. */
int sctl_reconfigure(struct sctl *s, int argc);
/* scontrol top JOBLIST (argv[0] is "top"). Returns the exit code. */
int sctl_top(struct sctl *s, int argc, char **argv);

/* scontrol_part.c: create PartitionName=..., update PartitionName=... (argv
 * without the command word), delete PartitionName=P | PartitionName P, and
 * show licenses [NAME]. Each returns the exit status. */
int sctl_create(struct sctl *s, int argc, char **argv);
int sctl_update_part(struct sctl *s, int argc, char **argv);
int sctl_delete(struct sctl *s, int argc, char **argv);
int sctl_show_licenses(struct sctl *s, const char *name);

/* show hostnames|hostname (compress false) and hostlist|hostlistsorted
 * (compress true) of expr, or of $SLURM_JOB_NODELIST (then $SLURM_NODELIST)
 * when expr is NULL. Returns the exit status: 0, also after Slurm's message
 * for an empty or bad list, as Slurm does. */
int sctl_show_hosts(const char *expr, bool compress);

/* Slurm's diagnostic for the first bad bracket range of expr ("_parse_
 * single_range: Invalid range: `3-1'") into buf, returning -1; 0 and "" when
 * every range is one Slurm takes. Pure. */
int sctl_hostlist_diag(const char *expr, char *buf, size_t len);

/* scontrol_jobcmds.c: wait_job JOBID, notify JOBID MSG..., write
 * batch_script JOBID [FILE] (argv[0] is the command word). Each returns
 * the exit status Slurm 22.05 gives. */
int sctl_wait_job(struct sctl *s, int argc, char **argv);
int sctl_notify(struct sctl *s, int argc, char **argv);
int sctl_write(struct sctl *s, int argc, char **argv);
/* scontrol_suspend.c: suspend|resume JOBID[,JOBID...]... (argv[0] the
 * command word). Returns the exit status. */
int sctl_suspend(struct sctl *s, int argc, char **argv);
/* scontrol_listpids.c: listpids [JOBID[.STEP]] [NODE], read from the
 * local nodes' spools. Returns the exit status. */
int sctl_listpids(struct sctl *s, int argc, char **argv);

#endif
