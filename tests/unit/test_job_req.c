/* test_job_req.c — a job's request as ctld builds it from job.submit:
 * Slurm's defaults (one task per node, DefMemPerCPU, the whole node),
 * -N exact or a range, afterok parsing, refusals, the store round trip, and
 * the "2(x3),1" counts of SLURM_TASKS_PER_NODE. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/proto.h"
#include "ctld/job_req.h"

static int build_in(const char *body_json, const struct drv_conf *conf,
		    const struct drv_part_conf *part, struct job_req *q)
{
	json_t *body = json_loads(body_json, 0, NULL);
	assert_non_null(body);
	/* the fields job_req ignores but the declaration requires */
	json_object_set_new(body, "name", json_string("t"));
	json_object_set_new(body, "workdir", json_string("/"));
	struct drv_job_submit m;
	struct drv_error err = {{0}};
	assert_int_equal(drv_job_submit_decode(body, &m, &err), 0);
	int rc = job_req_from_submit(q, &m, conf, part, &err);
	drv_job_submit_free(&m);
	json_decref(body);
	return rc;
}

static int build(const char *body_json, const struct drv_conf *conf, struct job_req *q)
{
	return build_in(body_json, conf, NULL, q);
}

static void defaults_follow_slurm(void **state)
{
	struct drv_conf conf = {.def_mem_per_cpu = 0};
	struct job_req q;
	assert_int_equal(build("{}", &conf, &q), 0);
	assert_int_equal(q.sched.min_nodes, 1);
	assert_int_equal(q.sched.max_nodes, 0); /* no -N: as many as the tasks need */
	assert_int_equal(q.sched.cpus_per_task, 1);
	assert_false(q.ntasks_given);
	assert_true(q.sched.mem_per_node ==
		    SCHED_MEM_WHOLE); /* DefMemPerNode=UNLIMITED */
	job_req_free(&q);
	conf.def_mem_per_cpu = 512;
	assert_int_equal(
	    build("{\"nodes\":2,\"ntasks\":4,\"cpus_per_task\":2}", &conf, &q), 0);
	assert_int_equal(q.sched.min_nodes, 2);
	assert_int_equal(q.sched.max_nodes, 2); /* -N 2 means exactly 2 */
	assert_true(q.ntasks_given && q.cpt_given);
	assert_true(q.mem_is_per_cpu);
	assert_int_equal(q.sched.mem_per_cpu, 512);
	assert_false(q.mem_given);
	job_req_free(&q);
	assert_int_equal(
	    build("{\"nodes\":1,\"nodes_max\":3,\"mem_per_node\":0}", &conf, &q), 0);
	assert_int_equal(q.sched.max_nodes, 3);
	assert_true(q.sched.mem_per_node == SCHED_MEM_WHOLE);
	assert_true(q.mem_given);
	job_req_free(&q);
}

static void dependencies_and_refusals(void **state)
{
	struct drv_conf conf = {0};
	struct job_req q;
	assert_int_equal(build("{\"dependency\":\"afterok:7:9\"}", &conf, &q), 0);
	assert_int_equal(q.deps.n, 2);
	assert_int_equal(q.deps.items[0].job_id, 7);
	assert_int_equal(q.deps.items[1].job_id, 9);
	assert_int_equal(q.kill_invalid_dep, -1);
	job_req_free(&q);
	assert_int_equal(build("{\"dependency\":\"expand:3\"}", &conf, &q),
			 DRV_RC_NOT_SUPPORTED);
	const char *bad_deps[] = {"bogus:3", "afterok:", "afterok:x",
				  "afterok:1:", "afterok:0"};
	for (size_t i = 0; i < sizeof(bad_deps) / sizeof(bad_deps[0]); i++) {
		char body[128];
		snprintf(body, sizeof(body), "{\"dependency\":\"%s\"}", bad_deps[i]);
		assert_int_equal(build(body, &conf, &q), DRV_RC_DEPENDENCY);
	}
	assert_int_equal(build("{\"nodes\":3,\"nodes_max\":2}", &conf, &q),
			 DRV_RC_NODE_CONFIG_UNAVAIL);
	assert_int_equal(build("{\"nodes\":3,\"ntasks\":2}", &conf, &q),
			 DRV_RC_NODE_CONFIG_UNAVAIL);
}

