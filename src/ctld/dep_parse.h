/* dep_parse.h — Slurm's --dependency grammar as data: parsing the text a
 * user gives and printing the list back as scontrol and squeue show it.
 * Pure: no clocks, no job table; ctld's depend.c evaluates the list. */
#ifndef CTLD_DEP_PARSE_H
#define CTLD_DEP_PARSE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

enum dep_kind {
	DEP_AFTER,
	DEP_AFTERANY,
	DEP_AFTERBURSTBUFFER,
	DEP_AFTERCORR,
	DEP_AFTERNOTOK,
	DEP_AFTEROK,
	DEP_SINGLETON,
};

/* An entry is pending until it is met (then it leaves the list, as in
 * Slurm) or until it can never be met. */
enum dep_state { DEP_UNFULFILLED, DEP_FAILED };

#define DEP_TASK_NONE UINT32_MAX      /* "ID" */
#define DEP_TASK_ALL (UINT32_MAX - 1) /* "ID_*" */

struct dep_item {
	enum dep_kind kind;
	enum dep_state state;
	uint32_t job_id;  /* 0 for singleton */
	uint32_t task;	  /* "ID_TASK", or DEP_TASK_NONE / DEP_TASK_ALL */
	uint32_t minutes; /* "+min" */
};

struct dep_list {
	struct dep_item *items; /* owned */
	uint32_t n;
	bool any; /* '?': one entry met is enough; ',': all must be */
};

/* Parses "kind:ID[_TASK|_*][+min][:ID...][,kind:...]" or with '?' between
 * entries, "singleton", or a bare "ID" (afterany). Kinds in any case.
 * Returns 0 and fills *out (freed with dep_list_free), -EINVAL when Slurm
 * says "Job dependency problem", -ENOTSUP for "expand" (Slurm: "Requested
 * operation not supported on this system"), -ENOMEM. *out is untouched on
 * failure. An empty text gives an empty list. */
int dep_parse(const char *text, struct dep_list *out);

/* The list as Slurm prints it: "afterok:12(unfulfilled),afterany:13_*(failed)",
 * "singleton(unfulfilled)"; NULL when the list is empty. Caller frees. */
char *dep_format(const struct dep_list *l);

/* Removes entry i, keeping the order. */
void dep_list_remove(struct dep_list *l, uint32_t i);

/* The store's form: [{"kind","state","job_id","task","minutes"}]; new
 * reference. */
json_t *dep_to_json(const struct dep_list *l);
/* Reads dep_to_json's array back (any: the '?' flag). Plain integers are
 * afterok ids of records written before the full grammar (failed: they
 * were marked never satisfiable). Returns 0 or -ENOMEM. */
int dep_from_json(struct dep_list *l, json_t *arr, bool any, bool failed);

void dep_list_free(struct dep_list *l); /* accepts an empty list */

#endif
