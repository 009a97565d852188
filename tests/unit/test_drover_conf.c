/* test_drover_conf.c — the config `drover up` writes is one the real parser
 * reads back as intended (--set replaces keys and node/partition lines), the
 * ports it picks are distinct, and the cluster dir is found as documented. */
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <cmocka.h>

#include "drover/drover.h"

static char *make_tmpdir(void)
{
	char tmpl[] = "/tmp/drv-unit-XXXXXX";
	char *d = mkdtemp(tmpl);
	assert_non_null(d);
	return strdup(d);
}

static struct drv_conf *write_and_load(const char *dir, const struct up_params *p,
				       const int *ports)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/drover.conf", dir);
	struct drv_error err = {""};
	assert_int_equal(cluster_write_conf(dir, path, p, ports, &err), 0);
	struct drv_conf *conf = NULL;
	int rc = drv_conf_load(path, NULL, NULL, &conf, &err);
	if (rc < 0)
		fail_msg("written config does not load: %s", err.text);
	return conf;
}

static void cleanup(char *dir)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(dir);
}

static void written_config_reads_back(void **state)
{
	char *dir = make_tmpdir();
	char *sets[] = {"SlurmdTimeout=7", "killwait=2"};
	struct up_params p = {
	    .nodes = 3, .cpus = 4, .mem_mb = 1000, .gpus = 2, .sets = sets, .n_sets = 2};
	int ports[] = {1000, 1001, 1002, 1003};
	struct drv_conf *c = write_and_load(dir, &p, ports);
	char want[512];
	assert_string_equal(c->cluster_name, "drover");
	assert_int_equal(c->ctld_port, 1000);
	assert_int_equal(c->n_ctld_hosts, 1);
	assert_string_equal(c->ctld_hosts[0].addr, "127.0.0.1");
	assert_int_equal(c->n_nodes, 3);
	assert_string_equal(c->nodes[1].name, "n2");
	assert_int_equal(c->nodes[1].port, 1002);
	assert_int_equal(c->nodes[2].cpus, 4);
	assert_int_equal(c->nodes[2].real_memory, 1000);
	assert_string_equal(c->nodes[0].gres, "gpu:2");
	assert_int_equal(c->slurmd_timeout, 7);
	assert_int_equal(c->kill_wait, 2);
	assert_true(c->config_overrides);
	snprintf(want, sizeof(want), "%s/run/authd.sock", dir);
	assert_string_equal(c->auth_socket, want);
	snprintf(want, sizeof(want), "%s/drover.key", dir);
	assert_string_equal(c->auth_key, want);
	snprintf(want, sizeof(want), "%s/ctld", dir);
	assert_string_equal(c->state_save_location, want);
	snprintf(want, sizeof(want), "%s/run/ctld.pid", dir);
	assert_string_equal(c->ctld_pid_file, want);
	assert_int_equal(c->n_parts, 1);
	assert_true(c->parts[0].is_default);
	assert_int_equal(c->parts[0].n_nodes, 3);
	drv_conf_free(c);
	cleanup(dir);
}

static void set_replaces_node_and_partition_lines(void **state)
{
	char *dir = make_tmpdir();
	char *sets[] = {"NodeName=a1 Port=5 CPUs=1", "NodeName=a2 Port=6 CPUs=1",
			"PartitionName=p Nodes=a[1-2] Default=YES"};
	struct up_params p = {
	    .nodes = 2, .cpus = 1, .mem_mb = 1, .sets = sets, .n_sets = 3};
	int ports[] = {7, 8, 9};
	struct drv_conf *c = write_and_load(dir, &p, ports);
	assert_int_equal(c->n_nodes, 2);
	assert_string_equal(c->nodes[0].name, "a1");
	assert_string_equal(c->nodes[1].name, "a2");
	assert_int_equal(c->n_parts, 1);
	assert_string_equal(c->parts[0].name, "p");
	drv_conf_free(c);
	cleanup(dir);
}

static void bad_set_is_refused(void **state)
{
	char *dir = make_tmpdir();
	char path[512];
	snprintf(path, sizeof(path), "%s/drover.conf", dir);
	char *sets[] = {"NoEqualsSign"};
	struct up_params p = {
	    .nodes = 1, .cpus = 1, .mem_mb = 1, .sets = sets, .n_sets = 1};
	int ports[] = {7, 8};
	struct drv_error err = {""};
	assert_int_equal(cluster_write_conf(dir, path, &p, ports, &err), -EINVAL);
	assert_non_null(strstr(err.text, "NoEqualsSign"));
	assert_int_equal(access(path, F_OK), -1);
	cleanup(dir);
}

static void picked_ports_are_distinct_and_in_use_is_seen(void **state)
{
	int ports[8];
	struct drv_error err = {""};
	assert_int_equal(cluster_pick_ports(ports, 8, &err), 0);
	for (int i = 0; i < 8; i++) {
		assert_true(ports[i] > 0 && ports[i] < 65536);
		for (int j = 0; j < i; j++)
			assert_int_not_equal(ports[i], ports[j]);
	}
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof(sa);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	assert_true(cluster_port_in_use(ntohs(sa.sin_port)));
	close(fd);
	assert_false(cluster_port_in_use(ntohs(sa.sin_port)));
}

static void cluster_is_located_as_documented(void **state)
{
	char *dir = NULL, *conf = NULL;
	struct drv_error err = {""};
	assert_int_equal(cluster_locate("/x/y/", &dir, &conf, &err), 0);
	assert_string_equal(dir, "/x/y");
	assert_string_equal(conf, "/x/y/drover.conf");
	free(dir);
	free(conf);
	setenv("DROVER_CONF", "/a/b/other.conf", 1);
	assert_int_equal(cluster_locate(NULL, &dir, &conf, &err), 0);
	assert_string_equal(dir, "/a/b");
	assert_string_equal(conf, "/a/b/other.conf");
	free(dir);
	free(conf);
	setenv("DROVER_CONF", "/etc/drover/drover.conf", 1); /* root's: state apart */
	assert_int_equal(cluster_locate(NULL, &dir, &conf, &err), 0);
	assert_string_equal(dir, "/var/lib/drover");
	assert_string_equal(conf, "/etc/drover/drover.conf");
	free(dir);
	free(conf);
	unsetenv("DROVER_CONF");
	if (geteuid() == 0) { /* root's default, whatever HOME says */
		assert_int_equal(cluster_locate(NULL, &dir, &conf, &err), 0);
		assert_string_equal(dir, "/var/lib/drover");
		assert_string_equal(conf, "/etc/drover/drover.conf");
		free(dir);
		free(conf);
		return;
	}
	setenv("XDG_STATE_HOME", "/state", 1);
	assert_int_equal(cluster_locate(NULL, &dir, &conf, &err), 0);
	assert_string_equal(dir, "/state/drover");
	free(dir);
	free(conf);
	unsetenv("XDG_STATE_HOME");
	setenv("HOME", "/home/u", 1);
	assert_int_equal(cluster_locate(NULL, &dir, &conf, &err), 0);
	assert_string_equal(dir, "/home/u/.local/state/drover");
	free(dir);
	free(conf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(written_config_reads_back),
	    cmocka_unit_test(set_replaces_node_and_partition_lines),
	    cmocka_unit_test(bad_set_is_refused),
	    cmocka_unit_test(picked_ports_are_distinct_and_in_use_is_seen),
	    cmocka_unit_test(cluster_is_located_as_documented),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
