/* job_fields.h — the job record's fields, declared once (job_fields.c). */
#ifndef CTLD_JOB_FIELDS_H
#define CTLD_JOB_FIELDS_H

#include <jansson.h>
#include <stddef.h>

#include "ctld/job.h"

struct job_field;

/* The whole record (new reference). */
json_t *job_to_record(const struct job *j);
/* A field by its protocol name (borrowed, static), NULL if unknown. */
const struct job_field *job_field_find(const char *name);
/* The values of want[0..n) as an array (new reference); NULL entries give null. */
json_t *job_to_row(const struct job *j, const struct job_field *const *want, size_t n);

/* The same as JSON text, appended to w: what bulk listings send. */
struct drv_jw;
void job_row_write(struct drv_jw *w, const struct job *j,
		   const struct job_field *const *want, size_t n);

#endif
