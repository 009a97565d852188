/* test_conf.c — drover.conf parsing: every key type, defaults, DEFAULT
 * lines, Include, continuations, hostlists and each error with its
 * file:line. Each test writes its files into its own temp dir. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/timefmt.h"

#define CTLD "SlurmctldHost=head\n"

struct fixture {
	char dir[64];
	char path[PATH_MAX];
	char warnings[2048];
	int n_warn;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	strcpy(f->dir, "/tmp/test_conf.XXXXXX");
	if (!f || !mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/drover.conf", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static void write_file(struct fixture *f, const char *name, const char *text)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/%s", f->dir, name);
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void collect_warn(const char *msg, void *arg)
{
	struct fixture *f = arg;
	strncat(f->warnings, msg, sizeof(f->warnings) - strlen(f->warnings) - 2);
	strcat(f->warnings, "\n");
	f->n_warn++;
}

static struct drv_conf *load_ok(struct fixture *f, const char *text)
{
	struct drv_conf *c = NULL;
	struct drv_error err = {{0}};
	write_file(f, "drover.conf", text);
	int rc = drv_conf_load(f->path, collect_warn, f, &c, &err);
	if (rc != 0)
		fail_msg("load failed: %s", err.text);
	return c;
}

/* Loads text, expects failure, and checks err is "path:line: <fragment...>". */
static void load_bad(struct fixture *f, const char *text, int line, const char *fragment)
{
	struct drv_conf *c = (struct drv_conf *)0x1;
	struct drv_error err = {{0}};
	char want[PATH_MAX + 32];
	write_file(f, "drover.conf", text);
	assert_int_equal(drv_conf_load(f->path, NULL, NULL, &c, &err), -EINVAL);
	assert_ptr_equal(c, (struct drv_conf *)0x1); /* untouched */
	snprintf(want, sizeof(want), "%s:%d: ", f->path, line);
	if (strncmp(err.text, want, strlen(want)) != 0)
		fail_msg("error '%s' does not start with '%s'", err.text, want);
	if (!strstr(err.text, fragment))
		fail_msg("error '%s' lacks '%s'", err.text, fragment);
}

static void test_defaults(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = load_ok(f, CTLD);
	assert_string_equal(c->path, f->path);
	assert_string_equal(c->dir, f->dir);
	assert_string_equal(c->cluster_name, "drover");
	assert_int_equal(c->n_ctld_hosts, 1);
	assert_string_equal(c->ctld_hosts[0].name, "head");
	assert_string_equal(c->ctld_hosts[0].addr, "head");
	assert_int_equal(c->ctld_port, 6817);
	assert_int_equal(c->slurmd_port, 6818);
	assert_string_equal(c->state_save_location, "/var/spool/drover/ctld");
	assert_string_equal(c->slurmd_spool_dir, "/var/spool/drover/d/%n");
	assert_null(c->slurmd_log_file);
	assert_null(c->slurmd_pid_file);
	assert_null(c->ctld_log_file);
	assert_null(c->ctld_pid_file);
	assert_string_equal(c->auth_type, "auth/drover");
	assert_string_equal(c->auth_socket, "/run/drover/authd.sock");
	char key[PATH_MAX];
	snprintf(key, sizeof(key), "%s/drover.key", f->dir);
	assert_string_equal(c->auth_key, key);
	assert_int_equal(c->slurmd_timeout, 300);
	assert_int_equal(c->kill_wait, 30);
	assert_int_equal(c->min_job_age, 300);
	assert_int_equal(c->first_job_id, 1);
	assert_int_equal(c->max_job_id, 67043328); /* Slurm's 0x03ff0000 */
	assert_int_equal(c->max_message_size, 4194304);
	assert_false(c->config_overrides);
	assert_int_equal(c->n_nodes, 0);
	assert_int_equal(c->n_parts, 0);
	assert_null(drv_conf_default_part(c));
	assert_int_equal(f->n_warn, 0);
	drv_conf_free(c);
}

