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

void resources_describe(const struct noded *nd, json_t *body)
{
	json_object_set_new(body, "name", json_string(nd->name));
	json_object_set_new(body, "cpus", json_integer(nd->cpus));
	json_object_set_new(body, "real_memory",
			    json_integer((json_int_t)nd->real_memory));
	if (nd->node->gres)
		json_object_set_new(body, "gres", json_string(nd->node->gres));
	if (nd->node->features)
		json_object_set_new(body, "features", json_string(nd->node->features));
	json_object_set_new(body, "port", json_integer(nd->node->port));
	json_object_set_new(body, "version", json_string(DRV_VERSION));
	json_object_set_new(body, "boot_time", json_integer(nd->boot_time));
}
