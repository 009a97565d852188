/* test_job_submit_lua.c — the Lua side of JobSubmitPlugins=lua
 * (src/ctld/job_submit_lua.c) on scripts written to a temp dir: the hooks'
 * verdicts and messages, writes reaching the body, the slurm table, load
 * failures named file:line, a changed file reloaded, a broken one refusing
 * until fixed, and the bounds: an endless loop and a memory hog are cut
 * off, os.exit is refused, a stashed job_desc is dead after its call. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/proto_gen.h"
#include "ctld/ctld.h"
#include "ctld/job_submit_lua.h"

static char dir[] = "/tmp/test_jsl_XXXXXX";
static char path[64];
static int version; /* each write gets a new size, so a reload is certain */

static void write_script(const char *text)
{
	char tmp[80];
	snprintf(tmp, sizeof(tmp), "%s.new", path);
	FILE *f = fopen(tmp, "w");
	assert_non_null(f);
	fprintf(f, "-- %d\n%s", ++version, text);
	fclose(f);
	assert_int_equal(rename(tmp, path), 0); /* a new inode: a new version */
}

static const char modify_ok[] =
    "function slurm_job_modify(d, r, p, uid) return slurm.SUCCESS end\n";

static struct ctld no_parts; /* part_list: {} */

struct call {
	json_t *body;
	struct jd_doc doc;
	struct jsl_result res;
};

static void submit(struct job_submit_lua *p, struct call *c, const char *json)
{
	static const struct jd_who who = {1000, 100, "alice"};
	c->body = json_loads(json, 0, NULL);
	assert_non_null(c->body);
	c->doc = (struct jd_doc){c->body, &drv_shape_job_submit, &who};
	jsl_submit(p, &no_parts, &c->doc, 1000, &c->res);
}

static void call_done(struct call *c)
{
	json_decref(c->body);
	free(c->res.user_msg);
}

static int setup(void **state)
{
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/job_submit.lua", dir);
	return 0;
}

static int teardown(void **state)
{
	unlink(path);
	rmdir(dir);
	return 0;
}

static void verdicts_messages_and_writes(void **state)
{
	write_script("function slurm_job_submit(d, parts, uid)\n"
		     "  if d.name == 'no' then\n"
		     "    slurm.user_msg('not today')\n"
		     "    slurm.log_user('uid %d', uid)\n"
		     "    return slurm.ESLURM_INVALID_ACCOUNT\n"
		     "  end\n"
		     "  if d.time_limit == slurm.NO_VAL then d.time_limit = 30 end\n"
		     "  d.comment = d.user_name .. '@' .. slurm.CLUSTER_NAME\n"
		     "  d.partition = 'gpu'\n"
		     "  slurm.user_msg('set a limit')\n"
		     "  return slurm.SUCCESS\n"
		     "end\n");
	FILE *f = fopen(path, "a");
	fprintf(f, "%sreturn slurm.SUCCESS\n", modify_ok);
	fclose(f);
	struct job_submit_lua *p = jsl_new(path, "c1");
	struct call c;
	submit(p, &c, "{\"name\":\"no\",\"workdir\":\"/w\"}");
	assert_int_equal(c.res.rc, 2045);
	assert_string_equal(c.res.user_msg, "not today\nuid 1000");
	assert_null(json_object_get(c.body, "comment"));
	call_done(&c);
	submit(p, &c, "{\"name\":\"yes\",\"workdir\":\"/w\"}");
	assert_int_equal(c.res.rc, 0);
	assert_string_equal(c.res.user_msg, "set a limit");
	assert_int_equal(json_integer_value(json_object_get(c.body, "time_limit")), 1800);
	assert_string_equal(json_string_value(json_object_get(c.body, "comment")),
			    "alice@c1");
	assert_string_equal(json_string_value(json_object_get(c.body, "partition")),
			    "gpu");
	call_done(&c);
	jsl_free(p);
}

static void load_failures_name_the_file(void **state)
{
	struct drv_error err = {{0}};
	char want[96];
	write_script("function slurm_job_submit(d, p, u)\n  x = = 1\nend\n");
	assert_int_equal(jsl_check(path, &err), -EINVAL);
	snprintf(want, sizeof(want), "job_submit.lua:3:"); /* line 1 is the version */
	assert_non_null(strstr(err.text, want));
	struct job_submit_lua *p = jsl_new(path, NULL);
	struct call c;
	submit(p, &c, "{\"name\":\"a\",\"workdir\":\"/w\"}");
	assert_int_equal(c.res.rc, -1);
	assert_non_null(strstr(c.res.user_msg, want));
	call_done(&c);

	write_script("function slurm_job_submit(d, p, u) return 0 end\n");
	assert_int_equal(jsl_refresh(p, &err), -EINVAL);
	assert_non_null(strstr(err.text, "missing required function slurm_job_modify"));

	write_script("return 7\n");
	assert_int_equal(jsl_check(path, &err), -EINVAL);
	assert_non_null(strstr(err.text, "returned 7 on load"));

	write_script("function slurm_job_submit(d, p, u) return 0 end\n"
		     "function slurm_job_modify(d, r, p, u) return 0 end\n");
	assert_int_equal(jsl_refresh(p, &err), 0); /* fixed: loads again */
	unlink(path);
	assert_int_equal(jsl_refresh(p, &err), -EINVAL);
	assert_non_null(strstr(err.text, "cannot read"));
	assert_int_equal(jsl_check(path, &err), -ENOENT);
	jsl_free(p);
}

