/* Unit tests for cli/state.c and cli/signame.c: job state names and the
 * signal names scancel accepts. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/signame.h"
#include "cli/state.h"

static void test_states(void **state)
{
	assert_string_equal(cli_state_compact("PENDING"), "PD");
	assert_string_equal(cli_state_compact("COMPLETING"), "CG");
	assert_string_equal(cli_state_compact("OUT_OF_MEMORY"), "OOM");
	assert_string_equal(cli_state_compact("WEIRD"), "WEIRD");
	assert_string_equal(cli_state_parse("pd"), "PENDING");
	assert_string_equal(cli_state_parse("Running"), "RUNNING");
	assert_string_equal(cli_state_parse("CA"), "CANCELLED");
	assert_null(cli_state_parse("nope"));
	assert_true(cli_state_is_active("PENDING"));
	assert_true(cli_state_is_active("COMPLETING"));
	assert_false(cli_state_is_active("COMPLETED"));
	assert_false(cli_state_is_active("TIMEOUT"));
	assert_true(cli_state_rank("PENDING") < cli_state_rank("RUNNING"));
	assert_true(cli_state_rank("RUNNING") < cli_state_rank("COMPLETED"));
}

static void test_signals(void **state)
{
	assert_int_equal(cli_signal_parse("USR1"), SIGUSR1);
	assert_int_equal(cli_signal_parse("SIGUSR2"), SIGUSR2);
	assert_int_equal(cli_signal_parse("sigterm"), SIGTERM);
	assert_int_equal(cli_signal_parse("kill"), SIGKILL);
	assert_int_equal(cli_signal_parse("9"), 9);
	assert_int_equal(cli_signal_parse("0"), -EINVAL);
	assert_int_equal(cli_signal_parse("65"), -EINVAL);
	assert_int_equal(cli_signal_parse("SIGFOO"), -EINVAL);
	assert_int_equal(cli_signal_parse(""), -EINVAL);
	assert_int_equal(cli_signal_parse("9x"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_states),
	    cmocka_unit_test(test_signals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