static void test_every_global_key(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = load_ok(f, "clustername=MyLab\n"
					"SlurmctldHost=h1(10.0.0.1)\n"
					"SLURMCTLDHOST=h2\n"
					"SlurmctldPort=7817 SlurmdPort=7818\n"
					"StateSaveLocation=state\n"
					"SlurmdSpoolDir=/spool/%n\n"
					"SlurmdLogFile=log/%h.log\n"
					"SlurmdPidFile=/run/%n.pid\n"
					"SlurmctldLogFile=/var/log/ctld.log\n"
					"SlurmctldPidFile=ctld.pid\n"
					"AuthType=auth/drover\n"
					"AuthInfo=socket=/tmp/a.sock,key=k/cluster.key\n"
					"SlurmdTimeout=120\n"
					"KillWait=5\n"
					"MinJobAge=0\n"
					"MaxMessageSize=1048576\n"
					"SlurmdParameters=foo,config_overrides\n");
	char buf[PATH_MAX];
	assert_string_equal(c->cluster_name, "mylab");
	assert_int_equal(c->n_ctld_hosts, 2);
	assert_string_equal(c->ctld_hosts[0].name, "h1");
	assert_string_equal(c->ctld_hosts[0].addr, "10.0.0.1");
	assert_string_equal(c->ctld_hosts[1].name, "h2");
	assert_string_equal(c->ctld_hosts[1].addr, "h2");
	assert_int_equal(c->ctld_port, 7817);
	assert_int_equal(c->slurmd_port, 7818);
	snprintf(buf, sizeof(buf), "%s/state", f->dir);
	assert_string_equal(c->state_save_location, buf);
	assert_string_equal(c->slurmd_spool_dir, "/spool/%n");
	snprintf(buf, sizeof(buf), "%s/log/%%h.log", f->dir);
	assert_string_equal(c->slurmd_log_file, buf);
	assert_string_equal(c->slurmd_pid_file, "/run/%n.pid");
	assert_string_equal(c->ctld_log_file, "/var/log/ctld.log");
	snprintf(buf, sizeof(buf), "%s/ctld.pid", f->dir);
	assert_string_equal(c->ctld_pid_file, buf);
	assert_string_equal(c->auth_socket, "/tmp/a.sock");
	snprintf(buf, sizeof(buf), "%s/k/cluster.key", f->dir);
	assert_string_equal(c->auth_key, buf);
	assert_int_equal(c->slurmd_timeout, 120);
	assert_int_equal(c->kill_wait, 5);
	assert_int_equal(c->min_job_age, 0);
	assert_int_equal(c->max_message_size, 1048576);
	assert_true(c->config_overrides);
	assert_int_equal(f->n_warn, 0);
	drv_conf_free(c);
}

static void test_auth_info_partial(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = load_ok(f, CTLD "AuthInfo=socket=authd.sock\n");
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s/authd.sock", f->dir);
	assert_string_equal(c->auth_socket, buf);
	snprintf(buf, sizeof(buf), "%s/drover.key", f->dir);
	assert_string_equal(c->auth_key, buf);
	drv_conf_free(c);
}

/* auth/munge: munged's own socket unless AuthInfo names one, in either
 * order of the two lines; the cluster key stays for the daemons. */
static void test_auth_munge(void **state)
{
	struct fixture *f = *state;
	char buf[PATH_MAX];
	struct drv_conf *c = load_ok(f, CTLD "AuthType=auth/munge\n");
	assert_string_equal(c->auth_type, "auth/munge");
	assert_string_equal(c->auth_socket, "/run/munge/munge.socket.2");
	snprintf(buf, sizeof(buf), "%s/drover.key", f->dir);
	assert_string_equal(c->auth_key, buf);
	drv_conf_free(c);
	c = load_ok(f, CTLD "AuthInfo=socket=/tmp/m.sock\nAuthType=AUTH/MUNGE\n");
	assert_string_equal(c->auth_type, "auth/munge");
	assert_string_equal(c->auth_socket, "/tmp/m.sock");
	drv_conf_free(c);
	c = load_ok(f, CTLD);
	assert_string_equal(c->auth_type, "auth/drover");
	assert_string_equal(c->auth_socket, "/run/drover/authd.sock");
	drv_conf_free(c);
}

