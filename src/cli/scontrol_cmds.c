/* scontrol_cmds.c — scontrol's commands that change state: hold, uhold,
 * release, update NodeName=... and JobId=..., and ping. Messages and exit codes follow
 * Slurm 22.05's scontrol. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli/common.h"
#include "cli/sacct_time.h"
#include "cli/scontrol.h"
#include "common/proto.h"
#include "common/proto_gen.h"
#include "common/timefmt.h"

/* Collects the ids of "ID[,ID...]" words (a JobId= prefix allowed). */
static int job_ids(int argc, char **argv, json_t *ids)
{
	for (int i = 0; i < argc; i++) {
		char *copy = strdup(argv[i]), *save = NULL, *w = copy;
		int rc = 0;

		if (!strncasecmp(w, "jobid=", 6))
			w += 6;
		else if (!strncasecmp(w, "job=", 4))
			w += 4;
		for (char *t = strtok_r(w, ",", &save); t && rc == 0;
		     t = strtok_r(NULL, ",", &save)) {
			int64_t id;
			if (cli_parse_int(t, 1, INT64_MAX, &id) < 0) {
				fprintf(stderr, "%s for job %s\n",
					drv_rc_text(DRV_RC_INVALID_JOB_ID), t);
				rc = -EINVAL;
			} else {
				json_array_append_new(ids, json_integer(id));
			}
		}
		free(copy);
		if (rc < 0)
			return rc;
	}
	return json_array_size(ids) ? 0 : -EINVAL;
}

/* Sends a job.* request whose reply lists one result per job; prints
 * Slurm's "<error> for job <id>" for each failure (hold and release also
 * "slurm_suspend error: <error>", as Slurm 22.05). 0, or 1 on any failure. */
/* The results of a reply to type (job.hold, .release, .requeue, .update:
 * each declares just "results"), decoded into *r. 0 or -errno. */
static int results_decode(const char *type, json_t *reply, struct drv_job_update_reply *r)
{
	struct drv_error err = {{0}};
	return drv_shape_decode(drv_msg_decl_find(type)->reply, reply, r, &err);
}

/* body with field i of s (its job_ids) set to ids (stolen). */
static json_t *ids_body(const struct drv_shape *s, size_t i, json_t *body, json_t *ids)
{
	cli_body_set(body, s, i, ids);
	json_decref(ids);
	return body;
}

static int job_op(struct sctl *s, const char *type, json_t *body, const char *first,
		  bool suspend_line)
{
	struct drv_error err = {{0}};
	struct drv_job_update_reply r = {0};
	json_t *reply = NULL;
	int failed = 0;
	int rc = sctl_call(s, type, body, &reply, &err);
	if (rc != 0) {
		if (!s->quiet)
			fprintf(stderr, "%s for job %s\n", sctl_failure_text(rc, &err),
				first);
		return 1;
	}
	if (results_decode(type, reply, &r) < 0)
		failed = 1;
	for (size_t i = 0; i < r.n_results; i++) {
		const char *text = r.results[i].error;
		if (r.results[i].rc == 0)
			continue;
		failed = 1;
		if (!text || !*text)
			text = drv_rc_text(r.results[i].rc);
		if (s->quiet)
			continue;
		fprintf(stderr, "%s for job %lld\n", text,
			(long long)r.results[i].job_id);
		if (suspend_line)
			fprintf(stderr, "slurm_suspend error: %s\n", text);
	}
	drv_job_update_reply_free(&r);
	json_decref(reply);
	return failed;
}

int sctl_hold(struct sctl *s, int argc, char **argv)
{
	bool release = !strncasecmp(argv[0], "re", 2);
	bool user = !strncasecmp(argv[0], "u", 1); /* else ctld decides, as Slurm */
	struct drv_job_hold h = {.user = user};
	struct drv_job_release rel = {0};
	json_t *ids = json_array(), *body;

	if (argc < 2) {
		json_decref(ids);
		fprintf(stderr, "too few arguments for keyword:%s\n", argv[0]);
		return 1;
	}
	if (job_ids(argc - 1, argv + 1, ids) < 0) {
		json_decref(ids);
		return 1;
	}
	body = release ? ids_body(&drv_shape_job_release, DRV_JOB_RELEASE__JOB_IDS,
				  drv_job_release_encode(&rel), ids)
		       : ids_body(&drv_shape_job_hold, DRV_JOB_HOLD__JOB_IDS,
				  drv_job_hold_encode(&h), ids);
	return job_op(s, release ? "job.release" : "job.hold", body, argv[1], true);
}