static void store_round_trip(void **state)
{
	struct drv_conf conf = {0};
	struct job_req q, back;
	assert_int_equal(
	    build("{\"ntasks\":3,\"gpus_per_node\":2,\"gpu_type\":\"a100\","
		  "\"account\":\"proj\",\"nice\":5,\"exclusive\":true,"
		  "\"dependency\":\"afterok:4?after:5+2\",\"open_mode\":\"append\","
		  "\"begin\":1900000000,\"deadline\":1900003600,"
		  "\"kill_invalid_dep\":true}",
		  &conf, &q),
	    0);
	json_t *j = job_req_to_json(&q);
	assert_int_equal(job_req_from_json(&back, j), 0);
	assert_int_equal(back.sched.ntasks, 3);
	assert_int_equal(back.sched.gpus_per_node, 2);
	assert_string_equal(back.sched.gpu_type, "a100");
	assert_string_equal(back.account, "proj");
	assert_int_equal(back.nice, 5);
	assert_true(back.sched.exclusive);
	assert_int_equal(back.deps.n, 2);
	assert_true(back.deps.any);
	assert_int_equal(back.deps.items[1].kind, DEP_AFTER);
	assert_int_equal(back.deps.items[1].minutes, 2);
	assert_int_equal(back.begin_time, 1900000000);
	assert_int_equal(back.deadline, 1900003600);
	assert_int_equal(back.kill_invalid_dep, 1);
	assert_string_equal(back.open_mode, "append");
	assert_true(back.sched.mem_per_node == SCHED_MEM_WHOLE);
	json_decref(j);
	job_req_free(&q);
	job_req_free(&back);
}

/* A request an older store kept: plain job ids for deps (afterok), no
 * requeue, kill_invalid_dep or signal fields: the defaults of then. */
static void older_store_request(void **state)
{
	struct job_req back;
	json_t *o = json_loads("{\"min_nodes\":2,\"deps\":[4,5],\"dep_failed\":true,"
			       "\"gpu_type\":null}",
			       0, NULL);
	assert_int_equal(job_req_from_json(&back, o), 0);
	json_decref(o);
	assert_int_equal(back.sched.min_nodes, 2);
	assert_int_equal(back.sched.cpus_per_task, 1);
	assert_int_equal(back.deps.n, 2);
	assert_int_equal(back.deps.items[1].kind, DEP_AFTEROK);
	assert_int_equal(back.deps.items[1].job_id, 5);
	assert_int_equal(back.deps.items[1].state, DEP_FAILED);
	assert_null(back.gpu_type);
	assert_true(back.requeue);
	assert_int_equal(back.kill_invalid_dep, -1);
	assert_int_equal(back.warn_time, 60);
	job_req_free(&back);
	/* not an object, or breaking its declaration: refused */
	o = json_loads("{\"min_nodes\":-1}", 0, NULL);
	assert_int_equal(job_req_from_json(&back, o), -EINVAL);
	json_decref(o);
}

static void counts_compress_as_slurm(void **state)
{
	const uint32_t a[] = {2, 2, 2, 1}, b[] = {4}, c[] = {1, 2, 2};
	char *s = job_counts_string(a, 4);
	assert_string_equal(s, "2(x3),1");
	free(s);
	s = job_counts_string(b, 1);
	assert_string_equal(s, "4");
	free(s);
	s = job_counts_string(c, 3);
	assert_string_equal(s, "1,2(x2)");
	free(s);
}

