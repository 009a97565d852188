/* usage.c — steps' usage as data: adding a node's report, and the usage
 * fields of the step records and of the job's batch_usage (records.schema).
 * No I/O. */
#include "ctld/usage.h"

#include <stdio.h>
#include <string.h>

static void set_node(char *dst, size_t len, const char *node)
{
	snprintf(dst, len, "%s", node ? node : "");
}

void usage_add(struct step_usage *u, const struct drv_rec_usage *r, const char *node)
{
	if (!u->has || r->max_rss_kib > u->max_rss_kib) {
		u->max_rss_kib = r->max_rss_kib;
		u->max_rss_task = r->max_rss_task;
		set_node(u->max_rss_node, sizeof(u->max_rss_node), node);
	}
	if (!u->has || r->max_vsize_kib > u->max_vsize_kib) {
		u->max_vsize_kib = r->max_vsize_kib;
		u->max_vsize_task = r->max_vsize_task;
		set_node(u->max_vsize_node, sizeof(u->max_vsize_node), node);
	}
	if (!u->has || r->min_cpu_usec < u->min_cpu_usec) {
		u->min_cpu_usec = r->min_cpu_usec;
		u->min_cpu_task = r->min_cpu_task;
		set_node(u->min_cpu_node, sizeof(u->min_cpu_node), node);
	}
	if (!u->has || r->max_cpu_usec > u->max_cpu_usec) {
		u->max_cpu_usec = r->max_cpu_usec;
		u->max_cpu_task = r->max_cpu_task;
		set_node(u->max_cpu_node, sizeof(u->max_cpu_node), node);
	}
	u->user_usec += r->user_usec;
	u->sys_usec += r->sys_usec;
	/* the average over all tasks: each node's weighted by its tasks */
	int64_t n = r->ntasks ? r->ntasks : 1;
	u->ave_rss_kib =
	    (u->ave_rss_kib * u->ntasks + r->ave_rss_kib * n) / (u->ntasks + n);
	u->ave_vsize_kib =
	    (u->ave_vsize_kib * u->ntasks + r->ave_vsize_kib * n) / (u->ntasks + n);
	u->ntasks += n;
	u->has = true;
}

void usage_to_step(const struct step_usage *u, struct drv_rec_step *s)
{
	if (!u->has)
		return;
	s->user_usec = u->user_usec;
	s->sys_usec = u->sys_usec;
	s->max_rss_kib = u->max_rss_kib;
	s->max_rss_node = u->max_rss_node;
	s->max_rss_task = (uint32_t)u->max_rss_task;
	s->ave_rss_kib = u->ave_rss_kib;
	s->usage_ntasks = (uint32_t)u->ntasks;
	s->max_vsize_kib = u->max_vsize_kib;
	s->max_vsize_node = u->max_vsize_node;
	s->max_vsize_task = (uint32_t)u->max_vsize_task;
	s->ave_vsize_kib = u->ave_vsize_kib;
	s->min_cpu_usec = u->min_cpu_usec;
	s->min_cpu_node = u->min_cpu_node;
	s->min_cpu_task = (uint32_t)u->min_cpu_task;
	s->max_cpu_usec = u->max_cpu_usec;
	s->max_cpu_node = u->max_cpu_node;
	s->max_cpu_task = (uint32_t)u->max_cpu_task;
	s->has_max_cpu_usec = s->has_max_cpu_task = true;
	s->has_max_vsize_kib = s->has_max_vsize_task = s->has_ave_vsize_kib = true;
	s->has_min_cpu_usec = s->has_min_cpu_task = true;
	s->has_user_usec = s->has_sys_usec = s->has_max_rss_kib = true;
	s->has_max_rss_task = s->has_ave_rss_kib = s->has_usage_ntasks = true;
}

