/* Unit tests for ctld/usage.c: a step's usage summed over the nodes that
 * report it, and its JSON in the step entries, the store and batch_usage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ctld/usage.h"

static struct drv_rec_usage report(int64_t user, int64_t sys, int64_t max, int64_t ave,
				   uint32_t task, uint32_t ntasks)
{
	return (struct drv_rec_usage){.user_usec = user,
				      .sys_usec = sys,
				      .max_rss_kib = max,
				      .ave_rss_kib = ave,
				      .max_rss_task = task,
				      .ntasks = ntasks};
}

static void add(struct step_usage *u, struct drv_rec_usage r, const char *node)
{
	usage_add(u, &r, node);
}

/* Two nodes of a 3-task step: CPU summed, the highest peak with its node
 * and task, the average over all three tasks. */
static void test_nodes_summed(void **state)
{
	struct step_usage u = {0};
	add(&u, report(1000000, 200000, 40960, 30000, 0, 2), "n1");
	add(&u, report(500000, 100000, 74704, 74704, 2, 1), "n2");
	assert_true(u.has);
	assert_int_equal(u.user_usec, 1500000);
	assert_int_equal(u.sys_usec, 300000);
	assert_int_equal(u.max_rss_kib, 74704);
	assert_string_equal(u.max_rss_node, "n2");
	assert_int_equal(u.max_rss_task, 2);
	assert_int_equal(u.ave_rss_kib, (30000 * 2 + 74704) / 3);
	assert_int_equal(u.ntasks, 3);
	/* a lower peak later changes neither the peak nor where it was */
	add(&u, report(0, 0, 100, 100, 3, 1), "n3");
	assert_string_equal(u.max_rss_node, "n2");
	assert_int_equal(u.max_rss_task, 2);
}

/* A step entry as the store (flags 0) or users (private fields left out)
 * get it. */
static json_t *step_entry(const struct step_usage *u, unsigned flags)
{
	struct drv_rec_step s = {.state = "RUNNING", .cancel_uid = -1};
	usage_to_step(u, &s);
	return drv_shape_encode(&drv_shape_rec_step, &s, flags);
}

/* A step no node reported usage for has no usage fields. */
static void test_absent(void **state)
{
	struct step_usage u = {0};
	assert_false(u.has);
	json_t *o = step_entry(&u, 0);
	assert_null(json_object_get(o, "user_usec"));
	assert_null(json_object_get(o, "sys_usec"));
	assert_null(json_object_get(o, "usage_ntasks"));
	json_decref(o);
	o = usage_to_object(&u);
	assert_true(json_is_null(o));
	json_decref(o);
	usage_from_total(&u, NULL);
	assert_false(u.has);
}

/* What the store keeps reads back the same, and keeps averaging right. */
static void test_round_trip(void **state)
{
	struct step_usage u = {0}, back;
	struct drv_error err;
	add(&u, report(7, 8, 900, 600, 1, 2), "n1");
	json_t *o = step_entry(&u, 0);
	assert_int_equal(json_integer_value(json_object_get(o, "usage_ntasks")), 2);
	struct drv_rec_step s;
	assert_int_equal(drv_rec_step_decode(o, &s, &err), 0);
	usage_from_step(&back, &s);
	assert_memory_equal(&u, &back, sizeof(u));
	drv_rec_step_free(&s);
	json_decref(o);
	/* the protocol's step entry has no usage_ntasks */
	o = step_entry(&u, DRV_ENC_EXCEPT | DRV_FL_PRIVATE);
	assert_null(json_object_get(o, "usage_ntasks"));
	assert_string_equal(json_string_value(json_object_get(o, "max_rss_node")), "n1");
	json_decref(o);
	o = usage_to_object(&u);
	assert_int_equal(json_integer_value(json_object_get(o, "ntasks")), 2);
	struct drv_rec_usage_total t;
	assert_int_equal(drv_rec_usage_total_decode(o, &t, &err), 0);
	usage_from_total(&back, &t);
	assert_memory_equal(&u, &back, sizeof(u));
	drv_rec_usage_total_free(&t);
	json_decref(o);
	add(&back, report(0, 0, 300, 300, 0, 1), "n2");
	assert_int_equal(back.ave_rss_kib, (600 * 2 + 300) / 3);
}

/* The sampled figures: the highest virtual size and CPU time and the
 * lowest CPU time, each with its node and task; they survive the store. */
static void test_sampled(void **state)
{
	struct step_usage u = {0}, back;
	struct drv_rec_usage a = report(3000000, 0, 500, 400, 1, 2);
	a.max_vsize_kib = 9000, a.ave_vsize_kib = 8000, a.max_vsize_task = 1;
	a.min_cpu_usec = 1000000, a.min_cpu_task = 0;
	a.max_cpu_usec = 2000000, a.max_cpu_task = 1;
	struct drv_rec_usage b = report(4000000, 0, 300, 300, 2, 1);
	b.max_vsize_kib = 12000, b.ave_vsize_kib = 12000, b.max_vsize_task = 2;
	b.min_cpu_usec = b.max_cpu_usec = 4000000, b.min_cpu_task = b.max_cpu_task = 2;
	usage_add(&u, &a, "n1");
	usage_add(&u, &b, "n2");
	assert_int_equal(u.max_vsize_kib, 12000);
	assert_string_equal(u.max_vsize_node, "n2");
	assert_int_equal(u.max_vsize_task, 2);
	assert_int_equal(u.ave_vsize_kib, (8000 * 2 + 12000) / 3);
	assert_int_equal(u.min_cpu_usec, 1000000);
	assert_string_equal(u.min_cpu_node, "n1");
	assert_int_equal(u.min_cpu_task, 0);
	assert_int_equal(u.max_cpu_usec, 4000000);
	assert_string_equal(u.max_cpu_node, "n2");
	assert_int_equal(u.max_cpu_task, 2);
	struct drv_error err;
	json_t *o = step_entry(&u, 0);
	struct drv_rec_step s;
	assert_int_equal(drv_rec_step_decode(o, &s, &err), 0);
	usage_from_step(&back, &s);
	assert_memory_equal(&u, &back, sizeof(u));
	drv_rec_step_free(&s);
	json_decref(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nodes_summed),
	    cmocka_unit_test(test_absent),
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_sampled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
