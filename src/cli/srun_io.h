/* srun_io.h — srun's side of a step's I/O (common/stepio.h): the port the
 * shepherds dial, their tasks' output to srun's own streams or files, stdin
 * to the tasks, their exits, and the signals srun forwards. */
#ifndef DRV_CLI_SRUN_IO_H
#define DRV_CLI_SRUN_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct srun_io_task;
struct srun_io_conn;
struct srun_io_replay;

/* How srun handles its step's I/O; set before srun_io_run. */
struct srun_io_opts {
	bool label;	      /* -l: "N: " before every line */
	bool unbuffered;      /* -u: no line buffering */
	int kill_on_bad_exit; /* -K: a task's non-zero exit kills the rest */
	int wait_secs;	/* -W: kill the rest this long after the first exit, 0 never */
	bool quiet;	/* -Q: no informational messages */
	int stdin_task; /* -1: stdin to all tasks, -2: to none, else that task */
	const char *stdin_path; /* -i FILE: read from it instead of our stdin */
	/* -o/-e patterns already expanded per task by the caller: out_paths[t]
	 * (NULL: our stdout), err_paths[t] (NULL: our stderr, or out's file) */
	char **out_paths, **err_paths;
	bool open_append;
	bool pty; /* --pty: task 0 on a remote terminal (srun_pty.h), only its
		   * output shown, as Slurm sends the others' to /dev/null */
};

struct srun_io {
	int lfd, port;
	char key[65];		       /* hex io_key the shepherds must present */
	char attach_key[65];	       /* what sattach presents (stepio_attach_key) */
	struct srun_io_replay *replay; /* recent output, for sattach */
	uint32_t ntasks, job_id, step_id;
	struct srun_io_opts o;
	struct srun_io_task *tasks;
	struct srun_io_conn *conns;
	size_t n_conns, cap_conns;
	uint32_t n_exited;
	int sigfd;
	int64_t last_int_ms;   /* the last Ctrl-C, for "twice within a second" */
	int64_t first_exit_ms; /* -W: when the first task ended, 0 before */
	bool killed;	       /* kill sent already (-K, -W, Ctrl-C twice) */
	bool abort_asked;      /* a shepherd sent ABORT (MPI_Abort) */
	bool aborting_said;    /* "Job step aborted: Waiting up to ..." printed */
	int stdin_fd;	       /* -1 once ended or not forwarded */
};

/* Listens on an ephemeral TCP port and picks the key. 0 or -errno. */
int srun_io_listen(struct srun_io *io);

/* Called about once a second while tasks are still unreported: returns true
 * when the step is over in ctld's eyes (so missing shepherds never come),
 * *code then being its exit status. kill asks to cancel the step. */
typedef bool (*srun_io_tick_f)(void *arg, bool kill, int *code);

/* Runs until every task reported its exit (or tick says the step is over).
 * Returns srun's exit status: the highest task exit code, 128+N for a task
 * killed by signal N. */
int srun_io_run(struct srun_io *io, uint32_t ntasks, srun_io_tick_f tick, void *arg);
void srun_io_close(struct srun_io *io);

#endif
