/* env.c — the batch job's environment, as Slurm's slurmstepd builds it.
 *
 * Starts from the env the user submitted (sbatch already applied --export),
 * then sets the SLURM_* variables a batch script expects, overriding any
 * stale copies the submit environment carried (e.g. sbatch run inside an
 * allocation). Nothing here looks at the host beyond the passwd entry. */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/hostlist.h"
#include "shepherd/shepherd.h"

void env_free(char **envp)
{
	if (!envp)
		return;
	for (char **p = envp; *p; p++)
		free(*p);
	free(envp);
}

static size_t env_len(char **envp)
{
	size_t n = 0;
	while (envp[n])
		n++;
	return n;
}

int env_set(char ***envp, const char *name, const char *value)
{
	char *entry;
	if (asprintf(&entry, "%s=%s", name, value) < 0)
		return -ENOMEM;
	size_t nlen = strlen(name), n = env_len(*envp);
	for (size_t i = 0; i < n; i++) {
		if (strncmp((*envp)[i], name, nlen) == 0 && (*envp)[i][nlen] == '=') {
			free((*envp)[i]);
			(*envp)[i] = entry;
			return 0;
		}
	}
	char **grown = realloc(*envp, (n + 2) * sizeof(*grown));
	if (!grown) {
		free(entry);
		return -ENOMEM;
	}
	grown[n] = entry;
	grown[n + 1] = NULL;
	*envp = grown;
	return 0;
}

void env_unset(char **envp, const char *name)
{
	size_t nlen = strlen(name), n = env_len(envp);
	for (size_t i = 0; i < n; i++) {
		if (strncmp(envp[i], name, nlen) == 0 && envp[i][nlen] == '=') {
			free(envp[i]);
			memmove(&envp[i], &envp[i + 1], (n - i) * sizeof(*envp));
			return;
		}
	}
}

static int env_set_int(char ***envp, const char *name, long long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", v);
	return env_set(envp, name, buf);
}

static bool env_has(char **envp, const char *name)
{
	size_t nlen = strlen(name);
	for (char **p = envp; *p; p++) {
		if (strncmp(*p, name, nlen) == 0 && (*p)[nlen] == '=')
			return true;
	}
	return false;
}

/* The nodelist as Slurm prints it, whatever form ctld sent. */
static char *compressed_nodelist(const struct spec *s)
{
	char **names;
	size_t n;
	if (drv_hostlist_expand(s->nodelist, &names, &n, NULL) < 0)
		return strdup(s->nodelist);
	char *out = drv_hostlist_compress(names, n);
	drv_strv_free(names, n);
	return out;
}

/* What a login would give when --export=NONE left them out. */
static int set_login_defaults(char ***envp, const struct spec *s)
{
	int rc = 0;
	if (!env_has(*envp, "PATH"))
		rc |= env_set(envp, "PATH", "/usr/local/bin:/usr/bin:/bin");
	struct passwd *pw = getpwuid(s->uid);
	if (pw && !env_has(*envp, "HOME"))
		rc |= env_set(envp, "HOME", pw->pw_dir);
	if (!env_has(*envp, "USER"))
		rc |= env_set(envp, "USER", s->user);
	if (!env_has(*envp, "LOGNAME"))
		rc |= env_set(envp, "LOGNAME", s->user);
	return rc;
}

static int set_slurm_vars(char ***e, const struct spec *s, const char *nodes)
{
	int rc = 0;
	rc |= env_set_int(e, "SLURM_JOB_ID", s->job_id);
	rc |= env_set_int(e, "SLURM_JOBID", s->job_id);
	rc |= env_set(e, "SLURM_JOB_NAME", s->name);
	rc |= env_set(e, "SLURM_SUBMIT_DIR", s->submit_dir);
	rc |= env_set(e, "SLURM_SUBMIT_HOST", s->submit_host);
	rc |= env_set(e, "SLURM_JOB_NODELIST", nodes);
	rc |= env_set(e, "SLURM_NODELIST", nodes);
	rc |= env_set_int(e, "SLURM_JOB_NUM_NODES", s->num_nodes);
	rc |= env_set_int(e, "SLURM_NNODES", s->num_nodes);
	rc |= env_set(e, "SLURM_CLUSTER_NAME", s->cluster);
	rc |= env_set(e, "SLURM_JOB_PARTITION", s->partition);
	rc |= env_set(e, "SLURMD_NODENAME", s->node);
	rc |= env_set(e, "SLURM_JOB_USER", s->user);
	rc |= env_set_int(e, "SLURM_JOB_UID", (long long)s->uid);
	rc |= env_set_int(e, "SLURM_JOB_GID", (long long)s->gid);
	rc |= env_set(e, "SLURM_NODEID", "0");
	rc |= env_set(e, "SLURM_PROCID", "0");
	rc |= env_set(e, "SLURM_LOCALID", "0");
	rc |= env_set(e, "SLURM_GTIDS", "0");
	if (s->restart > 0)
		rc |= env_set_int(e, "SLURM_RESTART_COUNT", s->restart);
	if (s->array_job_id > 0 && s->array_task_id >= 0) {
		rc |= env_set_int(e, "SLURM_ARRAY_JOB_ID", s->array_job_id);
		rc |= env_set_int(e, "SLURM_ARRAY_TASK_ID", s->array_task_id);
		rc |= env_set_int(e, "SLURM_ARRAY_TASK_COUNT", s->array_count);
		rc |= env_set_int(e, "SLURM_ARRAY_TASK_MIN", s->array_min);
		rc |= env_set_int(e, "SLURM_ARRAY_TASK_MAX", s->array_max);
		rc |= env_set_int(e, "SLURM_ARRAY_TASK_STEP", s->array_step);
	}
	rc |= env_set(e, "ENVIRONMENT", "BATCH");
	if (*s->conf_path) {
		rc |= env_set(e, "SLURM_CONF", s->conf_path);
		rc |= env_set(e, "DROVER_CONF", s->conf_path);
	}
	return rc;
}

