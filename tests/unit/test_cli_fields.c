/* Unit tests for cli/fields.c: sacctmgr's and sshare's column layout
 * (widths, justification, '+' truncation, -p and -P) and --format
 * parsing (any case, prefixes, %N and %-N, unknown names). */
#include <setjmp.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/fields.h"

static const struct cli_field_def defs[] = {
    {"User", "User", 10, 0, 0},
    {"DefaultAccount", "Def Acct", 10, 1, 0},
    {"Account", "Account", -20, 2, 0},
    {0, 0, 0, 0, 0},
};

/* sacctmgr's kind: the first name in table order that the word starts,
 * over at least min letters */
static const struct cli_field_def min_defs[] = {
    {"Account", "Account", 10, 1, 3},
    {"AdminLevel", "Admin", 9, 2, 2},
    {"Clusters", "Cluster", 10, 3, 2},
    {"Coordinators", "Coord Accounts", 20, 4, 2},
    {"GrpTRES", "GrpTRES", 13, 5, 7},
    {"GrpTRESMins", "GrpTRESMins", 13, 6, 7},
    {"MaxJobs", "MaxJobs", 7, 7, 4},
    {"MaxJobsPerUser", "MaxJobsPU", 9, 8, 11},
    {"Share", "Share", 9, 9, 1},
    {"User", "User", 10, 10, 1},
    {0, 0, 0, 0, 0},
};

static int min_id(const char *word)
{
	struct cli_fields fl = {.n = 0};
	char bad[32];
	if (cli_fields_parse(word, min_defs, &fl, bad, sizeof(bad)) < 0)
		return -1;
	return fl.def[0]->id;
}

static void test_minimum_lengths(void **state)
{
	assert_int_equal(min_id("acc"), 1);
	assert_int_equal(min_id("ac"), -1); /* shorter than Account's 3 */
	assert_int_equal(min_id("ad"), 2);  /* AdminLevel needs 2 */
	assert_int_equal(min_id("co"), 4);  /* Coordinators comes first */
	assert_int_equal(min_id("cl"), 3);
	assert_int_equal(min_id("GrpTRES"), 5);
	assert_int_equal(min_id("grptresmins"), 6); /* longer than GrpTRES: the next */
	assert_int_equal(min_id("maxj"), 7);
	assert_int_equal(min_id("MaxJobsPerUser"), 8);
	assert_int_equal(min_id("MaxJobsP"),
			 -1); /* MaxJobs is shorter, the other needs 11 */
	assert_int_equal(min_id("s"), 9);
	assert_int_equal(min_id("Accountx"), -1); /* longer than any name it starts */
}

/* Lays out the header and one row into a string (static buffer). */
static const char *layout(const char *spec, enum cli_fields_mode mode,
			  const char *const *values)
{
	static char buf[4096];
	struct cli_fields fl = {.n = 0};
	char bad[32];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	assert_int_equal(cli_fields_parse(spec, defs, &fl, bad, sizeof(bad)), 0);
	cli_fields_header(f, &fl, mode);
	cli_fields_row(f, &fl, mode, values);
	fclose(f);
	return buf;
}

static void test_table(void **state)
{
	const char *v[] = {"root", "proj1"};

	assert_string_equal(layout("User,Account", CLI_FIELDS_TABLE, v),
			    "      User Account              \n"
			    "---------- -------------------- \n"
			    "      root proj1                \n");
	/* an explicit width right-justifies, a negative one left-justifies */
	assert_string_equal(layout("account%8,user%-6", CLI_FIELDS_TABLE, v),
			    " Account User   \n"
			    "-------- ------ \n"
			    "    root proj1  \n");
}

static void test_truncation(void **state)
{
	const char *v[] = {"averylongaccount"};

	/* values lose their end to a '+'; headers are cut bare */
	assert_string_equal(layout("account%5", CLI_FIELDS_TABLE, v),
			    "Accou \n----- \naver+ \n");
	assert_string_equal(layout("acc%0", CLI_FIELDS_TABLE, (const char *[]){"a"}),
			    "Account              \n"
			    "-------------------- \n"
			    "a                    \n");
}

static void test_parsable(void **state)
{
	const char *v[] = {"root", NULL};

	assert_string_equal(layout("User,DefaultAccount", CLI_FIELDS_PARSABLE, v),
			    "User|Def Acct|\nroot||\n");
	assert_string_equal(layout("User,DefaultAccount", CLI_FIELDS_PARSABLE2, v),
			    "User|Def Acct\nroot|\n");
}

static void test_parse_errors(void **state)
{
	struct cli_fields fl = {.n = 0};
	char bad[32];

	assert_int_equal(cli_fields_parse("user,foo%3", defs, &fl, bad, sizeof(bad)),
			 -EINVAL);
	assert_string_equal(bad, "foo");
	assert_int_equal(fl.n, 1);
	fl.n = 0;
	assert_int_equal(cli_fields_parse("acc%x", defs, &fl, bad, sizeof(bad)), -EINVAL);
	assert_string_equal(bad, "acc");
	fl.n = 0;
	/* an exact name wins over a longer one it prefixes */
	assert_int_equal(cli_fields_parse("Account,d", defs, &fl, bad, sizeof(bad)), 0);
	assert_int_equal(fl.def[0]->id, 2);
	assert_int_equal(fl.def[1]->id, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_table),	    cmocka_unit_test(test_truncation),
	    cmocka_unit_test(test_parsable),	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_minimum_lengths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
