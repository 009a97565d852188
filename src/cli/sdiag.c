/* sdiag.c — ctld's counters (stats.query) in Slurm 22.05's sdiag layout;
 * -r resets them (administrators only). The RPC tables are sorted as
 * sdiag sorts them: by count (default), id (-i), total time (-t) or
 * average time (-T), largest first except by id. */
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/common.h"
#include "common/proto.h"
#include "common/proto_gen.h"

enum sort_by { SORT_COUNT, SORT_ID, SORT_TIME, SORT_TIME2 };

enum { OPT_USAGE = 0x100 };

static const struct option long_opts[] = {{"all", no_argument, 0, 'a'},
					  {"help", no_argument, 0, 'h'},
					  {"reset", no_argument, 0, 'r'},
					  {"sort-by-id", no_argument, 0, 'i'},
					  {"cluster", required_argument, 0, 'M'},
					  {"clusters", required_argument, 0, 'M'},
					  {"sort-by-time", no_argument, 0, 't'},
					  {"sort-by-time2", no_argument, 0, 'T'},
					  {"usage", no_argument, 0, OPT_USAGE},
					  {"version", no_argument, 0, 'V'},
					  {NULL, 0, 0, 0}};

static void help(void)
{
	printf("Usage: sdiag [OPTIONS]\n"
	       "  -a, --all           all statistics\n"
	       "  -r, --reset         reset statistics\n"
	       "  -M, --cluster       direct the request to a specific cluster\n"
	       "  -i, --sort-by-id    sort RPCs by id\n"
	       "  -t, --sort-by-time  sort RPCs by total run time\n"
	       "  -T, --sort-by-time2 sort RPCs by average run time\n"
	       "  -V, --version       display current version number\n"
	       "\nHelp options:\n"
	       "  --help          show this help message\n"
	       "  --usage         display brief usage message\n");
}

/* One row of a table: its name (or uid), id, count and total time. */
struct row {
	const char *name;
	int64_t id, count, usec, ave;
};

static enum sort_by sort_by;

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int64_t kx = sort_by == SORT_ID	     ? -x->id
		     : sort_by == SORT_TIME  ? x->usec
		     : sort_by == SORT_TIME2 ? x->ave
					     : x->count;
	int64_t ky = sort_by == SORT_ID	     ? -y->id
		     : sort_by == SORT_TIME  ? y->usec
		     : sort_by == SORT_TIME2 ? y->ave
					     : y->count;
	return (kx < ky) - (kx > ky);
}

/* rows[] from [[name_or_uid, (id,) count, usec]] arrays; users has no id. */
static struct row *read_rows(json_t *a, bool users, size_t *n)
{
	*n = json_array_size(a);
	struct row *v = calloc(*n + 1, sizeof(*v));
	for (size_t i = 0; v && i < *n; i++) {
		json_t *x = json_array_get(a, i);
		size_t k = users ? 0 : 1;
		v[i].name = json_string_value(json_array_get(x, 0));
		v[i].id = json_integer_value(json_array_get(x, k));
		v[i].count = json_integer_value(json_array_get(x, k + 1));
		v[i].usec = json_integer_value(json_array_get(x, k + 2));
		v[i].ave = v[i].count ? v[i].usec / v[i].count : 0;
	}
	if (v && *n)
		qsort(v, *n, sizeof(*v), cmp_rows);
	return v;
}

static int64_t num(json_t *o, const char *key)
{
	return json_integer_value(json_object_get(o, key));
}

/* Slurm's slurm_ctime2: "Wed Dec 02 05:05:55 2026". */
static void print_time(const char *label, json_t *o, const char *key)
{
	time_t t = (time_t)num(o, key);
	struct tm tm;
	char buf[64];
	localtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%a %b %d %H:%M:%S %Y", &tm);
	printf("%s%s (%lld)\n", label, buf, (long long)t);
}

