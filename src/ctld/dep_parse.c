/* dep_parse.c — the --dependency grammar (dep_parse.h). What it accepts and
 * refuses follows Slurm 22.05's slurmctld, checked against a real one: kind
 * names in any case, a bare id means afterany, "+min" on any kind, "ID_" is
 * task 0, and any '?' makes the whole list "any of". It knows nothing about
 * jobs; whether the ids exist is for ctld to judge. */
#include "ctld/dep_parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/proto_gen.h"

static const char *const kind_names[] = {
    [DEP_AFTER] = "after",
    [DEP_AFTERANY] = "afterany",
    [DEP_AFTERBURSTBUFFER] = "afterburstbuffer",
    [DEP_AFTERCORR] = "aftercorr",
    [DEP_AFTERNOTOK] = "afternotok",
    [DEP_AFTEROK] = "afterok",
    [DEP_SINGLETON] = "singleton",
};

#define N_KINDS (sizeof(kind_names) / sizeof(kind_names[0]))

static int kind_parse(const char *s, size_t len, enum dep_kind *kind)
{
	for (size_t k = 0; k < N_KINDS; k++)
		if (strlen(kind_names[k]) == len && !strncasecmp(s, kind_names[k], len)) {
			*kind = (enum dep_kind)k;
			return 0;
		}
	return len == 6 && !strncasecmp(s, "expand", 6) ? -ENOTSUP : -EINVAL;
}

