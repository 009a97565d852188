/* cgroup.c — whether this node's jobs get cgroups, decided once at start-up
 * (CgroupPlugin, CgroupMountpoint, ConstrainRAMSpace) and logged once, and
 * the cgroup object (node_spec's) that tells each shepherd so in its spec. The shepherd
 * (isolate.c) does the work; noded never touches a cgroup itself. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cgroup.h"
#include "common/cgroup_freeze.h"
#include "common/log.h"
#include "noded/noded.h"

static const char *version_name(enum cg_version v)
{
	return v == CG_V2 ? "v2" : v == CG_V1 ? "v1" : "none";
}

static void cgroup_scope(const struct noded *nd, char *buf, size_t len);

void noded_cgroup_init(struct noded *nd)
{
	const struct drv_conf *c = nd->conf;
	const char *plugin = c->cgroup_plugin ? c->cgroup_plugin : "autodetect";
	const char *mnt = c->cgroup_mountpoint ? c->cgroup_mountpoint : CG_DEFAULT_MOUNT;
	nd->cgroup_ok = false;
	if (!strcmp(plugin, "disabled")) {
		log_info("node=%s: CgroupPlugin=disabled: jobs run without cgroups",
			 nd->name);
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
	log_info("node=%s: cgroup %s under %s, ConstrainRAMSpace=%s", nd->name,
		 version_name(l.version), mnt, c->constrain_ram_space ? "yes" : "no");
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

bool noded_cgroup_spec(const struct noded *nd, struct drv_rec_cgroup *cg, char *scope,
		       size_t len)
{
	if (!nd->cgroup_ok)
		return false;
	cgroup_scope(nd, scope, len);
	*cg = (struct drv_rec_cgroup){
	    .mountpoint = nd->conf->cgroup_mountpoint ? nd->conf->cgroup_mountpoint
						      : CG_DEFAULT_MOUNT,
	    .constrain_ram = nd->conf->constrain_ram_space,
	    .scope = scope,
	};
	return true;
}
