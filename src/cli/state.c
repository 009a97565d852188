/* state.c — the job state table shared by squeue and scontrol. One row per
 * Slurm state; nothing here knows about ctld's own state machine. */
#include "cli/state.h"

#include <stddef.h>
#include <strings.h>

struct state_row {
	const char *name;
	const char *compact;
	bool active;
	int rank;
};

/* rank follows Slurm's enum job_states for base states; flag states
 * (COMPLETING, CONFIGURING, ...) sort with the base state they carry. */
static const struct state_row states[] = {
    {"PENDING", "PD", true, 0},	      {"RUNNING", "R", true, 1},
    {"SUSPENDED", "S", true, 2},      {"COMPLETED", "CD", false, 3},
    {"CANCELLED", "CA", false, 4},    {"FAILED", "F", false, 5},
    {"TIMEOUT", "TO", false, 6},      {"NODE_FAIL", "NF", false, 7},
    {"PREEMPTED", "PR", false, 8},    {"BOOT_FAIL", "BF", false, 9},
    {"DEADLINE", "DL", false, 10},    {"OUT_OF_MEMORY", "OOM", false, 11},
    {"COMPLETING", "CG", true, 1},    {"CONFIGURING", "CF", true, 1},
    {"RESIZING", "RS", true, 1},      {"REQUEUED", "RQ", true, 0},
    {"REQUEUE_FED", "RF", true, 0},   {"REQUEUE_HOLD", "RH", true, 0},
    {"RESV_DEL_HOLD", "RD", true, 0}, {"REVOKED", "RV", false, 4},
    {"SIGNALING", "SI", true, 1},     {"SPECIAL_EXIT", "SE", false, 5},
    {"STAGE_OUT", "SO", true, 1},     {"STOPPED", "ST", true, 1},
};

#define N_STATES (sizeof(states) / sizeof(states[0]))

static const struct state_row *find_long(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < N_STATES; i++)
		if (!strcasecmp(states[i].name, name))
			return &states[i];
	return NULL;
}

const char *cli_state_compact(const char *long_name)
{
	const struct state_row *r = find_long(long_name);

	return r ? r->compact : (long_name ? long_name : "");
}

const char *cli_state_parse(const char *name)
{
	const struct state_row *r = find_long(name);

	if (r)
		return r->name;
	for (size_t i = 0; name && i < N_STATES; i++)
		if (!strcasecmp(states[i].compact, name))
			return states[i].name;
	return NULL;
}

bool cli_state_is_active(const char *long_name)
{
	const struct state_row *r = find_long(long_name);

	return r ? r->active : false;
}

int cli_state_rank(const char *long_name)
{
	const struct state_row *r = find_long(long_name);

	return r ? r->rank : 100;
}

const char *cli_state_all_names(void)
{
	return "PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,FAILED,TIMEOUT,"
	       "NODE_FAIL,PREEMPTED,BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING,"
	       "CONFIGURING,RESIZING,RESV_DEL_HOLD,REQUEUED,REQUEUE_FED,"
	       "REQUEUE_HOLD,REVOKED,SIGNALING,SPECIAL_EXIT,STAGE_OUT,STOPPED";
}