/* Requeue and the prolog/epilog programs: Slurm's defaults, then set. */
static void test_requeue_and_prolog_keys(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = load_ok(f, CTLD);
	assert_int_equal(c->job_requeue, 1);
	assert_int_equal(c->cred_expire, 120);
	assert_null(c->prolog);
	assert_null(c->task_prolog);
	assert_int_equal(c->prolog_epilog_timeout, 65534);
	drv_conf_free(c);
	c = load_ok(f, CTLD "JobRequeue=0\nAuthInfo=socket=a.sock,cred_expire=5\n"
			    "Prolog=/etc/p.sh\nEpilog=e.sh\nTaskProlog=/t\n"
			    "PrologEpilogTimeout=30\nPrologFlags=Alloc\n");
	assert_int_equal(c->job_requeue, 0);
	assert_int_equal(c->cred_expire, 5);
	assert_string_equal(c->prolog, "/etc/p.sh");
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s/e.sh", f->dir);
	assert_string_equal(c->epilog, buf);
	assert_string_equal(c->task_prolog, "/t");
	assert_string_equal(c->prolog_flags, "Alloc");
	assert_int_equal(c->prolog_epilog_timeout, 30);
	/* Contain (the extern step) is looked up in the list, in any case */
	assert_false(drv_prolog_flag(c->prolog_flags, "Contain"));
	assert_true(drv_prolog_flag("Alloc,contain,X11", "Contain"));
	assert_false(drv_prolog_flag("Alloc,Containx", "Contain"));
	assert_false(drv_prolog_flag("", "Contain"));
	assert_false(drv_prolog_flag(NULL, "Contain"));
	drv_conf_free(c);
	load_bad(f, CTLD "AuthInfo=cred_expire=soon\n", 2, "cred_expire");
	/* Drover's own AuthInfo options: clock_skew and key_grace */
	c = load_ok(f, CTLD);
	assert_int_equal(c->clock_skew, 10);
	assert_int_equal(c->key_grace, 300);
	drv_conf_free(c);
	c = load_ok(f, CTLD "AuthInfo=socket=a.sock,clock_skew=0,key_grace=2\n");
	assert_int_equal(c->clock_skew, 0);
	assert_int_equal(c->key_grace, 2);
	assert_int_equal(c->cred_expire, 120);
	drv_conf_free(c);
	load_bad(f, CTLD "AuthInfo=clock_skew=-1\n", 2, "clock_skew '-1' is not 0..3600");
	load_bad(f, CTLD "AuthInfo=key_grace=soon\n", 2, "key_grace");
	load_bad(f, CTLD "JobRequeue=2\n", 2, "JobRequeue");
}

/* JobSubmitPlugins: lua in either spelling; a plugin Drover lacks is an
 * error, never skipped; the text stays for scontrol show config. */
static void test_job_submit_plugins(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = load_ok(f, CTLD);
	assert_false(c->job_submit_lua);
	drv_conf_free(c);
	c = load_ok(f, CTLD "JobSubmitPlugins=job_submit/lua\n");
	assert_true(c->job_submit_lua);
	bool kept = false;
	for (size_t i = 0; i < c->n_other; i++)
		kept |= !strcmp(c->other[i].key, "JobSubmitPlugins") &&
			!strcmp(c->other[i].value, "job_submit/lua");
	assert_true(kept);
	drv_conf_free(c);
	c = load_ok(f, CTLD "JobSubmitPlugins=Lua\n");
	assert_true(c->job_submit_lua);
	drv_conf_free(c);
	load_bad(f, CTLD "JobSubmitPlugins=lua,throttle\n", 2,
		 "JobSubmitPlugins: 'throttle' is not supported");
}

