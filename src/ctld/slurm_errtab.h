/* slurm_errtab.h — Slurm's error codes as job_submit.lua knows them
 * (slurm.SUCCESS, slurm.ERROR, slurm.ESLURM_*), with the text Slurm's
 * commands print for each. The numbers and texts are Slurm's interface
 * (slurm_errno.h, Slurm 22.05); Drover's own replies use common/proto.h. */
#ifndef CTLD_SLURM_ERRTAB_H
#define CTLD_SLURM_ERRTAB_H

#include <stddef.h>

struct slurm_err {
	const char *name; /* "ESLURM_INVALID_ACCOUNT" */
	int code;	  /* 2045 */
	const char *text; /* "Invalid account or account/partition ..." */
};

extern const struct slurm_err slurm_errtab[];
extern const size_t slurm_errtab_len;

/* The text Slurm prints for rc (static), as slurm_strerror: the table's,
 * "Unspecified error" for SLURM_ERROR (-1), the C library's below 1000,
 * NULL for a code neither knows. */
const char *slurm_err_text(int rc);

#endif
