/* test_cpu_bind.c — which CPUs each task gets under --cpu-bind
 * (shepherd/cpu_bind.c), within a step's CPUs 2,3,5,7. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "shepherd/shepherd.h"

/* Task local's CPUs as "a,b", or the return code as "rc=N". */
static void expect(const char *bind, uint32_t cpt, uint32_t local, const char *want)
{
	cpu_set_t allowed, out;
	CPU_ZERO(&allowed);
	CPU_SET(2, &allowed);
	CPU_SET(3, &allowed);
	CPU_SET(5, &allowed);
	CPU_SET(7, &allowed);
	bool verbose;
	char got[64] = "";
	int rc = cpu_bind_mask(&allowed, bind, local, cpt, &out, &verbose);
	if (rc != 0) {
		snprintf(got, sizeof(got), "rc=%d", rc);
	} else {
		size_t len = 0;
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &out))
				len += (size_t)snprintf(got + len, sizeof(got) - len,
							"%s%d", len ? "," : "", c);
	}
	if (strcmp(got, want))
		fail_msg("bind %s cpt %u task %u: got '%s', want '%s'", bind, cpt, local,
			 got, want);
}

static void test_cores_give_each_task_its_block(void **state)
{
	expect("cores", 1, 0, "2");
	expect("cores", 1, 1, "3");
	expect("threads", 1, 3, "7");
	expect("cores", 2, 0, "2,3");
	expect("cores", 2, 1, "5,7");
	expect("cores", 1, 4, "2"); /* more tasks than CPUs: round again */
	expect("verbose,cores", 1, 2, "5");
}

static void test_rank_and_whole_set(void **state)
{
	expect("rank", 1, 1, "3");
	expect("sockets", 1, 3, "2,3,5,7");
	expect("ldoms", 2, 0, "2,3,5,7");
}

static void test_map_and_mask_lists(void **state)
{
	expect("map_cpu:7,2", 1, 0, "7");
	expect("map_cpu:7,2", 1, 1, "2");
	expect("map_cpu:7,2", 1, 2, "7");
	expect("map_cpu:3*2,5", 1, 1, "3");
	expect("map_cpu:3*2,5", 1, 2, "5");
	expect("mask_cpu:0xc,0xa0", 1, 0, "2,3");
	expect("mask_cpu:0xc,a0", 1, 1, "5,7");
	expect("verbose,map_cpu:5,3,quiet", 1, 1, "3");
	/* outside the step's CPUs, as Slurm refuses it */
	expect("map_cpu:0", 1, 0, "rc=-1");
	expect("mask_cpu:0x3", 1, 0, "rc=-1");
}

static void test_none_and_bad(void **state)
{
	expect("none", 1, 0, "rc=1");
	expect("quiet,none", 1, 0, "rc=1");
	expect("q", 1, 0, "rc=1");
	expect("map_cpu:", 1, 0, "rc=-22");
	expect("map_cpu", 1, 0, "rc=-22");
	expect("bogus", 1, 0, "rc=-22");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cores_give_each_task_its_block),
	    cmocka_unit_test(test_rank_and_whole_set),
	    cmocka_unit_test(test_map_and_mask_lists),
	    cmocka_unit_test(test_none_and_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
