/* sacctmgr_words.c — sacctmgr's words as Slurm reads them: keywords
 * matched by their shortest form, "key=value", "key+=value" and
 * "key-=value", comma lists lower-cased, and the values of limits with
 * Slurm's messages for bad ones. Values of the wrong shape that Slurm lets
 * through as 0 (a count "5x", GrpTRES=cpu=x) are refused here: nothing is
 * sent then (docs/compat.md). Also the request's arena, ctld's tables
 * read, and the request sent, shown, asked about and committed (sm_run). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/common.h"
#include "cli/sacctmgr.h"
#include "common/proto.h"
#include "common/qos_flags.h"
#include "common/timefmt.h"
#include "common/tres.h"

/* --- the request and its arena ------------------------------------------------ */

static void *keep(struct sm_req *q, void *p)
{
	void **a = realloc(q->arena, (q->n_arena + 1) * sizeof(*a));
	if (!p || !a) {
		fprintf(stderr, "sacctmgr: out of memory\n");
		exit(1);
	}
	q->arena = a;
	a[q->n_arena++] = p;
	return p;
}

void sm_req_init(struct sm_req *q, const char *action, const char *entity)
{
	*q = (struct sm_req){0};
	q->m.action = action;
	q->m.entity = entity;
	q->m.has_cond = true;
	q->m.has_change = true;
}

void sm_req_fini(struct sm_req *q)
{
	for (size_t i = 0; i < q->n_arena; i++)
		free(q->arena[i]);
	free(q->arena);
	*q = (struct sm_req){0};
}

char *sm_strdup(struct sm_req *q, const char *s)
{
	return keep(q, strdup(s));
}

static char *stripped(struct sm_req *q, const char *s, size_t len, bool keep_case);

char *sm_value(struct sm_req *q, const char *v, bool keep_case)
{
	return stripped(q, v, strlen(v), keep_case);
}

/* Slurm's strip_quotes: a leading quote up to its match; other quotes
 * become '`'; lower-cased unless keep_case. */
static char *stripped(struct sm_req *q, const char *s, size_t len, bool keep_case)
{
	char quote = 0;
	if (len && (s[0] == '"' || s[0] == '\'')) {
		quote = s[0];
		s++;
		len--;
	}
	char *out = keep(q, calloc(len + 1, 1));
	size_t k = 0;
	for (size_t i = 0; i < len && s[i] != quote; i++) {
		char c = s[i] == '"' || s[i] == '\'' ? '`' : s[i];
		out[k++] = keep_case ? c : (char)tolower((unsigned char)c);
	}
	return out;
}

size_t sm_list_add(struct sm_req *q, const char ***v, size_t *n, bool *given,
		   const char *csv, bool keep_case)
{
	size_t added = 0;
	*given = true;
	if (!*csv) { /* "user=": the one without (Slurm lists '') */
		const char **nv = keep(q, calloc(*n + 1, sizeof(*nv)));
		if (*n)
			memcpy(nv, *v, *n * sizeof(*nv));
		nv[(*n)++] = "";
		*v = nv;
		return 1;
	}
	for (const char *s = csv; *s;) {
		size_t len = strcspn(s, ",");
		if (len) {
			char *item = stripped(q, s, len, keep_case);
			const char **nv = keep(q, calloc(*n + 1, sizeof(*nv)));
			size_t k = 0;
			for (size_t i = 0; i < *n; i++) /* a repeat moves to the end */
				if (strcmp((*v)[i], item))
					nv[k++] = (*v)[i];
			added += k == *n;
			nv[k++] = item;
			*v = nv;
			*n = k;
		}
		s += len + (s[len] == ',');
	}
	return added;
}

/* --- words --------------------------------------------------------------------- */

bool sm_kw(const char *word, size_t klen, const char *name, size_t min)
{
	return !strncasecmp(word, name, klen > min ? klen : min);
}

void sm_word_split(const char *word, struct sm_word *w)
{
	size_t end = 0;
	*w = (struct sm_word){.word = word};
	while (word[end] && word[end] != '=' &&
	       !((word[end] == '+' || word[end] == '-') && word[end + 1] == '='))
		end++;
	w->klen = end;
	if (!word[end])
		return;
	if (word[end] != '=') {
		w->op = word[end];
		end++;
	}
	w->value = word + end + 1;
}

