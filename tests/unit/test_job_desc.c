/* test_job_desc.c — the job descriptor job_submit.lua sees (src/ctld/
 * job_desc.c) over job.submit and job.update bodies: Slurm's markers for
 * what was not given, minutes against the wire's seconds, nice offset,
 * memory per node or per CPU, gres text, hold as priority 0, exclusive as
 * shared, and writes refused with the body unchanged; and the Slurm error
 * texts (slurm_errtab.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/proto_gen.h"
#include "ctld/job_desc.h"
#include "ctld/slurm_errtab.h"

static const struct jd_who who = {1000, 100, "alice"};

static struct jd_doc submit_doc(const char *json)
{
	json_t *body = json_loads(json, 0, NULL);
	assert_non_null(body);
	return (struct jd_doc){body, &drv_shape_job_submit, &who};
}

static struct jd_value get(const struct jd_doc *d, const char *name)
{
	static char buf[128];
	struct jd_value v;
	assert_int_equal(job_desc_get(d, name, &v, buf, sizeof(buf)), 0);
	return v;
}

static int64_t get_int(const struct jd_doc *d, const char *name)
{
	struct jd_value v = get(d, name);
	assert_int_equal(v.type, JD_INT);
	return v.i;
}

static const char *get_str(const struct jd_doc *d, const char *name)
{
	struct jd_value v = get(d, name);
	return v.type == JD_STR ? v.s : NULL;
}

static int set_int(struct jd_doc *d, const char *name, int64_t n)
{
	struct jd_value v = {.type = JD_INT, .i = n};
	struct drv_error err = {{0}};
	return job_desc_set(d, name, &v, &err);
}

static int set_str(struct jd_doc *d, const char *name, const char *s)
{
	struct jd_value v = {.type = s ? JD_STR : JD_NIL, .s = s};
	struct drv_error err = {{0}};
	return job_desc_set(d, name, &v, &err);
}

static int64_t wire_int(const struct jd_doc *d, const char *wire)
{
	json_t *x = json_object_get(d->body, wire);
	assert_true(json_is_integer(x));
	return json_integer_value(x);
}

static void names_are_sorted(void **state)
{
	for (size_t i = 1; job_desc_field_name(i); i++)
		assert_true(strcmp(job_desc_field_name(i - 1), job_desc_field_name(i)) <
			    0);
}

static void not_given_reads_as_slurm_marks_it(void **state)
{
	struct jd_doc d = submit_doc("{\"name\":\"x\",\"workdir\":\"/w\"}");
	assert_int_equal(get_int(&d, "min_nodes"), JD_NO_VAL);
	assert_int_equal(get_int(&d, "num_tasks"), JD_NO_VAL);
	assert_int_equal(get_int(&d, "cpus_per_task"), JD_NO_VAL16);
	assert_int_equal(get_int(&d, "time_limit"), JD_NO_VAL);
	assert_int_equal(get_int(&d, "nice"), JD_NO_VAL);
	assert_int_equal(get_int(&d, "priority"), JD_NO_VAL);
	assert_int_equal(get_int(&d, "shared"), JD_NO_VAL16);
	assert_int_equal(get_int(&d, "requeue"), JD_NO_VAL16);
	assert_int_equal(get_int(&d, "begin_time"), 0);
	assert_int_equal(get_int(&d, "min_cpus"), 1);
	assert_int_equal(get(&d, "partition").type, JD_NIL);
	assert_int_equal(get(&d, "min_mem_per_node").type, JD_NIL);
	assert_int_equal(get(&d, "tres_per_node").type, JD_NIL);
	struct jd_value pn = get(&d, "pn_min_memory");
	assert_int_equal(pn.type, JD_NUM);
	assert_true(pn.d == JD_NO_VAL64);
	assert_string_equal(get_str(&d, "work_dir"), "/w");
	assert_int_equal(get_int(&d, "user_id"), 1000);
	assert_int_equal(get_int(&d, "group_id"), 100);
	assert_string_equal(get_str(&d, "user_name"), "alice");
	struct jd_value v;
	char buf[8];
	assert_int_equal(job_desc_get(&d, "no_such_field", &v, buf, sizeof(buf)),
			 -ENOENT);
	assert_int_equal(v.type, JD_NIL);
	json_decref(d.body);
}

static void time_limit_is_minutes(void **state)
{
	struct jd_doc d =
	    submit_doc("{\"name\":\"x\",\"workdir\":\"/w\",\"time_limit\":30,"
		       "\"time_min\":120}");
	assert_int_equal(get_int(&d, "time_limit"), 1); /* 30 s: rounded up */
	assert_int_equal(get_int(&d, "time_min"), 2);
	assert_int_equal(set_int(&d, "time_limit", 90), 0);
	assert_int_equal(wire_int(&d, "time_limit"), 5400);
	assert_int_equal(get_int(&d, "time_limit"), 90);
	assert_int_equal(set_int(&d, "time_limit", JD_INFINITE), 0);
	assert_int_equal(wire_int(&d, "time_limit"), -1);
	assert_int_equal(get_int(&d, "time_limit"), JD_INFINITE);
	assert_int_equal(set_int(&d, "time_limit", JD_NO_VAL), 0);
	assert_null(json_object_get(d.body, "time_limit"));
	assert_int_equal(set_int(&d, "time_min", JD_INFINITE), -EINVAL);
	assert_int_equal(wire_int(&d, "time_min"), 120); /* unchanged */
	json_decref(d.body);
}