static void test_nodes(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = load_ok(
	    f, CTLD "SlurmdPort=7000\n"
		    "NodeName=gpu[01-02] CPUs=64 RealMemory=512000 Gres=gpu:a100:4 "
		    "Features=\"a100,nvlink\" State=drain NodeAddr=10.0.0.[1-2]\n"
		    "NodeName=cpu1 Port=7100 NodeHostname=host1\n"
		    "nodename=loc[1-3] port=[9001-9003] Sockets=2 CoresPerSocket=8\n");
	assert_int_equal(c->n_nodes, 6);
	const struct drv_node_conf *n = drv_conf_node(c, "gpu02");
	assert_non_null(n);
	assert_string_equal(n->hostname, "gpu02");
	assert_string_equal(n->addr, "10.0.0.2");
	assert_int_equal(n->port, 7000);
	assert_int_equal(n->cpus, 64);
	assert_int_equal(n->real_memory, 512000);
	assert_string_equal(n->gres, "gpu:a100:4");
	assert_string_equal(n->features, "a100,nvlink");
	assert_string_equal(n->state, "DRAIN");
	n = drv_conf_node(c, "cpu1");
	assert_string_equal(n->hostname, "host1");
	assert_string_equal(n->addr, "host1");
	assert_int_equal(n->port, 7100);
	assert_int_equal(n->cpus, 1);
	assert_int_equal(n->real_memory, 1);
	assert_null(n->gres);
	assert_null(n->features);
	assert_null(n->state);
	assert_int_equal(drv_conf_node(c, "loc1")->port, 9001);
	assert_int_equal(drv_conf_node(c, "loc3")->port, 9003);
	assert_null(drv_conf_node(c, "nope"));
	assert_string_equal(c->nodes[0].name, "gpu01");
	assert_string_equal(c->nodes[5].name, "loc3");
	assert_int_equal(f->n_warn, 0);
	drv_conf_free(c);
}

static void test_node_default(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = load_ok(f, CTLD "NodeName=DEFAULT CPUs=8 Gres=gpu:2\n"
					     "NodeName=a1\n"
					     "NodeName=a2 CPUs=4\n"
					     "NodeName=DEFAULT CPUs=16\n"
					     "NodeName=a3\n");
	assert_int_equal(drv_conf_node(c, "a1")->cpus, 8);
	assert_string_equal(drv_conf_node(c, "a1")->gres, "gpu:2");
	assert_int_equal(drv_conf_node(c, "a2")->cpus, 4);
	assert_int_equal(drv_conf_node(c, "a3")->cpus, 16);
	assert_string_equal(drv_conf_node(c, "a3")->gres, "gpu:2");
	assert_null(drv_conf_node(c, "DEFAULT"));
	drv_conf_free(c);
}

