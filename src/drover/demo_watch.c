/* demo_watch.c — following the demo's jobs through ctld.
 *
 * Asks ctld for the three job records (job.query, the client API the
 * commands use) a few times a second, with a deadline, and shows where the
 * pipeline stands: one line redrawn in place when stderr is a terminal, one
 * line per change otherwise. Then prints the per-job table. It never changes
 * a job; demo.c decides what happens after. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "common/client.h"
#include "common/proto_gen.h"
#include "drover/demo.h"

#define WATCH_INTERVAL_MS 200

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *str_or_empty(const char *s)
{
	return s ? s : "";
}

/* "2 (0,1)" from the GPU indices the job holds (alloc_gpus, "0,1": the
 * batch node's), else its GPU count, else "". */
static void gpus_text(const struct drv_rec_job *rec, char *out, size_t len)
{
	char idx[48] = "";
	size_t count = 0;
	snprintf(idx, sizeof(idx), "%s", str_or_empty(rec->alloc_gpus));
	for (const char *p = idx; *p; p++)
		count += *p == ',';
	count += idx[0] != '\0';
	if (count)
		snprintf(out, len, "%zu (%s)", count, idx);
	else if (rec->gpus > 0)
		snprintf(out, len, "%ld", (long)rec->gpus);
	else
		out[0] = '\0';
}

/* Copies what the demo shows of one job record into j. A GPU allocation,
 * once seen, is kept: an ended job's record may no longer carry it. */
static void job_update(struct demo_job *j, const struct drv_rec_job *rec, long now)
{
	snprintf(j->state, sizeof(j->state), "%s", rec->state);
	snprintf(j->reason, sizeof(j->reason), "%s", str_or_empty(rec->reason));
	const char *host = str_or_empty(rec->batch_host);
	snprintf(j->node, sizeof(j->node), "%s",
		 host[0] ? host : str_or_empty(rec->nodelist));
	char gpus[sizeof(j->gpus)];
	gpus_text(rec, gpus, sizeof(gpus));
	if (gpus[0])
		snprintf(j->gpus, sizeof(j->gpus), "%s", gpus);
	long start = (long)rec->start_time, end = (long)rec->end_time;
	j->elapsed = start > 0 ? (end >= start ? end : now) - start : 0;
	if (j->elapsed < 0)
		j->elapsed = 0;
	j->exit_code = rec->exit_code;
	j->exit_signal = rec->exit_signal;
}

/* One job.query for the pipeline's jobs. */
static int query(struct demo_ctx *ctx, const struct drv_conf *conf, struct drv_error *err)
{
	uint32_t ids[DEMO_N_JOBS];
	for (size_t i = 0; i < DEMO_N_JOBS; i++)
		ids[i] = (uint32_t)ctx->jobs[i].id;
	struct drv_job_query q = {.job_ids = ids,
				  .n_job_ids = DEMO_N_JOBS,
				  .has_job_ids = true,
				  .all_states = true};
	struct drv_job_query_reply r = {0};
	json_t *body = drv_job_query_encode(&q);
	json_t *reply = NULL;
	int rc = drv_client_call(conf, "job.query", body, &reply, err);
	json_decref(body);
	if (rc != 0)
		return rc < 0 ? rc : -EPROTO;
	rc = drv_job_query_reply_decode(reply, &r, err);
	long now = r.now > 0 ? (long)r.now : (long)time(NULL);
	for (size_t k = 0; k < r.n_jobs; k++)
		for (size_t i = 0; i < DEMO_N_JOBS; i++)
			if (ctx->jobs[i].id == (long)r.jobs[k].job_id)
				job_update(&ctx->jobs[i], &r.jobs[k], now);
	drv_job_query_reply_free(&r);
	json_decref(reply);
	return rc;
}

static bool is_terminal(const char *state)
{
	static const char *const ends[] = {"COMPLETED", "FAILED",    "CANCELLED",
					   "TIMEOUT",	"NODE_FAIL", "OUT_OF_MEMORY",
					   "PREEMPTED", "BOOT_FAIL", "DEADLINE"};
	for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
		if (!strcmp(state, ends[i]))
			return true;
	return false;
}

/* 0: every job COMPLETED; 1: one ended otherwise (the chain cannot finish);
 * -EAGAIN: still going. */
static int outcome(const struct demo_ctx *ctx)
{
	int rc = 0;
	for (size_t i = 0; i < DEMO_N_JOBS; i++) {
		const char *s = ctx->jobs[i].state;
		if (is_terminal(s) && strcmp(s, "COMPLETED"))
			return 1;
		if (strcmp(s, "COMPLETED"))
			rc = -EAGAIN;
	}
	return rc;
}

