/* Unit tests for cli/sbatch_env.c: the job environment --export builds. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli/sbatch_env.h"
#include "cli/sbatch_script.h"

static char *envp[] = {"HOME=/root", "PATH=/bin", "SLURM_CONF=/x", "A=old", NULL};

static const char *find(char **env, size_t n, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < n; i++)
		if (!strncmp(env[i], name, len) && env[i][len] == '=')
			return env[i] + len + 1;
	return NULL;
}

static void build(const char *spec, char ***env, size_t *n)
{
	struct drv_error err;

	assert_int_equal(sbatch_env_build(spec, envp, env, n, &err), 0);
	assert_null((*env)[*n]);
}

static void test_all(void **state)
{
	char **env;
	size_t n;

	build(NULL, &env, &n);
	assert_int_equal(n, 4);
	assert_string_equal(find(env, n, "PATH"), "/bin");
	sbatch_words_free(env, n);
	build("ALL,A=new,B='x y'", &env, &n);
	assert_int_equal(n, 5);
	assert_string_equal(find(env, n, "A"), "new");
	assert_string_equal(find(env, n, "B"), "x y");
	sbatch_words_free(env, n);
}

static void test_none_and_lists(void **state)
{
	char **env;
	size_t n;

	build("NONE", &env, &n);
	assert_int_equal(n, 1);
	assert_string_equal(find(env, n, "SLURM_CONF"), "/x");
	sbatch_words_free(env, n);
	build("HOME,C=\"1,2\",MISSING", &env, &n);
	assert_int_equal(n, 3);
	assert_string_equal(find(env, n, "HOME"), "/root");
	assert_string_equal(find(env, n, "C"), "1,2");
	assert_null(find(env, n, "PATH"));
	assert_null(find(env, n, "MISSING"));
	sbatch_words_free(env, n);
	build("NONE,D=", &env, &n);
	assert_string_equal(find(env, n, "D"), "");
	sbatch_words_free(env, n);
}

static void test_bad(void **state)
{
	char **env = NULL;
	size_t n = 0;
	struct drv_error err;

	assert_int_equal(sbatch_env_build("ALL,=x", envp, &env, &n, &err), -EINVAL);
	assert_non_null(strstr(err.text, "--export"));
	assert_null(env);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_all),
	    cmocka_unit_test(test_none_and_lists),
	    cmocka_unit_test(test_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
