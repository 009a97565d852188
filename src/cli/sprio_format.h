/* sprio_format.h — what sprio prints: Slurm 22.05's default and -l formats
 * (which columns depend on the weights that are set), -n's normalized
 * variants, -o specifications ("%[.][width]X" with literal text between),
 * -S sorting and -w's line of weights. Pure: the caller gets the jobs'
 * factors from ctld and gives the FILE to print to. */
#ifndef DRV_CLI_SPRIO_FORMAT_H
#define DRV_CLI_SPRIO_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One TRES factor of a job: its name as Slurm writes it ("cpu", "mem",
 * "gres/gpu"), the factor 0..1 and PriorityWeightTRES's weight for it. */
struct sprio_tres {
	const char *name;
	double factor, weight;
};

/* One job in one partition (a job pending in several partitions has one
 * row per partition, as ctld sends them). Strings are borrowed; NULL prints
 * as an empty field. */
struct sprio_job {
	uint32_t job_id;
	const char *user; /* its name, or its uid in digits when unknown */
	const char *account, *partition, *qos, *cluster;
	/* the normalized factors, 0..1 (struct sched_prio_factors) */
	double age, assoc, fairshare, job_size, part, qos_factor;
	const struct sprio_tres *tres;
	size_t n_tres;
	int64_t site, nice; /* SiteFactor and --nice */
	/* an administrator's scontrol update Priority=: when not 0 it is the
	 * priority, and the factors are not shown (as Slurm's direct_prio) */
	uint32_t direct_prio;
};

/* PriorityWeight*; tres is PriorityWeightTRES as configured ("CPU=1000,
 * GRES/gpu=3000"), NULL when not set. */
struct sprio_weights {
	uint32_t age, assoc, fairshare, job_size, partition, qos;
	const char *tres;
};

/* What the default format depends on: -n, -l, -u given, and --sibling
 * without --local (a cluster column). */
struct sprio_mode {
	bool normalized, long_list, users, sibling;
};

/* Slurm's format when -o is not given: the job id, the partition, the
 * priority and the site factor, then one column per factor with a weight
 * (all of them with -l), into buf (len bytes; 256 are enough). Returns buf. */
const char *sprio_default_format(const struct sprio_weights *w,
				 const struct sprio_mode *m, char *buf, size_t len);

struct sprio_item {
	char field; /* a format letter, or 0 for the prefix before the first '%' */
	int width;  /* 0: as long as the value */
	bool right; /* '.': right-justified (Slurm's sprio), else left */
	char *text; /* literal text after the field (or the prefix); owned */
};

struct sprio_format {
	struct sprio_item *items;
	size_t n;
};

/* Called with each letter sprio does not know; as Slurm ("Invalid job
 * format specification: X"), the field and the text after it are dropped
 * and the rest is kept. */
typedef void (*sprio_bad_f)(char letter, void *arg);

/* Parses an -o spec into *out (release with sprio_format_fini). Fields are
 * split on runs of '%' as Slurm's strtok does. Returns 0 or -ENOMEM. */
int sprio_format_parse(const char *fmt, struct sprio_format *out, sprio_bad_f bad,
		       void *arg);
void sprio_format_fini(struct sprio_format *f);

/* Orders jobs in place as an -S spec says ("u,r,-y": by user, then
 * partition, then priority descending; Slurm's letters c i N r u and a A f
 * F j J p P q Q t T y Y, factors compared weighted; NULL: "i"). Ties keep
 * the given order. Returns 0, -ENOMEM, or -EINVAL with the letter Slurm
 * refuses in *bad (jobs unchanged): "Invalid sort specification: X",
 * exit 1. */
int sprio_sort(struct sprio_job *jobs, size_t n, const char *spec,
	       const struct sprio_weights *w, char *bad);

/* The priority sprio shows: the sum of the weighted factors + site - nice,
 * at least 1 (or direct_prio when set). */
double sprio_priority(const struct sprio_job *j, const struct sprio_weights *w);

/* Prints the header (unless no_header), then each job's line; with
 * weights_only (-w), one line of weights instead of the jobs. */
void sprio_print(const struct sprio_format *f, const struct sprio_weights *w,
		 const struct sprio_job *jobs, size_t n, bool no_header,
		 bool weights_only, FILE *out);

#endif
