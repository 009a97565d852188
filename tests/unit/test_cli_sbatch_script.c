/* Unit tests for cli/sbatch_script.c: which lines are #SBATCH directives and
 * how they split into words. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/sbatch_script.h"

/* Splits script and checks the words against the NULL-terminated want. */
static void expect_words(const char *script, const char *const *want)
{
	char **words = NULL;
	size_t n = 0, i;

	assert_int_equal(sbatch_script_directives(script, strlen(script), &words, &n), 0);
	for (i = 0; want[i]; i++) {
		assert_true(i < n);
		assert_string_equal(words[i], want[i]);
	}
	assert_int_equal(n, i);
	assert_null(words[n]);
	sbatch_words_free(words, n);
}

static void test_forms(void **state)
{
	const char *script = "#!/bin/bash\n"
			     "#SBATCH --job-name=x\n"
			     "#SBATCH --time 5:00\n"
			     "#SBATCH -p debug\n"
			     "#SBATCH --exclusive\n"
			     "#SBATCH -N2\n"
			     "echo hi\n";
	const char *const want[] = {"--job-name=x", "--time",	   "5:00", "-p",
				    "debug",	    "--exclusive", "-N2",  NULL};
	expect_words(script, want);
}

static void test_quotes_and_comments(void **state)
{
	const char *script = "#!/bin/sh\n"
			     "#SBATCH --job-name=\"my job\"   # trailing comment\n"
			     "#SBATCH --comment 'a b' -o out#x\n"
			     "#SBATCH --export=ALL,A='1,2'\n"
			     "#SBATCH --wrap=a\\ b\n";
	/* no backslash escapes in Slurm's directives: "b" is a word alone */
	const char *const want[] = {
	    "--job-name=my job",  "--comment",	"a b", "-o", "out",
	    "--export=ALL,A=1,2", "--wrap=a\\", "b",   NULL};
	expect_words(script, want);
}

static void test_stops_at_first_command(void **state)
{
	const char *script = "#!/bin/sh\n"
			     "\n"
			     "# plain comment\n"
			     "   # indented comment\n"
			     "#SBATCH -J one\n"
			     "hostname\n"
			     "#SBATCH -J two\n";
	const char *const want[] = {"-J", "one", NULL};
	expect_words(script, want);
}

static void test_not_directives(void **state)
{
	const char *script = "#!/bin/sh\n"
			     "##SBATCH -J no\n"
			     " #SBATCH -J no\n"
			     "#SBATCH\n";
	const char *const want[] = {NULL};
	expect_words(script, want);
	expect_words("#!/bin/sh", want);
	expect_words("#!/bin/sh\n#SBATCH -J last",
		     (const char *const[]){"-J", "last", NULL});
}

/* Slurm needs no space after the magic word. */
static void test_glued_magic(void **state)
{
	expect_words("#!/bin/sh\n#SBATCH-J glued\n#SBATCHX\n",
		     (const char *const[]){"-J", "glued", "X", NULL});
}

static void test_shebang_and_wrap(void **state)
{
	char *w = sbatch_script_wrap("echo hi");

	assert_true(sbatch_script_has_shebang("#!/bin/sh\n", 10));
	assert_false(sbatch_script_has_shebang("echo\n", 5));
	assert_false(sbatch_script_has_shebang("#", 1));
	assert_string_equal(w, "#!/bin/sh\necho hi\n");
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_forms),
	    cmocka_unit_test(test_quotes_and_comments),
	    cmocka_unit_test(test_stops_at_first_command),
	    cmocka_unit_test(test_not_directives),
	    cmocka_unit_test(test_glued_magic),
	    cmocka_unit_test(test_shebang_and_wrap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
