/* test_gpu_bind.c — which GPUs each task sees (shepherd/gpu_bind.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "shepherd/shepherd.h"

/* The picked GPUs of task local as "a,b" text. */
static void expect(const char *bind, int64_t per_task, uint32_t local, const char *want)
{
	json_t *gpus = json_pack("[i,i,i,i]", 2, 3, 5, 7); /* the step's on this node */
	json_t *mine = gpu_bind_pick(gpus, bind, per_task, local);
	char got[64] = "";
	size_t i, len = 0;
	json_t *g;
	json_array_foreach(mine, i, g) len += (size_t)snprintf(
	    got + len, sizeof(got) - len, "%s%lld", i ? "," : "", json_integer_value(g));
	if (strcmp(got, want))
		fail_msg("bind %s per_task %lld task %u: got '%s', want '%s'",
			 bind ? bind : "(none)", (long long)per_task, local, got, want);
	json_decref(mine);
	json_decref(gpus);
}

static void test_without_binding_every_gpu(void **state)
{
	expect(NULL, 0, 3, "2,3,5,7");
	expect("closest", 0, 1, "2,3,5,7");
	expect("none", 0, 0, "2,3,5,7");
}

static void test_gpus_per_task_slices(void **state)
{
	expect(NULL, 2, 0, "2,3");
	expect(NULL, 2, 1, "5,7");
}

static void test_single_and_per_task(void **state)
{
	expect("single:2", 0, 0, "2");
	expect("single:2", 0, 1, "2");
	expect("single:2", 0, 2, "3");
	expect("verbose,single:1", 0, 5, "3"); /* round robin past the last */
	expect("per_task:2", 0, 1, "5,7");
	expect("per_task:3", 0, 1, "7,2,3");
}

static void test_maps_and_masks(void **state)
{
	expect("map_gpu:7,2", 0, 0, "7");
	expect("map_gpu:7,2", 0, 1, "2");
	expect("map_gpu:7,2", 0, 2, "7");
	expect("map_gpu:4", 0, 0, ""); /* not one of the step's GPUs */
	expect("mask_gpu:0xc,0x80", 0, 0, "2,3");
	expect("mask_gpu:0xc,0x80", 0, 1, "7");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_without_binding_every_gpu),
	    cmocka_unit_test(test_gpus_per_task_slices),
	    cmocka_unit_test(test_single_and_per_task),
	    cmocka_unit_test(test_maps_and_masks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
