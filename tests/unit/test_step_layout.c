/* Unit tests for common/step_layout.c: block, cyclic and plane layouts as
 * Slurm spreads them, and the compressed tasks-per-node string. */
#include <setjmp.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/step_layout.h"

static void layout(struct step_layout *l, uint32_t nodes, uint32_t ntasks,
		   enum drv_dist d, uint32_t plane, const uint32_t *cpus)
{
	struct step_layout_req r = {.n_nodes = nodes,
				    .ntasks = ntasks,
				    .dist = d,
				    .plane_size = plane,
				    .cpus = cpus};
	struct drv_error err = {{0}};

	assert_int_equal(step_layout_compute(&r, l, &err), 0);
}

static void test_block(void **state)
{
	struct step_layout l;

	layout(&l, 2, 3, DIST_UNSET, 0, NULL);
	assert_int_equal(l.tasks[0], 2);
	assert_int_equal(l.tasks[1], 1);
	assert_int_equal(l.tids[0][0], 0);
	assert_int_equal(l.tids[0][1], 1);
	assert_int_equal(l.tids[1][0], 2);
	step_layout_fini(&l);
	layout(&l, 2, 4, DIST_BLOCK, 0, NULL);
	assert_int_equal(l.tids[0][1], 1);
	assert_int_equal(l.tids[1][0], 2);
	assert_int_equal(l.tids[1][1], 3);
	step_layout_fini(&l);
}

static void test_cyclic(void **state)
{
	struct step_layout l;

	layout(&l, 2, 4, DIST_CYCLIC, 0, NULL);
	assert_int_equal(l.tids[0][0], 0);
	assert_int_equal(l.tids[0][1], 2);
	assert_int_equal(l.tids[1][0], 1);
	assert_int_equal(l.tids[1][1], 3);
	step_layout_fini(&l);
	layout(&l, 3, 5, DIST_CYCLIC, 0, NULL);
	assert_int_equal(l.tasks[0], 2);
	assert_int_equal(l.tasks[1], 2);
	assert_int_equal(l.tasks[2], 1);
	assert_int_equal(l.tids[2][0], 2);
	assert_int_equal(l.tids[0][1], 3);
	step_layout_fini(&l);
}

/* Nodes with fewer CPUs fill first; then tasks overcommit round-robin. */
static void test_cpus(void **state)
{
	static const uint32_t cpus[] = {1, 4};
	struct step_layout l;

	layout(&l, 2, 4, DIST_BLOCK, 0, cpus);
	assert_int_equal(l.tasks[0], 1);
	assert_int_equal(l.tasks[1], 3);
	assert_int_equal(l.tids[1][0], 1);
	step_layout_fini(&l);
	layout(&l, 2, 7, DIST_BLOCK, 0, cpus);
	assert_int_equal(l.tasks[0], 2);
	assert_int_equal(l.tasks[1], 5);
	step_layout_fini(&l);

	struct step_layout_req r = {
	    .n_nodes = 2, .ntasks = 4, .cpus = cpus, .cpus_per_task = 2};
	struct drv_error err = {{0}};
	assert_int_equal(step_layout_compute(&r, &l, &err), 0);
	/* node 0 holds none: node 1 fills its 2, then overcommit goes round */
	assert_int_equal(l.tasks[0], 1);
	assert_int_equal(l.tasks[1], 3);
	step_layout_fini(&l);
}

static void test_plane(void **state)
{
	struct step_layout l;

	layout(&l, 2, 7, DIST_PLANE, 2, NULL);
	assert_int_equal(l.tasks[0], 4); /* 0,1,4,5 */
	assert_int_equal(l.tasks[1], 3); /* 2,3,6 */
	assert_int_equal(l.tids[0][2], 4);
	assert_int_equal(l.tids[1][2], 6);
	step_layout_fini(&l);
}

static void test_errors(void **state)
{
	struct step_layout l = {0};
	struct drv_error err = {{0}};
	struct step_layout_req r = {.n_nodes = 2, .ntasks = 5, .tasks_per_node_max = 2};

	assert_int_equal(step_layout_compute(&r, &l, &err), -ENOSPC);
	assert_string_equal(err.text, "Requested node configuration is not available");
	r.tasks_per_node_max = 3;
	assert_int_equal(step_layout_compute(&r, &l, &err), 0);
	assert_int_equal(l.tasks[0], 3);
	assert_int_equal(l.tasks[1], 2);
	step_layout_fini(&l);
	r.dist = DIST_PLANE;
	assert_int_equal(step_layout_compute(&r, &l, &err), -EINVAL);
	r.dist = DIST_ARBITRARY;
	assert_int_equal(step_layout_compute(&r, &l, &err), -EINVAL);
	r.dist = DIST_BLOCK;
	r.ntasks = 0;
	assert_int_equal(step_layout_compute(&r, &l, &err), -EINVAL);
	step_layout_fini(NULL);
}

static void test_compress(void **state)
{
	static const uint32_t a[] = {2, 2, 1}, b[] = {4}, c[] = {1, 3, 3, 3, 1};
	char buf[64];

	assert_int_equal(step_layout_compress(a, 3, buf, sizeof(buf)), 7);
	assert_string_equal(buf, "2(x2),1");
	step_layout_compress(b, 1, buf, sizeof(buf));
	assert_string_equal(buf, "4");
	step_layout_compress(c, 5, buf, sizeof(buf));
	assert_string_equal(buf, "1,3(x3),1");
	assert_int_equal(step_layout_compress(c, 5, buf, 4), 9);
	assert_string_equal(buf, "1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_block),  cmocka_unit_test(test_cyclic),
	    cmocka_unit_test(test_cpus),   cmocka_unit_test(test_plane),
	    cmocka_unit_test(test_errors), cmocka_unit_test(test_compress),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