/* --- values -------------------------------------------------------------------- */

void sm_unknown_option(struct sm_req *q, const struct sm_word *w)
{
	q->bad = true;
	if (q->in_qos) /* Slurm's QOS words print only the value's error */
		return;
	fprintf(stderr, " Unknown option: %s\n Use keyword 'where' to modify condition\n",
		w->word);
}

/* A count (Slurm's get_uint): a negative number clears it (-1). */
static bool count(struct sm_req *q, const struct sm_word *w, const char *type,
		  int64_t *out, bool *has)
{
	const char *v = stripped(q, w->value, strlen(w->value), false);
	char *end = NULL;
	long long n = strtoll(v, &end, 10);
	if (!*v || *end || n > 2147483647LL) {
		cli_error("Invalid value for %s (%s)", type, v);
		if (q->in_qos)
			q->soft_bad = true;
		else
			sm_unknown_option(q, w);
		return true;
	}
	*out = n < 0 ? -1 : n;
	*has = true;
	return true;
}

/* MaxWall= in Slurm's time syntax, kept in minutes; -1, INFINITE or
 * UNLIMITED clear it. */
static bool minutes(struct sm_req *q, const struct sm_word *w, const char *what,
		    int64_t *out, bool *has)
{
	int64_t secs;
	if (drv_time_parse_limit(w->value, &secs) < 0) {
		q->bad = true;
		fprintf(stderr, " Bad %s time format: %s\n", what, w->word);
		sm_unknown_option(q, w);
		return true;
	}
	*out = secs == DRV_INFINITE ? -1 : (secs + 59) / 60;
	*has = true;
	return true;
}

/* A TRES list, kept in the canonical form ctld reads. */
static bool tres(struct sm_req *q, const struct sm_word *w, const char **out)
{
	struct drv_tres t;
	struct drv_error err = {""};
	if (drv_tres_parse(w->value, &t, &err) < 0) {
		cli_error("%s", err.text);
		sm_unknown_option(q, w);
		return true;
	}
	size_t need = drv_tres_format(&t, false, NULL, 0) + 1;
	char *text = keep(q, malloc(need));
	drv_tres_format(&t, false, text, need);
	*out = text;
	return true;
}

/* QOS=, QOS+=, QOS-= (and items written +name or -name): names checked
 * against the tables, as Slurm's slurmdb_addto_qos_char_list does. */
static bool qos_list(struct sm_req *q, const struct sm_word *w, const struct cli_acct *t,
		     const char ***set, size_t *n_set, bool *has_set, const char ***add,
		     size_t *n_add, bool *has_add, const char ***del, size_t *n_del,
		     bool *has_del)
{
	if (!*w->value) {
		*has_set = true; /* QOS= : none of its own */
		return true;
	}
	for (const char *s = w->value; *s;
	     s += strcspn(s, ",") + (s[strcspn(s, ",")] == ',')) {
		size_t len = strcspn(s, ",");
		char op = w->op;
		const char *name = s;
		if (len && (*name == '+' || *name == '-')) {
			op = *name++;
			len--;
		}
		char *item = stripped(q, name, len, false);
		const struct drv_rec_acct_qos *qos = t ? cli_acct_qos(t, item) : NULL;
		if (len && t && !qos) {
			char names[1024];
			cli_acct_qos_names(t, names, sizeof(names));
			cli_error("You gave a bad qos '%s'. Valid QOS's are %s", item,
				  names);
			sm_unknown_option(q, w);
			return true;
		}
		if (len && ((op && *has_set) || (!op && (*has_add || *has_del)))) {
			cli_error("You can't set qos equal to something and then add or "
				  "subtract from it in the same line");
			sm_unknown_option(q, w);
			return true;
		}
		if (len)
			sm_list_add(q,
				    op == '+'	? add
				    : op == '-' ? del
						: set,
				    op == '+'	? n_add
				    : op == '-' ? n_del
						: n_set,
				    op == '+'	? has_add
				    : op == '-' ? has_del
						: has_set,
				    qos ? qos->name : item, true);
	}
	return true;
}

