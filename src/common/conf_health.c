/* conf_health.c — HealthCheckNodeState: the comma list of node states in
 * which noded runs HealthCheckProgram (ALLOC, ANY, CYCLE, IDLE, MIXED,
 * NONDRAINED_IDLE, any case, as slurm.conf(5)), read into DRV_HC_* bits, and
 * shown back in Slurm's words. Parsing only: noded/health.c acts on it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/conf_internal.h"

static const struct {
	const char *word;
	unsigned bit;
} words[] = {
    {"ALLOC", DRV_HC_ALLOC}, {"ANY", DRV_HC_ANY},
    {"CYCLE", DRV_HC_CYCLE}, {"IDLE", DRV_HC_IDLE},
    {"MIXED", DRV_HC_MIXED}, {"NONDRAINED_IDLE", DRV_HC_NONDRAINED_IDLE},
};

static unsigned word_bit(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i].word) == n && !strncasecmp(words[i].word, s, n))
			return words[i].bit;
	return 0;
}

int conf_apply_health_state(struct conf_parser *p, const struct conf_key *k, void *target,
			    const char *value, struct drv_error *err)
{
	struct drv_conf *c = target;
	unsigned mask = 0;
	for (const char *s = value;; s++) {
		size_t n = strcspn(s, ",");
		unsigned bit = word_bit(s, n);
		if (!bit)
			return drv_error_set(err, EINVAL,
					     "%s: '%.*s' is not ALLOC, ANY, CYCLE, IDLE, "
					     "MIXED or NONDRAINED_IDLE",
					     k->name, (int)(n > 60 ? 60 : n), s);
		mask |= bit;
		s += n;
		if (!*s)
			break;
	}
	/* CYCLE alone names no state: it runs on every node, in turn */
	if (!(mask & DRV_HC_ANY))
		mask |= DRV_HC_ANY;
	c->health_check_node_state = mask;
	return 0;
}

void conf_health_state_text(unsigned mask, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = '\0';
#define PUT(w)                                                                           \
	at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "%s%s", at ? "," : "", \
			       w)
	if (mask & DRV_HC_CYCLE)
		PUT("CYCLE");
	if ((mask & DRV_HC_ANY) == DRV_HC_ANY) {
		PUT("ANY");
		return;
	}
	if (mask & DRV_HC_IDLE)
		PUT("IDLE");
	if (mask & DRV_HC_ALLOC)
		PUT("ALLOC");
	if (mask & DRV_HC_MIXED)
		PUT("MIXED");
	if (mask & DRV_HC_NONDRAINED_IDLE)
		PUT("NONDRAINED_IDLE");
#undef PUT
}
