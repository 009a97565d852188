/* jobrec.c — reading a job record and the values derived from it that
 * both squeue and scontrol print. */
#include "cli/jobrec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/common.h"

void cli_job_from_json(const json_t *o, struct cli_job *j)
{
	memset(j, 0, sizeof(*j));
	j->job_id = cli_json_int(o, "job_id", 0);
	j->name = cli_json_str(o, "name", "");
	j->user = cli_json_str(o, "user", "");
	j->partition = cli_json_str(o, "partition", "");
	j->state = cli_json_str(o, "state", "");
	j->reason = cli_json_str(o, "reason", "None");
	j->nodelist = cli_json_str(o, "nodelist", "");
	j->batch_host = cli_json_str(o, "batch_host", "");
	j->workdir = cli_json_str(o, "workdir", "");
	j->submit_host = cli_json_str(o, "submit_host", "");
	j->command = cli_json_str(o, "command", "");
	j->std_out = cli_json_str(o, "stdout", NULL);
	j->std_err = cli_json_str(o, "stderr", NULL);
	j->comment = cli_json_str(o, "comment", NULL);
	j->hold = cli_json_str(o, "hold", NULL);
	j->uid = cli_json_int(o, "uid", 0);
	j->gid = cli_json_int(o, "gid", 0);
	j->num_nodes = cli_json_int(o, "num_nodes", 1);
	j->cpus = cli_json_int(o, "cpus", 1);
	j->priority = cli_json_int(o, "priority", 0);
	j->restart_count = cli_json_int(o, "restart_count", 0);
	j->time_limit = cli_json_int(o, "time_limit", -1);
	j->submit_time = cli_json_int(o, "submit_time", 0);
	j->eligible_time = cli_json_int(o, "eligible_time", 0);
	j->start_time = cli_json_int(o, "start_time", 0);
	j->end_time = cli_json_int(o, "end_time", 0);
	j->exit_code = cli_json_int(o, "exit_code", 0);
	j->exit_signal = cli_json_int(o, "exit_signal", 0);
	j->account = cli_json_str(o, "account", NULL);
	j->qos = cli_json_str(o, "qos", "normal");
	j->gres = cli_json_str(o, "gres", NULL);
	j->dependency = cli_json_str(o, "dependency", NULL);
	j->tres = cli_json_str(o, "tres", NULL);
	j->std_in = cli_json_str(o, "stdin", NULL);
	j->nice = cli_json_int(o, "nice", 0);
	j->ntasks = cli_json_int(o, "ntasks", 1);
	j->gpus = cli_json_int(o, "gpus", 0);
	j->cpus_per_task = cli_json_int(o, "cpus_per_task", -1);
	j->ntasks_per_node = cli_json_int(o, "ntasks_per_node", -1);
	j->min_memory = cli_json_int(o, "min_memory", 0);
	j->min_memory_text = cli_json_str(o, "min_memory", NULL);
	j->mem_per_cpu = cli_json_bool(o, "mem_per_cpu", false);
	j->exclusive = cli_json_bool(o, "exclusive", false);
}

void cli_mem_fmt(int64_t mib, char *buf, size_t len)
{
	if (mib > 0 && mib % (1024 * 1024) == 0)
		snprintf(buf, len, "%lldT", (long long)(mib / (1024 * 1024)));
	else if (mib > 0 && mib % 1024 == 0)
		snprintf(buf, len, "%lldG", (long long)(mib / 1024));
	else if (mib > 0)
		snprintf(buf, len, "%lldM", (long long)mib);
	else
		snprintf(buf, len, "0");
}

int64_t cli_job_elapsed(const struct cli_job *job, int64_t now)
{
	int64_t end;

	if (!strcmp(job->state, "PENDING") || job->start_time <= 0)
		return 0;
	end = (job->end_time > 0 && strcmp(job->state, "RUNNING")) ? job->end_time : now;
	return end > job->start_time ? end - job->start_time : 0;
}

/* Appends the expansion of one "%c" to f. */
static void expand_one(FILE *f, const struct cli_job *job, char c)
{
	switch (c) {
	case 'j':
	case 'A':
		fprintf(f, "%lld", (long long)job->job_id);
		break;
	case 'x':
		fputs(job->name, f);
		break;
	case 'u':
		fputs(job->user, f);
		break;
	case '%':
		fputc('%', f);
		break;
	default:
		fputc('%', f);
		fputc(c, f);
	}
}

char *cli_job_stdio_path(const struct cli_job *job, const char *pattern)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	if (!pattern)
		pattern = "slurm-%j.out";
	if (pattern[0] != '/')
		fprintf(f, "%s/", job->workdir);
	for (const char *p = pattern; *p; p++) {
		if (*p == '%' && p[1]) {
			expand_one(f, job, *++p);
		} else {
			fputc(*p, f);
		}
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}