/* The limits associations and QOS both have, read alike; false when w
 * names none of them. No word matches one of these keywords and another
 * of either reader, so where a reader asks this changes no word's meaning. */
static bool shared_limit(struct sm_req *q, const struct sm_word *w)
{
	struct drv_rec_acct_change *c = &q->m.change;
	const char *k = w->word;
	size_t n = w->klen;
	if (sm_kw(k, n, "GrpJobs", 4))
		return count(q, w, "GrpJobs", &c->grp_jobs, &c->has_grp_jobs);
	if (sm_kw(k, n, "GrpSubmitJobs", 4))
		return count(q, w, "GrpSubmitJobs", &c->grp_submit_jobs,
			     &c->has_grp_submit_jobs);
	if (sm_kw(k, n, "GrpTRES", 7))
		return tres(q, w, &c->grp_tres);
	if (sm_kw(k, n, "MaxTRESPerJob", 7))
		return tres(q, w, &c->max_tres_per_job);
	if (sm_kw(k, n, "MaxWallDurationPerJob", 4))
		return minutes(q, w, "MaxWall", &c->max_wall, &c->has_max_wall);
	return false;
}

bool sm_set_assoc_rec(struct sm_req *q, const struct sm_word *w, const struct cli_acct *t)
{
	struct drv_rec_acct_change *c = &q->m.change;
	const char *k = w->word;
	size_t n = w->klen;
	if (!w->value)
		return false;
	if (sm_kw(k, n, "DefaultQOS", 8)) {
		const struct drv_rec_acct_qos *qos = t ? cli_acct_qos(t, w->value) : NULL;
		if (atoi(w->value) == -1) {
			c->default_qos = "";
		} else if (!qos) {
			q->bad = true;
			fprintf(stderr,
				"You gave a bad default qos '%s'.  Use 'list qos' to get "
				"complete list.\n",
				w->value);
		} else {
			c->default_qos = qos->name;
		}
		return true;
	}
	if (sm_kw(k, n, "FairShare", 1) || sm_kw(k, n, "Shares", 1)) {
		if (!strncasecmp(w->value, "parent", 6)) {
			c->shares = 2147483647;
			c->has_shares = true;
			return true;
		}
		return count(q, w, "FairShare", &c->shares, &c->has_shares);
	}
	if (shared_limit(q, w))
		return true;
	if (sm_kw(k, n, "MaxJobs", 4))
		return count(q, w, "MaxJobs", &c->max_jobs, &c->has_max_jobs);
	if (sm_kw(k, n, "MaxSubmitJobs", 4))
		return count(q, w, "MaxSubmitJobs", &c->max_submit_jobs,
			     &c->has_max_submit_jobs);
	if (sm_kw(k, n, "Parent", 2)) {
		c->parent = stripped(q, w->value, strlen(w->value), false);
		return true;
	}
	if (sm_kw(k, n, "QosLevel", 1))
		return qos_list(q, w, t, &c->qos, &c->n_qos, &c->has_qos, &c->qos_add,
				&c->n_qos_add, &c->has_qos_add, &c->qos_remove,
				&c->n_qos_remove, &c->has_qos_remove);
	return false;
}

bool sm_set_assoc_cond(struct sm_req *q, const struct sm_word *w)
{
	struct drv_rec_acct_cond *c = &q->m.cond;
	const char *k = w->word;
	size_t n = w->klen;
	if (!w->value)
		return false;
	if (sm_kw(k, n, "Accounts", 2) || sm_kw(k, n, "Acct", 4))
		return sm_list_add(q, &c->accounts, &c->n_accounts, &c->has_accounts,
				   w->value, false) ||
		       true;
	if (sm_kw(k, n, "Clusters", 1))
		return sm_list_add(q, &c->clusters, &c->n_clusters, &c->has_clusters,
				   w->value, false) ||
		       true;
	if (sm_kw(k, n, "Partitions", 3))
		return sm_list_add(q, &c->partitions, &c->n_partitions,
				   &c->has_partitions, w->value, false) ||
		       true;
	if (sm_kw(k, n, "Parents", 4))
		return sm_list_add(q, &c->parents, &c->n_parents, &c->has_parents,
				   w->value, false) ||
		       true;
	if (sm_kw(k, n, "Users", 1))
		return sm_list_add(q, &c->users, &c->n_users, &c->has_users, w->value,
				   false) ||
		       true;
	return false;
}