static bool utf8_locale(void)
{
	const char *vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
	for (size_t i = 0; i < 3; i++) {
		const char *v = getenv(vars[i]);
		if (v && v[0])
			return strcasestr(v, "utf-8") || strcasestr(v, "utf8");
	}
	return false;
}

/* "[ 4s] prep COMPLETED · train RUNNING (ckpt 3/5) · eval PENDING(Dependency)" */
static void status_line(const struct demo_ctx *ctx, double elapsed, char *out, size_t len)
{
	const char *sep = utf8_locale() ? " \u00b7 " : " | ";
	size_t used = (size_t)snprintf(out, len, "[%2.0fs] ", elapsed);
	for (size_t i = 0; i < DEMO_N_JOBS && used < len; i++) {
		const struct demo_job *j = &ctx->jobs[i];
		char extra[80] = "";
		if (!strcmp(j->state, "PENDING") && j->reason[0] &&
		    strcmp(j->reason, "None"))
			snprintf(extra, sizeof(extra), "(%s)", j->reason);
		else if (!strcmp(j->name, "train") && !strcmp(j->state, "RUNNING"))
			snprintf(extra, sizeof(extra), " (ckpt %d/%d)",
				 demo_checkpoints(ctx), ctx->steps);
		used +=
		    (size_t)snprintf(out + used, len - used, "%s%s %s%s", i ? sep : "",
				     j->name, j->state[0] ? j->state : "?", extra);
	}
}

static int term_width(void)
{
	struct winsize ws;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
		return ws.ws_col;
	return 80;
}

/* Redraws the live line, or prints line when it differs from the last. */
static void show(const struct demo_ctx *ctx, const char *line, char *last, size_t len)
{
	if (ctx->live) {
		/* Cut to the terminal's width so that \r returns to its start;
		 * count bytes leniently, the separator is wider in bytes. */
		fprintf(stderr, "\r\033[K%.*s", term_width() + 2, line);
		fflush(stderr);
	} else if (strcmp(strchr(line, ']'), last)) {
		/* Only when a job moved on, not each second. */
		fprintf(stderr, "%s\n", line);
	}
	snprintf(last, len, "%s", strchr(line, ']'));
}

static void nap_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

int demo_wait(struct demo_ctx *ctx, const struct drv_conf *conf, struct drv_error *err)
{
	double start = now_s(), deadline = start + ctx->timeout_s;
	char line[512], last[512] = "";
	int rc;
	for (;;) {
		/* ctld may be briefly busy; only the deadline ends the wait. */
		int q = query(ctx, conf, err);
		rc = q < 0 ? -EAGAIN : outcome(ctx);
		status_line(ctx, now_s() - start, line, sizeof(line));
		show(ctx, line, last, sizeof(last));
		if (rc != -EAGAIN)
			break;
		if (*ctx->stop) {
			rc = -EINTR;
			break;
		}
		if (now_s() > deadline) {
			rc = q < 0 ? q : -ETIMEDOUT;
			break;
		}
		nap_ms(WATCH_INTERVAL_MS);
	}
	if (ctx->live)
		fputc('\n', stderr);
	return rc;
}

/* Elapsed time as sacct shows it: [D-]HH:MM:SS. */
static void elapsed_text(long s, char *out, size_t len)
{
	if (s >= 86400)
		snprintf(out, len, "%ld-%02ld:%02ld:%02ld", s / 86400, s % 86400 / 3600,
			 s % 3600 / 60, s % 60);
	else
		snprintf(out, len, "%02ld:%02ld:%02ld", s / 3600, s % 3600 / 60, s % 60);
}

void demo_print_table(const struct demo_ctx *ctx)
{
	printf("%-7s %-6s %-10s %-6s %-10s %-10s %s\n", "JOBID", "NAME", "STATE", "NODE",
	       "GPUS", "ELAPSED", "EXITCODE");
	for (size_t i = 0; i < DEMO_N_JOBS; i++) {
		const struct demo_job *j = &ctx->jobs[i];
		char elapsed[32], exit_code[32];
		elapsed_text(j->elapsed, elapsed, sizeof(elapsed));
		snprintf(exit_code, sizeof(exit_code), "%d:%d", j->exit_code,
			 j->exit_signal);
		printf("%-7ld %-6s %-10s %-6s %-10s %-10s %s\n", j->id, j->name,
		       j->state[0] ? j->state : "UNKNOWN", j->node[0] ? j->node : "-",
		       j->gpus[0] ? j->gpus : "-", elapsed, exit_code);
	}
	fflush(stdout);
}