void usage_from_step(struct step_usage *u, const struct drv_rec_step *s)
{
	memset(u, 0, sizeof(*u));
	if (!s->has_user_usec)
		return;
	u->has = true;
	u->user_usec = s->user_usec;
	u->sys_usec = s->sys_usec;
	u->max_rss_kib = s->max_rss_kib;
	u->ave_rss_kib = s->ave_rss_kib;
	u->max_rss_task = s->max_rss_task;
	/* a record from before usage_ntasks was kept: the step's tasks */
	u->ntasks = s->has_usage_ntasks ? s->usage_ntasks : s->ntasks;
	set_node(u->max_rss_node, sizeof(u->max_rss_node), s->max_rss_node);
	u->max_vsize_kib = s->has_max_vsize_kib ? s->max_vsize_kib : 0;
	u->max_vsize_task = s->has_max_vsize_task ? s->max_vsize_task : 0;
	u->ave_vsize_kib = s->has_ave_vsize_kib ? s->ave_vsize_kib : 0;
	u->min_cpu_usec = s->has_min_cpu_usec ? s->min_cpu_usec : 0;
	u->min_cpu_task = s->has_min_cpu_task ? s->min_cpu_task : 0;
	set_node(u->max_vsize_node, sizeof(u->max_vsize_node), s->max_vsize_node);
	set_node(u->min_cpu_node, sizeof(u->min_cpu_node), s->min_cpu_node);
	u->max_cpu_usec = s->has_max_cpu_usec ? s->max_cpu_usec : 0;
	u->max_cpu_task = s->has_max_cpu_task ? s->max_cpu_task : 0;
	set_node(u->max_cpu_node, sizeof(u->max_cpu_node), s->max_cpu_node);
}

void usage_to_total(const struct step_usage *u, struct drv_rec_usage_total *t)
{
	*t = (struct drv_rec_usage_total){
	    .user_usec = u->user_usec,
	    .sys_usec = u->sys_usec,
	    .max_rss_kib = u->max_rss_kib,
	    .max_rss_node = u->max_rss_node,
	    .max_rss_task = (uint32_t)u->max_rss_task,
	    .ave_rss_kib = u->ave_rss_kib,
	    .ntasks = (uint32_t)u->ntasks,
	    .max_vsize_kib = u->max_vsize_kib,
	    .max_vsize_node = u->max_vsize_node,
	    .max_vsize_task = (uint32_t)u->max_vsize_task,
	    .ave_vsize_kib = u->ave_vsize_kib,
	    .min_cpu_usec = u->min_cpu_usec,
	    .min_cpu_node = u->min_cpu_node,
	    .min_cpu_task = (uint32_t)u->min_cpu_task,
	    .max_cpu_usec = u->max_cpu_usec,
	    .max_cpu_node = u->max_cpu_node,
	    .max_cpu_task = (uint32_t)u->max_cpu_task,
	};
}

json_t *usage_to_object(const struct step_usage *u)
{
	if (!u->has)
		return json_null();
	struct drv_rec_usage_total t;
	usage_to_total(u, &t);
	return drv_rec_usage_total_encode(&t);
}

void usage_from_total(struct step_usage *u, const struct drv_rec_usage_total *t)
{
	memset(u, 0, sizeof(*u));
	if (!t)
		return;
	u->has = true;
	u->user_usec = t->user_usec;
	u->sys_usec = t->sys_usec;
	u->max_rss_kib = t->max_rss_kib;
	u->ave_rss_kib = t->ave_rss_kib;
	u->max_rss_task = t->max_rss_task;
	u->ntasks = t->ntasks;
	set_node(u->max_rss_node, sizeof(u->max_rss_node), t->max_rss_node);
	u->max_vsize_kib = t->max_vsize_kib;
	u->max_vsize_task = t->max_vsize_task;
	u->ave_vsize_kib = t->ave_vsize_kib;
	u->min_cpu_usec = t->min_cpu_usec;
	u->min_cpu_task = t->min_cpu_task;
	set_node(u->max_vsize_node, sizeof(u->max_vsize_node), t->max_vsize_node);
	set_node(u->min_cpu_node, sizeof(u->min_cpu_node), t->min_cpu_node);
	u->max_cpu_usec = t->max_cpu_usec;
	u->max_cpu_task = t->max_cpu_task;
	set_node(u->max_cpu_node, sizeof(u->max_cpu_node), t->max_cpu_node);
}
