/* test_shepherd_pty.c — srun --pty's terminal on the shepherd's side
 * (shepherd/pty.c): a real pty pair, its size, the slave as a child's
 * controlling terminal, and the line discipline turning ^C into SIGINT. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cmocka.h>

#include "shepherd/shepherd.h"

static void test_pair_and_size(void **state)
{
	int m, s;
	char err[200] = "";
	assert_int_equal(pty_open(&m, &s, getuid(), getgid(), err, sizeof(err)), 0);
	assert_true(isatty(s));
	assert_true(fcntl(m, F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(s, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(pty_set_size(m, 40, 120), 0);
	struct winsize ws;
	assert_int_equal(ioctl(s, TIOCGWINSZ, &ws), 0);
	assert_int_equal(ws.ws_row, 40);
	assert_int_equal(ws.ws_col, 120);
	/* 0 0: srun has no terminal, the size stays */
	assert_int_equal(pty_set_size(m, 0, 0), 0);
	assert_int_equal(ioctl(s, TIOCGWINSZ, &ws), 0);
	assert_int_equal(ws.ws_row, 40);
	/* what is written on the master reaches the slave */
	assert_int_equal(write(m, "x\n", 2), 2);
	char buf[8];
	assert_int_equal(read(s, buf, sizeof(buf)), 2);
	close(s);
	close(m);
}

/* A child in its own session takes the slave as controlling terminal; a
 * ^C written on the master then kills it with SIGINT, as a typed one. */
static void test_controlling_terminal_and_ctrl_c(void **state)
{
	int m, s;
	char err[200] = "";
	assert_int_equal(pty_open(&m, &s, getuid(), getgid(), err, sizeof(err)), 0);
	int ready[2];
	assert_int_equal(pipe(ready), 0);
	pid_t pid = fork();
	if (pid == 0) {
		setsid();
		dup2(s, STDIN_FILENO);
		if (pty_make_controlling(STDIN_FILENO) < 0 ||
		    tcsetpgrp(STDIN_FILENO, getpid()) < 0)
			_exit(3);
		signal(SIGINT, SIG_DFL);
		if (write(ready[1], "r", 1) != 1)
			_exit(4);
		for (;;)
			pause();
	}
	close(s);
	char r;
	assert_int_equal(read(ready[0], &r, 1), 1);
	assert_int_equal(write(m, "\x03", 1), 1);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGINT);
	close(ready[0]);
	close(ready[1]);
	close(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pair_and_size),
	    cmocka_unit_test(test_controlling_terminal_and_ctrl_c),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