static void placement_and_signal_round_trip(void **state)
{
	struct drv_conf conf = {.def_mem_per_cpu = 0};
	struct job_req q, back;
	assert_int_equal(build("{\"req_nodes\":\"n[1-2]\",\"exc_nodes\":\"n3\","
			       "\"features\":\"[a|b]\",\"min_cpus\":2,\"tmp\":1024,"
			       "\"signal\":10,\"signal_time\":5,\"signal_batch\":true,"
			       "\"time_min\":300}",
			       &conf, &q),
			 0);
	assert_non_null(q.sched.constraint);
	assert_true(q.sched.constraint->match_or);
	assert_int_equal(q.sched.min_cpus, 2);
	json_t *o = job_req_to_json(&q);
	assert_int_equal(job_req_from_json(&back, o), 0);
	json_decref(o);
	assert_string_equal(back.req_nodes, "n[1-2]");
	assert_string_equal(back.exc_nodes, "n3");
	assert_string_equal(back.features, "[a|b]");
	assert_non_null(back.sched.constraint);
	assert_int_equal(back.sched.constraint->n_terms, 2);
	assert_int_equal(back.sched.min_cpus, 2);
	assert_int_equal(back.sched.min_tmp, 1024);
	assert_int_equal(back.warn_signal, 10);
	assert_int_equal(back.warn_time, 5);
	assert_true(back.warn_batch);
	assert_int_equal(back.time_min, 300);
	assert_false(back.nodes_resolved); /* names resolve again after a restart */
	job_req_free(&q);
	job_req_free(&back);
	/* a malformed -C is Slurm's feature error and leaves nothing behind */
	assert_int_equal(build("{\"features\":\"a&&b\"}", &conf, &q),
			 DRV_RC_INVALID_FEATURE);
	assert_null(q.features);
}

/* --begin may be as late as INT64_MAX in the schema: adding the job's
 * minimum time must not wrap to a time before the deadline. */
static void deadline_arithmetic_does_not_wrap(void **state)
{
	struct job_req q = {.begin_time = INT64_MAX - 10, .deadline = INT64_MAX};
	assert_true(job_req_past_deadline(&q, 3600, 1000));
	q.time_min = 5; /* fits: INT64_MAX - 5 */
	assert_false(job_req_past_deadline(&q, 3600, 1000));
	q.begin_time = 0;
	q.time_min = 0;
	q.deadline = 1000 + 59;
	assert_true(job_req_past_deadline(&q, DRV_INFINITE, 1000)); /* one minute */
	q.deadline = 1000 + 60;
	assert_false(job_req_past_deadline(&q, DRV_INFINITE, 1000));
	q.deadline = 0; /* no deadline */
	assert_false(job_req_past_deadline(&q, 3600, INT64_MAX));
}

/* The deadline timer's time is the first second past_deadline holds: not
 * a second before, and at any time when even a start at --begin is late. */
static void deadline_due_is_the_first_second_past(void **state)
{
	struct job_req q = {.begin_time = 0, .deadline = 10000};
	int64_t due = -1;
	assert_true(job_req_deadline_due(&q, 600, &due));
	assert_int_equal(due, 10000 - 600 + 1);
	assert_false(job_req_past_deadline(&q, 600, due - 1));
	assert_true(job_req_past_deadline(&q, 600, due));
	q.time_min = 60; /* --time-min is what must fit */
	assert_true(job_req_deadline_due(&q, 600, &due));
	assert_int_equal(due, 10000 - 60 + 1);
	assert_false(job_req_past_deadline(&q, 600, due - 1));
	assert_true(job_req_past_deadline(&q, 600, due));
	q.time_min = 0;
	assert_true(job_req_deadline_due(&q, DRV_INFINITE, &due)); /* one minute */
	assert_int_equal(due, 10000 - 60 + 1);
	q.begin_time = 9900; /* a start at --begin ends too late already */
	assert_true(job_req_deadline_due(&q, 600, &due));
	assert_int_equal(due, 0);
	assert_true(job_req_past_deadline(&q, 600, 1));
	q.begin_time = INT64_MAX - 10;
	q.deadline = INT64_MAX;
	assert_true(job_req_deadline_due(&q, 3600, &due));
	assert_int_equal(due, 0);
	q.deadline = 0;
	assert_false(job_req_deadline_due(&q, 3600, &due));
}

/* Totals the fields make together are refused before they can wrap the
 * uint32 products of the scheduler and of job_cpus. */