static void print_head(json_t *o)
{
	printf("*******************************************************\n");
	print_time("sdiag output at ", o, "req_time");
	print_time("Data since      ", o, "req_time_start");
	printf("*******************************************************\n");
	printf("Server thread count:  %lld\n", (long long)num(o, "server_thread_count"));
	printf("Agent queue size:     %lld\n", (long long)num(o, "agent_queue_size"));
	printf("Agent count:          %lld\n", (long long)num(o, "agent_count"));
	printf("Agent thread count:   %lld\n", (long long)num(o, "agent_thread_count"));
	printf("DBD Agent queue size: %lld\n\n",
	       (long long)num(o, "dbd_agent_queue_size"));
	printf("Jobs submitted: %lld\n", (long long)num(o, "jobs_submitted"));
	printf("Jobs started:   %lld\n", (long long)num(o, "jobs_started"));
	printf("Jobs completed: %lld\n", (long long)num(o, "jobs_completed"));
	printf("Jobs canceled:  %lld\n", (long long)num(o, "jobs_canceled"));
	printf("Jobs failed:    %lld\n\n", (long long)num(o, "jobs_failed"));
	print_time("Job states ts:  ", o, "job_states_ts");
	printf("Jobs pending:   %lld\n", (long long)num(o, "jobs_pending"));
	printf("Jobs running:   %lld\n", (long long)num(o, "jobs_running"));
	/* Drover's own (docs/anomaly.md): only while the policy is on */
	if (json_object_get(o, "anomaly_memory")) {
		printf("Jobs frozen (MemoryAnomaly):     %lld\n",
		       (long long)num(o, "anomaly_memory"));
		printf("Jobs frozen (SecurityViolation): %lld\n",
		       (long long)num(o, "anomaly_security"));
	}
}

static void print_main(json_t *o)
{
	int64_t n = num(o, "schedule_cycle_counter");
	int64_t span = num(o, "req_time") - num(o, "req_time_start");
	printf("\nMain schedule statistics (microseconds):\n");
	printf("\tLast cycle:   %lld\n", (long long)num(o, "schedule_cycle_last"));
	printf("\tMax cycle:    %lld\n", (long long)num(o, "schedule_cycle_max"));
	printf("\tTotal cycles: %lld\n", (long long)n);
	if (n > 0) {
		printf("\tMean cycle:   %lld\n",
		       (long long)(num(o, "schedule_cycle_sum") / n));
		printf("\tMean depth cycle:  %lld\n",
		       (long long)(num(o, "schedule_cycle_depth") / n));
	}
	if (span > 60)
		printf("\tCycles per minute: %lld\n", (long long)(n / (span / 60)));
	printf("\tLast queue length: %lld\n", (long long)num(o, "schedule_queue_len"));
}

static void print_bf_mean(json_t *o, const char *label, const char *key, int64_t n)
{
	if (n > 0)
		printf("\t%s%lld\n", label, (long long)(num(o, key) / n));
}

static void print_backfill(json_t *o)
{
	int64_t n = num(o, "bf_cycle_counter");
	printf("\nBackfilling stats\n");
	printf("\tTotal backfilled jobs (since last slurm start): %lld\n",
	       (long long)num(o, "bf_backfilled_jobs"));
	printf("\tTotal backfilled jobs (since last stats cycle start): %lld\n",
	       (long long)num(o, "bf_last_backfilled_jobs"));
	printf("\tTotal backfilled heterogeneous job components: 0\n");
	printf("\tTotal cycles: %lld\n", (long long)n);
	if (num(o, "bf_when_last_cycle") > 0)
		print_time("\tLast cycle when: ", o, "bf_when_last_cycle");
	else
		printf("\tLast cycle when: N/A\n");
	printf("\tLast cycle: %lld\n", (long long)num(o, "bf_cycle_last"));
	printf("\tMax cycle:  %lld\n", (long long)num(o, "bf_cycle_max"));
	print_bf_mean(o, "Mean cycle: ", "bf_cycle_sum", n);
	printf("\tLast depth cycle: %lld\n", (long long)num(o, "bf_last_depth"));
	printf("\tLast depth cycle (try sched): %lld\n",
	       (long long)num(o, "bf_last_depth_try"));
	print_bf_mean(o, "Depth Mean: ", "bf_depth_sum", n);
	print_bf_mean(o, "Depth Mean (try depth): ", "bf_depth_try_sum", n);
	printf("\tLast queue length: %lld\n", (long long)num(o, "bf_queue_len"));
	print_bf_mean(o, "Queue length mean: ", "bf_queue_len_sum", n);
	printf("\tLast table size: %lld\n", (long long)num(o, "bf_table_size"));
	print_bf_mean(o, "Mean table size: ", "bf_table_size_sum", n);
}

