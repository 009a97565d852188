/* tres.c — TRES lists: Slurm's text in, counts out, and back (tres.h).
 * Parsing refuses what Slurm's sacctmgr lets through as 0 (a count that is
 * no number, "1.5G"): a limit of the wrong shape must change nothing. */
#include "common/tres.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const names[DRV_TRES_COUNT] = {
    [DRV_TRES_BILLING] = "billing", [DRV_TRES_CPU] = "cpu",
    [DRV_TRES_ENERGY] = "energy",   [DRV_TRES_FS_DISK] = "fs/disk",
    [DRV_TRES_GPU] = "gres/gpu",    [DRV_TRES_MEM] = "mem",
    [DRV_TRES_NODE] = "node",	    [DRV_TRES_PAGES] = "pages",
    [DRV_TRES_VMEM] = "vmem",
};

void drv_tres_init(struct drv_tres *t)
{
	for (int i = 0; i < DRV_TRES_COUNT; i++)
		t->v[i] = DRV_TRES_NONE;
}

bool drv_tres_empty(const struct drv_tres *t)
{
	for (int i = 0; i < DRV_TRES_COUNT; i++)
		if (t->v[i] != DRV_TRES_NONE)
			return false;
	return true;
}

const char *drv_tres_name(enum drv_tres_id id)
{
	return id < DRV_TRES_COUNT ? names[id] : "?";
}

static int find(const char *name, size_t len)
{
	for (int i = 0; i < DRV_TRES_COUNT; i++)
		if (strlen(names[i]) == len && !strncasecmp(names[i], name, len))
			return i;
	return -1;
}

/* Slurm's scale of a unit letter for a TRES whose base unit is `base`
 * (0 for counts, 2 for mem in MiB): 1024 per step above the base, 1 at or
 * below it (as Slurm, "mem=5K" is 5 MiB). 0 for a letter that is no unit. */
static uint64_t unit_scale(char unit, int base)
{
	const char *units = "KMGTP";
	const char *at = strchr(units, toupper((unsigned char)unit));
	if (!unit || !at)
		return 0;
	uint64_t scale = 1;
	for (int level = (int)(at - units) + 1; level > base; level--)
		scale *= 1024;
	return scale;
}

/* One "name=count[unit]" item of len bytes into t. */
static int parse_item(const char *item, size_t len, struct drv_tres *t,
		      struct drv_error *err)
{
	const char *eq = memchr(item, '=', len);
	if (!eq)
		return drv_error_set(err, EINVAL,
				     "slurmdb_format_tres_str: no TRES id found for %.*s",
				     (int)len, item);
	int id = find(item, (size_t)(eq - item));
	if (id < 0)
		return drv_error_set(
		    err, EINVAL, "slurmdb_format_tres_str: no TRES known by type %.*s",
		    (int)(eq - item), item);
	char num[32];
	size_t nlen = len - (size_t)(eq + 1 - item);
	if (nlen >= sizeof(num))
		return drv_error_set(err, EINVAL, "Invalid TRES count '%.*s'", (int)nlen,
				     eq + 1);
	memcpy(num, eq + 1, nlen);
	num[nlen] = '\0';
	if (!strcmp(num, "-1")) {
		t->v[id] = DRV_TRES_CLEAR;
		return 0;
	}
	char *end = num;
	errno = 0;
	unsigned long long count =
	    isdigit((unsigned char)num[0]) ? strtoull(num, &end, 10) : 0;
	if (errno || count > INT64_MAX / 1024 / 1024 / 1024)
		return drv_error_set(err, EINVAL, "Invalid TRES count '%s'", num);
	if (*end) {
		uint64_t scale = unit_scale(*end, id == DRV_TRES_MEM ? 2 : 0);
		if (!scale || end == num || end[1])
			return drv_error_set(
			    err, EINVAL,
			    "Invalid unit type '%c'. Possible options are "
			    "'KMGTP'",
			    *end);
		count *= scale;
	}
	t->v[id] = (int64_t)count;
	return 0;
}

int drv_tres_parse(const char *text, struct drv_tres *out, struct drv_error *err)
{
	struct drv_tres t;
	drv_tres_init(&t);
	for (const char *s = text ? text : ""; *s;) {
		size_t len = strcspn(s, ",");
		if (len == 0)
			return drv_error_set(
			    err, EINVAL,
			    "slurmdb_format_tres_str: no TRES id found for "
			    "%s",
			    s);
		int rc = parse_item(s, len, &t, err);
		if (rc < 0)
			return rc;
		s += len + (s[len] == ',');
	}
	*out = t;
	return 0;
}