static void nice_is_offset(void **state)
{
	struct jd_doc d = submit_doc("{\"name\":\"x\",\"workdir\":\"/w\",\"nice\":5}");
	assert_int_equal(get_int(&d, "nice"), JD_NICE_OFFSET + 5);
	assert_int_equal(set_int(&d, "nice", JD_NICE_OFFSET - 3), 0);
	assert_int_equal(wire_int(&d, "nice"), -3);
	json_decref(d.body);
}

static void strings_clear_and_convert(void **state)
{
	struct jd_doc d =
	    submit_doc("{\"name\":\"x\",\"workdir\":\"/w\",\"partition\":\"a\"}");
	assert_int_equal(set_str(&d, "partition", "gpu"), 0);
	assert_string_equal(get_str(&d, "partition"), "gpu");
	assert_int_equal(set_str(&d, "partition", ""), 0); /* "" clears, as Slurm */
	assert_null(json_object_get(d.body, "partition"));
	assert_int_equal(set_int(&d, "comment", 42), 0); /* luaL_checkstring */
	assert_string_equal(get_str(&d, "comment"), "42");
	assert_int_equal(set_str(&d, "name", ""), 0); /* required: kept as "" */
	assert_string_equal(get_str(&d, "name"), "");
	assert_int_equal(set_str(&d, "name", NULL), -EINVAL);
	assert_int_equal(set_str(&d, "work_dir", ""), -EINVAL); /* len 1.. */
	assert_string_equal(get_str(&d, "work_dir"), "/w");
	json_decref(d.body);
}

static void bad_values_are_refused_and_change_nothing(void **state)
{
	struct jd_doc d = submit_doc("{\"name\":\"x\",\"workdir\":\"/w\",\"nodes\":2}");
	struct jd_value v = {.type = JD_INT, .i = 0};
	struct drv_error err = {{0}};
	assert_int_equal(job_desc_set(&d, "min_nodes", &v, &err), -EINVAL);
	assert_non_null(strstr(err.text, "job_desc.min_nodes: "));
	assert_int_equal(wire_int(&d, "nodes"), 2);
	v = (struct jd_value){.type = JD_NUM, .d = 2.5};
	assert_int_equal(job_desc_set(&d, "min_nodes", &v, &err), -EINVAL);
	v = (struct jd_value){.type = JD_STR, .s = "3"};
	assert_int_equal(job_desc_set(&d, "min_nodes", &v, &err), 0);
	assert_int_equal(wire_int(&d, "nodes"), 3);
	assert_int_equal(set_int(&d, "requeue", 7), -EINVAL);
	json_decref(d.body);
}

static void memory_per_node_or_per_cpu(void **state)
{
	struct jd_doc d =
	    submit_doc("{\"name\":\"x\",\"workdir\":\"/w\",\"mem_per_cpu\":512}");
	assert_int_equal(get(&d, "min_mem_per_node").type, JD_NIL);
	assert_int_equal(get_int(&d, "min_mem_per_cpu"), 512);
	struct jd_value pn = get(&d, "pn_min_memory");
	assert_true(pn.type == JD_NUM && pn.d == JD_MEM_PER_CPU + 512);
	assert_int_equal(set_int(&d, "min_mem_per_node", 4096), 0);
	assert_null(json_object_get(d.body, "mem_per_cpu"));
	assert_int_equal(get_int(&d, "pn_min_memory"), 4096);
	/* a float: exact only in steps of 2048 past MEM_PER_CPU */
	struct jd_value per_cpu = {.type = JD_NUM, .d = JD_MEM_PER_CPU + 2048};
	struct drv_error err = {{0}};
	assert_int_equal(job_desc_set(&d, "pn_min_memory", &per_cpu, &err), 0);
	assert_int_equal(wire_int(&d, "mem_per_cpu"), 2048);
	assert_null(json_object_get(d.body, "mem_per_node"));
	json_decref(d.body);
}

