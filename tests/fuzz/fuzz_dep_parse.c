/* fuzz_dep_parse.c — --dependency texts as users write them (sbatch -d,
 * #SBATCH, scontrol update Dependency=) through ctld's grammar
 * (ctld/dep_parse.h).
 *
 * The input, cut at 256 bytes and NUL-terminated, goes to dep_parse. A
 * refused text must leave the output untouched. An accepted one is printed
 * with dep_format; that text without its "(unfulfilled)" marks must parse
 * back to the same entries (what scontrol shows is what it reads), and the
 * store's JSON form must read back to the same text. */
#include <stdlib.h>
#include <string.h>

#include "ctld/dep_parse.h"
#include "fuzz.h"

#define INPUT_MAX 256

static char *strip_marks(const char *s)
{
	static const char mark[] = "(unfulfilled)";
	char *out = malloc(strlen(s) + 1), *o = out;
	if (!out)
		abort();
	while (*s) {
		if (!strncmp(s, mark, sizeof(mark) - 1)) {
			s += sizeof(mark) - 1;
			continue;
		}
		*o++ = *s++;
	}
	*o = '\0';
	return out;
}

static void check_same(const struct dep_list *a, const struct dep_list *b)
{
	if (a->n != b->n || (a->n > 1 && a->any != b->any))
		abort();
	for (uint32_t i = 0; i < a->n; i++)
		if (memcmp(&a->items[i], &b->items[i], sizeof(a->items[i])))
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[INPUT_MAX + 1];
	size_t n = size < INPUT_MAX ? size : INPUT_MAX;
	memcpy(s, data, n);
	s[n] = '\0';

	struct dep_list l = {(struct dep_item *)1, 7, true}, back;
	if (dep_parse(s, &l) < 0) {
		if (l.items != (struct dep_item *)1 || l.n != 7)
			abort(); /* a refused text sets nothing */
		return 0;
	}
	char *text = dep_format(&l);
	if (!text) {
		if (l.n)
			abort();
		dep_list_free(&l);
		return 0;
	}
	char *plain = strip_marks(text);
	if (dep_parse(plain, &back) < 0)
		abort();
	check_same(&l, &back);
	dep_list_free(&back);
	json_t *j = dep_to_json(&l);
	if (dep_from_json(&back, j, l.any, false) < 0)
		abort();
	char *again = dep_format(&back);
	if (!again || strcmp(again, text))
		abort();
	free(again);
	json_decref(j);
	dep_list_free(&back);
	free(plain);
	free(text);
	dep_list_free(&l);
	return 0;
}
