/* part_check.c — what a job may do in the partitions it names, by Slurm's
 * rules: which partitions take new jobs (State=), who may use them
 * (AllowGroups; AllowAccounts/DenyAccounts, AllowQos/DenyQos) and the
 * limits EnforcePartLimits makes refusals at submit (MinNodes, MaxNodes,
 * MaxTime). The same rules give the reason a job waits when they are not
 * enforced at submit. Reads partitions and jobs; changes only the job's
 * partition text when unavailable partitions leave its list. */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/proto.h"
#include "ctld/ctld.h"

/* Is name one of list's comma-separated entries (any case, as Slurm
 * lower-cases account and QOS names)? */
static bool list_has(const char *list, const char *name)
{
	size_t len = strlen(name);
	for (const char *s = list; s && *s;) {
		size_t k = strcspn(s, ",");
		if (k == len && !strncasecmp(s, name, len))
			return true;
		s += k + (s[k] == ',');
	}
	return false;
}

/* AllowGroups: one of the user's groups (primary or supplementary) is
 * listed. Root and SlurmUser may use any partition, as in Slurm. */
static bool groups_allow(const struct ctld *c, const struct part *p, const struct job *j)
{
	const char *allow = p->conf->allow_groups;
	uid_t slurm_uid = 0;
	if (!allow || j->uid == 0 ||
	    (drv_conf_slurm_uid(c->conf, &slurm_uid, NULL) == 0 && j->uid == slurm_uid))
		return true;
	size_t n = 0;
	uint32_t *gids = identity_groups(j->user, j->gid, &n);
	bool ok = false;
	for (const char *s = allow; !ok && *s;) {
		char name[256];
		size_t k = strcspn(s, ",");
		snprintf(name, sizeof(name), "%.*s", (int)k, s);
		const struct group *gr = getgrnam(name);
		for (size_t i = 0; gr && i < n; i++)
			ok |= gids[i] == gr->gr_gid;
		s += k + (s[k] == ',');
	}
	free(gids);
	return ok;
}

/* AllowAccounts wins over DenyAccounts, as in Slurm; a job without an
 * account is refused by an Allow list and passes a Deny list. */
static bool account_allowed(const struct drv_part_conf *pc, const char *account)
{
	if (pc->allow_accounts)
		return account && list_has(pc->allow_accounts, account);
	return !pc->deny_accounts || !account || !list_has(pc->deny_accounts, account);
}

static bool qos_allowed(const struct drv_part_conf *pc, const char *qos)
{
	if (pc->allow_qos)
		return list_has(pc->allow_qos, qos);
	return !pc->deny_qos || !list_has(pc->deny_qos, qos);
}

static const char *job_qos(const struct job *j)
{
	return j->req.qos ? j->req.qos : "normal";
}

/* The node counts against MinNodes/MaxNodes: -N given (max_nodes set) below
 * MinNodes, or a minimum or maximum above MaxNodes. */
static bool node_count_ok(const struct drv_part_conf *pc, const struct job *j)
{
	const struct sched_req *r = &j->req.sched;
	bool given = r->max_nodes != 0;
	if (given && r->min_nodes < pc->min_nodes)
		return false;
	if (pc->max_nodes == DRV_UNLIMITED32)
		return true;
	return r->min_nodes <= pc->max_nodes && (!given || r->max_nodes <= pc->max_nodes);
}

static bool time_ok(const struct drv_part_conf *pc, const struct job *j)
{
	return pc->max_time == DRV_INFINITE ||
	       (j->time_limit != DRV_INFINITE && j->time_limit <= pc->max_time);
}

/* The limits EnforcePartLimits turns into refusals: 0 or the rc. */
static int enforced(const struct part *p, const struct job *j)
{
	const struct drv_part_conf *pc = p->conf;
	if (!account_allowed(pc, j->req.account))
		return DRV_RC_INVALID_ACCOUNT;
	if (!qos_allowed(pc, job_qos(j)))
		return DRV_RC_INVALID_QOS;
	if (!node_count_ok(pc, j))
		return DRV_RC_INVALID_NODE_COUNT;
	if (!time_ok(pc, j))
		return DRV_RC_INVALID_TIME_LIMIT;
	return 0;
}

const char *part_job_blocked(const struct ctld *c, const struct part *p,
			     const struct job *j)
{
	switch (enforced(p, j)) {
	case DRV_RC_INVALID_ACCOUNT:
		return "InvalidAccount";
	case DRV_RC_INVALID_QOS:
		return "InvalidQOS";
	case DRV_RC_INVALID_NODE_COUNT:
		return "PartitionNodeLimit";
	case DRV_RC_INVALID_TIME_LIMIT:
		return "PartitionTimeLimit";
	default:
		return NULL;
	}
}

/* j's partition text, the names of cand[0..n) joined by ','. */
static int set_partition_text(const struct ctld *c, struct job *j, const uint32_t *cand,
			      uint32_t n)
{
	size_t len = 1;
	for (uint32_t i = 0; i < n; i++)
		len += strlen(c->parts[cand[i]].conf->name) + 1;
	char *text = calloc(1, len);
	if (!text)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			strcat(text, ",");
		strcat(text, c->parts[cand[i]].conf->name);
	}
	free(j->partition);
	j->partition = text;
	return 0;
}

int part_check_state(struct ctld *c, struct job *j, uint32_t *cand, uint32_t *n)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < *n; i++)
		if (drv_part_state_submit(c->parts[cand[i]].conf->state))
			cand[k++] = cand[i];
	if (k == 0)
		return DRV_RC_PARTITION_NOT_AVAIL;
	*n = k;
	return set_partition_text(c, j, cand, k) < 0 ? DRV_RC_ERROR : 0;
}

int part_check_access(const struct ctld *c, const struct job *j, const uint32_t *cand,
		      uint32_t n)
{
	int fail = 0;
	uint32_t passed = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct part *p = &c->parts[cand[i]];
		if (!groups_allow(c, p, j))
			return DRV_RC_PART_GROUP;
		int e = c->conf->enforce_part_limits ? enforced(p, j) : 0;
		if (e && c->conf->enforce_part_limits == DRV_ENFORCE_ALL)
			return e;
		fail = e ? e : fail;
		passed += e == 0;
	}
	return passed ? 0 : fail; /* ANY: not one of them allows it */
}