/* requeue / requeuehold ID[,ID...]: Slurm prints "<error> for job <id>" for
 * each job it could not requeue and exits 1. */
int sctl_requeue(struct sctl *s, int argc, char **argv)
{
	bool hold = !strncasecmp(argv[0], "requeueh", 8);
	json_t *ids = json_array();

	if (argc < 2) {
		json_decref(ids);
		fprintf(stderr, "too few arguments for keyword:%s\n", argv[0]);
		return 1;
	}
	/* requeuehold State=SpecialExit: accepted as a plain hold */
	int n = argc - 1;
	if (hold && n > 1 && !strncasecmp(argv[n], "state=", 6))
		n--;
	if (job_ids(n, argv + 1, ids) < 0) {
		json_decref(ids);
		return 1;
	}
	struct drv_job_requeue q = {.hold = hold};
	return job_op(s, "job.requeue",
		      ids_body(&drv_shape_job_requeue, DRV_JOB_REQUEUE__JOB_IDS,
			       drv_job_requeue_encode(&q), ids),
		      argv[1], false);
}

/* --- update NodeName=... State=... Reason=... ------------------------------- */

struct node_update {
	const char *nodes, *state, *reason;
};

static const char *const node_states[] = {"DRAIN", "RESUME", "DOWN", "UNDRAIN"};

/* Reads the Key=Value words; "Key Value" is accepted as Slurm does. */
static int parse_update(int argc, char **argv, struct node_update *u)
{
	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		size_t klen = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
		const char *val = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);

		if (!val) {
			fprintf(stderr, "Invalid input: %s\nRequest aborted\n", argv[i]);
			return -EINVAL;
		}
		if (!strncasecmp(argv[i], "NodeName", klen > 4 ? klen : 4) && klen >= 4)
			u->nodes = val;
		else if (klen >= 2 && !strncasecmp(argv[i], "State", klen))
			u->state = val;
		else if (klen >= 1 && !strncasecmp(argv[i], "Reason", klen))
			u->reason = val;
		else {
			fprintf(stderr, "Update of this parameter is not supported: %s\n",
				argv[i]);
			fprintf(stderr, "Request aborted\n");
			return -EINVAL;
		}
	}
	return 0;
}

static const char *node_state(const char *v)
{
	for (size_t i = 0; v && i < sizeof(node_states) / sizeof(node_states[0]); i++)
		if (!strcasecmp(v, node_states[i]))
			return node_states[i];
	return NULL;
}

/* --- update JobId=... TimeLimit=... Partition=... Nice=... --------------- */

/* One "Key=Value" of a job update into u; -EINVAL after a message. */
static int job_field(const char *word, json_t *ids, struct drv_job_update *u)
{
	const char *eq = strchr(word, '=');
	size_t klen = eq ? (size_t)(eq - word) : strlen(word);
	const char *val = eq ? eq + 1 : "";
	int64_t v;

	if (klen >= 3 && !strncasecmp(word, "JobId", klen))
		return job_ids(1, (char **)&word, ids);
	if (klen >= 2 && !strncasecmp(word, "TimeLimit", klen)) {
		if (drv_time_parse_limit(val, &v) < 0) {
			fprintf(stderr, "Invalid TimeLimit value\n");
			return -EINVAL;
		}
		u->time_limit = v;
		u->has_time_limit = true;
		return 0;
	}
	if (klen >= 2 && !strncasecmp(word, "Partition", klen) && *val) {
		u->partition = val;
		return 0;
	}
	if (klen >= 3 && !strncasecmp(word, "Dependency", klen)) {
		u->dependency = val;
		return 0;
	}
	if ((klen >= 3 && !strncasecmp(word, "StartTime", klen)) ||
	    (klen >= 5 && !strncasecmp(word, "BeginTime", klen))) {
		time_t when = 0;
		int pos = 0;
		if (cli_time_parse(val, time(NULL), false, &when, &pos) < 0) {
			fprintf(stderr, "Invalid time specification (pos=%d): %s\n", pos,
				val);
			return -ENOENT; /* Slurm: the word is dropped */
		}
		u->begin = (int64_t)when;
		u->has_begin = true;
		return 0;
	}
	if (klen >= 2 && !strncasecmp(word, "Priority", klen)) {
		/* Slurm's parse_uint32: digits only, below NO_VAL */
		if (!*val || strspn(val, "0123456789") != strlen(val) ||
		    cli_parse_int(val, 0, 4294967294LL, &v) < 0) {
			fprintf(stderr, "Invalid Priority value: %s\n", val);
			return -EINVAL;
		}
		u->priority = v;
		u->has_priority = true;
		return 0;
	}
	if (klen >= 2 && !strncasecmp(word, "Nice", klen)) {
		if (cli_parse_int(*val ? val : "100", -2147483645LL, 2147483645LL, &v) <
		    0) {
			fprintf(stderr, "Invalid Nice value: %s\n", val);
			return -EINVAL;
		}
		u->nice = (int32_t)v;
		u->has_nice = true;
		return 0;
	}
	fprintf(stderr, "Update of this parameter is not supported: %s\n", word);
	fprintf(stderr, "Request aborted\n");
	return -EINVAL;
}

