/* sbatch_place.c — where a job may run (-w, -x, -C, -L, --mincpus, --tmp) and
 * what it is told before its end (--signal, --time-min), as job.submit
 * fields. The node names and features are checked by ctld, which knows the
 * nodes; this file only checks what Slurm's sbatch checks itself. */
#include "cli/sbatch_place.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/sbatch_res.h"
#include "cli/signame.h"
#include "common/hostlist.h"
#include "common/proto_gen.h"
#include "common/timefmt.h"

#define WARN_TIME_MAX 65535 /* Slurm keeps it in 16 bits */

int sbatch_signal_parse(const char *s, int *sig, int *secs, bool *batch)
{
	bool b = false;
	char name[32];
	long t = 60;

	if (!s)
		return -EINVAL;
	/* "B:", "R:", and both ("RB:", "BR:"), in any case */
	if (!strncasecmp(s, "RB:", 3) || !strncasecmp(s, "BR:", 3)) {
		b = true;
		s += 3;
	} else if ((toupper((unsigned char)s[0]) == 'B' ||
		    toupper((unsigned char)s[0]) == 'R') &&
		   s[1] == ':') {
		b = toupper((unsigned char)s[0]) == 'B';
		s += 2;
	}
	size_t len = strcspn(s, "@");
	if (len == 0 || len >= sizeof(name))
		return -EINVAL;
	memcpy(name, s, len);
	name[len] = '\0';
	int num;
	if (isdigit((unsigned char)name[0])) {
		char *end = NULL;
		long v = strtol(name, &end, 10);
		num = *end || v < 1 || v > 127 ? -EINVAL : (int)v;
	} else {
		num = cli_signal_parse(name);
	}
	if (num < 0)
		return -EINVAL;
	if (s[len] == '@') {
		char *end = NULL;
		const char *v = s + len + 1;
		if (!isdigit((unsigned char)*v))
			return -EINVAL;
		t = strtol(v, &end, 10);
		if (*end || t > WARN_TIME_MAX)
			return -EINVAL;
	}
	*sig = num;
	*secs = (int)t;
	*batch = b;
	return 0;
}

/* Sets job.submit's field i in body. 0 or -ENOMEM. */
static int set_json(json_t *body, size_t i, json_t *v)
{
	return json_object_set_new(body, drv_shape_job_submit.fields[i].name, v) < 0
		   ? -ENOMEM
		   : 0;
}

static int set_str(json_t *body, size_t i, const char *v)
{
	return set_json(body, i, json_string(v));
}

static int set_int(json_t *body, size_t i, json_int_t v)
{
	return set_json(body, i, json_integer(v));
}

/* -w against -N and -n, as Slurm's sbatch: more listed nodes than -N
 * allows is an error; more than -n tasks (without -N) keeps the first
 * ntasks of them, with a warning. Returns the count to keep or -EINVAL. */
static int fit_count(const struct sbatch_opts *o, size_t n, struct drv_error *err,
		     struct drv_error *warn)
{
	int64_t min, max;
	if (o->nodes && sbatch_nodes_parse(o->nodes, &min, &max) == 0) {
		if (max == SBATCH_UNSET)
			max = min;
		if ((int64_t)n > max)
			return drv_error_set(err, EINVAL,
					     "invalid number of nodes (-N %zu-%lld)", n,
					     (long long)max);
		return (int)n;
	}
	char *end = NULL;
	long tasks = o->ntasks ? strtol(o->ntasks, &end, 10) : 0;
	if (tasks > 0 && !*end && (size_t)tasks < n) {
		drv_error_set(
		    warn, 0,
		    "can't run %ld processes on %zu nodes, setting nnodes to %ld", tasks,
		    n, tasks);
		return (int)tasks;
	}
	return (int)n;
}

/* A -w/-x hostlist, compressed as Slurm prints it; a bad expression is
 * left for ctld, which refuses it with "Invalid node name specified". */
