/* test_shepherd_task_prolog.c — TaskProlog's output lines (task_prolog.c):
 * export, unset, print, and what is ignored. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "shepherd/shepherd.h"

static char **env_of(const char *const *init)
{
	char **envp = calloc(1, sizeof(*envp));
	for (size_t i = 0; init[i]; i += 2)
		assert_int_equal(env_set(&envp, init[i], init[i + 1]), 0);
	return envp;
}

static const char *get(char **envp, const char *name)
{
	size_t n = strlen(name);
	for (char **p = envp; *p; p++)
		if (!strncmp(*p, name, n) && (*p)[n] == '=')
			return *p + n + 1;
	return NULL;
}

static size_t count(char **envp)
{
	size_t n = 0;
	while (envp[n])
		n++;
	return n;
}

static void apply(char ***envp, const char *text, int fd)
{
	assert_int_equal(task_prolog_apply(envp, text, strlen(text), fd), 0);
}

static void test_export_sets_and_replaces(void **state)
{
	(void)state;
	char **envp = env_of((const char *const[]){"A", "old", "B", "b", NULL});
	apply(&envp, "export A=new\nexport X=1\nexport G=hello world=yes\n", -1);
	assert_string_equal(get(envp, "A"), "new");
	assert_string_equal(get(envp, "X"), "1");
	assert_string_equal(get(envp, "G"), "hello world=yes");
	assert_string_equal(get(envp, "B"), "b");
	assert_int_equal(count(envp), 4);
	apply(&envp, "export E=", -1); /* empty value, no trailing newline */
	assert_string_equal(get(envp, "E"), "");
	env_free(envp);
}

static void test_unset_removes(void **state)
{
	(void)state;
	char **envp = env_of((const char *const[]){"A", "1", "B", "2", "C", "3", NULL});
	apply(&envp, "unset B\r\nunset NOPE\nunset C  \n", -1);
	assert_null(get(envp, "B"));
	assert_null(get(envp, "C"));
	assert_string_equal(get(envp, "A"), "1");
	assert_int_equal(count(envp), 1);
	env_free(envp);
}

static void test_print_and_ignored_lines(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	char **envp = env_of((const char *const[]){"A", "1", NULL});
	apply(&envp,
	      "print hello there\nexport\nexport NOEQ\nexport 1X=2\nexport B-C=3\n"
	      "Export Y=1\nrandom text\n\nprint \n",
	      p[1]);
	close(p[1]);
	char buf[128] = "";
	ssize_t n = read(p[0], buf, sizeof(buf) - 1);
	close(p[0]);
	assert_true(n > 0);
	assert_string_equal(buf, "hello there\n\n");
	assert_int_equal(count(envp), 1);
	env_free(envp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_export_sets_and_replaces),
	    cmocka_unit_test(test_unset_removes),
	    cmocka_unit_test(test_print_and_ignored_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
