/* scontrol_part.c — scontrol's partition and license commands: create,
 * update and delete PartitionName=..., and show licenses. Keys are read
 * as Slurm 22.05's scontrol reads them (its abbreviations, its messages),
 * checked here with the same table ctld applies (conf_part.c), then sent
 * as "Key=Value" for ctld to apply all or nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/common.h"
#include "cli/scontrol.h"
#include "common/proto.h"
#include "common/proto_gen.h"

#define MAX_SETTINGS 64

/* scontrol's partition keys in the order it tries them, with the fewest
 * letters each may be cut to; JobDefaults is read apart. */
static const struct {
	const char *name;
	size_t min;
} part_keys[] = {
    {"MaxTime", 4},
    {"CpuBind", 7},
    {"DefaultTime", 8},
    {"MaxCPUsPerNode", 4},
    {"MaxNodes", 4},
    {"MinNodes", 2},
    {"Default", 7},
    {"DisableRootJobs", 1},
    {"ExclusiveUser", 1},
    {"Hidden", 1},
    {"LLN", 1},
    {"RootOnly", 3},
    {"ReqResv", 3},
    {"OverSubscribe", 5},
    {"Shared", 2},
    {"OverTimeLimit", 5},
    {"PreemptMode", 3},
    {"Priority", 3},
    {"PriorityJobFactor", 3},
    {"PriorityTier", 3},
    {"State", 2},
    {"Nodes", 1},
    {"AllowGroups", 6},
    {"AllowAccounts", 6},
    {"AllowQos", 6},
    {"DenyAccounts", 5},
    {"DenyQos", 5},
    {"AllocNodes", 6},
    {"Alternate", 3},
    {"GraceTime", 5},
    {"DefMemPerCPU", 10},
    {"DefMemPerNode", 10},
    {"MaxMemPerCPU", 10},
    {"MaxMemPerNode", 10},
    {"QOS", 3},
    {"JobDefaults", 4},
    {"TRESBillingWeights", 1},
};

/* Does tag (len letters) name key, cut to no fewer than min letters? */
static bool tag_is(const char *tag, size_t len, const char *key, size_t min)
{
	return len >= min && len <= strlen(key) && !strncasecmp(tag, key, len);
}

struct part_req {
	const char *name;
	char *settings[MAX_SETTINGS]; /* "Key=Value", owned */
	size_t n;
	size_t changes; /* keys given beside PartitionName */
};

static void part_req_fini(struct part_req *q)
{
	for (size_t i = 0; i < q->n; i++)
		free(q->settings[i]);
}

/* Checks key=value with the partition table ctld uses, then keeps it. */
static int add_setting(struct part_req *q, const char *key, const char *value,
		       const char *word)
{
	struct drv_part_conf scratch;
	struct drv_error err = {{0}};
	int rc = drv_part_conf_init(&scratch, "scratch");
	if (rc == 0)
		rc = drv_part_conf_set(&scratch, key, value, &err);
	drv_part_conf_fini(&scratch);
	if (rc == -EINVAL) {
		cli_error("Invalid input: %s", word);
		cli_error("%s", err.text);
		return -EINVAL;
	}
	if (rc < 0 || q->n == MAX_SETTINGS ||
	    asprintf(&q->settings[q->n], "%s=%s", key, value) < 0)
		return -ENOMEM;
	q->n++;
	return 0;
}

/* JobDefaults=DefCpuPerGPU=N,DefMemPerGPU=N: the list replaces the
 * partition's, so a type it leaves out goes back to unset. */
static int add_job_defaults(struct part_req *q, const char *value, const char *word)
{
	char cpu[24] = "0", mem[24] = "0";
	for (const char *s = value; *s;) {
		size_t k = strcspn(s, ",");
		const char *eq = memchr(s, '=', k);
		char *dst =
		    !eq								    ? NULL
		    : (size_t)(eq - s) == 12 && !strncasecmp(s, "DefCpuPerGPU", 12) ? cpu
		    : (size_t)(eq - s) == 12 && !strncasecmp(s, "DefMemPerGPU", 12)
			? mem
			: NULL;
		if (!dst || (size_t)(s + k - eq - 1) >= sizeof(cpu)) {
			cli_error("Invalid input: %s", word);
			return -EINVAL;
		}
		snprintf(dst, sizeof(cpu), "%.*s", (int)(s + k - eq - 1), eq + 1);
		s += k + (s[k] == ',');
	}
	int rc = add_setting(q, "DefCpuPerGPU", cpu, word);
	return rc ? rc : add_setting(q, "DefMemPerGPU", mem, word);
}

/* One word of create/update: PartitionName=, or a key scontrol knows. */
static int part_word(struct part_req *q, const char *word)
{
	const char *eq = strchr(word, '=');
	if (!eq) {
		cli_error("Invalid input: %s  Request aborted", word);
		return -EINVAL;
	}
	size_t len = (size_t)(eq - word);
	if (tag_is(word, len, "PartitionName", 2)) {
		q->name = eq + 1;
		return 0;
	}
	for (size_t i = 0; i < sizeof(part_keys) / sizeof(part_keys[0]); i++) {
		if (!tag_is(word, len, part_keys[i].name, part_keys[i].min))
			continue;
		q->changes++;
		if (!strcmp(part_keys[i].name, "JobDefaults"))
			return add_job_defaults(q, eq + 1, word);
		return add_setting(q, part_keys[i].name, eq + 1, word);
	}
	/* Slurm's message ends in a newline of its own: a blank line follows */
	cli_error("Update of this parameter is not supported: %s\n", word);
	cli_error("Request aborted");
	return -EINVAL;
}