static int nodes_opt(const struct sbatch_opts *o, json_t *body, size_t key,
		     const char *arg, struct drv_error *err, struct drv_error *warn)
{
	char **v = NULL;
	size_t n = 0;
	struct drv_error e;
	if (!arg || !*arg)
		return 0;
	if (drv_hostlist_expand(arg, &v, &n, &e) < 0 || n == 0)
		return set_str(body, key, arg);
	if (warn) { /* -w: duplicates count once */
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			size_t j = 0;
			while (j < k && strcmp(v[j], v[i]))
				j++;
			if (j < k) {
				free(v[i]);
				continue;
			}
			v[k++] = v[i];
		}
		int keep = fit_count(o, k, err, warn);
		if (keep < 0) {
			drv_strv_free(v, k);
			return keep;
		}
		for (size_t i = (size_t)keep; i < k; i++)
			free(v[i]);
		n = (size_t)keep;
		if (warn->text[0] &&
		    set_int(body, DRV_JOB_SUBMIT__NODES, keep) < 0) { /* -N keep */
			drv_strv_free(v, n);
			return -ENOMEM;
		}
	}
	char *text = drv_hostlist_compress(v, n);
	drv_strv_free(v, n);
	int rc = text ? set_str(body, key, text) : -ENOMEM;
	free(text);
	return rc;
}

static int signal_opts(const struct sbatch_opts *o, json_t *body, struct drv_error *err)
{
	int sig, secs, rc = 0;
	bool batch;
	if (o->signal) {
		if (sbatch_signal_parse(o->signal, &sig, &secs, &batch) < 0) {
			drv_error_set(err, EINVAL, "Invalid --signal specification");
			return -EDOM;
		}
		rc |= set_int(body, DRV_JOB_SUBMIT__SIGNAL, sig);
		rc |= set_int(body, DRV_JOB_SUBMIT__SIGNAL_TIME, secs);
		rc |= set_json(body, DRV_JOB_SUBMIT__SIGNAL_BATCH, json_boolean(batch));
	}
	if (o->time_min) {
		int64_t t;
		if (drv_time_parse_limit(o->time_min, &t) < 0) {
			drv_error_set(err, EINVAL, "Invalid --time-min specification");
			return -EDOM;
		}
		if (t > 0)
			rc |= set_int(body, DRV_JOB_SUBMIT__TIME_MIN, t);
	}
	return rc ? -ENOMEM : 0;
}

int sbatch_place_to_json(const struct sbatch_opts *o, json_t *body, struct drv_error *err,
			 struct drv_error *warn)
{
	int rc = signal_opts(o, body, err);
	if (rc < 0)
		return rc;
	if (o->mincpus) {
		char *end = NULL;
		long v = strtol(o->mincpus, &end, 10);
		if (end == o->mincpus || *end || v <= 0 || v > 1048576)
			return drv_error_set(
			    err, EINVAL, "Invalid numeric value \"%s\" for --mincpus.",
			    o->mincpus);
		if (set_int(body, DRV_JOB_SUBMIT__MIN_CPUS, v) < 0)
			return -ENOMEM;
	}
	if (o->tmp) {
		int64_t mb;
		if (sbatch_mem_parse(o->tmp, &mb) < 0) {
			drv_error_set(err, EINVAL, "Invalid --tmp specification");
			return -EDOM;
		}
		if (mb > 0 && set_int(body, DRV_JOB_SUBMIT__TMP, mb) < 0)
			return -ENOMEM;
	}
	if (o->constraint && *o->constraint &&
	    set_str(body, DRV_JOB_SUBMIT__FEATURES, o->constraint) < 0)
		return -ENOMEM;
	if (o->licenses && *o->licenses &&
	    set_str(body, DRV_JOB_SUBMIT__LICENSES, o->licenses) < 0)
		return -ENOMEM;
	rc = nodes_opt(o, body, DRV_JOB_SUBMIT__REQ_NODES, o->nodelist, err, warn);
	if (rc == 0)
		rc = nodes_opt(o, body, DRV_JOB_SUBMIT__EXC_NODES, o->exclude, err, NULL);
	return rc;
}