/* A QOS flag list: names Slurm knows, -1 for none. */
static bool qos_flags(struct sm_req *q, const struct sm_word *w)
{
	struct drv_rec_acct_change *c = &q->m.change;
	if (atoi(w->value) == -1) {
		c->has_flags = true;
		return true;
	}
	for (const char *s = w->value; *s;
	     s += strcspn(s, ",") + (s[strcspn(s, ",")] == ',')) {
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(s, ","), s);
		if (drv_qos_flag_parse(name))
			continue;
		q->bad = true;
		printf(" Unknown QOS flag used in:\n  '%s'\n Valid QOS flags are\n  '",
		       w->value);
		for (unsigned i = 0; i < DRV_QOS_FLAG_COUNT; i++)
			printf("%s%s", i ? "," : "", drv_qos_flag_name(i));
		printf("'\n");
		return true;
	}
	if (w->op == '+')
		sm_list_add(q, &c->flags_add, &c->n_flags_add, &c->has_flags_add,
			    w->value, true);
	else if (w->op == '-')
		sm_list_add(q, &c->flags_remove, &c->n_flags_remove, &c->has_flags_remove,
			    w->value, true);
	else
		sm_list_add(q, &c->flags, &c->n_flags, &c->has_flags, w->value, true);
	return true;
}

/* UsageFactor=, kept in millionths. */
static bool usage_factor(struct sm_req *q, const struct sm_word *w)
{
	struct drv_rec_acct_change *c = &q->m.change;
	char *end = NULL;
	double f = strtod(w->value, &end);
	if (!*w->value || *end || f > 1e12) {
		cli_error("Invalid value for %s (%s)", "UsageFactor", w->value);
		q->soft_bad = true;
		return true;
	}
	c->usage_factor = f < 0 ? -1 : (int64_t)(f * 1000000.0 + 0.5);
	c->has_usage_factor = true;
	return true;
}

static const char *const preempt_modes[] = {"cluster", "off",	  "cancel",
					    "requeue", "suspend", NULL};

static bool qos_rec(struct sm_req *q, const struct sm_word *w, const struct cli_acct *t);

bool sm_set_qos_rec(struct sm_req *q, const struct sm_word *w, const struct cli_acct *t)
{
	q->in_qos = true;
	bool known = qos_rec(q, w, t);
	q->in_qos = false;
	return known;
}

static bool qos_rec(struct sm_req *q, const struct sm_word *w, const struct cli_acct *t)
{
	struct drv_rec_acct_change *c = &q->m.change;
	const char *k = w->word;
	size_t n = w->klen;
	if (!w->value)
		return false;
	if (sm_kw(k, n, "Description", 1)) {
		c->description = stripped(q, w->value, strlen(w->value), false);
		return true;
	}
	if (sm_kw(k, n, "Flags", 2))
		return qos_flags(q, w);
	if (sm_kw(k, n, "GraceTime", 3))
		return count(q, w, "GraceTime", &c->grace_time, &c->has_grace_time);
	if (shared_limit(q, w))
		return true;
	if (sm_kw(k, n, "MaxJobsPerUser", 4) || sm_kw(k, n, "MaxJobsPU", 9))
		return count(q, w, "MaxJobsPU", &c->max_jobs_per_user,
			     &c->has_max_jobs_per_user);
	if (sm_kw(k, n, "MaxSubmitJobsPerUser", 4) || sm_kw(k, n, "MaxSubmitJobsPU", 10))
		return count(q, w, "MaxSubmitJobsPU", &c->max_submit_jobs_per_user,
			     &c->has_max_submit_jobs_per_user);
	if (sm_kw(k, n, "MaxTRESPerUser", 11) || sm_kw(k, n, "MaxTRESPU", 9))
		return tres(q, w, &c->max_tres_per_user);
	if (sm_kw(k, n, "PreemptMode", 8)) {
		for (size_t i = 0; preempt_modes[i]; i++)
			if (!strcasecmp(w->value, preempt_modes[i])) {
				c->preempt_mode = preempt_modes[i];
				return true;
			}
		q->bad = true;
		fprintf(stderr, " Bad Preempt Mode given: %s\n", w->value);
		return true;
	}
	if (sm_kw(k, n, "Preempt", 7))
		return qos_list(q, w, t, &c->preempt, &c->n_preempt, &c->has_preempt,
				&c->preempt_add, &c->n_preempt_add, &c->has_preempt_add,
				&c->preempt_remove, &c->n_preempt_remove,
				&c->has_preempt_remove);
	if (sm_kw(k, n, "Priority", 3))
		return count(q, w, "Priority", &c->priority, &c->has_priority);
	if (sm_kw(k, n, "UsageFactor", 6))
		return usage_factor(q, w);
	return false;
}

