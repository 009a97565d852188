/* store_filter.c — the deep copy of a history filter that a query keeps
 * while it waits for its engine's thread. It knows no engine and no query
 * language: only the shape of struct store_job_filter. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ctld/store_engine.h"

static size_t strs_size(const struct store_strs *l)
{
	size_t n = l->n * sizeof(char *);
	for (size_t i = 0; i < l->n; i++)
		n += strlen(l->v[i]) + 1;
	return n;
}

/* Copies l's pointer array to *ptrs and its strings to *chars, moving both
 * cursors past what it wrote. */
static struct store_strs copy_strs(const struct store_strs *l, char ***ptrs, char **chars)
{
	struct store_strs out = {.given = l->given, .n = l->n, .v = NULL};
	if (!l->n)
		return out;
	char **v = *ptrs;
	for (size_t i = 0; i < l->n; i++) {
		size_t len = strlen(l->v[i]) + 1;
		memcpy(*chars, l->v[i], len);
		v[i] = *chars;
		*chars += len;
	}
	*ptrs += l->n;
	out.v = (const char *const *)v;
	return out;
}

static struct store_ids copy_ids(const struct store_ids *l, uint32_t **cursor)
{
	struct store_ids out = {.given = l->given, .n = l->n, .v = NULL};
	if (!l->n)
		return out;
	memcpy(*cursor, l->v, l->n * sizeof(uint32_t));
	out.v = *cursor;
	*cursor += l->n;
	return out;
}

/* One allocation holds the filter, then every pointer array, then the ids,
 * then the strings: in that order each part stays aligned, and one free()
 * releases it all. */
struct store_job_filter *store_filter_dup(const struct store_job_filter *f)
{
	const struct store_strs *strs[] = {&f->names, &f->accounts, &f->partitions,
					   &f->states};
	size_t size = sizeof(*f) + (f->job_ids.n + f->uids.n) * sizeof(uint32_t);
	for (size_t i = 0; i < 4; i++)
		size += strs_size(strs[i]);
	struct store_job_filter *d = malloc(size);
	if (!d) {
		errno = ENOMEM;
		return NULL;
	}
	*d = *f;
	char **ptrs = (char **)(d + 1);
	size_t n_ptrs = f->names.n + f->accounts.n + f->partitions.n + f->states.n;
	uint32_t *ids = (uint32_t *)(ptrs + n_ptrs);
	char *chars = (char *)(ids + f->job_ids.n + f->uids.n);
	d->names = copy_strs(&f->names, &ptrs, &chars);
	d->accounts = copy_strs(&f->accounts, &ptrs, &chars);
	d->partitions = copy_strs(&f->partitions, &ptrs, &chars);
	d->states = copy_strs(&f->states, &ptrs, &chars);
	d->job_ids = copy_ids(&f->job_ids, &ids);
	d->uids = copy_ids(&f->uids, &ids);
	return d;
}

void store_filter_free(struct store_job_filter *f)
{
	free(f);
}