static void totals_that_overflow_are_refused(void **state)
{
	struct drv_conf conf = {0};
	struct job_req q;
	assert_int_equal(
	    build("{\"nodes\":100000,\"ntasks_per_node\":100000}", &conf, &q),
	    DRV_RC_BAD_TASK_COUNT);
	assert_int_equal(
	    build("{\"ntasks\":1000000,\"cpus_per_task\":100000}", &conf, &q),
	    DRV_RC_TOO_MANY_CPUS);
	assert_int_equal(build("{\"nodes\":100000,\"gpus_per_node\":100000}", &conf, &q),
			 DRV_RC_INVALID_GRES);
	assert_int_equal(build("{\"nodes\":10,\"ntasks_per_node\":100000,"
			       "\"cpus_per_task\":4}",
			       &conf, &q),
			 0);
	struct job j = {.req = q};
	assert_int_equal(job_cpus(&j), 4000000);
	job_req_free(&q);
}

/* The partition's memory, GPU and MinNodes defaults over the cluster's. */
static void partition_defaults(void **state)
{
	struct drv_conf conf = {.def_mem_per_cpu = 100, .def_cpu_per_gpu = 1};
	struct drv_part_conf part = {.def_mem_per_node = 3000, .min_nodes = 2};
	struct job_req q;
	assert_int_equal(build_in("{}", &conf, &part, &q), 0);
	assert_false(q.mem_is_per_cpu); /* the partition's DefMemPerNode wins */
	assert_int_equal(q.sched.mem_per_node, 3000);
	assert_int_equal(q.sched.min_nodes, 2); /* MinNodes without -N */
	job_req_free(&q);
	assert_int_equal(build_in("{\"nodes\":1}", &conf, &part, &q), 0);
	assert_int_equal(q.sched.min_nodes, 1); /* -N given: its own */
	job_req_free(&q);

	/* GPUs without -c or memory: DefCpuPerGPU and DefMemPerGPU per GPU */
	part = (struct drv_part_conf){.def_cpu_per_gpu = 4, .def_mem_per_gpu = 1024};
	assert_int_equal(build_in("{\"gpus_per_node\":2}", &conf, &part, &q), 0);
	assert_int_equal(q.sched.cpus_per_task, 8);
	assert_false(q.cpt_given); /* SLURM_CPUS_PER_TASK stays unset */
	assert_int_equal(q.sched.mem_per_node, 2048);
	assert_int_equal(q.sched.mem_per_cpu, 0);
	job_req_free(&q);
	assert_int_equal(build_in("{\"gpus_per_node\":2,\"ntasks_per_node\":4,"
				  "\"mem_per_cpu\":10}",
				  &conf, &part, &q),
			 0);
	assert_int_equal(q.sched.cpus_per_task, 2); /* 8 CPUs over 4 tasks */
	assert_int_equal(q.sched.mem_per_cpu, 10);  /* its own memory wins */
	job_req_free(&q);
	assert_int_equal(
	    build_in("{\"gpus_per_node\":1,\"cpus_per_task\":3}", &conf, &part, &q), 0);
	assert_int_equal(q.sched.cpus_per_task, 3); /* -c wins */
	job_req_free(&q);
	/* no GPUs: no GPU defaults; the cluster's DefCpuPerGPU otherwise */
	assert_int_equal(build_in("{}", &conf, &part, &q), 0);
	assert_int_equal(q.sched.cpus_per_task, 1);
	assert_int_equal(q.sched.mem_per_cpu, 100);
	job_req_free(&q);
	assert_int_equal(build("{\"gpus\":3}", &conf, &q), 0);
	assert_int_equal(q.sched.cpus_per_task, 3);
	job_req_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(defaults_follow_slurm),
	    cmocka_unit_test(dependencies_and_refusals),
	    cmocka_unit_test(store_round_trip),
	    cmocka_unit_test(older_store_request),
	    cmocka_unit_test(placement_and_signal_round_trip),
	    cmocka_unit_test(counts_compress_as_slurm),
	    cmocka_unit_test(deadline_arithmetic_does_not_wrap),
	    cmocka_unit_test(deadline_due_is_the_first_second_past),
	    cmocka_unit_test(totals_that_overflow_are_refused),
	    cmocka_unit_test(partition_defaults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