static void runtime_errors_refuse_with_their_line(void **state)
{
	write_script("function slurm_job_submit(d, p, u)\n"
		     "  local t = nil\n"
		     "  return t.x\n"
		     "end\n");
	FILE *f = fopen(path, "a");
	fputs(modify_ok, f);
	fclose(f);
	struct job_submit_lua *p = jsl_new(path, NULL);
	struct call c;
	submit(p, &c, "{\"name\":\"a\",\"workdir\":\"/w\"}");
	assert_int_equal(c.res.rc, -1);
	assert_non_null(strstr(c.res.user_msg, "job_submit.lua:4:"));
	call_done(&c);
	jsl_free(p);
}

static void bounds_hold(void **state)
{
	write_script("function slurm_job_submit(d, p, u)\n"
		     "  if d.name == 'loop' then while true do end end\n"
		     "  if d.name == 'hog' then return #string.rep('x', 1 << 27) end\n"
		     "  if d.name == 'exit' then os.exit(1) end\n"
		     "  if d.name == 'stash' then saved = d end\n"
		     "  if d.name == 'late' then return saved.name end\n"
		     "  if d.name == 'bad' then d.min_nodes = 0 end\n"
		     "  return slurm.SUCCESS\n"
		     "end\n");
	FILE *f = fopen(path, "a");
	fputs(modify_ok, f);
	fclose(f);
	struct job_submit_lua *p = jsl_new(path, NULL);
	struct call c;
	submit(p, &c, "{\"name\":\"loop\",\"workdir\":\"/w\"}");
	assert_int_equal(c.res.rc, -1);
	assert_non_null(strstr(c.res.user_msg, "job_submit.lua:3: ran past its limit"));
	call_done(&c);
	submit(p, &c, "{\"name\":\"hog\",\"workdir\":\"/w\"}");
	assert_int_equal(c.res.rc, -1);
	assert_non_null(strstr(c.res.user_msg, "not enough memory"));
	call_done(&c);
	submit(p, &c, "{\"name\":\"exit\",\"workdir\":\"/w\"}");
	assert_int_equal(c.res.rc, -1);
	assert_non_null(strstr(c.res.user_msg, "os.exit is not allowed"));
	call_done(&c);
	submit(p, &c, "{\"name\":\"stash\",\"workdir\":\"/w\"}");
	assert_int_equal(c.res.rc, 0);
	call_done(&c);
	submit(p, &c, "{\"name\":\"late\",\"workdir\":\"/w\"}");
	assert_int_equal(c.res.rc, -1);
	assert_non_null(strstr(c.res.user_msg, "outside the call"));
	call_done(&c);
	submit(p, &c, "{\"name\":\"bad\",\"workdir\":\"/w\"}");
	assert_int_equal(c.res.rc, -1);
	assert_non_null(strstr(c.res.user_msg, "job_submit.lua:8: job_desc.min_nodes:"));
	call_done(&c);
	submit(p, &c, "{\"name\":\"fine\",\"workdir\":\"/w\"}"); /* still usable */
	assert_int_equal(c.res.rc, 0);
	call_done(&c);
	jsl_free(p);
}

static void modify_sees_the_job(void **state)
{
	write_script(
	    "function slurm_job_submit(d, p, u) return 0 end\n"
	    "function slurm_job_modify(d, r, p, uid)\n"
	    "  if d.time_limit ~= slurm.NO_VAL and d.time_limit > r.time_limit then\n"
	    "    slurm.log_user('job %d: no longer than %d', r.job_id, r.time_limit)\n"
	    "    return slurm.ERROR\n"
	    "  end\n"
	    "  return slurm.SUCCESS\n"
	    "end\n");
	struct job_submit_lua *p = jsl_new(path, NULL);
	struct job j = {.id = 42, .time_limit = 600, .name = "x", .array_task_id = -1};
	static const struct jd_who who = {1000, 100, "alice"};
	json_t *body = json_loads("{\"job_ids\":[42],\"time_limit\":1200}", 0, NULL);
	struct jd_doc d = {body, &drv_shape_job_update, &who};
	struct jsl_result res;
	jsl_modify(p, &no_parts, &d, &j, 1000, &res);
	assert_int_equal(res.rc, -1);
	assert_string_equal(res.user_msg, "job 42: no longer than 10");
	free(res.user_msg);
	json_object_set_new(body, "time_limit", json_integer(300));
	jsl_modify(p, &no_parts, &d, &j, 1000, &res);
	assert_int_equal(res.rc, 0);
	free(res.user_msg);
	json_decref(body);
	jsl_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(verdicts_messages_and_writes),
	    cmocka_unit_test(load_failures_name_the_file),
	    cmocka_unit_test(runtime_errors_refuse_with_their_line),
	    cmocka_unit_test(bounds_hold),
	    cmocka_unit_test(modify_sees_the_job),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