/* Sets name to v unless v is -1 (not given). */
static int set_given(char ***e, const char *name, int64_t v)
{
	return v >= 0 ? env_set_int(e, name, v) : 0;
}

static int set_str_given(char ***e, const char *name, const char *v)
{
	return v && *v ? env_set(e, name, v) : 0;
}

/* What ctld allocated, each under the condition Slurm sets it: tasks only
 * with -n, per-task CPUs only with -c, memory only the kind requested. */
static int set_resource_vars(char ***e, const struct spec *s)
{
	int rc = 0;
	if (s->ntasks_given && s->ntasks > 0) {
		rc |= env_set_int(e, "SLURM_NTASKS", s->ntasks);
		rc |= env_set_int(e, "SLURM_NPROCS", s->ntasks);
	}
	rc |= set_given(e, "SLURM_NTASKS_PER_NODE", s->ntasks_per_node);
	rc |= set_str_given(e, "SLURM_TASKS_PER_NODE", s->tasks_per_node);
	rc |= set_given(e, "SLURM_CPUS_ON_NODE", s->cpus_on_node);
	rc |= set_given(e, "SLURM_CPUS_PER_TASK", s->cpus_per_task);
	rc |= set_str_given(e, "SLURM_JOB_CPUS_PER_NODE", s->job_cpus_per_node);
	if (s->mem_per_cpu >= 0)
		rc |= env_set_int(e, "SLURM_MEM_PER_CPU", s->mem_per_cpu);
	else
		rc |= set_given(e, "SLURM_MEM_PER_NODE", s->mem_per_node);
	rc |= set_str_given(e, "SLURM_JOB_ACCOUNT", s->account);
	rc |= env_set(e, "SLURM_JOB_QOS", s->qos && *s->qos ? s->qos : "normal");
	rc |= set_str_given(e, "SLURM_JOB_DEPENDENCY", s->dependency);
	return rc;
}

/* GPUs: without device constraint CUDA_VISIBLE_DEVICES holds the same
 * node-global indices as SLURM_JOB_GPUS, as Slurm sets it. */
static int set_gpu_vars(char ***e, const struct spec *s)
{
	int rc = 0;
	if (s->gpus && *s->gpus) {
		rc |= env_set_int(e, "SLURM_GPUS_ON_NODE", s->n_gpus);
		rc |= env_set(e, "SLURM_JOB_GPUS", s->gpus);
		rc |= env_set(e, "GPU_DEVICE_ORDINAL", s->gpus);
		rc |= env_set(e, "CUDA_VISIBLE_DEVICES", s->gpus);
	}
	rc |= set_given(e, "SLURM_GPUS", s->gpus_total);
	rc |= set_given(e, "SLURM_GPUS_PER_NODE", s->gpus_per_node);
	return rc;
}

/* Set by sbatch from the submitting process; filled in here when the submit
 * environment lacks them (--export=NONE, an older client). */
static int set_submit_defaults(char ***e, const struct spec *s)
{
	int rc = 0;
	if (!env_has(*e, "SLURM_PRIO_PROCESS"))
		rc |= env_set(e, "SLURM_PRIO_PROCESS", "0");
	if (!env_has(*e, "SLURM_UMASK")) {
		mode_t m = umask(022);
		umask(m);
		char buf[16];
		snprintf(buf, sizeof(buf), "%04o", (unsigned)m);
		rc |= env_set(e, "SLURM_UMASK", buf);
	}
	rc |= env_set(e, "SLURM_TOPOLOGY_ADDR", s->node);
	rc |= env_set(e, "SLURM_TOPOLOGY_ADDR_PATTERN", "node");
	return rc;
}

char **env_build(const struct spec *s)
{
	char **envp = calloc(1, sizeof(*envp));
	if (!envp)
		return NULL;
	int rc = 0;
	for (size_t i = 0; i < s->n_env && rc == 0; i++) {
		const char *eq = strchr(s->env[i], '=');
		if (!eq || eq == s->env[i])
			continue;
		char *name = strndup(s->env[i], (size_t)(eq - s->env[i]));
		rc = name ? env_set(&envp, name, eq + 1) : -ENOMEM;
		free(name);
	}
	char *nodes = rc == 0 ? compressed_nodelist(s) : NULL;
	if (!nodes || set_slurm_vars(&envp, s, nodes) != 0 ||
	    set_resource_vars(&envp, s) != 0 || set_gpu_vars(&envp, s) != 0 ||
	    set_submit_defaults(&envp, s) != 0 || set_login_defaults(&envp, s) != 0) {
		free(nodes);
		env_free(envp);
		return NULL;
	}
	free(nodes);
	return envp;
}
