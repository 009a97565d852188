/* assoc.c — (user, account) pairs from the accounting history (assoc.h).
 * One acct.query; the pairs are made distinct and sorted here. */
#include "cli/assoc.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"
#include "common/proto_gen.h"

static int cmp(const void *a, const void *b)
{
	const struct cli_assoc *x = a, *y = b;
	int c = strcmp(x->user, y->user);

	return c ? c : strcmp(x->account, y->account);
}

/* Adds the pair of one job record unless it is there already. */
static int add(struct cli_assoc **v, size_t *n, const struct drv_rec_job *job)
{
	const char *acct = job->account;
	const char *user = job->user ? job->user : "";
	struct cli_assoc *nv;

	if (!acct || !*acct)
		return 0;
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].user, user) && !strcmp((*v)[i].account, acct))
			return 0;
	nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = (struct cli_assoc){strdup(user), strdup(acct), job->uid};
	if (!nv[*n].user || !nv[*n].account) {
		free(nv[*n].user);
		free(nv[*n].account);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

int cli_assoc_load(const struct drv_conf *conf, const int64_t *uids, size_t n,
		   struct cli_assoc **out, size_t *count, struct drv_error *err)
{
	struct drv_acct_query q = {0};
	struct drv_acct_query_reply r = {0};
	json_t *body = drv_acct_query_encode(&q), *reply = NULL;
	struct cli_assoc *v = NULL;
	size_t nv = 0;
	int rc;

	if (n > 0) {
		json_t *a = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(a, json_integer(uids[i]));
		cli_body_set(body, &drv_shape_acct_query, DRV_ACCT_QUERY__UIDS, a);
		json_decref(a);
	}
	rc = cli_call(conf, "acct.query", body, &reply, err);
	if (rc != 0)
		return rc;
	if ((rc = drv_acct_query_reply_decode(reply, &r, err)) < 0) {
		json_decref(reply);
		return rc;
	}
	for (size_t i = 0; rc == 0 && i < r.n_jobs; i++)
		rc = add(&v, &nv, &r.jobs[i]);
	drv_acct_query_reply_free(&r);
	json_decref(reply);
	if (rc < 0) {
		cli_assoc_free(v, nv);
		return drv_error_set(err, ENOMEM, "out of memory");
	}
	if (nv > 1)
		qsort(v, nv, sizeof(*v), cmp);
	*out = v;
	*count = nv;
	return 0;
}

void cli_assoc_free(struct cli_assoc *a, size_t count)
{
	for (size_t i = 0; a && i < count; i++) {
		free(a[i].user);
		free(a[i].account);
	}
	free(a);
}

void cli_assoc_uids(const char *list, int64_t *uids, size_t max, size_t *n,
		    size_t *unknown)
{
	char *copy = strdup(list), *save = NULL;

	*n = 0;
	*unknown = 0;
	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t;
	     t = strtok_r(NULL, ",", &save)) {
		struct passwd *pw = getpwnam(t);
		int64_t uid;

		if (!pw && cli_parse_int(t, 0, UINT32_MAX, &uid) == 0)
			pw = getpwuid((uid_t)uid);
		if (!pw)
			(*unknown)++;
		else if (*n < max)
			uids[(*n)++] = pw->pw_uid;
	}
	free(copy);
}