static void test_partitions(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = load_ok(
	    f, CTLD "NodeName=n[1-4]\n"
		    "PartitionName=DEFAULT MaxTime=1-0 State=UP\n"
		    "PartitionName=debug Nodes=n[1-2] DefaultTime=0:30 MaxTime=30\n"
		    "PartitionName=batch Nodes=n[3-4],n1 Default=YES State=down\n"
		    "PartitionName=all Nodes=ALL MaxTime=UNLIMITED AllowGroups=x\n"
		    "PartitionName=empty\n");
	assert_int_equal(c->n_parts, 4);
	const struct drv_part_conf *p = drv_conf_part(c, "debug");
	assert_string_equal(p->nodes, "n[1-2]");
	assert_int_equal(p->n_nodes, 2);
	assert_int_equal(p->max_time, 1800);
	assert_int_equal(p->default_time, 30);
	assert_string_equal(p->state, "UP");
	assert_false(p->is_default);
	p = drv_conf_part(c, "batch");
	assert_string_equal(p->nodes, "n[1,3-4]");
	assert_string_equal(p->node_names[0], "n3");
	assert_string_equal(p->node_names[2], "n1");
	assert_int_equal(p->max_time, 86400);
	assert_int_equal(p->default_time, DRV_NO_VAL);
	assert_string_equal(p->state, "DOWN");
	assert_true(p->is_default);
	assert_ptr_equal(drv_conf_default_part(c), p);
	p = drv_conf_part(c, "all");
	assert_string_equal(p->nodes, "n[1-4]");
	assert_int_equal(p->n_nodes, 4);
	assert_int_equal(p->max_time, DRV_INFINITE);
	p = drv_conf_part(c, "empty");
	assert_int_equal(p->n_nodes, 0);
	assert_string_equal(p->nodes, "");
	assert_int_equal(f->n_warn, 0);
	drv_conf_free(c);
}

static void test_first_part_is_default(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = load_ok(f, CTLD "NodeName=n1\n"
					     "PartitionName=p1 Nodes=n1\n"
					     "PartitionName=p2 Nodes=n1\n");
	assert_string_equal(drv_conf_default_part(c)->name, "p1");
	assert_int_equal(drv_conf_part(c, "p1")->max_time, DRV_INFINITE);
	assert_int_equal(drv_conf_part(c, "p1")->default_time, DRV_NO_VAL);
	assert_false(drv_conf_part(c, "p2")->is_default);
	drv_conf_free(c);
}

static void test_include_and_continuation(void **state)
{
	struct fixture *f = *state;
	char cmd[256];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s/sub'", f->dir);
	assert_int_equal(system(cmd), 0);
	write_file(f, "sub/nodes.conf",
		   "# nodes\nNodeName=n[1-2] \\\n   CPUs=4\n"
		   "Include more.conf\n");
	write_file(f, "sub/more.conf", "NodeName=m1\n");
	struct drv_conf *c =
	    load_ok(f, CTLD "Include sub/nodes.conf\n"
			    "PartitionName=p Nodes=ALL # trailing comment\n"
			    "ClusterName=a\\#b\n");
	assert_int_equal(c->n_nodes, 3);
	assert_int_equal(drv_conf_node(c, "n2")->cpus, 4);
	assert_non_null(drv_conf_node(c, "m1"));
	assert_string_equal(drv_conf_part(c, "p")->nodes, "m1,n[1-2]");
	assert_string_equal(c->cluster_name, "a#b");
	drv_conf_free(c);
}

static void test_unknown_and_other_keys(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = load_ok(f, CTLD "SchedulerType=sched/backfill\n"
					     "selecttype=select/cons_tres\n"
					     "\n"
					     "NodeName=n1 Sockets=1\n");
	assert_int_equal(f->n_warn, 0);
	assert_int_equal(c->n_other, 2);
	assert_string_equal(c->other[0].key, "SchedulerType");
	assert_string_equal(c->other[0].value, "sched/backfill");
	assert_string_equal(c->other[1].key, "SelectType");
	assert_string_equal(c->other[1].value, "select/cons_tres");
	drv_conf_free(c);

	/* A key unknown to Slurm is fatal, naming file:line, on every kind of
	 * line (test_conf_keys.c has the suggestions). */
	load_bad(f, CTLD "\nFoo=bar\n", 3, "Parsing error at unrecognized key: Foo");
	load_bad(f, CTLD "NodeName=n1 Bogus=1\n", 2,
		 "Parsing error at unrecognized key: Bogus");
	load_bad(f, CTLD "NodeName=n1\nPartitionName=p Nodes=n1 Bogus=1\n", 3,
		 "Parsing error at unrecognized key: Bogus");
}

