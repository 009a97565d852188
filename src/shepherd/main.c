/* main.c — drover-shepherd --job-dir DIR: the parent of one batch job, or
 * --step-dir DIR: of one node's tasks of an srun step (step.c).
 *
 * In order: take DIR/lock for our whole life (its holder is how noded knows
 * the job runs), leave noded's session so we outlive it, record our pid,
 * read the spec, write the script, run the job and wait, record its end,
 * tell noded. We ignore SIGHUP and SIGPIPE and are never in the job's
 * process group, so signals meant for the job do not end us. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "drv_config.h"
#include "shepherd/shepherd.h"

static const char *parse_args(int argc, char **argv, bool *step)
{
	static const struct option longopts[] = {
	    /** <dir> the batch job's directory under the node's spool (noded gives it) */
	    {"job-dir", required_argument, NULL, 'j'},
	    /** <dir> the step's directory under the node's spool (noded gives it) */
	    {"step-dir", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	const char *dir = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "hV", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
		case 's':
			dir = optarg;
			*step = c == 's';
			break;
		case 'h':
			printf("Usage: drover-shepherd --job-dir DIR | --step-dir DIR\n");
			exit(0);
		case 'V':
			printf("slurm %s (drover %s)\n", DRV_SLURM_VERSION, DRV_VERSION);
			exit(0);
		default:
			/* getopt said what was wrong: stop at once (moving optind
			 * past argc, as this did, made getopt return '?' for ever) */
			fprintf(stderr,
				"Usage: drover-shepherd --job-dir DIR | --step-dir "
				"DIR\n");
			exit(2);
		}
	}
	if (!dir || optind != argc) {
		fprintf(stderr,
			"Usage: drover-shepherd --job-dir DIR | --step-dir DIR\n");
		exit(2);
	}
	return dir;
}

/* Held until we exit: the lock is released by the kernel however we end. */
static int take_lock(const char *dir)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			int e = errno;
			close(fd);
			return -e;
		}
	}
	return fd;
}

/* The script, readable and runnable by the job's user only. */
static int write_script(const char *dir, const struct spec *s, char *path, size_t size)
{
	snprintf(path, size, "%s/script", dir);
	int rc =
	    drv_write_file_replace(dir, "script", s->script, strlen(s->script), 0700);
	if (rc < 0 || geteuid() != 0 || s->uid == 0)
		return rc;
	/* As root for another user: they must reach and run the script, but
	 * not list or change the rest of the job dir. */
	if (chown(path, s->uid, s->gid) < 0 || chmod(dir, 0711) < 0)
		return -errno;
	return 0;
}

/* The job could not be started at all: record that as its end. */
static int record_failure(const char *dir, const struct spec *s, const char *why)
{
	log_error("job=%lld: %s", (long long)s->job_id, why);
	struct job_result res = {.exit_code = 1};
	snprintf(res.message, sizeof(res.message), "%s", why);
	status_record(dir, s, &res);
	status_notify(dir, s->job_id);
	return 1;
}

static int shepherd(const char *dir)
{
	char pidbuf[24], err[256], script[PATH_MAX];
	int n = snprintf(pidbuf, sizeof(pidbuf), "%d\n", (int)getpid());
	/* first: noded sends DRV_SHEPHERD_KILL_SIG only to a shepherd that says
	 * it takes it (one from before would die of it) */
	drv_write_file_replace(dir, DRV_SHEPHERD_KILL_FILE, "1\n", 2, 0644);
	drv_write_file_replace(dir, "shepherd.pid", pidbuf, (size_t)n, 0644);
	struct spec s;
	if (spec_load(dir, &s, err, sizeof(err)) < 0) {
		struct spec none = {0};
		return record_failure(dir, &none, err);
	}
	int rc = write_script(dir, &s, script, sizeof(script));
	if (rc < 0) {
		snprintf(err, sizeof(err), "cannot write the job script: %s",
			 strerror(-rc));
		rc = record_failure(dir, &s, err);
		spec_fini(&s);
		return rc;
	}
	struct job_result res;
	rc = run_job(dir, &s, script, &res);
	if (rc < 0) {
		snprintf(err, sizeof(err), "cannot start the job: %s", strerror(-rc));
		rc = record_failure(dir, &s, err);
		spec_fini(&s);
		return rc;
	}
	if (res.message[0])
		log_error("job=%lld: %s", (long long)s.job_id, res.message);
	log_info("job=%lld ended: exit_code=%d signal=%d%s", (long long)s.job_id,
		 res.exit_code, res.sig, res.timeout ? " (time limit)" : "");
	rc = status_record(dir, &s, &res);
	if (rc < 0)
		log_error("job=%lld: cannot write %s/status: %s", (long long)s.job_id,
			  dir, strerror(-rc));
	status_notify(dir, s.job_id);
	spec_fini(&s);
	return rc < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	bool step = false;
	const char *dir = parse_args(argc, argv, &step);
	drv_log_init("drover-shepherd", DRV_LOG_INFO);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	/* noded's "end the job" (limit.c waits for it): blocked for our whole
	 * life, so that one that comes early or late cannot end us */
	sigset_t kill_sig;
	sigemptyset(&kill_sig);
	sigaddset(&kill_sig, DRV_SHEPHERD_KILL_SIG);
	sigprocmask(SIG_BLOCK, &kill_sig, NULL);
	int lock = take_lock(dir);
	if (lock < 0) {
		log_error("cannot lock %s/lock: %s", dir, strerror(-lock));
		return 1;
	}
	/* Our own session: noded's end, or a hangup of its terminal, is not ours. */
	setsid();
	int rc = step ? step_main(dir) : shepherd(dir);
	close(lock);
	return rc;
}
