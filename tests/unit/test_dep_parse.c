/* test_dep_parse.c — the --dependency grammar as Slurm 22.05 reads it
 * (every case here was checked against a real slurmctld), the text it
 * prints back, and the store's JSON round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>

#include "ctld/dep_parse.h"

/* Parses text and checks what it prints back. */
static void shown_as(const char *text, const char *shown)
{
	struct dep_list l;
	assert_int_equal(dep_parse(text, &l), 0);
	char *s = dep_format(&l);
	if (shown)
		assert_string_equal(s, shown);
	else
		assert_null(s);
	free(s);
	dep_list_free(&l);
}

static void accepted_forms(void **state)
{
	shown_as("afterok:12", "afterok:12(unfulfilled)");
	shown_as("AFTEROK:1", "afterok:1(unfulfilled)");
	shown_as("123", "afterany:123(unfulfilled)");
	shown_as("afterok:1+5", "afterok:1+5(unfulfilled)");
	shown_as("after:1+5:2+10", "after:1+5(unfulfilled),after:2+10(unfulfilled)");
	shown_as("afterok:1:2,afterany:3",
		 "afterok:1(unfulfilled),afterok:2(unfulfilled),afterany:3(unfulfilled)");
	shown_as("afterok:1,afterok:2?afterok:3",
		 "afterok:1(unfulfilled)?afterok:2(unfulfilled)?afterok:3(unfulfilled)");
	shown_as("afterany:1?singleton",
		 "afterany:1(unfulfilled)?singleton(unfulfilled)");
	shown_as("singleton,afterok:1", "singleton(unfulfilled),afterok:1(unfulfilled)");
	shown_as("afterok:1_5:2_*", "afterok:1_5(unfulfilled),afterok:2_*(unfulfilled)");
	shown_as("afterok:1_", "afterok:1_0(unfulfilled)");
	shown_as("afterok: 1", "afterok:1(unfulfilled)");
	shown_as("aftercorr:7", "aftercorr:7(unfulfilled)");
	shown_as("afterburstbuffer:7", "afterburstbuffer:7(unfulfilled)");
	shown_as("afternotok:4294967295", "afternotok:4294967295(unfulfilled)");
	shown_as("", NULL);
}

static void refused_forms(void **state)
{
	const char *bad[] = {
	    "123:124",	   "after:1+x",	  "after:1+",	"singleton:1",
	    "afterok:0",   "afterok:1:",  ",afterok:1", "afterok:1,,afterok:2",
	    "afterok:1_x", "afterok:1?",  "afterok:1x", "bogus:1",
	    "afterok:",	   "afterok:abc", "afterok",	"afterok:4294967296"};
	struct dep_list l = {0};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = dep_parse(bad[i], &l);
		if (rc != -EINVAL)
			fail_msg("'%s' gave %d", bad[i], rc);
		assert_null(l.items);
	}
	assert_int_equal(dep_parse("expand:1", &l), -ENOTSUP);
}

static void items_and_states(void **state)
{
	struct dep_list l;
	assert_int_equal(dep_parse("after:3+2,afterok:4_*?afternotok:5", &l), 0);
	assert_true(l.any);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.items[0].kind, DEP_AFTER);
	assert_int_equal(l.items[0].minutes, 2);
	assert_int_equal(l.items[0].task, DEP_TASK_NONE);
	assert_int_equal(l.items[1].task, DEP_TASK_ALL);
	l.items[2].state = DEP_FAILED;
	dep_list_remove(&l, 0);
	char *s = dep_format(&l);
	assert_string_equal(s, "afterok:4_*(unfulfilled)?afternotok:5(failed)");
	free(s);
	json_t *j = dep_to_json(&l);
	struct dep_list back;
	assert_int_equal(dep_from_json(&back, j, l.any, false), 0);
	s = dep_format(&back);
	assert_string_equal(s, "afterok:4_*(unfulfilled)?afternotok:5(failed)");
	free(s);
	json_decref(j);
	dep_list_free(&back);
	dep_list_free(&l);
	/* a record from before the grammar: plain afterok ids */
	j = json_pack("[i,i]", 7, 8);
	assert_int_equal(dep_from_json(&back, j, false, true), 0);
	s = dep_format(&back);
	assert_string_equal(s, "afterok:7(failed),afterok:8(failed)");
	free(s);
	json_decref(j);
	dep_list_free(&back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(accepted_forms),
	    cmocka_unit_test(refused_forms),
	    cmocka_unit_test(items_and_states),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