/* --- sending and committing --------------------------------------------------------
 */

int sm_load_tables(struct cli_acct *t, struct drv_conf **conf, const char *problem,
		   bool with_reason)
{
	struct drv_conf *c = NULL;
	struct drv_error err = {""};
	*t = (struct cli_acct){0};
	if (cli_conf_load(&c) < 0)
		return 1;
	if (cli_acct_load(c, t, &err) != 0) {
		if (with_reason)
			fprintf(stderr, "%s %s\n", problem, err.text);
		else
			fprintf(stderr, "%s\n", problem);
		cli_acct_fini(t);
		drv_conf_free(c);
		return 1;
	}
	if (conf)
		*conf = c;
	else
		drv_conf_free(c);
	return 0;
}

int sm_send(const struct drv_conf *conf, struct sm_req *q, bool dry_run,
	    struct drv_assoc_update_reply *reply, json_t **json)
{
	struct drv_error err = {""};
	q->m.dry_run = dry_run;
	json_t *body = drv_assoc_update_encode(&q->m);
	*json = NULL;
	int rc = body ? cli_call(conf, "assoc.update", body, json, &err) : -ENOMEM;
	if (rc == 0 && drv_assoc_update_reply_decode(*json, reply, &err) < 0)
		rc = -EBADMSG;
	if (rc == 0)
		return 0;
	json_decref(*json);
	*json = NULL;
	static const char *const adding[][2] = {
	    {"account", "accounts"},
	    {"user", "users"},
	    {"qos", "QOS"},
	    {"cluster", "clusters"},
	    {"coordinator", "coordinator"},
	};
	for (size_t i = 0; rc > 0 && !strcmp(q->m.action, "add") &&
			   i < sizeof(adding) / sizeof(adding[0]);
	     i++)
		if (!strcmp(q->m.entity, adding[i][0])) {
			fprintf(stderr, " Problem adding %s: %s\n", adding[i][1],
				err.text);
			return 1;
		}
	if (rc > 0)
		fprintf(stderr, " Error with request: %s\n", err.text);
	else
		cli_error("%s",
			  err.text[0] ? err.text : "Unable to contact slurm controller");
	return 1;
}

/* Prints a reply's refusal (stderr) or notice (stdout); true when it had one. */
static bool refused(const struct drv_assoc_update_reply *r)
{
	if (!r->error && !r->notice)
		return false;
	fprintf(r->error ? stderr : stdout, "%s\n", r->error ? r->error : r->notice);
	return true;
}

int sm_run(const struct sm_opts *o, struct sm_req *q, sm_show_f show, const void *arg)
{
	struct drv_conf *conf = NULL;
	struct drv_assoc_update_reply r = {0};
	json_t *json = NULL;
	bool any = false, failed = false;
	if (cli_conf_load(&conf) < 0)
		return 1;
	int rc = sm_send(conf, q, !o->immediate, &r, &json);
	if (rc == 0 && refused(&r)) {
		rc = 1;
	} else if (rc == 0) {
		any = show(q, &r, arg, &failed);
		rc = any && !failed ? 0 : 1;
	}
	if (json) {
		drv_assoc_update_reply_free(&r);
		json_decref(json);
	}
	if (any && !o->immediate &&
	    sm_commit_check("Would you like to commit changes?")) {
		r = (struct drv_assoc_update_reply){0};
		if (sm_send(conf, q, false, &r, &json) != 0) {
			rc = 1;
		} else {
			if (refused(&r))
				rc = 1;
			drv_assoc_update_reply_free(&r);
			json_decref(json);
		}
	}
	drv_conf_free(conf);
	return rc;
}