static int update_job(struct sctl *s, int argc, char **argv)
{
	struct drv_error err = {{0}};
	struct drv_job_update u = {0};
	struct drv_job_update_reply r = {0};
	json_t *ids = json_array(), *reply = NULL;
	int rc = 0, failed = 0;

	for (int k = 0; k < argc && rc <= 0 && rc != -EINVAL; k++)
		rc = job_field(argv[k], ids, &u);
	if (rc == -ENOENT)
		rc = 0;
	if (rc == 0 && !u.has_time_limit && !u.partition && !u.dependency &&
	    !u.has_begin && !u.has_nice && !u.has_priority) {
		fprintf(stderr, "No changes specified\n");
		rc = -EINVAL;
	}
	if (rc < 0) {
		json_decref(ids);
		return 1;
	}
	rc = sctl_call(s, "job.update",
		       ids_body(&drv_shape_job_update, DRV_JOB_UPDATE__JOB_IDS,
				drv_job_update_encode(&u), json_incref(ids)),
		       &reply, &err);
	if (rc != 0) {
		fprintf(stderr, "%s for job %lld\n", sctl_failure_text(rc, &err),
			(long long)json_integer_value(json_array_get(ids, 0)));
		json_decref(ids);
		return 1;
	}
	json_decref(ids);
	if (results_decode("job.update", reply, &r) < 0)
		failed = 1;
	for (size_t i = 0; i < r.n_results; i++) {
		const char *text = r.results[i].error;

		if (r.results[i].rc == 0)
			continue;
		failed = 1;
		if (!s->quiet) /* Slurm 22.05: "TEXT for job N", after the
				  site's job_submit.lua messages */
			fprintf(stderr, "%s for job %lld\n",
				text && *text ? cli_refusal_lines(text)
					      : drv_rc_text(r.results[i].rc),
				(long long)r.results[i].job_id);
	}
	drv_job_update_reply_free(&r);
	json_decref(reply);
	return failed;
}

static bool is_job_update(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strncasecmp(argv[i], "JobId=", 6) ||
		    !strncasecmp(argv[i], "Job=", 4))
			return true;
	return false;
}

/* A PartitionName= tag (cut to 3 letters or more) and no NodeName=: as
 * Slurm, a node update wins when both are there. */
static bool is_part_update(int argc, char **argv)
{
	bool part = false;
	for (int i = 0; i < argc; i++) {
		size_t len = strcspn(argv[i], "=");
		if (len >= 3 && len <= 8 && !strncasecmp(argv[i], "NodeName", len))
			return false;
		part |=
		    len >= 3 && len <= 13 && !strncasecmp(argv[i], "PartitionName", len);
	}
	return part;
}

