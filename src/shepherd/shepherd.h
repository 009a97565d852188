/* shepherd.h — what drover-shepherd's files share.
 *
 * The shepherd is the parent of one batch job (Slurm's slurmstepd): it reads
 * the spec noded wrote, holds the job dir's lock for its whole life, runs
 * the script in its own process group as the job's user, waits, and records
 * how the job ended. It is single-threaded and talks to nobody but noded's
 * notification socket. */
#ifndef DRV_SHEPHERD_H
#define DRV_SHEPHERD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/fileio.h"

/* The launch spec. Strings are borrowed from root (never NULL: absent ones
 * are ""); env and argv are arrays of borrowed strings. */
struct spec {
	json_t *root;
	int64_t job_id;
	int64_t restart;
	const char *name, *user, *partition, *nodelist, *workdir, *submit_dir;
	const char *stdout_pat, *stderr_pat, *script, *submit_host, *cluster;
	const char *node, *conf_path;
	uid_t uid;
	gid_t gid;
	int64_t num_nodes;
	const char **env;
	size_t n_env;
	const char **argv;
	size_t n_argv;
};

/* --- spec.c ------------------------------------------------------------ */
/* Reads dir/spec.json. 0 or -errno with err. spec_fini frees what it holds. */
int spec_load(const char *dir, struct spec *s, char *err, size_t errlen);
void spec_fini(struct spec *s);

/* --- env.c ------------------------------------------------------------- */
/* The job's environment: spec env plus the SLURM_* variables. Returns a
 * NULL-terminated malloc'd array of malloc'd strings (free with env_free),
 * or NULL on ENOMEM. */
char **env_build(const struct spec *s);
/* Sets name=value in a built environment (the batch shell's own pid). */
int env_set(char ***envp, const char *name, const char *value);
void env_free(char **envp);

/* --- io.c -------------------------------------------------------------- */
/* Expands %j %J %x %u %N %A %a %n %t %s %% (with optional zero-pad width)
 * in pattern. Returns a malloc'd string or NULL. */
char *io_expand(const char *pattern, const struct spec *s);
/* In the job's child, after chdir: stdin from /dev/null, stdout and stderr
 * to their files. Returns 0, or -errno with the failing path in err. */
int io_setup(const char *out_path, const char *err_path, char *err, size_t errlen);

/* --- run.c ------------------------------------------------------------- */
struct job_result {
	int exit_code;
	int sig;
	char message[256]; /* why the job could not start, or "" */
};
/* Runs the job (script at script_path) and waits for it; pgid file and
 * message written into dir. Returns 0 with *res filled, or -errno when the
 * job could not even be forked. */
int run_job(const char *dir, const struct spec *s, const char *script_path,
	    struct job_result *res);

/* --- status.c ---------------------------------------------------------- */
int status_record(const char *dir, const struct spec *s, const struct job_result *res);
/* Tells noded (SPOOL/noded.sock, SPOOL = dir's parent); failure is fine. */
void status_notify(const char *dir, int64_t job_id);

#endif
