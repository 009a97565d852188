/* usage.c — steps' usage as data: adding a node's report, and the JSON of
 * the step entries and of the job's batch_usage. No I/O. */
#include "ctld/usage.h"

#include <stdio.h>
#include <string.h>

static int64_t num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_integer(v) && json_integer_value(v) > 0 ? json_integer_value(v)
							       : 0;
}

void usage_add_report(struct step_usage *u, const json_t *report, const char *node)
{
	if (!json_is_object(report))
		return;
	int64_t n = num(report, "ntasks");
	int64_t max = num(report, "max_rss_kib");
	int64_t ave = num(report, "ave_rss_kib");
	u->user_usec += num(report, "user_usec");
	u->sys_usec += num(report, "sys_usec");
	if (!u->has || max > u->max_rss_kib) {
		u->max_rss_kib = max;
		u->max_rss_task = num(report, "max_rss_task");
		snprintf(u->max_rss_node, sizeof(u->max_rss_node), "%s",
			 node ? node : "");
	}
	/* the average over all tasks: each node's weighted by its tasks */
	n = n ? n : 1;
	u->ave_rss_kib = (u->ave_rss_kib * u->ntasks + ave * n) / (u->ntasks + n);
	u->ntasks += n;
	u->has = true;
}

void usage_set_fields(const struct step_usage *u, json_t *o, bool store)
{
	if (!u->has)
		return;
	json_object_set_new(o, "user_usec", json_integer(u->user_usec));
	json_object_set_new(o, "sys_usec", json_integer(u->sys_usec));
	json_object_set_new(o, "max_rss_kib", json_integer(u->max_rss_kib));
	json_object_set_new(o, "max_rss_node", json_string(u->max_rss_node));
	json_object_set_new(o, "max_rss_task", json_integer(u->max_rss_task));
	json_object_set_new(o, "ave_rss_kib", json_integer(u->ave_rss_kib));
	if (store)
		json_object_set_new(o, "usage_ntasks", json_integer(u->ntasks));
}

json_t *usage_to_object(const struct step_usage *u)
{
	if (!u->has)
		return json_null();
	json_t *o = json_object();
	usage_set_fields(u, o, false);
	json_object_set_new(o, "ntasks", json_integer(u->ntasks));
	return o;
}

void usage_from_json(struct step_usage *u, const json_t *o)
{
	memset(u, 0, sizeof(*u));
	if (!json_is_object(o) || !json_is_integer(json_object_get(o, "user_usec")))
		return;
	u->has = true;
	u->user_usec = num(o, "user_usec");
	u->sys_usec = num(o, "sys_usec");
	u->max_rss_kib = num(o, "max_rss_kib");
	u->ave_rss_kib = num(o, "ave_rss_kib");
	u->max_rss_task = num(o, "max_rss_task");
	u->ntasks =
	    num(o, json_object_get(o, "usage_ntasks") ? "usage_ntasks" : "ntasks");
	const char *node = json_string_value(json_object_get(o, "max_rss_node"));
	snprintf(u->max_rss_node, sizeof(u->max_rss_node), "%s", node ? node : "");
}