static void test_resource_keys(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = load_ok(f, CTLD);
	assert_true(c->cr_memory); /* Slurm's default CR_Core_Memory */
	assert_false(c->enforce_part_limits);
	assert_int_equal(c->def_mem_per_cpu, 0);
	drv_conf_free(c);
	c = load_ok(f, CTLD "DefMemPerCPU=512\nDefMemPerNode=2048\n"
			    "SelectTypeParameters=CR_Core\nEnforcePartLimits=ALL\n");
	assert_int_equal(c->def_mem_per_cpu, 512);
	assert_int_equal(c->def_mem_per_node, 2048);
	assert_false(c->cr_memory);
	assert_true(c->enforce_part_limits);
	drv_conf_free(c);
	c = load_ok(f, CTLD "SelectTypeParameters=cr_cpu_memory,CR_ONE_TASK_PER_CORE\n");
	assert_true(c->cr_memory);
	drv_conf_free(c);
	load_bad(f, CTLD "SelectTypeParameters=CR_Bogus\n", 2, "SelectTypeParameters");
	load_bad(f, CTLD "EnforcePartLimits=maybe\n", 2, "EnforcePartLimits");
}

static void test_errors(void **state)
{
	struct fixture *f = *state;
	load_bad(f, CTLD "\n\n\n\n\nSlurmdTimeout=abc\n", 7,
		 "SlurmdTimeout: 'abc' is not a number");
	load_bad(f, CTLD "KillWait=99999999\n", 2, "KillWait");
	load_bad(f, CTLD "SlurmctldPort=0\n", 2, "out of range");
	load_bad(f, CTLD "MaxMessageSize=12x\n", 2, "not a number");
	load_bad(f, CTLD "justaword\n", 2, "not key=value");
	load_bad(f, CTLD "NodeName=n1\nNodeName=n[0-1]\n", 3, "duplicate node 'n1'");
	load_bad(f, CTLD "NodeName=n1\nPartitionName=p Nodes=n[1-2]\n", 3,
		 "unknown node 'n2'");
	load_bad(f, CTLD "NodeName=n[3-1]\n", 2, "n[3-1]");
	load_bad(f, CTLD "NodeName=n[1-2\n", 2, "unbalanced");
	load_bad(f, CTLD "NodeName=n1\nPartitionName=p Nodes=n[1\n", 3, "unbalanced");
	load_bad(f, CTLD "Include nothere.conf\n", 2, "nothere.conf");
	load_bad(f, CTLD "AuthType=auth/none\n", 2,
		 "AuthType=auth/none is not supported; use auth/drover or auth/munge");
	load_bad(f, CTLD "NodeName=n[1-2] NodeAddr=a[1-3]\n", 2, "NodeAddr");
	load_bad(f, CTLD "NodeName=n1 CPUs=0\n", 2, "CPUs");
	load_bad(f, CTLD "NodeName=n1 State=SLEEPY\n", 2, "State");
	load_bad(f, CTLD "NodeName=n1 Port=70000\n", 2, "Port");
	load_bad(f, CTLD "PartitionName=p MaxTime=1-\n", 2, "MaxTime");
	load_bad(f, CTLD "PartitionName=p Default=maybe\n", 2, "Default");
	load_bad(f, CTLD "PartitionName=p State=HAPPY\n", 2, "State");
	load_bad(f, CTLD "PartitionName=p\nPartitionName=p\n", 3, "duplicate partition");
	load_bad(f, CTLD "SlurmctldHost=h(\n", 2, "SlurmctldHost");
	load_bad(f, CTLD "Features=\"open\n", 2, "quote");
	load_bad(f, CTLD "SlurmdPort=\n", 2, "the value of SlurmdPort is missing");
	load_bad(f, CTLD "SlurmdPort=1 \\\nKillWait=x\n", 2, "KillWait");
}

