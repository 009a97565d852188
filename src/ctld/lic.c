/* lic.c — the cluster's licenses as ctld sees them: which a job may ask for
 * (-L, checked at submit as Slurm does), their indices for the scheduler,
 * and the counts running jobs hold for `scontrol show licenses`. Whether a
 * job waits for licenses is the scheduler's business. */
#include "ctld/lic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/license.h"
#include "common/log.h"
#include "common/proto.h"
#include "ctld/ctld.h"

int lic_job_parse(const struct ctld *c, const char *text, struct job_lic **out,
		  uint32_t *n)
{
	struct drv_license *v = NULL;
	size_t k = 0;
	int rc = drv_licenses_parse(text, &v, &k, NULL);
	if (rc < 0)
		return rc == -ENOMEM ? DRV_RC_ERROR : DRV_RC_INVALID_LICENSES;
	struct job_lic *lics = calloc(k, sizeof(*lics));
	rc = lics ? 0 : DRV_RC_ERROR;
	for (size_t i = 0; rc == 0 && i < k; i++) {
		size_t l = 0;
		while (l < c->conf->n_licenses &&
		       strcmp(c->conf->licenses[l].name, v[i].name))
			l++;
		/* Slurm refuses a name it does not have and a count above
		 * the total (validate_cfgd_licenses) */
		if (l == c->conf->n_licenses || v[i].count > c->conf->licenses[l].total)
			rc = DRV_RC_INVALID_LICENSES;
		else
			lics[i] = (struct job_lic){(uint32_t)l, v[i].count};
	}
	drv_licenses_free(v, k);
	if (rc) {
		free(lics);
		return rc;
	}
	*out = lics;
	*n = (uint32_t)k;
	return 0;
}

const struct job_lic *lic_job_resolve(const struct ctld *c, struct job *j, uint32_t *n)
{
	struct job_req *q = &j->req;
	if (!q->lics_resolved && q->licenses) {
		free(q->lics);
		q->lics = NULL;
		q->n_lics = 0;
		if (lic_job_parse(c, q->licenses, &q->lics, &q->n_lics) != 0)
			log_error("job=%u: its licenses %s are no longer configured",
				  j->id, q->licenses);
	}
	q->lics_resolved = true;
	*n = q->n_lics;
	return q->lics;
}

void lic_used(struct ctld *c, uint32_t *used)
{
	memset(used, 0, c->conf->n_licenses * sizeof(*used));
	for (struct job *j = c->jobs.head; j; j = j->next) {
		uint32_t n = 0;
		if (j->state != JOB_RUNNING || !j->req.licenses)
			continue;
		const struct job_lic *l = lic_job_resolve(c, j, &n);
		for (uint32_t i = 0; i < n; i++)
			used[l[i].lic] += l[i].count;
	}
}
