/* test_job_id.c — the round of job ids (src/ctld/job_id.c): ascending from
 * FirstJobId, MaxJobId never issued, round again past it, every id in use
 * skipped, -ENOSPC with nothing changed when none is left, and a look-up
 * failure passed on. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "ctld/job_id.h"

struct used {
	bool id[64];
	int fail; /* returned by the look-up when not 0 */
	int calls;
};

static int free_in(uint32_t lo, uint32_t hi, void *arg, uint32_t *id)
{
	struct used *u = arg;
	u->calls++;
	if (u->fail)
		return u->fail;
	assert_true(lo <= hi && hi < 64);
	for (uint32_t i = lo; i <= hi; i++)
		if (!u->id[i]) {
			*id = i;
			return 0;
		}
	*id = 0;
	return 0;
}

/* Issues one id and marks it in use, as a submission does. */
static uint32_t issue(struct used *u, uint32_t first, uint32_t max, uint32_t *next)
{
	uint32_t id = 0;
	assert_int_equal(job_id_pick(first, max, next, free_in, u, &id), 0);
	u->id[id] = true;
	return id;
}

static void ascends_and_never_issues_max(void **state)
{
	struct used u = {0};
	uint32_t next = 1;
	assert_int_equal(issue(&u, 10, 13, &next), 10); /* next below first */
	assert_int_equal(issue(&u, 10, 13, &next), 11);
	assert_int_equal(issue(&u, 10, 13, &next), 12);
	assert_int_equal(next, 13);
	uint32_t id = 99;
	assert_int_equal(job_id_pick(10, 13, &next, free_in, &u, &id), -ENOSPC);
	assert_int_equal(id, 99); /* nothing set */
	assert_int_equal(next, 13);
}

static void wraps_and_skips_ids_in_use(void **state)
{
	struct used u = {0};
	uint32_t next = 10;
	for (int i = 0; i < 4; i++)
		issue(&u, 10, 14, &next);
	u.id[11] = u.id[13] = false; /* 11 and 13 are gone; 10 and 12 stay */
	assert_int_equal(issue(&u, 10, 14, &next), 11);
	assert_int_equal(issue(&u, 10, 14, &next), 13);
	assert_int_equal(next, 14);
	u.id[12] = false;
	assert_int_equal(issue(&u, 10, 14, &next), 12); /* round again */
	uint32_t id = 0;
	assert_int_equal(job_id_pick(10, 14, &next, free_in, &u, &id), -ENOSPC);
	assert_int_equal(next, 13);
	/* the range shrank below next: start over at first */
	u.id[10] = false;
	next = 40;
	assert_int_equal(issue(&u, 10, 14, &next), 10);
}

static void lookup_failure_and_bad_range(void **state)
{
	struct used u = {.fail = -EIO};
	uint32_t next = 5, id = 7;
	assert_int_equal(job_id_pick(1, 10, &next, free_in, &u, &id), -EIO);
	assert_int_equal(next, 5);
	assert_int_equal(id, 7);
	u.fail = 0;
	assert_int_equal(job_id_pick(10, 10, &next, free_in, &u, &id), -EINVAL);
	assert_int_equal(job_id_pick(0, 10, &next, free_in, &u, &id), -EINVAL);
	/* from the start of the range, one look-up covers it all */
	u.calls = 0;
	next = 1;
	u.id[1] = true;
	assert_int_equal(job_id_pick(1, 10, &next, free_in, &u, &id), 0);
	assert_int_equal(id, 2);
	assert_int_equal(u.calls, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(ascends_and_never_issues_max),
	    cmocka_unit_test(wraps_and_skips_ids_in_use),
	    cmocka_unit_test(lookup_failure_and_bad_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
