/* arena.c — bump allocation for one pass: what a pass builds (profiles,
 * shapes, trees) and what a result hands out (CPU bitmaps, GPU units) is
 * freed at once, never piece by piece. Pure. */
#include <stdlib.h>
#include <string.h>

#include "sched/sched_internal.h"

/* small passes stay small; big ones double their way up */
#define CHUNK_MIN (4u << 10)
#define CHUNK_MAX (64u << 20)

struct arena_chunk {
	struct arena_chunk *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

void *arena_alloc(struct arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	struct arena_chunk *c = a->head;
	if (!c || c->size - c->used < n) {
		size_t size = n > CHUNK_MIN ? n : CHUNK_MIN;
		/* grow with what was asked so far: few chunks for big passes */
		if (c && c->size * 2 > size && c->size < CHUNK_MAX)
			size = c->size * 2;
		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->size = size;
		c->used = 0;
		c->next = a->head;
		a->head = c;
	}
	void *p = c->data + c->used;
	c->used += n;
	memset(p, 0, n);
	return p;
}

void arena_free(struct arena *a)
{
	if (!a)
		return;
	for (struct arena_chunk *c = a->head, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
}
