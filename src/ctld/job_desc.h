/* job_desc.h — Slurm's job descriptor (job_desc_msg_t) as job_submit.lua
 * reads and writes it, over the body of a job.submit or job.update request.
 *
 * Slurm's names, units and conventions on one side (time limits in minutes,
 * NO_VAL for a value not given, nice offset by NICE_OFFSET, gres as
 * "gres:gpu:2"), the wire fields on the other (seconds, absent fields,
 * gpus_per_node and gpu_type). Pure: no Lua and no ctld state; a write
 * changes the body, validated field by field against the body's declared
 * shape, so that ctld then checks the result as it checks what a user
 * sent. */
#ifndef CTLD_JOB_DESC_H
#define CTLD_JOB_DESC_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/schema.h"

/* slurm.h's markers, as the Lua API exposes them. */
#define JD_NO_VAL 0xfffffffeLL
#define JD_NO_VAL16 0xfffeLL
#define JD_INFINITE 0xffffffffLL
#define JD_INFINITE16 0xffffLL
#define JD_NICE_OFFSET 0x80000000LL
/* pn_min_memory: 64-bit markers, which Lua holds only as floats */
#define JD_NO_VAL64 18446744073709551614.0
#define JD_MEM_PER_CPU 9223372036854775808.0
/* job_desc.shared */
enum { JD_SHARED_NONE = 0, JD_SHARED_OK = 1, JD_SHARED_USER = 2, JD_SHARED_MCS = 3 };

enum jd_type { JD_NIL, JD_INT, JD_NUM, JD_STR };

/* A value crossing between Lua and the body. */
struct jd_value {
	enum jd_type type;
	int64_t i;     /* JD_INT */
	double d;      /* JD_NUM: a number with no exact integer (NO_VAL64) */
	const char *s; /* JD_STR: borrowed */
};

/* What the body does not carry: whose job it is. */
struct jd_who {
	uint32_t uid, gid;
	const char *user_name; /* borrowed; may be NULL */
};

/* A descriptor: a body (borrowed, changed by writes) and its shape. */
struct jd_doc {
	json_t *body;
	const struct drv_shape *shape;
	const struct jd_who *who;
};

/* Reads field name of d. Strings are borrowed from the body, or written
 * into buf (len bytes) when computed ("gres:gpu:2"). 0, or -ENOENT for a
 * name Drover's descriptor does not have (Lua reads nil). */
int job_desc_get(const struct jd_doc *d, const char *name, struct jd_value *out,
		 char *buf, size_t len);

/* Writes v (JD_NIL: as not given) into field name of d. 0 on success;
 * -ENOENT for a name Slurm's descriptor does not have, -ENOTSUP for one
 * this body cannot carry (Drover lacks it, or job.update has no such
 * field), -EROFS for a read-only one (the caller logs and ignores these,
 * as Slurm ignores a field it does not know); -EINVAL with err ("job_desc.
 * min_nodes: must be 1..100000") for a value the field refuses, -ENOMEM.
 * On failure the body is unchanged. */
int job_desc_set(struct jd_doc *d, const char *name, const struct jd_value *v,
		 struct drv_error *err);

/* The job's environment ("NAME=value" entries, borrowed from the body). */
size_t job_desc_env_count(const struct jd_doc *d);
const char *job_desc_env_at(const struct jd_doc *d, size_t i);

/* The names job_desc_get knows, i from 0; NULL past the last. */
const char *job_desc_field_name(size_t i);

#endif