static int parse_part(struct part_req *q, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		int rc = part_word(q, argv[i]);
		if (rc == -ENOMEM)
			cli_error("out of memory");
		if (rc < 0)
			return rc;
	}
	if (!q->name) {
		cli_error("PartitionName must be given.");
		return -EINVAL;
	}
	return 0;
}

static int send_part(struct sctl *s, struct part_req *q, bool create)
{
	struct drv_error err = {{0}};
	struct drv_part_update u = {
	    .name = q->name,
	    .create = create,
	    .settings = (const char **)q->settings,
	    .n_settings = q->n,
	};
	json_t *reply = NULL;
	int rc = sctl_call(s, "part.update", drv_part_update_encode(&u), &reply, &err);
	json_decref(reply);
	if (rc == 0)
		return 0;
	if (rc == -EINVAL && !err.text[0])
		return 1; /* the config did not load: said so */
	fprintf(stderr, "%s: %s\n",
		create ? "Error creating the partition" : "slurm_update error",
		sctl_failure_text(rc, &err));
	return 1;
}

int sctl_update_part(struct sctl *s, int argc, char **argv)
{
	struct part_req q = {0};
	int rc = parse_part(&q, argc, argv);
	if (rc == 0 && q.changes == 0) {
		cli_error("No changes specified");
		rc = -EINVAL;
	}
	rc = rc < 0 ? 1 : send_part(s, &q, false);
	part_req_fini(&q);
	return rc;
}

int sctl_create(struct sctl *s, int argc, char **argv)
{
	struct part_req q = {0};
	int i = 0;
	for (; i < argc; i++) { /* the entity: a PartitionName= anywhere */
		size_t len = strcspn(argv[i], "=");
		if (tag_is(argv[i], len, "PartitionName", 3))
			break;
	}
	if (argc < 1) {
		fprintf(stderr, "too few arguments for keyword:create\n");
		return 1;
	}
	if (i == argc) {
		cli_error("Invalid creation entity: %s", argv[0]);
		return 1;
	}
	int rc = parse_part(&q, argc, argv);
	if (rc == 0 && !strcasecmp(q.name, "DEFAULT")) {
		cli_error("PartitionName cannot be \"DEFAULT\".");
		rc = -EINVAL;
	}
	rc = rc < 0 ? 1 : send_part(s, &q, true);
	part_req_fini(&q);
	return rc;
}

int sctl_delete(struct sctl *s, int argc, char **argv)
{
	const char *tag = argc > 0 ? argv[0] : "", *val = NULL;
	size_t len = strlen(tag);
	if (argc == 1 && strchr(tag, '=')) {
		val = strchr(tag, '=') + 1;
		len = (size_t)(val - 1 - tag);
	} else if (argc == 2) {
		val = argv[1];
	}
	if (!val) {
		cli_error("Proper format is 'delete <ENTITY>=<ID>' or 'delete <ENTITY> "
			  "<ID>'");
		return 1;
	}
	if (!tag_is(tag, len, "PartitionName", 3)) {
		fprintf(stderr, "Invalid deletion entity: %s\n", argv[0]);
		return 1;
	}
	struct drv_error err = {{0}};
	struct drv_part_delete d = {.name = val};
	json_t *reply = NULL;
	int rc = sctl_call(s, "part.delete", drv_part_delete_encode(&d), &reply, &err);
	json_decref(reply);
	if (rc == 0)
		return 0;
	if (rc != -EINVAL || err.text[0])
		fprintf(stderr, "delete_partition %s: %s\n", argv[0],
			sctl_failure_text(rc, &err));
	return 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct drv_rec_license *)a)->name,
		      ((const struct drv_rec_license *)b)->name);
}

int sctl_show_licenses(struct sctl *s, const char *name)
{
	struct drv_error err = {{0}};
	struct drv_lic_query q = {0};
	struct drv_lic_query_reply r = {0};
	json_t *reply = NULL;
	int rc = sctl_call(s, "lic.query", drv_lic_query_encode(&q), &reply, &err);
	if (rc != 0) {
		if (!s->quiet)
			fprintf(stderr, "slurm_load_license error: %s\n",
				sctl_failure_text(rc, &err));
		return 1;
	}
	rc = drv_lic_query_reply_decode(reply, &r, &err) < 0;
	if (rc == 0 && r.n_licenses == 0)
		printf("No licenses configured in Slurm.\n");
	if (r.n_licenses)
		qsort(r.licenses, r.n_licenses, sizeof(*r.licenses), by_name);
	for (size_t i = 0; i < r.n_licenses; i++) {
		const struct drv_rec_license *l = &r.licenses[i];
		if (name && strcmp(l->name, name))
			continue;
		printf("LicenseName=%s%sTotal=%u Used=%u Free=%u Reserved=0 Remote=no\n",
		       l->name, s->oneliner ? " " : "\n    ", l->total, l->used,
		       l->total > l->used ? l->total - l->used : 0);
	}
	drv_lic_query_reply_free(&r);
	json_decref(reply);
	return rc;
}