static void test_error_in_include_names_that_file(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = (struct drv_conf *)0x1;
	struct drv_error err;
	char want[PATH_MAX + 64];
	write_file(f, "inc.conf", "\nKillWait=zz\n");
	write_file(f, "drover.conf", CTLD "Include inc.conf\n");
	assert_int_equal(drv_conf_load(f->path, NULL, NULL, &c, &err), -EINVAL);
	assert_ptr_equal(c, (struct drv_conf *)0x1);
	snprintf(want, sizeof(want), "%s/inc.conf:2: KillWait: 'zz' is not a number",
		 f->dir);
	assert_string_equal(err.text, want);

	write_file(f, "drover.conf", CTLD "Include drover.conf\n");
	assert_int_equal(drv_conf_load(f->path, NULL, NULL, &c, &err), -EINVAL);
	assert_non_null(strstr(err.text, "nested too deeply"));
}

static void test_no_ctld_host_and_missing_file(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = (struct drv_conf *)0x1;
	struct drv_error err;
	write_file(f, "drover.conf", "ClusterName=x\n");
	assert_int_equal(drv_conf_load(f->path, NULL, NULL, &c, &err), -EINVAL);
	assert_non_null(strstr(err.text, "no SlurmctldHost"));
	assert_ptr_equal(c, (struct drv_conf *)0x1);

	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/missing.conf", f->dir);
	assert_int_equal(drv_conf_load(path, NULL, NULL, &c, &err), -ENOENT);
	assert_non_null(strstr(err.text, "missing.conf"));
	assert_ptr_equal(c, (struct drv_conf *)0x1);
}

/* FirstJobId and MaxJobId are read (no longer kept as text) and bounded:
 * ids are 26 bits, and MaxJobId itself is never issued. */
static void test_job_id_range(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = load_ok(f, CTLD "FirstJobId=100\nMaxJobId=103\n");
	assert_int_equal(c->first_job_id, 100);
	assert_int_equal(c->max_job_id, 103);
	assert_int_equal(c->n_other, 0);
	drv_conf_free(c);
	load_bad(f, CTLD "FirstJobId=0\n", 2, "FirstJobId: 0 is out of range");
	load_bad(f, CTLD "MaxJobId=67108864\n", 2, "MaxJobId: 67108864 is out of range");
	load_bad(f, CTLD "MaxJobId=4294967396\n", 2, "MaxJobId");
	struct drv_error err = {{0}};
	write_file(f, "drover.conf", CTLD "FirstJobId=103\nMaxJobId=103\n");
	assert_int_equal(drv_conf_load(f->path, NULL, NULL, &c, &err), -EINVAL);
	assert_non_null(strstr(err.text, "FirstJobId=103 must be below MaxJobId=103"));
}

/* SchedulerType and SchedulerParameters: Slurm's defaults, each backfill
 * option acted on, bf_max_time following bf_interval unless given, other
 * options ignored, bad numbers refused with file:line. */
