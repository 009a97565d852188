/* cgroup.c — whether this node's jobs get cgroups, decided once at start-up
 * (cgroup.conf's CgroupPlugin and CgroupMountpoint) and logged once, and
 * the cgroup object (node_spec's) that tells each shepherd what to make:
 * cgroup.conf's limits as they stand (it may be reread on reconfigure), the
 * job's CPUs mapped to this host's, and the device files of its GPUs. The
 * shepherd (isolate.c) does the work; noded never touches a cgroup itself.
 *
 * Local mode: a node may declare more CPUs than the host has. CPU i of the
 * node is then host CPU i mod the host's count (of the CPUs noded may run
 * on, in order), said once in the log. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cgroup.h"
#include "common/cgroup_freeze.h"
#include "common/cpuset.h"
#include "common/hostlist.h"
#include "common/log.h"
#include "noded/noded.h"

static const char *version_name(enum cg_version v)
{
	return v == CG_V2 ? "v2" : v == CG_V1 ? "v1" : "none";
}

static void cgroup_scope(const struct noded *nd, char *buf, size_t len);

/* The CPUs this noded may run on, in order; one line when the node
 * declares more. */
static void host_cpus_init(struct noded *nd)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	free(nd->host_cpus);
	nd->n_host_cpus = 0;
	nd->host_cpus = calloc(CPU_SETSIZE, sizeof(*nd->host_cpus));
	if (!nd->host_cpus)
		return;
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		CPU_SET(0, &set);
	for (uint32_t i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			nd->host_cpus[nd->n_host_cpus++] = i;
	if (nd->cpus > 0 && (uint32_t)nd->cpus > nd->n_host_cpus)
		log_info("node=%s: CPUs=%d but this host gives noded %u: job cpusets map "
			 "the node's CPU i to host CPU i mod %u",
			 nd->name, nd->cpus, nd->n_host_cpus, nd->n_host_cpus);
}

int noded_cgroup_map_cpus(const struct noded *nd, const char *cpu_ids, char *out,
			  size_t len)
{
	uint32_t bits = nd->cpus > 0 ? (uint32_t)nd->cpus : 1;
	uint32_t host_bits = nd->n_host_cpus ? nd->host_cpus[nd->n_host_cpus - 1] + 1 : 1;
	uint64_t *in = calloc(DRV_CPUSET_WORDS(bits), sizeof(uint64_t));
	uint64_t *host = calloc(DRV_CPUSET_WORDS(host_bits), sizeof(uint64_t));
	int rc = in && host ? drv_cpuset_parse(cpu_ids, in, bits) : -ENOMEM;
	for (uint32_t i = 0; rc == 0 && i < bits && nd->n_host_cpus; i++) {
		if (!(in[i / 64] >> (i % 64) & 1))
			continue;
		uint32_t h = nd->host_cpus[i % nd->n_host_cpus];
		host[h / 64] |= 1ULL << (h % 64);
	}
	if (rc == 0 && drv_cpuset_format(host, host_bits, out, len) >= len)
		rc = -ENAMETOOLONG;
	if (rc == 0 && !out[0])
		rc = -EINVAL;
	free(in);
	free(host);
	return rc;
}

/* Without cgroups there is no extern step to hold ssh sessions: said once. */
static void no_extern_step(const struct noded *nd)
{
	if (drv_prolog_flag(nd->conf->prolog_flags, "Contain"))
		log_info("node=%s: PrologFlags=Contain: no cgroups, so jobs get no "
			 "extern step (pam_drover_adopt admits no one)",
			 nd->name);
}

void noded_cgroup_init(struct noded *nd)
{
	const struct drv_cgroup_conf *c = &nd->conf->cgroup;
	const char *plugin = c->plugin ? c->plugin : "autodetect";
	const char *mnt = c->mountpoint ? c->mountpoint : CG_DEFAULT_MOUNT;
	nd->cgroup_ok = false;
	host_cpus_init(nd);
	if (!strcmp(plugin, "disabled")) {
		log_info("node=%s: CgroupPlugin=disabled: jobs run without cgroups",
			 nd->name);
		no_extern_step(nd);
		return;
	}
	struct cg_layout l;
	int rc = cg_detect(mnt, &l);
	if (rc == 0 && ((!strcmp(plugin, "cgroup/v1") && l.version != CG_V1) ||
			(!strcmp(plugin, "cgroup/v2") && l.version != CG_V2)))
		rc = -ENOENT;
	if (rc < 0) {
		log_info("node=%s: no usable cgroup memory controller under %s (%s, "
			 "CgroupPlugin=%s): jobs run unconstrained",
			 nd->name, mnt, strerror(-rc), plugin);
		no_extern_step(nd);
		return;
	}
	nd->cgroup_ok = true;
	nd->cgroup_layout = l;
	/* SPOOL/cgroup: "MOUNT\nSCOPE\n", for drover down, which must find
	 * the node's cgroups even when the config no longer loads */
	char text[PATH_MAX + 320], scope[300];
	cgroup_scope(nd, scope, sizeof(scope));
	int n = snprintf(text, sizeof(text), "%s\n%s\n", mnt, scope);
	if (n > 0 && (size_t)n < sizeof(text))
		drv_write_file_replace(nd->spool_dir, "cgroup", text, (size_t)n, 0644);
	log_info("node=%s: cgroup %s under %s (%s), ConstrainRAMSpace=%s "
		 "ConstrainCores=%s ConstrainDevices=%s PidsLimit=%u",
		 nd->name, version_name(l.version), mnt,
		 c->path ? c->path : "no cgroup.conf", c->constrain_ram ? "yes" : "no",
		 c->constrain_cores ? "yes" : "no", c->constrain_devices ? "yes" : "no",
		 c->pids_limit);
}

