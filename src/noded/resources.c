/* resources.c — what this node reports about itself in node.register.
 *
 * With SlurmdParameters=config_overrides the configured CPUs and RealMemory
 * are reported as they are (local mode runs many noded on one host);
 * otherwise the host's own figures. Gres and Features always come from the
 * config. ctld decides what to do when the host has less than configured. */
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "drv_config.h"
#include "noded/noded.h"

static int64_t host_boot_time(void)
{
	FILE *f = fopen("/proc/stat", "re");
	long long btime = 0;
	char line[256];
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "btime %lld", &btime) == 1)
			break;
	}
	if (f)
		fclose(f);
	if (btime > 0)
		return btime;
	/* No /proc: derive it from the uptime. */
	struct sysinfo si;
	if (sysinfo(&si) == 0)
		return (int64_t)time(NULL) - si.uptime;
	return 0;
}

void resources_init(struct noded *nd)
{
	nd->boot_time = host_boot_time();
	nd->start_time = time(NULL);
	if (nd->conf->config_overrides) {
		nd->cpus = nd->node->cpus;
		nd->real_memory = nd->node->real_memory;
		return;
	}
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	nd->cpus = n > 0 ? (int)n : 1;
	struct sysinfo si;
	if (sysinfo(&si) == 0)
		nd->real_memory = (uint64_t)si.totalram * si.mem_unit / (1024 * 1024);
	else
		nd->real_memory = 1;
}

void resources_describe(const struct noded *nd, struct drv_node_register *m)
{
	m->name = nd->name;
	m->cpus = (uint32_t)nd->cpus;
	m->real_memory = (int64_t)nd->real_memory;
	m->gres = nd->node->gres;
	m->features = nd->node->features;
	m->port = (uint16_t)nd->node->port;
	m->version = DRV_VERSION;
	m->boot_time = nd->boot_time;
	m->start_time = nd->start_time;
	m->has_start_time = true;
}