static void gres_is_gpus(void **state)
{
	struct jd_doc d =
	    submit_doc("{\"name\":\"x\",\"workdir\":\"/w\",\"gpus_per_node\":2}");
	assert_string_equal(get_str(&d, "tres_per_node"), "gres:gpu:2");
	assert_int_equal(set_str(&d, "tres_per_node", "gres/gpu:a100:4"), 0);
	assert_int_equal(wire_int(&d, "gpus_per_node"), 4);
	assert_string_equal(get_str(&d, "gres"), "gres:gpu:a100:4");
	assert_int_equal(set_str(&d, "gres", "gpu:1"), 0);
	assert_null(json_object_get(d.body, "gpu_type"));
	assert_int_equal(set_str(&d, "tres_per_node", "gres:mps:100"), -EINVAL);
	assert_int_equal(wire_int(&d, "gpus_per_node"), 1);
	assert_int_equal(set_str(&d, "tres_per_job", "gres:gpu:8"), 0);
	assert_int_equal(wire_int(&d, "gpus"), 8);
	assert_int_equal(set_str(&d, "tres_per_node", ""), 0);
	assert_null(json_object_get(d.body, "gpus_per_node"));
	json_decref(d.body);
}

static void hold_and_exclusive_as_slurm_spells_them(void **state)
{
	struct jd_doc d =
	    submit_doc("{\"name\":\"x\",\"workdir\":\"/w\",\"exclusive\":true}");
	assert_int_equal(get_int(&d, "shared"), JD_SHARED_NONE);
	assert_int_equal(set_int(&d, "oversubscribe", JD_SHARED_OK), 0);
	assert_null(json_object_get(d.body, "exclusive"));
	assert_int_equal(set_int(&d, "priority", 0), 0);
	assert_true(json_is_true(json_object_get(d.body, "hold")));
	assert_int_equal(get_int(&d, "priority"), 0);
	assert_int_equal(set_int(&d, "priority", 100), -ENOTSUP);
	assert_int_equal(set_int(&d, "contiguous", 1), -ENOTSUP);
	assert_int_equal(set_int(&d, "contiguous", 0), 0);
	json_decref(d.body);
}

static void fields_it_cannot_set(void **state)
{
	struct jd_doc d = submit_doc("{\"name\":\"x\",\"workdir\":\"/w\"}");
	assert_int_equal(set_int(&d, "user_id", 0), -EROFS);
	assert_int_equal(set_str(&d, "script", "#!/bin/sh"), -EROFS);
	assert_int_equal(set_str(&d, "mail_user", "a@b"), -ENOTSUP);
	assert_int_equal(set_str(&d, "no_such_field", "x"), -ENOENT);
	json_decref(d.body);
}

static void an_update_carries_only_its_fields(void **state)
{
	json_t *body = json_loads("{\"job_ids\":[5],\"time_limit\":600}", 0, NULL);
	struct jd_doc d = {body, &drv_shape_job_update, &who};
	assert_int_equal(get_int(&d, "time_limit"), 10);
	assert_int_equal(get_int(&d, "min_nodes"), JD_NO_VAL);
	assert_int_equal(get(&d, "comment").type, JD_NIL);
	assert_int_equal(set_str(&d, "comment", "x"), -ENOTSUP);
	assert_int_equal(set_int(&d, "priority", 0), -ENOTSUP);
	assert_int_equal(set_str(&d, "partition", "gpu"), 0);
	assert_int_equal(set_int(&d, "time_limit", 20), 0);
	assert_int_equal(wire_int(&d, "time_limit"), 1200);
	json_decref(body);
}

static void environment_entries(void **state)
{
	struct jd_doc d = submit_doc(
	    "{\"name\":\"x\",\"workdir\":\"/w\",\"env\":[\"A=1\",\"HOME=/h\"]}");
	assert_int_equal(job_desc_env_count(&d), 2);
	assert_string_equal(job_desc_env_at(&d, 1), "HOME=/h");
	json_decref(d.body);
}

static void slurm_error_texts(void **state)
{
	assert_string_equal(slurm_err_text(-1), "Unspecified error");
	assert_string_equal(slurm_err_text(2045),
			    "Invalid account or account/partition combination specified");
	assert_string_equal(slurm_err_text(2000), "Invalid partition name specified");
	assert_string_equal(slurm_err_text(EPERM), strerror(EPERM));
	assert_null(slurm_err_text(9999));
	for (size_t i = 0; i < slurm_errtab_len; i++)
		assert_true(!strncmp(slurm_errtab[i].name, "ESLURM_", 7));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(names_are_sorted),
	    cmocka_unit_test(not_given_reads_as_slurm_marks_it),
	    cmocka_unit_test(time_limit_is_minutes),
	    cmocka_unit_test(nice_is_offset),
	    cmocka_unit_test(strings_clear_and_convert),
	    cmocka_unit_test(bad_values_are_refused_and_change_nothing),
	    cmocka_unit_test(memory_per_node_or_per_cpu),
	    cmocka_unit_test(gres_is_gpus),
	    cmocka_unit_test(hold_and_exclusive_as_slurm_spells_them),
	    cmocka_unit_test(fields_it_cannot_set),
	    cmocka_unit_test(an_update_carries_only_its_fields),
	    cmocka_unit_test(environment_entries),
	    cmocka_unit_test(slurm_error_texts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
