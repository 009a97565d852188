/* sacctmgr_fields.c — the columns of sacctmgr's listings: Slurm's field
 * names (in Slurm's order, which decides what an abbreviation means), their
 * headers and widths, and each field's value for a row of a listing. A
 * field Drover does not keep (GrpTRESMins, MaxJobsAccrue, ...) prints
 * empty, as an unset one does in Slurm. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/sacctmgr.h"
#include "cli/sacctmgr_fields.h"
#include "common/timefmt.h"

/* clang-format off */
const struct cli_field_def sm_fields[] = {
	{"Account", "Account", 10, F_ACCOUNT, 3},
	{"Acct", "Account", 10, F_ACCOUNT, 4},
	{"ActionRaw", "ActionRaw", 10, F_BLANK, 7},
	{"Action", "Action", 20, F_BLANK, 4},
	{"Actor", "Actor", 10, F_BLANK, 4},
	{"AdminLevel", "Admin", 9, F_ADMIN, 2},
	{"Allowed", "% Allowed", 10, F_BLANK, 2},
	{"Associations", "Assocs", 10, F_BLANK, 2},
	{"TRES", "TRES", 20, F_BLANK, 2},
	{"Classification", "Class", 9, F_BLANK, 3},
	{"ClusterNodes", "Cluster Nodes", 20, F_BLANK, 8},
	{"Clusters", "Cluster", 10, F_CLUSTER, 2},
	{"Coordinators", "Coord Accounts", 20, F_COORD, 2},
	{"ControlHost", "ControlHost", 15, F_CHOST, 8},
	{"ControlPort", "ControlPort", 12, F_CPORT, 8},
	{"Count", "Count", 6, F_BLANK, 3},
	{"CountAllowed", "# Allowed", 10, F_BLANK, 6},
	{"CountUsed", "# Used", 10, F_BLANK, 6},
	{"CPUCount", "CPU Cnt", 7, F_BLANK, 2},
	{"DefaultAccount", "Def Acct", 10, F_DACCT, 8},
	{"DefaultQOS", "Def QOS", 9, F_DQOS, 8},
	{"DefaultWCKey", "Def WCKey", 10, F_BLANK, 8},
	{"Description", "Descr", 20, F_DESC, 3},
	{"Duration", "Duration", 13, F_BLANK, 2},
	{"EventRaw", "EventRaw", 8, F_BLANK, 6},
	{"Event", "Event", 7, F_BLANK, 2},
	{"Features", "Features", 20, F_BLANK, 3},
	{"Federation", "Federation", 10, F_BLANK, 3},
	{"FedState", "FedState", 12, F_BLANK, 4},
	{"FedStateRaw", "FedStateRaw", 11, F_BLANK, 9},
	{"Flags", "Flags", 20, F_FLAGS, 2},
	{"GraceTime", "GraceTime", 10, F_GRACE, 3},
	{"GrpCPUs", "GrpCPUs", 8, F_GRPCPUS, 6},
	{"GrpCPUMins", "GrpCPUMins", 11, F_GRPCPUMINS, 7},
	{"GrpCPURunMins", "GrpCPURunMins", 13, F_BLANK, 7},
	{"GrpTRES", "GrpTRES", 13, F_GRPTRES, 7},
	{"GrpTRESMins", "GrpTRESMins", 13, F_BLANK, 7},
	{"GrpTRESRunMins", "GrpTRESRunMins", 13, F_BLANK, 7},
	{"GrpJobs", "GrpJobs", 7, F_GRPJOBS, 4},
	{"GrpJobsAccrue", "GrpJobsAccrue", 13, F_BLANK, 8},
	{"GrpMemory", "GrpMem", 7, F_GRPMEM, 4},
	{"GrpNodes", "GrpNodes", 8, F_GRPNODES, 4},
	{"GrpSubmitJobs", "GrpSubmit", 9, F_GRPSUBMIT, 4},
	{"GrpWall", "GrpWall", 11, F_GRPWALL, 4},
	{"ID", "ID", 6, F_ID, 2},
	{"Info", "Info", 20, F_BLANK, 2},
	{"LFT", "LFT", 6, F_BLANK, 1},
	{"servertype", "ServerType", 10, F_BLANK, 10},
	{"MaxCPUMinsPerJob", "MaxCPUMins", 11, F_MAXCPUMINS, 7},
	{"MaxCPURunMinsPerUser", "MaxCPURunMinsPU", 15, F_BLANK, 7},
	{"MaxCPURunMinsPU", "MaxCPURunMinsPU", 15, F_BLANK, 7},
	{"MaxCPUsPerJob", "MaxCPUs", 8, F_MAXCPUS, 7},
	{"MaxCPUsPerUser", "MaxCPUsPU", 9, F_BLANK, 11},
	{"MaxCPUsPU", "MaxCPUsPU", 9, F_BLANK, 9},
	{"MaxTRES", "MaxTRES", 13, F_MAXTRES, 7},
	{"MaxTRESPerJob", "MaxTRES", 13, F_MAXTRES, 11},
	{"MaxTRESPerNode", "MaxTRESPerNode", 14, F_BLANK, 11},
	{"MaxTRESMinsPerJob", "MaxTRESMins", 13, F_BLANK, 8},
	{"MaxTRESRunMinsPerAccount", "MaxTRESRunMinsPA", 15, F_BLANK, 18},
	{"MaxTRESRunMinsPerAcct", "MaxTRESRunMinsPA", 15, F_BLANK, 18},
	{"MaxTRESRunMinsPA", "MaxTRESRunMinsPA", 15, F_BLANK, 15},
	{"MaxTRESRunMinsPerUser", "MaxTRESRunMinsPU", 15, F_BLANK, 8},
	{"MaxTRESRunMinsPU", "MaxTRESRunMinsPU", 15, F_BLANK, 8},
	{"MaxTRESPerAccount", "MaxTRESPA", 13, F_BLANK, 11},
	{"MaxTRESPerAcct", "MaxTRESPA", 13, F_BLANK, 11},
	{"MaxTRESPA", "MaxTRESPA", 13, F_BLANK, 9},
	{"MaxTRESPerUser", "MaxTRESPU", 13, F_MAXTRESPU, 11},
	{"MaxTRESPU", "MaxTRESPU", 13, F_MAXTRESPU, 9},
	{"MaxJobs", "MaxJobs", 7, F_MAXJOBS, 4},
	{"MaxJobsAccrue", "MaxJobsAccrue", 13, F_BLANK, 4},
	{"MaxJobsAccruePerAccount", "MaxJobsAccruePA", 15, F_BLANK, 17},
	{"MaxJobsAccruePerAcct", "MaxJobsAccruePA", 15, F_BLANK, 17},
	{"MaxJobsAccruePA", "MaxJobsAccruePA", 15, F_BLANK, 15},
	{"MaxJobsAccruePerUser", "MaxJobsAccruePU", 15, F_BLANK, 17},
	{"MaxJobsAccruePU", "MaxJobsAccruePU", 15, F_BLANK, 15},
	{"MaxJobsPerAccount", "MaxJobsPA", 9, F_BLANK, 11},
	{"MaxJobsPerAcct", "MaxJobsPA", 9, F_BLANK, 11},
	{"MaxJobsPA", "MaxJobsPA", 9, F_BLANK, 9},
	{"MaxJobsPerUser", "MaxJobsPU", 9, F_MAXJOBSPU, 11},
	{"MaxJobsPU", "MaxJobsPU", 9, F_MAXJOBSPU, 9},
	{"MaxNodesPerJob", "MaxNodes", 8, F_MAXNODES, 4},
	{"MaxNodesPerUser", "MaxNodesPU", 10, F_BLANK, 12},
	{"MaxNodesPU", "MaxNodesPU", 10, F_BLANK, 10},
	{"MinPrioThreshold", "MinPrioThres", 12, F_BLANK, 4},
	{"MaxSubmitJobs", "MaxSubmit", 9, F_MAXSUBMIT, 4},
	{"MaxSubmitJobsPerAccount", "MaxSubmitPA", 11, F_BLANK, 17},
	{"MaxSubmitJobsPerAcct", "MaxSubmitPA", 11, F_BLANK, 17},
	{"MaxSubmitJobsPA", "MaxSubmitPA", 11, F_BLANK, 15},
	{"MaxSubmitPA", "MaxSubmitPA", 11, F_BLANK, 11},
	{"MaxSubmitJobsPerUser", "MaxSubmitPU", 11, F_MAXSUBMITPU, 10},
	{"MaxSubmitJobsPU", "MaxSubmitPU", 11, F_MAXSUBMITPU, 10},
	{"MaxSubmitPU", "MaxSubmitPU", 11, F_MAXSUBMITPU, 6},
	{"MaxWallDurationPerJob", "MaxWall", 11, F_MAXWALL, 4},
	{"MinCPUsPerJob", "MinCPUs", 8, F_BLANK, 7},
	{"MinTRESPerJob", "MinTRES", 13, F_BLANK, 7},
	{"Name", "Name", 10, F_NAME, 2},
	{"NodeCount", "NodeCount", 9, F_BLANK, 5},
	{"NodeInx", "NodeInx", 9, F_BLANK, 5},
	{"NodeNames", "NodeName", -15, F_BLANK, 5},
	{"Organization", "Org", 20, F_ORG, 1},
	{"ParentID", "ParentID", 8, F_PARENTID, 7},
	{"ParentName", "ParentName", 10, F_PARENTNAME, 7},
	{"Partition", "Partition", 10, F_PARTITION, 4},
	{"PluginIDSelect", "PluginIDSelect", 14, F_BLANK, 2},
	{"PreemptMode", "PreemptMode", 11, F_PREEMPTMODE, 8},
	{"Preempt", "Preempt", 10, F_PREEMPT, 7},
	{"PreemptExemptTime", "PreemptExemptTime", 19, F_BLANK, 8},
	{"Priority", "Priority", 10, F_PRIORITY, 3},
	{"Problem", "Problem", 40, F_BLANK, 1},
	{"QOSLevel", "QOS", 20, F_QOS, 3},
	{"QOSRAWLevel", "QOS_RAW", 10, F_BLANK, 4},
	{"Reason", "Reason", 30, F_BLANK, 1},
	{"RGT", "RGT", 6, F_BLANK, 1},
	{"RPC", "RPC", 5, F_RPC, 1},
	{"Server", "Server", 10, F_BLANK, 3},
	{"Share", "Share", 9, F_SHARE, 1},
	{"FairShare", "Share", 9, F_SHARE, 2},
	{"StateRaw", "StateRaw", 8, F_BLANK, 6},
	{"State", "State", 6, F_BLANK, 1},
	{"TimeStamp", "Time", 19, F_BLANK, 2},
	{"Type", "Type", 8, F_BLANK, 2},
	{"UnusedWall", "UnusedWall", 10, F_BLANK, 2},
	{"UsageFactor", "UsageFactor", 11, F_USAGEFACTOR, 6},
	{"UsageThreshold", "UsageThres", 10, F_BLANK, 6},
	{"LimitFactor", "LimitFactor", 11, F_BLANK, 6},
	{"Allocated", "% Allocated", 11, F_BLANK, 7},
	{"User", "User", 10, F_USER, 1},
	{"WCKeys", "WCKeys", 20, F_BLANK, 2},
	{"Where", "Where", 20, F_BLANK, 2},
	{0, 0, 0, 0, 0},
};
/* clang-format on */