static void test_scheduler_keys(void **state)
{
	struct fixture *f = *state;
	struct drv_conf *c = load_ok(f, CTLD);
	assert_true(c->sched.backfill);
	assert_int_equal(c->sched.bf_interval, 30);
	assert_int_equal(c->sched.bf_window, 86400);
	assert_int_equal(c->sched.bf_resolution, 60);
	assert_int_equal(c->sched.bf_max_job_test, 500);
	assert_int_equal(c->sched.bf_max_job_user, 0);
	assert_int_equal(c->sched.bf_max_time, 30);
	assert_false(c->sched.bf_continue);
	assert_int_equal(c->sched.default_queue_depth, 100);
	assert_false(c->sched.kill_invalid_depend);
	drv_conf_free(c);
	c = load_ok(f, CTLD "SchedulerType=sched/builtin\n"
			    "SchedulerParameters=bf_interval=5,bf_window=120,"
			    "bf_resolution=1,bf_max_job_test=1000,bf_max_job_user=3,"
			    "bf_continue,default_queue_depth=20,kill_invalid_depend,"
			    "max_rpc_cnt=150\n");
	assert_false(c->sched.backfill);
	assert_int_equal(c->sched.bf_interval, 5);
	assert_int_equal(c->sched.bf_window, 120 * 60);
	assert_int_equal(c->sched.bf_resolution, 1);
	assert_int_equal(c->sched.bf_max_job_test, 1000);
	assert_int_equal(c->sched.bf_max_job_user, 3);
	assert_int_equal(c->sched.bf_max_time, 5); /* bf_interval's */
	assert_true(c->sched.bf_continue);
	assert_int_equal(c->sched.default_queue_depth, 20);
	assert_true(c->sched.kill_invalid_depend);
	drv_conf_free(c);
	c = load_ok(f, CTLD "SchedulerParameters=bf_max_time=7,bf_interval=2\n");
	assert_int_equal(c->sched.bf_max_time, 7);
	drv_conf_free(c);
	load_bad(f, CTLD "SchedulerParameters=bf_interval=abc\n", 2,
		 "SchedulerParameters: bf_interval='abc' is not a number in 1..10800");
	load_bad(f, CTLD "SchedulerParameters=bf_window=0\n", 2, "bf_window='0'");
	load_bad(f, CTLD "SchedulerType=sched/fancy\n", 2,
		 "SchedulerType: 'sched/fancy' is not sched/backfill or sched/builtin");
}

static void test_relative_config_path(void **state)
{
	struct fixture *f = *state;
	char old[PATH_MAX];
	struct drv_conf *c = NULL;
	struct drv_error err;
	write_file(f, "drover.conf", CTLD "StateSaveLocation=st\n");
	assert_non_null(getcwd(old, sizeof(old)));
	assert_int_equal(chdir(f->dir), 0);
	int rc = drv_conf_load("drover.conf", NULL, NULL, &c, &err);
	assert_int_equal(chdir(old), 0);
	assert_int_equal(rc, 0);
	assert_string_equal(c->dir, f->dir);
	char want[PATH_MAX];
	snprintf(want, sizeof(want), "%s/st", f->dir);
	assert_string_equal(c->state_save_location, want);
	drv_conf_free(c);
}

static void test_node_path(void **state)
{
	char *s = drv_conf_node_path("/spool/%n/%h/%%n", "n1", "host1");
	assert_string_equal(s, "/spool/n1/host1/%n");
	free(s);
	s = drv_conf_node_path("%h-%x", "n1", NULL);
	assert_string_equal(s, "n1-%x");
	free(s);
	assert_null(drv_conf_node_path(NULL, "n1", "h"));
}

static void test_resolve_path(void **state)
{
	char *s;
	unsetenv("DROVER_CONF");
	s = drv_conf_resolve_path(NULL);
	assert_string_equal(s, "/etc/drover/drover.conf");
	free(s);
	setenv("DROVER_CONF", "/x/env.conf", 1);
	s = drv_conf_resolve_path(NULL);
	assert_string_equal(s, "/x/env.conf");
	free(s);
	s = drv_conf_resolve_path("/y/f.conf");
	assert_string_equal(s, "/y/f.conf");
	free(s);
	unsetenv("DROVER_CONF");
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
	    T(test_defaults),
	    T(test_every_global_key),
	    T(test_auth_info_partial),
	    T(test_auth_munge),
	    T(test_requeue_and_prolog_keys),
	    T(test_job_submit_plugins),
	    T(test_nodes),
	    T(test_node_default),
	    T(test_partitions),
	    T(test_first_part_is_default),
	    T(test_include_and_continuation),
	    T(test_unknown_and_other_keys),
	    T(test_errors),
	    T(test_error_in_include_names_that_file),
	    T(test_no_ctld_host_and_missing_file),
	    T(test_job_id_range),
	    T(test_scheduler_keys),
	    T(test_relative_config_path),
	    T(test_resource_keys),
	    cmocka_unit_test(test_node_path),
	    cmocka_unit_test(test_resolve_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