/* The node's name and port: unique on this host even when several local
 * clusters (all with nodes n1, n2 and jobs from 1) share it. */
static void cgroup_scope(const struct noded *nd, char *buf, size_t len)
{
	snprintf(buf, len, "%s_%d", nd->name, nd->node->port);
}

void noded_cgroup_forget(const struct noded *nd, int64_t job_id)
{
	if (!nd->cgroup_ok)
		return;
	char scope[300];
	cgroup_scope(nd, scope, sizeof(scope));
	cg_job_forget(&nd->cgroup_layout, scope, job_id);
}

int noded_cgroup_freeze(const struct noded *nd, int64_t job_id, bool freeze)
{
	if (!nd->cgroup_ok)
		return -ENOTSUP;
	char scope[300];
	cgroup_scope(nd, scope, sizeof(scope));
	return cg_job_freeze(&nd->cgroup_layout, scope, job_id, freeze);
}

struct sweep {
	struct noded *nd;
	const char *scope;
};

static void forget_if_unknown(int64_t job_id, void *arg)
{
	struct sweep *w = arg;
	if (!jobs_find(w->nd, job_id) && !steps_of_job(w->nd, job_id))
		cg_job_forget(&w->nd->cgroup_layout, w->scope, job_id);
}

void noded_cgroup_sweep(struct noded *nd)
{
	if (!nd->cgroup_ok)
		return;
	char scope[300];
	cgroup_scope(nd, scope, sizeof(scope));
	struct sweep w = {nd, scope};
	cg_each_job(&nd->cgroup_layout, scope, forget_if_unknown, &w);
}

/* The device files of the GPUs body holds ("gpus": the node's indices). */
static void gpu_devices(const struct noded *nd, json_t *body, struct drv_rec_cgroup *cg,
			struct cgroup_spec_buf *buf)
{
	const char *files = nd->conf->cgroup.gpu_device_files;
	struct drv_error err;
	json_t *gpus = json_object_get(body, "gpus"), *g;
	size_t i, n = 0;
	if (!files || !json_array_size(gpus))
		return;
	if (drv_hostlist_expand(files, &buf->files, &buf->n_files, &err) < 0) {
		log_error("node=%s: GpuDeviceFiles=%s: %s", nd->name, files, err.text);
		return;
	}
	json_array_foreach(gpus, i, g)
	{
		json_int_t x = json_integer_value(g);
		if (x >= 0 && (size_t)x < buf->n_files && n < 64)
			buf->devs[n++] = buf->files[x];
	}
	cg->devices = buf->devs;
	cg->n_devices = n;
}

bool noded_cgroup_scope(const struct noded *nd, char *scope, size_t len)
{
	if (!nd->cgroup_ok)
		return false;
	cgroup_scope(nd, scope, len);
	return true;
}

bool noded_cgroup_spec(const struct noded *nd, json_t *body, struct drv_rec_cgroup *cg,
		       struct cgroup_spec_buf *buf)
{
	memset(buf, 0, sizeof(*buf));
	if (!nd->cgroup_ok)
		return false;
	const struct drv_cgroup_conf *c = &nd->conf->cgroup;
	cgroup_scope(nd, buf->scope, sizeof(buf->scope));
	*cg = (struct drv_rec_cgroup){
	    .mountpoint = c->mountpoint ? c->mountpoint : CG_DEFAULT_MOUNT,
	    .constrain_ram = c->constrain_ram,
	    .scope = buf->scope,
	    .constrain_cores = c->constrain_cores,
	    .ram_pct = (uint32_t)(c->allowed_ram * 100 + 0.5),
	    .constrain_swap = c->constrain_swap,
	    .swap_pct = (uint32_t)(c->allowed_swap * 100 + 0.5),
	    .has_pids_max = c->pids_limit > 0,
	    .pids_max = c->pids_limit,
	    .constrain_devices = c->constrain_devices,
	    /* Slurm's extern step: a batch shepherd makes it before the
	     * script (shepherd/extern.c); steps ignore it */
	    .extern_step = drv_prolog_flag(nd->conf->prolog_flags, "Contain"),
	};
	if (c->max_ram_percent < 100 && nd->real_memory > 0) {
		cg->has_max_ram = true;
		cg->max_ram =
		    (int64_t)((double)nd->real_memory * c->max_ram_percent / 100);
		if (cg->max_ram < 1)
			cg->max_ram = 1;
	}
	const char *ids = json_string_value(json_object_get(body, "cpu_ids"));
	int rc = ids && c->constrain_cores
		     ? noded_cgroup_map_cpus(nd, ids, buf->cpus, sizeof(buf->cpus))
		     : -ENOENT;
	if (rc == 0)
		cg->cpus = buf->cpus;
	else if (rc != -ENOENT)
		log_error("node=%s: cpu_ids '%s': %s: cores not constrained", nd->name,
			  ids, strerror(-rc));
	if (c->constrain_devices)
		gpu_devices(nd, body, cg, buf);
	return true;
}

void noded_cgroup_spec_free(struct cgroup_spec_buf *buf)
{
	drv_strv_free(buf->files, buf->n_files);
	buf->files = NULL;
	buf->n_files = 0;
}
