/* sbcast.c — `sbcast [-CfFjpstvV] SOURCE DEST`: copies a file to every node
 * of the caller's running job ($SLURM_JOB_ID, or -j), block by block
 * through ctld (bcast.block), which hands each block to every node's noded
 * and answers once all have written it; the last block is answered only
 * once each node has the file durably in place. Slurm 22.05's messages and
 * exit statuses: 1 for a wrong command line, 255 when the source cannot be
 * read or the job cannot be used, else the errno of the first node that
 * failed, one line per failed node. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "cli/common.h"
#include "common/proto.h"
#include "common/proto_gen.h"

enum { OPT_HELP = 0x100, OPT_USAGE, OPT_EXCLUDE, OPT_SEND_LIBS };

#define BLOCK_MAX (512 * 1024) /* bytes a block carries at most */

struct bc_opts {
	bool force, preserve;
	long job_id; /* 0: from $SLURM_JOB_ID */
	size_t block;
	const char *src;
	char *dest; /* absolute */
};

static void help(void)
{
	printf("Usage: sbcast [OPTIONS] SOURCE DEST\n"
	       "  -C, --compress[=lib]  compress the file being transmitted\n"
	       "  --exclude=<path_list> shared object paths to be excluded\n"
	       "  -f, --force           replace destination file as required\n"
	       "  -F, --fanout=num      specify message fanout\n"
	       "  -j, --jobid=#[+#][.#] specify job ID with optional hetjob offset "
	       "and/or step ID\n"
	       "  -p, --preserve        preserve modes and times of source file\n"
	       "  --send-libs[=yes|no]  autodetect and broadcast executable's shared "
	       "objects\n"
	       "  -s, --size=num        block size in bytes (rounded off)\n"
	       "  -t, --timeout=secs    specify message timeout (seconds)\n"
	       "  -v, --verbose         provide detailed event logging\n"
	       "  -V, --version         print version information and exit\n"
	       "\nHelp options:\n"
	       "  --help                show this help message\n"
	       "  --usage               display brief usage message\n");
}

static const struct option long_opts[] = {
    {"compress", optional_argument, 0, 'C'},
    {"exclude", required_argument, 0, OPT_EXCLUDE},
    {"fanout", required_argument, 0, 'F'},
    {"force", no_argument, 0, 'f'},
    {"jobid", required_argument, 0, 'j'},
    {"send-libs", optional_argument, 0, OPT_SEND_LIBS},
    {"preserve", no_argument, 0, 'p'},
    {"size", required_argument, 0, 's'},
    {"timeout", required_argument, 0, 't'},
    {"verbose", no_argument, 0, 'v'},
    {"version", no_argument, 0, 'V'},
    {"help", no_argument, 0, OPT_HELP},
    {"usage", no_argument, 0, OPT_USAGE},
    {NULL, 0, 0, 0}};

/* Slurm's _map_size: a number with an optional k or m suffix. */
static size_t map_size(const char *s)
{
	char *end = NULL;
	long v = strtol(s, &end, 10);
	if (end && (*end == 'k' || *end == 'K'))
		v *= 1024;
	else if (end && (*end == 'm' || *end == 'M'))
		v *= 1024 * 1024;
	return v > 0 ? (size_t)v : BLOCK_MAX;
}