static int push(struct dep_list *l, size_t *cap, struct dep_item it)
{
	if (l->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 4;
		struct dep_item *v = realloc(l->items, ncap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->items = v;
		*cap = ncap;
	}
	l->items[l->n++] = it;
	return 0;
}

/* A decimal number at *p (leading blanks allowed, as strtoul); *p moves past. */
static int number(const char **p, unsigned long max, uint32_t *out)
{
	char *end;
	if (**p == '-' || **p == '+')
		return -EINVAL;
	errno = 0;
	unsigned long v = strtoul(*p, &end, 10);
	if (end == *p || errno || v > max)
		return -EINVAL;
	*p = end;
	*out = (uint32_t)v;
	return 0;
}

/* "ID[_TASK|_*][+min]" at *p. */
static int one_id(const char **p, struct dep_item *it)
{
	if (number(p, UINT32_MAX, &it->job_id) < 0 || it->job_id == 0)
		return -EINVAL;
	it->task = DEP_TASK_NONE;
	if (**p == '_') {
		(*p)++;
		if (**p == '*') {
			it->task = DEP_TASK_ALL;
			(*p)++;
		} else if (!isdigit((unsigned char)**p)) {
			it->task = 0; /* Slurm reads "12_" as task 0 */
		} else if (number(p, DEP_TASK_ALL - 1, &it->task) < 0) {
			return -EINVAL;
		}
	}
	if (**p == '+') {
		(*p)++;
		if (!isdigit((unsigned char)**p) ||
		    number(p, UINT32_MAX, &it->minutes) < 0)
			return -EINVAL;
	}
	return 0;
}

/* One entry "kind:ID[:ID...]", "singleton" or "ID", up to sep or end. */
static int entry(const char *s, size_t len, struct dep_list *l, size_t *cap)
{
	const char *colon = memchr(s, ':', len);
	struct dep_item it = {.kind = DEP_AFTERANY};
	const char *p = s, *end = s + len;
	int rc;

	if (!colon && len && isdigit((unsigned char)*s)) {
		if ((rc = one_id(&p, &it)) < 0 || p != end)
			return -EINVAL;
		return push(l, cap, it);
	}
	rc = kind_parse(s, colon ? (size_t)(colon - s) : len, &it.kind);
	if (rc < 0)
		return rc;
	if (it.kind == DEP_SINGLETON)
		return colon ? -EINVAL : push(l, cap, it);
	if (!colon)
		return -EINVAL;
	for (p = colon + 1;;) {
		struct dep_item one = {.kind = it.kind};
		if ((rc = one_id(&p, &one)) < 0 || (p != end && *p != ':'))
			return -EINVAL;
		if ((rc = push(l, cap, one)) < 0)
			return rc;
		if (p == end)
			return 0;
		p++; /* ':' then another id, never the end */
	}
}

int dep_parse(const char *text, struct dep_list *out)
{
	struct dep_list l = {0};
	size_t cap = 0;
	int rc = 0;

	l.any = strchr(text, '?') != NULL;
	for (const char *s = text; *text && rc == 0;) {
		size_t len = strcspn(s, ",?");
		rc = len ? entry(s, len, &l, &cap) : -EINVAL;
		if (!s[len])
			break;
		s += len + 1;
		if (!*s)
			rc = -EINVAL; /* a trailing separator */
	}
	if (rc < 0) {
		free(l.items);
		return rc;
	}
	*out = l;
	return 0;
}

static size_t item_format(const struct dep_item *it, char *buf, size_t len)
{
	int n;
	if (it->kind == DEP_SINGLETON)
		n = snprintf(buf, len, "singleton");
	else if (it->task == DEP_TASK_NONE)
		n = snprintf(buf, len, "%s:%u", kind_names[it->kind], it->job_id);
	else if (it->task == DEP_TASK_ALL)
		n = snprintf(buf, len, "%s:%u_*", kind_names[it->kind], it->job_id);
	else
		n = snprintf(buf, len, "%s:%u_%u", kind_names[it->kind], it->job_id,
			     it->task);
	if (it->minutes && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "+%u", it->minutes);
	if (n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "%s",
			      it->state == DEP_FAILED ? "(failed)" : "(unfulfilled)");
	return n < 0 ? 0 : (size_t)n;
}

char *dep_format(const struct dep_list *l)
{
	if (!l->n)
		return NULL;
	size_t cap = (size_t)l->n * 64, len = 0;
	char *s = malloc(cap);
	if (!s)
		return NULL;
	for (uint32_t i = 0; i < l->n; i++) {
		if (i)
			s[len++] = l->any ? '?' : ',';
		len += item_format(&l->items[i], s + len, cap - len);
	}
	s[len] = '\0';
	return s;
}

void dep_list_remove(struct dep_list *l, uint32_t i)
{
	if (i >= l->n)
		return;
	memmove(&l->items[i], &l->items[i + 1], (l->n - i - 1) * sizeof(l->items[0]));
	l->n--;
}

json_t *dep_to_json(const struct dep_list *l)
{
	json_t *arr = json_array();
	for (uint32_t i = 0; arr && i < l->n; i++) {
		const struct dep_item *it = &l->items[i];
		struct drv_rec_dep d = {
		    .kind = kind_names[it->kind],
		    .state = it->state == DEP_FAILED ? "failed" : "unfulfilled",
		    .job_id = it->job_id,
		    .task = it->task,
		    .minutes = it->minutes,
		};
		json_array_append_new(arr, drv_rec_dep_encode(&d));
	}
	return arr;
}

/* One stored term into it: 0, or -1 when it is not one (skipped). */
static int dep_item_from(struct dep_item *it, json_t *x, bool failed)
{
	if (json_is_integer(x)) { /* an older store's: afterok on a plain id */
		*it =
		    (struct dep_item){DEP_AFTEROK, failed ? DEP_FAILED : DEP_UNFULFILLED,
				      (uint32_t)json_integer_value(x), DEP_TASK_NONE, 0};
		return 0;
	}
	struct drv_rec_dep d;
	struct drv_error err;
	enum dep_kind k;
	if (!json_is_object(x) || drv_rec_dep_decode(x, &d, &err) < 0)
		return -1;
	int rc = kind_parse(d.kind, strlen(d.kind), &k);
	if (rc == 0)
		*it = (struct dep_item){
		    k, !strcmp(d.state, "failed") ? DEP_FAILED : DEP_UNFULFILLED,
		    d.job_id, d.task, d.minutes};
	drv_rec_dep_free(&d);
	return rc < 0 ? -1 : 0;
}

int dep_from_json(struct dep_list *l, json_t *arr, bool any, bool failed)
{
	size_t n = json_array_size(arr), i;
	json_t *x;
	memset(l, 0, sizeof(*l));
	l->any = any;
	if (!n)
		return 0;
	l->items = calloc(n, sizeof(*l->items));
	if (!l->items)
		return -ENOMEM;
	json_array_foreach(arr, i, x)
	{
		if (dep_item_from(&l->items[l->n], x, failed) == 0)
			l->n++;
	}
	return 0;
}

void dep_list_free(struct dep_list *l)
{
	free(l->items);
	l->items = NULL;
	l->n = 0;
	l->any = false;
}