int sctl_update(struct sctl *s, int argc, char **argv)
{
	struct node_update u = {0};
	struct drv_error err = {{0}};
	json_t *reply = NULL;
	const char *st;
	int rc;

	if (argc < 1) {
		fprintf(stderr, "too few arguments for keyword:update\n");
		return 1;
	}
	if (is_job_update(argc, argv))
		return update_job(s, argc, argv);
	if (is_part_update(argc, argv))
		return sctl_update_part(s, argc, argv);
	if (parse_update(argc, argv, &u) < 0)
		return 1;
	if (!u.nodes || !u.state) {
		fprintf(stderr, "No valid entity in update command\n");
		fprintf(stderr, "Input line must include \"NodeName\" and \"State\"\n");
		return 1;
	}
	st = node_state(u.state);
	if (!st) {
		fprintf(stderr, "Invalid input: State=%s\nRequest aborted\n", u.state);
		fprintf(stderr, "Valid states are: DRAIN RESUME DOWN UNDRAIN\n");
		return 1;
	}
	if ((!strcmp(st, "DRAIN") || !strcmp(st, "DOWN")) && (!u.reason || !*u.reason)) {
		fprintf(stderr,
			"You must specify a reason when DOWNING or DRAINING a node. "
			"Request denied\n");
		return 1;
	}
	struct drv_node_update nu = {.nodes = u.nodes, .state = st, .reason = u.reason};
	rc = sctl_call(s, "node.update", drv_node_update_encode(&nu), &reply, &err);
	json_decref(reply);
	if (rc != 0) {
		fprintf(stderr, "slurm_update error: %s\n", sctl_failure_text(rc, &err));
		return 1;
	}
	return 0;
}

/* --- top ------------------------------------------------------------------- */

/* scontrol top JOB[,JOB...] (JobId= or Job= before it allowed): one
 * request; a refusal is "TEXT for job LIST", exit 1, as Slurm 22.05. */
int sctl_top(struct sctl *s, int argc, char **argv)
{
	struct drv_error err = {{0}};
	json_t *reply = NULL, *jobs = json_array();
	if (argc != 2) {
		if (!s->quiet)
			fprintf(stderr, "too %s arguments for keyword:%s\n",
				argc < 2 ? "few" : "many", argv[0]);
		json_decref(jobs);
		return 1;
	}
	const char *list = argv[1];
	if (!strncasecmp(list, "jobid=", 6))
		list += 6;
	else if (!strncasecmp(list, "job=", 4))
		list += 4;
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		if (n && n <= 64)
			json_array_append_new(jobs, json_stringn(p, n));
		else if (n) /* too long to be an id: the controller says so */
			json_array_append_new(jobs, json_string("0"));
		p += n + (p[n] == ',');
	}
	if (!json_array_size(jobs))
		json_array_append_new(jobs, json_string("0"));
	json_t *body = json_object();
	json_object_set_new(body, drv_shape_job_top.fields[DRV_JOB_TOP__JOBS].name, jobs);
	int rc = sctl_call(s, "job.top", body, &reply, &err);
	json_decref(reply);
	if (rc != 0) {
		if (!s->quiet)
			fprintf(stderr, "%s for job %s\n", sctl_failure_text(rc, &err),
				list);
		return 1;
	}
	return 0;
}

/* --- ping ------------------------------------------------------------------ */

int sctl_ping(struct sctl *s)
{
	struct drv_conf one;
	int down = 0;

	if (!s->conf && cli_conf_load(&s->conf) < 0)
		return 1;
	for (size_t i = 0; i < s->conf->n_ctld_hosts; i++) {
		struct drv_error err = {{0}};
		json_t *reply = NULL;
		char role[32];
		int rc;

		/* one host at a time: a shallow copy that lists only host i */
		one = *s->conf;
		one.ctld_hosts = &s->conf->ctld_hosts[i];
		one.n_ctld_hosts = 1;
		rc = cli_call(&one, "ctld.ping", json_object(), &reply, &err);
		json_decref(reply);
		if (i == 0)
			snprintf(role, sizeof(role), "primary");
		else if (i == 1)
			snprintf(role, sizeof(role), "backup");
		else
			snprintf(role, sizeof(role), "backup%zu", i);
		printf("Slurmctld(%s) at %s is %s\n", role, s->conf->ctld_hosts[i].name,
		       rc == 0 ? "UP" : "DOWN");
		if (rc != 0)
			down = 1;
	}
	return down;
}

/* --- reconfigure ----------------------------------------------------------- */

/* ctld reads drover.conf again; Slurm's words when it refuses (the reason
 * is ctld's: the file's error, or the key that cannot change live). */
int sctl_reconfigure(struct sctl *s, int argc)
{
	struct drv_error err = {{0}};
	json_t *reply = NULL;

	if (argc > 1) {
		fprintf(stderr, "too many arguments for keyword:reconfigure\n");
		return 1;
	}
	int rc = sctl_call(s, "ctld.reconfigure", json_object(), &reply, &err);
	json_decref(reply);
	if (rc != 0 && !s->quiet)
		fprintf(stderr, "slurm_reconfigure error: %s\n",
			sctl_failure_text(rc, &err));
	return rc != 0;
}