/* 0 to go on, else the exit status (after help, version or a message). */
static int parse(int argc, char **argv, struct bc_opts *o)
{
	int c;
	o->force = getenv("SBCAST_FORCE") != NULL;
	o->preserve = getenv("SBCAST_PRESERVE") != NULL;
	o->block = getenv("SBCAST_SIZE") ? map_size(getenv("SBCAST_SIZE")) : BLOCK_MAX;
	while ((c = getopt_long(argc, argv, "C::fF:j:ps:t:vV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			o->force = true;
			break;
		case 'p':
			o->preserve = true;
			break;
		case 'j':
			o->job_id =
			    atol(optarg); /* "N+H.S": the job's nodes, all of them */
			break;
		case 's':
			o->block = map_size(optarg);
			break;
		case 'V':
			cli_print_version();
			return -1;
		case OPT_HELP:
			help();
			return -1;
		case OPT_USAGE:
			printf("Usage: sbcast [--exclude] [-CfFjpvV] [--send-libs] "
			       "SOURCE DEST\n");
			return -1;
		case OPT_SEND_LIBS:
			if (!optarg || strcasecmp(optarg, "no")) {
				cli_error("--send-libs is not supported by Drover yet");
				return 1;
			}
			break;
		case 'C': /* blocks travel as they are (docs/compat.md) */
		case 'F': /* ctld sends every block to all nodes at once */
		case 't':
		case 'v':
		case OPT_EXCLUDE:
			break;
		default:
			fprintf(stderr, "Try \"sbcast --help\" for more information\n");
			return 1;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "Need two file names, have %d names\n", argc - optind);
		fprintf(stderr, "Try \"sbcast --help\" for more information\n");
		return 1;
	}
	if (!o->job_id) {
		const char *env = getenv("SLURM_JOB_ID");
		if (!env) {
			cli_error("Need a job id to run this command.  Run from within a "
				  "Slurm job or use the --jobid option.");
			return 1;
		}
		o->job_id = atol(env);
	}
	o->src = argv[optind];
	const char *dest = argv[optind + 1];
	char cwd[4096];
	if (dest[0] == '/'
		? !(o->dest = strdup(dest))
		: !getcwd(cwd, sizeof(cwd)) || asprintf(&o->dest, "%s/%s", cwd, dest) < 0)
		return 1;
	if (o->dest[strlen(o->dest) - 1] == '/') {
		cli_error("Target filename cannot be a directory.");
		return 1;
	}
	return 0;
}

/* Sends one block; returns the exit status so far: 0, 255 after the job
 * lookup's message, or the first failed node's errno after one line for
 * each node that failed. */
static int send_block(const struct drv_conf *conf, const struct drv_bcast_block *b,
		      long job_id, bool quiet)
{
	struct drv_error err = {{0}};
	json_t *reply = NULL;
	int rc = cli_call(conf, "bcast.block", drv_bcast_block_encode(b), &reply, &err);
	if (rc != 0 && quiet) {
		json_decref(reply);
		return 255;
	}
	if (rc != 0) {
		cli_error("Slurm job %ld lookup error: %s", job_id,
			  rc > 0 ? drv_rc_text(rc)
			  : err.text[0]
			      ? err.text
			      : "Unable to contact slurm controller (connect failure)");
		json_decref(reply);
		return 255;
	}
	int status = 0;
	size_t i;
	json_t *e;
	json_array_foreach(json_object_get(reply, "errors"), i, e)
	{
		int no = (int)json_integer_value(json_array_get(e, 1));
		if (!quiet)
			cli_error("REQUEST_FILE_BCAST(%s): %s",
				  json_string_value(json_array_get(e, 0)) ?: "?",
				  strerror(no));
		if (!status)
			status = no > 0 && no < 256 ? no : 1;
	}
	json_decref(reply);
	return status;
}

/* Reads the source block by block and sends each; aborts the transfer on
 * the nodes when one block failed anywhere. */
static int transfer(const struct drv_conf *conf, const struct bc_opts *o, int fd,
		    const struct stat *st)
{
	size_t cap = o->block, max_raw = conf->max_message_size / 2;
	if (cap > max_raw) /* base64 and the envelope must fit in a frame */
		cap = max_raw;
	unsigned char *buf = malloc(cap);
	char *text =
	    malloc(sodium_base64_ENCODED_LEN(cap, sodium_base64_VARIANT_ORIGINAL));
	int status = buf && text ? 0 : 1;
	struct drv_bcast_block b = {.job_id = (uint32_t)o->job_id,
				    .dest = o->dest,
				    .mode = st->st_mode & 07777,
				    .atime = st->st_atime,
				    .mtime = st->st_mtime,
				    .force = o->force,
				    .preserve = o->preserve};
	off_t left = st->st_size;
	for (uint32_t k = 0; status == 0; k++) {
		size_t want = left > (off_t)cap ? cap : (size_t)left;
		ssize_t got = want ? read(fd, buf, want) : 0;
		if (got < 0 || (size_t)got != want) {
			cli_error("Can't read `%s`: %s", o->src,
				  strerror(got < 0 ? errno : EIO));
			status = 255;
			break;
		}
		left -= got;
		sodium_bin2base64(
		    text, sodium_base64_ENCODED_LEN(cap, sodium_base64_VARIANT_ORIGINAL),
		    buf, (size_t)got, sodium_base64_VARIANT_ORIGINAL);
		b.block = k;
		b.data = text;
		b.last = left == 0;
		status = send_block(conf, &b, o->job_id, false);
		if (b.last)
			break;
	}
	/* the nodes that took the blocks so far drop them (after a job lookup
	 * error ctld refuses this too, quietly) */
	if (status != 0 && !b.last) {
		struct drv_bcast_block a = b;
		a.abort = true;
		a.data = "";
		(void)send_block(conf, &a, o->job_id, true);
	}
	free(buf);
	free(text);
	return status;
}

int main(int argc, char **argv)
{
	struct bc_opts o = {0};
	cli_init("sbcast");
	argv[0] = (char *)"sbcast";
	int rc = parse(argc, argv, &o);
	if (rc != 0) {
		free(o.dest);
		return rc < 0 ? 0 : rc;
	}
	struct stat st;
	int fd = open(o.src, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		cli_error("Can't open `%s`: %s", o.src, strerror(errno));
		free(o.dest);
		return 255;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		/* Slurm maps the file, which a directory refuses */
		cli_error("Can't mmap file `%s`, %s.", o.src, strerror(ENODEV));
		close(fd);
		free(o.dest);
		return 255;
	}
	struct drv_conf *conf = NULL;
	rc = cli_conf_load(&conf) < 0 ? 1 : transfer(conf, &o, fd, &st);
	drv_conf_free(conf);
	close(fd);
	free(o.dest);
	return rc;
}