int sm_parse_format(const char *spec, bool tree, struct cli_fields *fl)
{
	char bad[64];
	fl->n = 0;
	if (cli_fields_parse(spec, sm_fields, fl, bad, sizeof(bad)) < 0) {
		fprintf(stderr, "Unknown field '%s'\n", bad);
		return -1;
	}
	/* the tree's accounts are indented: left-justified, wider */
	for (size_t i = 0; tree && i < fl->n; i++)
		if (fl->def[i]->id == F_ACCOUNT && fl->width[i] == fl->def[i]->width)
			fl->width[i] = -20;
	return 0;
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char *sm_joined(const char *const *v, size_t n, bool sort, char *buf, size_t len)
{
	const char **copy = calloc(n ? n : 1, sizeof(*copy));
	size_t used = 0;
	buf[0] = '\0';
	if (!copy)
		return buf;
	memcpy(copy, v, n * sizeof(*copy));
	if (sort && n > 1)
		qsort(copy, n, sizeof(*copy), by_str);
	for (size_t i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "",
					 copy[i]);
	free(copy);
	return buf;
}

static const char *count_text(int64_t v, char *buf, size_t len)
{
	if (v < 0)
		return "";
	snprintf(buf, len, "%lld", (long long)v);
	return buf;
}

static const char *minutes_text(int64_t mins, char *buf, size_t len)
{
	if (mins < 0)
		return "";
	drv_time_fmt_limit(mins * 60, buf, len);
	return buf;
}

static const char *tres_text(const char *canonical, char *buf, size_t len)
{
	struct drv_tres t;
	struct drv_error err;
	if (drv_tres_parse(canonical, &t, &err) < 0)
		return "";
	drv_tres_format(&t, true, buf, len);
	return buf;
}

static const char *tres_vec_text(const struct drv_tres *t, char *buf, size_t len)
{
	drv_tres_format(t, true, buf, len);
	return buf;
}

/* One TRES count of a list as a number ("" when it has none). */
static const char *tres_count(const struct drv_tres *t, enum drv_tres_id id, char *buf,
			      size_t len)
{
	return count_text(t->v[id], buf, len);
}

/* The association's fields (r->assoc and r->eff set). */
static const char *assoc_value(int id, const struct sm_row *r, char *buf, size_t len)
{
	const struct drv_rec_acct_assoc *a = r->assoc;
	const struct cli_acct_eff *e = r->eff;
	switch (id) {
	case F_ACCOUNT:
		return r->tree_account ? r->tree_account : a->account;
	case F_CLUSTER:
		return a->cluster;
	case F_USER:
		return a->user ? a->user : "";
	case F_PARTITION:
		return a->partition ? a->partition : "";
	case F_PARENTNAME:
		return !a->user && a->parent ? a->parent : "";
	case F_PARENTID: {
		const struct drv_rec_acct_assoc *p = cli_acct_parent(r->t, a);
		return p ? count_text(p->id, buf, len) : "";
	}
	case F_ID:
		return count_text(a->id, buf, len);
	case F_SHARE:
		if (a->shares == 2147483647u)
			return "parent";
		return count_text(a->shares, buf, len);
	case F_GRPJOBS:
		return count_text(a->grp_jobs, buf, len);
	case F_GRPSUBMIT:
		return count_text(a->grp_submit_jobs, buf, len);
	case F_GRPTRES:
		return tres_vec_text(&e->grp_tres, buf, len);
	case F_GRPCPUS:
		return tres_count(&e->grp_tres, DRV_TRES_CPU, buf, len);
	case F_GRPMEM:
		return tres_count(&e->grp_tres, DRV_TRES_MEM, buf, len);
	case F_GRPNODES:
		return tres_count(&e->grp_tres, DRV_TRES_NODE, buf, len);
	case F_MAXJOBS:
		return count_text(e->max_jobs, buf, len);
	case F_MAXSUBMIT:
		return count_text(e->max_submit_jobs, buf, len);
	case F_MAXWALL:
		return minutes_text(e->max_wall, buf, len);
	case F_MAXTRES:
		return tres_vec_text(&e->max_tres_per_job, buf, len);
	case F_MAXCPUS:
		return tres_count(&e->max_tres_per_job, DRV_TRES_CPU, buf, len);
	case F_MAXNODES:
		return tres_count(&e->max_tres_per_job, DRV_TRES_NODE, buf, len);
	case F_QOS:
		return sm_joined(e->qos, e->n_qos, true, buf, len);
	case F_DQOS:
		return e->default_qos ? e->default_qos : "";
	default:
		return "";
	}
}

static const char *qos_value(int id, const struct drv_rec_acct_qos *q, char *buf,
			     size_t len)
{
	switch (id) {
	case F_NAME:
		return q->name;
	case F_DESC:
		return q->description;
	case F_ID:
		return count_text(q->id, buf, len);
	case F_PRIORITY:
		return count_text(q->priority, buf, len);
	case F_GRACE:
		drv_time_fmt_limit(q->grace_time, buf, len);
		return buf;
	case F_PREEMPT:
		return sm_joined(q->preempt, q->n_preempt, true, buf, len);
	case F_PREEMPTMODE:
		return q->preempt_mode;
	case F_FLAGS:
		return sm_joined(q->flags, q->n_flags, false, buf, len);
	case F_USAGEFACTOR:
		snprintf(buf, len, "%f", (double)q->usage_factor / 1000000.0);
		return buf;
	case F_GRPTRES:
		return tres_text(q->grp_tres, buf, len);
	case F_GRPJOBS:
		return count_text(q->grp_jobs, buf, len);
	case F_GRPSUBMIT:
		return count_text(q->grp_submit_jobs, buf, len);
	case F_MAXTRES:
		return tres_text(q->max_tres_per_job, buf, len);
	case F_MAXWALL:
		return minutes_text(q->max_wall, buf, len);
	case F_MAXTRESPU:
		return tres_text(q->max_tres_per_user, buf, len);
	case F_MAXJOBSPU:
		return count_text(q->max_jobs_per_user, buf, len);
	case F_MAXSUBMITPU:
		return count_text(q->max_submit_jobs_per_user, buf, len);
	default:
		return "";
	}
}

/* A cluster's own fields; its limits are its root association's. */
static const char *cluster_value(int id, const struct sm_row *r, char *buf, size_t len)
{
	bool local = r->conf && !strcmp(r->cluster->name, r->conf->cluster_name);
	switch (id) {
	case F_CLUSTER:
		return r->cluster->name;
	case F_CHOST:
		return local && r->conf->n_ctld_hosts ? r->conf->ctld_hosts[0].addr : "";
	case F_CPORT:
		return count_text(local ? r->conf->ctld_port : 0, buf, len);
	case F_RPC:
		return local ? "9728" : "0"; /* Slurm 22.05's protocol version */
	default:
		return r->assoc ? assoc_value(id, r, buf, len) : "";
	}
}

/* A user's or an account's own fields. */
static const char *entity_value(int id, const struct sm_row *r, char *buf, size_t len)
{
	if (r->user)
		switch (id) {
		case F_USER:
			return r->user->name;
		case F_DACCT:
			return r->def_acct ? r->def_acct : "";
		case F_ADMIN:
			return r->user->admin_level;
		case F_COORD:
			return r->coords
				   ? r->coords
				   : sm_joined(r->user->coord_accounts,
					       r->user->n_coord_accounts, true, buf, len);
		default:
			break;
		}
	if (r->account)
		switch (id) {
		case F_ACCOUNT:
			return r->account->name;
		case F_DESC:
			return r->account->description;
		case F_ORG:
			return r->account->organization;
		case F_COORD:
			return r->coords ? r->coords : "";
		default:
			break;
		}
	return NULL;
}

/* What Slurm prints for a field of an account that has no association to
 * show (its print routines given nothing: numbers 0). */
static const char *zero_value(int id)
{
	switch (id) {
	case F_SHARE:
	case F_GRPJOBS:
	case F_GRPNODES:
	case F_GRPCPUS:
	case F_GRPMEM:
	case F_GRPSUBMIT:
	case F_GRPCPUMINS:
	case F_MAXJOBS:
	case F_MAXNODES:
	case F_MAXCPUS:
	case F_MAXSUBMIT:
	case F_MAXCPUMINS:
	case F_ID:
	case F_PARENTID:
		return "0";
	case F_GRPWALL:
	case F_MAXWALL:
		return "00:00:00";
	default:
		return "";
	}
}

void sm_print_row(const struct cli_fields *fl, enum cli_fields_mode mode,
		  const struct sm_row *r)
{
	const char *v[CLI_FIELDS_MAX];
	static char bufs[CLI_FIELDS_MAX][1024];
	for (size_t i = 0; i < fl->n; i++) {
		int id = fl->def[i]->id;
		char *buf = bufs[i];
		const char *x = entity_value(id, r, buf, sizeof(bufs[i]));
		if (!x && r->qos)
			x = qos_value(id, r->qos, buf, sizeof(bufs[i]));
		else if (!x && r->cluster)
			x = cluster_value(id, r, buf, sizeof(bufs[i]));
		else if (!x && r->assoc)
			x = assoc_value(id, r, buf, sizeof(bufs[i]));
		else if (!x && r->zeros)
			x = zero_value(id);
		v[i] = x ? x : "";
	}
	cli_fields_row(stdout, fl, mode, v);
}