void drv_tres_merge(struct drv_tres *t, const struct drv_tres *change)
{
	for (int i = 0; i < DRV_TRES_COUNT; i++)
		if (change->v[i] == DRV_TRES_CLEAR)
			t->v[i] = DRV_TRES_NONE;
		else if (change->v[i] != DRV_TRES_NONE)
			t->v[i] = change->v[i];
}

void drv_tres_mem_text(int64_t mib, char *buf, size_t len)
{
	/* Slurm's convert_num_unit with CONVERT_NUM_UNIT_EXACT: up a unit
	 * while no precision is lost (halves are kept: 1536M is 1.50G) */
	const char *units = "MGTP";
	double num = (double)mib;
	int u = 0;
	if (mib == 0) {
		snprintf(buf, len, "0");
		return;
	}
	while (num >= 1024 && u < 3 && (uint64_t)num % 512 == 0) {
		num /= 1024;
		u++;
	}
	if ((double)(uint64_t)num == num)
		snprintf(buf, len, "%" PRIu64 "%c", (uint64_t)num, units[u]);
	else
		snprintf(buf, len, "%.2f%c", num, units[u]);
}

size_t drv_tres_format(const struct drv_tres *t, bool units, char *buf, size_t len)
{
	size_t used = 0;
	if (len)
		buf[0] = '\0';
	for (int i = 0; i < DRV_TRES_COUNT; i++) {
		int64_t v = t->v[i];
		char num[32];
		if (v == DRV_TRES_NONE)
			continue;
		if (v == DRV_TRES_CLEAR)
			snprintf(num, sizeof(num), "%s", units ? "NONE" : "-1");
		else if (units && i == DRV_TRES_MEM)
			drv_tres_mem_text(v, num, sizeof(num));
		else
			snprintf(num, sizeof(num), "%" PRId64, v);
		int n =
		    snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0,
			     "%s%s=%s", used ? "," : "", names[i], num);
		used += (size_t)n;
	}
	return used;
}

/* One "name=weight[unit]" item of len bytes into w. */
static int weight_item(const char *item, size_t len, double *w, struct drv_error *err)
{
	const char *eq = memchr(item, '=', len);
	char num[64];
	size_t nlen = eq ? len - (size_t)(eq + 1 - item) : 0;
	if (!eq || eq == item || !nlen || nlen >= sizeof(num))
		return drv_error_set(err, EINVAL,
				     "\"%.*s\" is an invalid TRES weight entry", (int)len,
				     item);
	int id = find(item, (size_t)(eq - item));
	if (id < 0)
		return drv_error_set(err, EINVAL,
				     "TRES weight '%.*s' is not a configured TRES type.",
				     (int)(eq - item), item);
	memcpy(num, eq + 1, nlen);
	num[nlen] = '\0';
	char *end;
	errno = 0;
	double v = strtod(num, &end);
	if (end == num || errno || v != v || isspace((unsigned char)num[0]))
		return drv_error_set(err, EINVAL,
				     "\"%.*s\" is an invalid TRES weight entry", (int)len,
				     item);
	if (*end) {
		uint64_t scale =
		    end[1] ? 0 : unit_scale(*end, id == DRV_TRES_MEM ? 2 : 0);
		if (!scale)
			return drv_error_set(
			    err, EINVAL,
			    "Invalid unit type '%s'. Possible options are "
			    "'KMGTP'",
			    end);
		v /= (double)scale;
	}
	w[id] = v;
	return 0;
}

int drv_tres_weights_parse(const char *text, struct drv_tres_weights *out,
			   struct drv_error *err)
{
	struct drv_tres_weights t = {0};
	size_t len = text ? strlen(text) : 0;
	if (len >= sizeof(t.text))
		return drv_error_set(err, EINVAL,
				     "the list is longer than %zu characters",
				     sizeof(t.text) - 1);
	for (const char *s = text; s && *s;) {
		size_t n = strcspn(s, ",");
		int rc = weight_item(s, n, t.w, err);
		if (rc < 0)
			return rc;
		s += n + (s[n] == ',');
	}
	if (len) {
		t.set = true;
		memcpy(t.text, text, len + 1);
	}
	*out = t;
	return 0;
}
