/* job_tres.c — TRES strings: scontrol's TRES= and sacct's ReqTRES/AllocTRES. */
#include "ctld/job_tres.h"

#include <stdio.h>
#include <string.h>

#include "ctld/job_req.h"

void job_mem_fmt(uint64_t mib, char *buf, size_t len)
{
	if (mib && mib % (1024 * 1024) == 0)
		snprintf(buf, len, "%lluT", (unsigned long long)(mib / (1024 * 1024)));
	else if (mib && mib % 1024 == 0)
		snprintf(buf, len, "%lluG", (unsigned long long)(mib / 1024));
	else
		snprintf(buf, len, "%lluM", (unsigned long long)mib);
}

static uint32_t job_nodes(const struct job *j)
{
	return j->n_alloc ? j->n_alloc : j->req.sched.min_nodes;
}

static uint64_t requested_mem(const struct job *j)
{
	return j->req.mem *
	       (j->req.mem_is_per_cpu ? job_cpus(j) : j->req.sched.min_nodes);
}

static uint64_t held_mem(const struct job *j)
{
	uint64_t mem = 0;
	for (uint32_t i = 0; i < j->n_alloc; i++)
		mem += j->alloc[i].mem;
	return mem;
}

static uint32_t requested_gpus(const struct job *j)
{
	const struct sched_req *r = &j->req.sched;
	return r->gpus_total ? r->gpus_total : r->gpus_per_node * r->min_nodes;
}

uint32_t job_gpus(const struct job *j)
{
	uint32_t g = 0;
	for (uint32_t i = 0; i < j->n_alloc; i++)
		g += (uint32_t)__builtin_popcountll(j->alloc[i].gpus);
	return j->n_alloc ? g : requested_gpus(j);
}

void job_tres_scontrol(const struct job *j, char *buf, size_t len)
{
	uint32_t cpus = job_cpus(j), gpus = job_gpus(j);
	char mem[32];
	job_mem_fmt(j->n_alloc ? held_mem(j) : requested_mem(j), mem, sizeof(mem));
	int n = snprintf(buf, len, "cpu=%u,mem=%s,node=%u,billing=%u", cpus, mem,
			 job_nodes(j), cpus);
	if (gpus && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ",gres/gpu=%u", gpus);
}

static char *sacct_tres(uint32_t cpus, uint32_t gpus, uint64_t mem_mib, uint32_t nodes)
{
	char mem[32], gres[32] = "", buf[256];
	job_mem_fmt(mem_mib, mem, sizeof(mem));
	if (gpus)
		snprintf(gres, sizeof(gres), "gres/gpu=%u,", gpus);
	snprintf(buf, sizeof(buf), "billing=%u,cpu=%u,%smem=%s,node=%u", cpus, cpus, gres,
		 mem, nodes);
	return strdup(buf);
}

char *job_tres_requested(const struct job *j)
{
	return sacct_tres(job_cpus(j), requested_gpus(j), requested_mem(j),
			  j->req.sched.min_nodes);
}

char *job_tres_allocated(const struct job *j)
{
	return sacct_tres(job_cpus(j), job_gpus(j), held_mem(j), j->n_alloc);
}