static void print_rpcs(json_t *types, json_t *users)
{
	size_t n;
	struct row *v = read_rows(types, false, &n);
	printf("\nRemote Procedure Call statistics by message type\n");
	for (size_t i = 0; v && i < n; i++)
		printf("\t%-40s(%5lld) count:%-6lld ave_time:%-6lld total_time:%lld\n",
		       v[i].name ? v[i].name : "", (long long)v[i].id,
		       (long long)v[i].count, (long long)v[i].ave, (long long)v[i].usec);
	free(v);
	v = read_rows(users, true, &n);
	printf("\nRemote Procedure Call statistics by user\n");
	for (size_t i = 0; v && i < n; i++) {
		const struct passwd *pw = getpwuid((uid_t)v[i].id);
		char uid[24];
		snprintf(uid, sizeof(uid), "%lld", (long long)v[i].id);
		printf("\t%-16s(%8lld) count:%-6lld ave_time:%-6lld total_time:%lld\n",
		       pw ? pw->pw_name : uid, (long long)v[i].id, (long long)v[i].count,
		       (long long)v[i].ave, (long long)v[i].usec);
	}
	free(v);
	/* ctld answers every request in the turn it arrives: none waits */
	printf("\nPending RPC statistics\n\tNo pending RPCs\n");
}

static int query(bool reset)
{
	struct drv_conf *conf = NULL;
	struct drv_error err = {{0}};
	json_t *reply = NULL;
	const char *what = reset ? "slurm_reset_statistics" : "slurm_get_statistics";
	if (cli_conf_load(&conf) < 0)
		return 1;
	struct drv_stats_query q = {.reset = reset};
	int rc = cli_call(conf, "stats.query", drv_stats_query_encode(&q), &reply, &err);
	drv_conf_free(conf);
	if (rc != 0) {
		fprintf(stderr, "%s: %s\n", what,
			err.text[0] ? err.text
			: rc > 0
			    ? drv_rc_text(rc)
			    : "Unable to contact slurm controller (connect failure)");
		json_decref(reply);
		return 255; /* Slurm exits with SLURM_ERROR */
	}
	if (reset) {
		printf("Reset scheduling statistics\n");
	} else {
		json_t *o = json_object_get(reply, "counters");
		print_head(o);
		print_main(o);
		print_backfill(o);
		printf("\nLatency for 1000 calls to gettimeofday(): %lld microseconds\n",
		       (long long)num(o, "gettimeofday_latency"));
		print_rpcs(json_object_get(reply, "rpc_types"),
			   json_object_get(reply, "rpc_users"));
	}
	json_decref(reply);
	return 0;
}

int main(int argc, char **argv)
{
	bool reset = false;
	int c;
	cli_init("sdiag");
	argv[0] = (char *)"sdiag";
	while ((c = getopt_long(argc, argv, "ahiM:rtTV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			reset = false;
			break;
		case 'h':
			help();
			return 0;
		case 'i':
			sort_by = SORT_ID;
			break;
		case 'r':
			reset = true;
			break;
		case 't':
			sort_by = SORT_TIME;
			break;
		case 'T':
			sort_by = SORT_TIME2;
			break;
		case 'V':
			cli_print_version();
			return 0;
		case OPT_USAGE:
			printf("Usage: sdiag [-M cluster] [-aritT]\n");
			return 0;
		case 'M':
			break; /* one cluster: accepted, as scontrol's -M */
		default:
			fprintf(stderr, "Try \"sdiag --help\" for more information\n");
			return 1;
		}
	}
	return query(reset);
}
