/* test_jsonw.c — the JSON text writer produces exactly what jansson's
 * JSON_COMPACT dump produces for the same values (digests depend on it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "common/jsonw.h"

static void same_as_jansson(const char *s)
{
	json_t *v = json_string(s);
	assert_non_null(v);
	char *want = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
	struct drv_jw w;
	drv_jw_init(&w);
	drv_jw_str(&w, s);
	assert_false(w.oom);
	assert_string_equal(w.buf, want);
	free(want);
	json_decref(v);
	drv_jw_fini(&w);
}

static void strings_escape_like_jansson(void **state)
{
	same_as_jansson("");
	same_as_jansson("plain");
	same_as_jansson("a \"quoted\" \\ back/slash");
	same_as_jansson("tab\there\nnew\rline\b\f");
	same_as_jansson("\x01\x1f control \x7f del");
	same_as_jansson("ünïcödé ✓ \xe2\x80\xa8");
}

static void numbers_null_and_raw(void **state)
{
	struct drv_jw w;
	drv_jw_init(&w);
	drv_jw_raw(&w, "[", 1);
	drv_jw_int(&w, -9223372036854775807LL - 1);
	drv_jw_raw(&w, ",", 1);
	drv_jw_int(&w, 4294967294LL);
	drv_jw_raw(&w, ",", 1);
	drv_jw_str(&w, NULL);
	drv_jw_raw(&w, "]", 1);
	json_t *v = json_loads(w.buf, 0, NULL);
	assert_non_null(v);
	char *again = json_dumps(v, JSON_COMPACT);
	assert_string_equal(again, w.buf);
	free(again);
	json_decref(v);
	drv_jw_fini(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(strings_escape_like_jansson),
	    cmocka_unit_test(numbers_null_and_raw),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
