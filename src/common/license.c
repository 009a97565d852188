/* license.c — parses Slurm's license lists ("matlab:2,fluent"), shared by
 * the config's Licenses= and a job's -L. What the names mean (which exist,
 * how many are free) is ctld's business. */
#include "common/license.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void drv_licenses_free(struct drv_license *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].name);
	free(v);
}

/* The count after ':' in [s, end): a decimal number up to INT32_MAX, as
 * Slurm's int32 count. 0 or -EINVAL. */
static int parse_count(const char *s, const char *end, uint32_t *out)
{
	uint64_t v = 0;
	if (s == end)
		return -EINVAL;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > INT32_MAX)
			return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

/* Adds count to name's entry of v, or appends one. 0 or -ENOMEM. */
static int add_entry(struct drv_license **v, size_t *n, const char *name, size_t len,
		     uint32_t count)
{
	for (size_t i = 0; i < *n; i++)
		if (strlen((*v)[i].name) == len && !strncmp((*v)[i].name, name, len)) {
			uint64_t sum = (uint64_t)(*v)[i].count + count;
			(*v)[i].count = sum > INT32_MAX ? INT32_MAX : (uint32_t)sum;
			return 0;
		}
	struct drv_license *nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n].name = strndup(name, len);
	if (!nv[*n].name)
		return -ENOMEM;
	nv[(*n)++].count = count;
	return 0;
}

/* One entry [s, end): "name" or "name:count". */
static int parse_entry(const char *s, const char *end, struct drv_license **v, size_t *n,
		       struct drv_error *err)
{
	const char *colon = memchr(s, ':', (size_t)(end - s));
	const char *name_end = colon ? colon : end;
	uint32_t count = 1;
	for (const char *p = s; p < end; p++)
		if (*p == ' ' || *p == '\t' || *p == '\n')
			return drv_error_set(err, EINVAL, "a license name holds a space");
	if (name_end == s)
		return drv_error_set(err, EINVAL, "a license has no name");
	if (colon && parse_count(colon + 1, end, &count) < 0)
		return drv_error_set(err, EINVAL, "'%.*s' is not a license count",
				     (int)(end - colon - 1 > 40 ? 40 : end - colon - 1),
				     colon + 1);
	return add_entry(v, n, s, (size_t)(name_end - s), count);
}

int drv_licenses_parse(const char *text, struct drv_license **out, size_t *n,
		       struct drv_error *err)
{
	struct drv_license *v = NULL;
	size_t k = 0;
	int rc = 0;
	if (!text || !*text)
		return drv_error_set(err, EINVAL, "no license named");
	for (const char *s = text; rc == 0 && *s;) {
		size_t len = strcspn(s, ",;");
		if (len) /* empty entries ("a,,b") are skipped, as strtok does */
			rc = parse_entry(s, s + len, &v, &k, err);
		s += len;
		if (*s)
			s++;
	}
	if (rc == 0 && k == 0)
		rc = drv_error_set(err, EINVAL, "no license named");
	if (rc < 0) {
		if (rc == -ENOMEM)
			drv_error_set(err, ENOMEM, "out of memory");
		drv_licenses_free(v, k);
		return rc;
	}
	*out = v;
	*n = k;
	return 0;
}
