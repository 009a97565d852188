/* srun.c — runs a parallel job step: inside an allocation (SLURM_JOB_ID, or
 * --jobid) it asks ctld for a step of it; outside one it first gets an
 * allocation of its own (a job without a script) and gives it back at the
 * end. The shepherds of the step's nodes dial our I/O port; srun_io.c
 * carries the tasks' output, stdin and exits. srun exits with the highest
 * task exit code, 128+N for a task killed by signal N, as Slurm's. */
#include <errno.h>
#include <signal.h>
#include <libgen.h>
#include <netdb.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/common.h"
#include "cli/io_pattern.h"
#include "cli/multi_prog.h"
#include "cli/sbatch_res.h"
#include "cli/srun_alloc.h"
#include "cli/srun_io.h"
#include "cli/srun_opts.h"
#include "cli/srun_pty.h"
#include "common/proto.h"
#include "common/proto_gen.h"
#include "drv_config.h"

extern char **environ;

struct srun {
	const struct drv_conf *conf;
	struct srun_opts o;
	char **cmd;
	int ncmd;
	bool own_alloc; /* the allocation is ours to give back */
	uint32_t job_id, step_id;
	json_t *created;		   /* step.create's reply */
	struct drv_step_create_reply step; /* decoded from it */
	struct srun_io io;
};

/* The address the shepherds can reach us on: the one our route to ctld
 * leaves from (no packet is sent: connect() on UDP only picks the route). */
static void local_addr(const struct drv_conf *conf, char *buf, size_t len)
{
	snprintf(buf, len, "127.0.0.1");
	struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM}, *res;
	char port[16];
	snprintf(port, sizeof(port), "%d", conf->ctld_port);
	if (getaddrinfo(conf->ctld_hosts[0].addr, port, &hints, &res) != 0)
		return;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sa, &sl) == 0)
		inet_ntop(AF_INET, &sa.sin_addr, buf, (socklen_t)len);
	if (fd >= 0)
		close(fd);
	freeaddrinfo(res);
}

static json_t *env_array(void)
{
	json_t *a = json_array();
	for (char **e = environ; *e; e++)
		json_array_append_new(a, json_string(*e));
	return a;
}

static void set_int_env(const char *name, long long v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%lld", v);
	setenv(name, buf, 1);
}

/* What srun itself puts in the step's environment (Slurm's srun sets these
 * before launching; ctld adds the job's and the step's). */
/* Slurm's SLURM_CPU_BIND* for the tasks, from --cpu-bind (the shepherd
 * binds them): verbose or quiet, the type (a list type with its ':') and
 * the list. */
static void cpu_bind_env(const char *bind)
{
	char verbose[8] = "quiet", type[32] = "", list[256] = "";
	for (const char *p = bind; *p;) {
		size_t len = strcspn(p, ",:");
		if ((len == 1 && *p == 'v') || (len == 7 && !strncmp(p, "verbose", 7)))
			snprintf(verbose, sizeof(verbose), "verbose");
		else if (!(len == 1 && *p == 'q') &&
			 !(len == 5 && !strncmp(p, "quiet", 5)))
			snprintf(type, sizeof(type), "%.*s%s", (int)len, p,
				 p[len] == ':' ? ":" : "");
		if (p[len] == ':') { /* the list: the rest, but a last word */
			snprintf(list, sizeof(list), "%s", p + len + 1);
			char *comma = strrchr(list, ',');
			if (comma && comma[1] && strchr("vq", comma[1]) &&
			    !strchr(comma, 'x')) {
				if (comma[1] == 'v')
					snprintf(verbose, sizeof(verbose), "verbose");
				*comma = '\0';
			}
			break;
		}
		p += len + (p[len] == ',');
	}
	if (!strcmp(type, "no"))
		snprintf(type, sizeof(type), "none");
	char all[320];
	snprintf(all, sizeof(all), "%s,%s%s", verbose, *type ? type : "none", list);
	setenv("SLURM_CPU_BIND", all, 1);
	setenv("SLURM_CPU_BIND_VERBOSE", verbose, 1);
	setenv("SLURM_CPU_BIND_TYPE", *type ? type : "none", 1);
	setenv("SLURM_CPU_BIND_LIST", list, 1);
}

static void launch_env(struct srun *s, const char *addr)
{
	setenv("SLURM_SRUN_COMM_HOST", addr, 1);
	setenv("SLURM_LAUNCH_NODE_IPADDR", addr, 1);
	set_int_env("SLURM_SRUN_COMM_PORT", s->io.port);
	set_int_env("SLURM_STEP_LAUNCHER_PORT", s->io.port);
	mode_t m = umask(0);
	umask(m);
	char buf[16];
	snprintf(buf, sizeof(buf), "%04o", (unsigned)m);
	setenv("SLURM_UMASK", buf, 1);
	cli_set_prio_process_env();
	if (s->o.cpu_bind)
		cpu_bind_env(s->o.cpu_bind);
	if (s->o.mpi)
		setenv("SLURM_MPI_TYPE", s->o.mpi, 1);
	if (s->o.pty) { /* Slurm's tasks see these under --pty */
		set_int_env("SLURM_PTY_PORT", s->io.port);
		uint16_t rows, cols;
		srun_pty_size(&rows, &cols);
		if (rows && cols) {
			set_int_env("SLURM_PTY_WIN_ROW", rows);
			set_int_env("SLURM_PTY_WIN_COL", cols);
		}
	}
}

static int64_t num_opt(const char *v, int64_t dflt)
{
	if (!v || !*v)
		return dflt;
	char *end;
	long long n = strtoll(v, &end, 10);
	return end != v && n > 0 ? n : dflt;
}

static const char *dist_name(enum drv_dist d)
{
	return d == DIST_CYCLIC ? "cyclic" : d == DIST_PLANE ? "plane" : "block";
}

/* Inside an allocation srun runs by default as many tasks as the
 * allocation was given (SLURM_NTASKS) on all its nodes (SLURM_NNODES), as
 * Slurm's srun reads them; -n below the nodes gets Slurm's warning. */
/* An option's count as a u32 field: a value beyond it stays beyond the
 * declared bound, so ctld still refuses it. */
static uint32_t u32_of(int64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static void step_counts(struct srun *s, struct drv_step_create *q)
{
	const struct sbatch_opts *j = &s->o.job;
	int64_t ntasks = num_opt(j->ntasks, 0), nodes = 0, nodes_max = 0;
	if (j->nodes) {
		char *dash;
		nodes = strtoll(j->nodes, &dash, 10);
		nodes_max = *dash == '-' ? strtoll(dash + 1, NULL, 10) : 0;
	}
	int64_t ntpn = num_opt(j->ntasks_per_node, 0);
	if (!s->own_alloc) {
		if (!ntasks && !nodes && !ntpn && s->o.ntasks_per_gpu <= 0)
			ntasks = num_opt(getenv("SLURM_NTASKS"), 0);
		if (!ntpn && !ntasks)
			ntpn = num_opt(getenv("SLURM_NTASKS_PER_NODE"), 0);
		if (!nodes && !j->nodelist)
			nodes = num_opt(getenv("SLURM_NNODES"), 0);
	}
	if (ntasks && nodes > ntasks) {
		if (!s->o.quiet)
			fprintf(stderr,
				"srun: Warning: can't run %lld processes on %lld nodes, "
				"setting "
				"nnodes to %lld\n",
				(long long)ntasks, (long long)nodes, (long long)ntasks);
		nodes = ntasks;
	}
	q->ntasks = u32_of(ntasks);
	q->has_ntasks = ntasks != 0;
	q->nodes = u32_of(nodes);
	q->has_nodes = nodes != 0;
	q->nodes_max = u32_of(nodes_max);
	q->has_nodes_max = nodes_max != 0;
	q->ntasks_per_node = u32_of(ntpn);
	q->has_ntasks_per_node = ntpn != 0;
	int64_t cpt = num_opt(j->cpus_per_task, 0);
	if (!cpt && !s->own_alloc)
		cpt = num_opt(getenv("SLURM_CPUS_PER_TASK"), 0);
	if (cpt) {
		q->cpus_per_task = u32_of(cpt);
		q->cpt_given = true;
	}
}

/* GPUs and memory: -G, --gpus-per-node and --mem inside an allocation are
 * the step's (per node for the last two); bind is room for gpu_bind. */
static void step_resources(struct srun *s, struct drv_step_create *q, char bind[32])
{
	int64_t gpus = 0, mem = 0;
	char type[64];

	q->gpus_per_task = u32_of(s->o.gpus_per_task_n);
	q->has_gpus_per_task = s->o.gpus_per_task_n > 0;
	q->cpu_bind = s->o.cpu_bind;
	if (s->o.ntasks_per_gpu > 0) { /* Slurm binds each task to one GPU then */
		q->ntasks_per_gpu = u32_of(s->o.ntasks_per_gpu);
		q->has_ntasks_per_gpu = true;
		snprintf(bind, 32, "single:%lld", (long long)s->o.ntasks_per_gpu);
		q->gpu_bind = bind;
	}
	if (s->o.gpu_bind)
		q->gpu_bind = s->o.gpu_bind;
	if (s->o.mpi && !strcmp(s->o.mpi, "pmix"))
		q->mpi = "pmix";
	if (!s->own_alloc && s->o.job.gpus &&
	    sbatch_gpus_parse(s->o.job.gpus, &gpus, type, sizeof(type)) == 0 &&
	    gpus > 0) {
		q->gpus = u32_of(gpus);
		q->has_gpus = true;
	}
	if (!s->own_alloc && s->o.job.gpus_per_node &&
	    sbatch_gpus_parse(s->o.job.gpus_per_node, &gpus, type, sizeof(type)) == 0 &&
	    gpus > 0) {
		q->gpus_per_node = u32_of(gpus);
		q->has_gpus_per_node = true;
	}
	if (!s->own_alloc && s->o.job.mem && sbatch_mem_parse(s->o.job.mem, &mem) == 0 &&
	    mem > 0) {
		q->mem = mem;
		q->has_mem = true;
	}
}

/* The step.create body; *ntasks is what it asks for (0: ctld decides). */
static json_t *step_body(struct srun *s, const char *addr, int64_t *ntasks)
{
	struct drv_step_create q;
	char cwd[4096], bind[32];
	if (s->o.job.chdir)
		snprintf(cwd, sizeof(cwd), "%s", s->o.job.chdir);
	else if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), "/tmp");
	char *copy = strdup(s->cmd[0]);
	drv_shape_init(&drv_shape_step_create, &q);
	q.job_id = s->job_id;
	q.name = s->o.job.job_name ? s->o.job.job_name : basename(copy);
	q.argv = (const char **)s->cmd;
	q.n_argv = (size_t)s->ncmd;
	q.cwd = cwd;
	q.io_host = addr;
	q.io_port = (uint16_t)s->io.port;
	q.io_key = s->io.key;
	q.exact = s->o.exact;
	q.overlap = s->o.overlap;
	q.overcommit = s->o.overcommit;
	q.unbuffered = s->o.unbuffered || s->o.pty;
	q.pty = s->o.pty;
	q.distribution = dist_name(s->o.dist);
	q.plane_size = (uint32_t)(s->o.plane_size ? s->o.plane_size : 1);
	q.nodelist = s->o.job.nodelist;
	q.exclude = s->o.job.exclude;
	q.stdin_all = s->o.input_mode == SRUN_IN_ALL || s->o.input_mode == SRUN_IN_FILE;
	q.stdin_task = s->o.input_mode == SRUN_IN_TASK ? (int32_t)s->o.input_task : -1;
	step_counts(s, &q);
	step_resources(s, &q, bind);
	*ntasks = q.has_ntasks ? q.ntasks : 0;
	json_t *b = drv_step_create_encode(&q);
	free(copy);
	json_object_set_new(b, drv_shape_step_create.fields[DRV_STEP_CREATE__ENV].name,
			    env_array());
	return b;
}

/* --multi-prog: every task's argv, as JSON text for the shepherds. */
static int add_multi_prog(struct srun *s, json_t *b, uint32_t ntasks)
{
	struct drv_error err = {{0}};
	struct multi_prog mp;
	if (multi_prog_load(s->cmd[0], ntasks, &mp, &err) < 0) {
		cli_error("%s", err.text);
		return -1;
	}
	json_t *all = json_array();
	for (uint32_t t = 0; t < ntasks; t++) {
		json_t *argv = json_array();
		for (char **a = mp.argv[t]; a && *a; a++)
			json_array_append_new(argv, json_string(*a));
		json_array_append_new(all, argv);
	}
	multi_prog_fini(&mp);
	char *text = json_dumps(all, JSON_COMPACT);
	json_decref(all);
	json_object_set_new(b,
			    drv_shape_step_create.fields[DRV_STEP_CREATE__TASK_ARGV].name,
			    json_string(text));
	free(text);
	return 0;
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* step.create, waiting while the allocation's CPUs are busy with other
 * steps (Slurm's "temporarily disabled, retrying"). 0, or 1 after Slurm's
 * message. */
static int create_step(struct srun *s, json_t *body)
{
	bool waited = false;
	for (;;) {
		struct drv_error err = {{0}};
		json_t *reply = NULL;
		int rc =
		    cli_call(s->conf, "step.create", json_incref(body), &reply, &err);
		if (rc == 0 && drv_step_create_reply_decode(reply, &s->step, &err) < 0) {
			json_decref(reply);
			rc = -EBADMSG;
		}
		if (rc == 0) {
			s->created = reply;
			s->step_id = s->step.step_id;
			if (waited && !s->o.quiet)
				fprintf(stderr, "srun: Step created for StepId=%u.%u\n",
					s->job_id, s->step_id);
			return 0;
		}
		if (rc == DRV_RC_NODES_BUSY && s->o.immediate < 0) {
			if (!waited && !s->o.quiet)
				fprintf(
				    stderr,
				    "srun: Job %u step creation temporarily disabled, "
				    "retrying (%s)\n",
				    s->job_id, drv_rc_text(rc));
			waited = true;
			sleep_ms(500);
			sigset_t pending;
			sigpending(&pending);
			if (sigismember(&pending, SIGINT) ||
			    sigismember(&pending, SIGTERM)) {
				fprintf(stderr, "srun: Job step creation interrupted\n");
				return 1;
			}
			continue;
		}
		const char *why =
		    err.text[0] ? err.text
		    : rc > 0	? drv_rc_text(rc)
				: "Unable to contact slurm controller (connect failure)";
		cli_error("Unable to create step for job %u: %s", s->job_id, why);
		return 1;
	}
}

/* -o/-e/-i patterns expanded for every task (NULL entries: srun's own). */
static char **expand_paths(struct srun *s, const char *pat, uint32_t ntasks)
{
	if (!pat || !strcasecmp(pat, "none") || !strcmp(pat, "all"))
		return NULL;
	char **v = calloc(ntasks ? ntasks : 1, sizeof(*v));
	json_t *ids = s->step.node_task_ids;
	const char *user = getenv("USER");
	for (size_t n = 0; v && n < json_array_size(ids); n++) {
		size_t k;
		json_t *t;
		json_array_foreach(json_array_get(ids, n), k, t)
		{
			uint32_t task = (uint32_t)json_integer_value(t);
			if (task >= ntasks)
				continue;
			struct io_pattern_ctx ctx = {
			    .job_id = s->job_id,
			    .step_id = s->step_id,
			    .task_id = task,
			    .node_id = (uint32_t)n,
			    .node_name =
				n < s->step.n_node_names ? s->step.node_names[n] : NULL,
			    .user = user,
			    .job_name = getenv("SLURM_JOB_NAME"),
			};
			char path[4096];
			io_pattern_expand(pat, &ctx, path, sizeof(path));
			v[task] = strdup(path);
		}
	}
	return v;
}

static void free_paths(char **v, uint32_t n)
{
	for (uint32_t t = 0; v && t < n; t++)
		free(v[t]);
	free(v);
}

/* srun_io's tick: is the step still running in ctld's eyes? */
static bool step_over(void *arg, bool kill, int *code)
{
	struct srun *s = arg;
	struct drv_error err = {{0}};
	json_t *reply = NULL;
	if (kill) {
		char id[48];
		snprintf(id, sizeof(id), "%u.%u", s->job_id, s->step_id);
		const char *steps[] = {id};
		struct drv_job_cancel c = {
		    .steps = steps, .n_steps = 1, .has_steps = true};
		if (cli_call(s->conf, "job.cancel", drv_job_cancel_encode(&c), &reply,
			     &err) == 0)
			json_decref(reply);
		if (!s->o.quiet)
			fprintf(
			    stderr,
			    "srun: launch/slurm: _step_signal: Terminating StepId=%s\n",
			    id);
		return false;
	}
	struct srun_job job;
	bool over = true;
	if (srun_job_fetch(s->conf, s->job_id, &job) < 0)
		over = false; /* ctld unreachable (restarting?): ask again later */
	for (size_t i = 0; job.rec && i < job.rec->n_steps; i++) {
		const struct drv_rec_step *st = &job.rec->steps[i];
		if (st->step_id != s->step_id)
			continue;
		over = strcmp(st->state, "RUNNING") != 0;
		*code = st->exit_code;
	}
	srun_job_fini(&job);
	return over; /* no record: ended long ago */
}

/* The tasks are done; the step is over once every node said so to ctld.
 * Waiting for that frees its CPUs before the script's next srun asks. */
static void wait_step_end(struct srun *s)
{
	int code, delay = 5;
	for (int waited = 0; waited < 5000;
	     waited += delay, delay = delay < 100 ? delay * 2 : 100) {
		if (step_over(s, false, &code))
			return;
		sleep_ms(delay);
	}
}

static int run_step(struct srun *s)
{
	char addr[64];
	local_addr(s->conf, addr, sizeof(addr));
	if (srun_io_listen(&s->io) < 0) {
		cli_error("Unable to open the I/O port: %s", strerror(errno));
		return 1;
	}
	s->io.job_id = s->job_id;
	launch_env(s, addr);
	int64_t want;
	json_t *body = step_body(s, addr, &want);
	if (s->o.multi_prog &&
	    (want <= 0 || add_multi_prog(s, body, (uint32_t)want) < 0)) {
		if (want <= 0)
			cli_error("--multi-prog needs -n/--ntasks");
		json_decref(body);
		return 1;
	}
	int rc = create_step(s, body);
	json_decref(body);
	if (rc)
		return rc;
	uint32_t ntasks = s->step.ntasks;
	s->io.step_id = s->step_id;
	s->io.o = (struct srun_io_opts){
	    .label = s->o.label,
	    .unbuffered = s->o.unbuffered || s->o.pty, /* --pty implies -u */
	    .pty = s->o.pty,
	    .kill_on_bad_exit = s->o.kill_on_bad_exit,
	    .wait_secs = s->o.wait_secs,
	    .quiet = s->o.quiet,
	    .stdin_task = s->o.input_mode == SRUN_IN_NONE   ? -2
			  : s->o.input_mode == SRUN_IN_TASK ? s->o.input_task
							    : -1,
	    .out_paths = expand_paths(s, s->o.output, ntasks),
	    .err_paths = expand_paths(s, s->o.error, ntasks),
	    .open_append = s->o.job.open_mode && !strcmp(s->o.job.open_mode, "append"),
	};
	char **in =
	    s->o.input_mode == SRUN_IN_FILE ? expand_paths(s, s->o.input, 1) : NULL;
	s->io.o.stdin_path = in ? in[0] : NULL;
	if (s->o.pty)
		srun_pty_raw();
	rc = srun_io_run(&s->io, ntasks, step_over, s);
	srun_pty_restore();
	wait_step_end(s);
	/* Slurm's srun says it unless the step was ended for it (a cancel,
	 * the job's end: "Job step aborted") */
	if (rc > 128 && !s->o.quiet && !s->io.aborting_said)
		fprintf(stderr, "srun: Force Terminated StepId=%u.%u\n", s->job_id,
			s->step_id);
	free_paths(s->io.o.out_paths, ntasks);
	free_paths(s->io.o.err_paths, ntasks);
	free_paths(in, 1);
	srun_io_close(&s->io);
	return rc;
}

/* pmix: the shepherds run a PMIx server for the step (shepherd/pmix.c),
 * when this build found libpmix. */
static int print_mpi_list(void)
{
	printf("MPI plugin types are...\n\tnone\n");
	if (DRV_HAVE_PMIX)
		printf("\tpmix\n");
	return 0;
}

static bool mpi_known(const char *mpi)
{
	return !mpi || !strcmp(mpi, "none") || (DRV_HAVE_PMIX && !strcmp(mpi, "pmix"));
}

static int run(int argc, char **argv)
{
	struct srun s = {.io = {.lfd = -1, .sigfd = -1}};
	int idx = argc;
	srun_opts_init(&s.o);
	srun_opts_from_env(&s.o, false);
	/* Slurm: SLURM_JOB_NAME names no step inside an allocation, or every
	 * step would carry the batch job's name */
	if (s.o.env_jobid && s.o.job.job_name &&
	    s.o.job.job_name == getenv("SLURM_JOB_NAME"))
		s.o.job.job_name = NULL;
	int rc = srun_opts_parse(argc, argv, &s.o, &idx, false);
	if (rc < 0)
		return rc == -EDOM ? 255 : 1;
	if (s.o.job.help) {
		srun_usage(false);
		return 0;
	}
	if (s.o.job.version) {
		cli_print_version();
		return 0;
	}
	if (s.o.mpi && !strcmp(s.o.mpi, "list"))
		return print_mpi_list();
	if (!mpi_known(s.o.mpi)) {
		cli_error("MPI type '%s' is not supported: use --mpi=%s (or mpirun "
			  "inside an allocation)",
			  s.o.mpi, DRV_HAVE_PMIX ? "pmix" : "none");
		return 1;
	}
	if (idx >= argc) {
		fprintf(stderr, "srun: fatal: No command given to execute.\n");
		return 1;
	}
	s.cmd = argv + idx;
	s.ncmd = argc - idx;
	if (s.o.pty && !srun_pty_usable()) {
		s.o.pty = false;
		if (!s.o.input)
			s.o.input_mode = SRUN_IN_ALL;
	}
	struct drv_conf *conf = NULL;
	if (cli_conf_load(&conf) < 0)
		return 1;
	s.conf = conf;
	s.job_id = s.o.jobid > 0   ? (uint32_t)s.o.jobid
		   : s.o.env_jobid ? (uint32_t)strtoul(s.o.env_jobid, NULL, 10)
				   : 0;
	struct srun_alloc alloc = {0};
	if (!s.job_id) {
		char *copy = strdup(s.cmd[0]);
		rc = srun_alloc_create(conf, &s.o, basename(copy), false, &alloc);
		free(copy);
		if (rc) {
			drv_conf_free(conf);
			return rc;
		}
		s.own_alloc = true;
		s.job_id = alloc.job_id;
		srun_alloc_setenv(conf, alloc.job.rec);
	}
	rc = run_step(&s);
	if (s.own_alloc)
		srun_alloc_release(conf, &alloc, rc);
	drv_step_create_reply_free(&s.step);
	json_decref(s.created);
	drv_conf_free(conf);
	return rc;
}

int main(int argc, char **argv)
{
	cli_init("srun");
	argv[0] = (char *)"srun";
	signal(SIGPIPE, SIG_IGN); /* a shepherd gone mid-frame is an error, not our end */
	return run(argc, argv);
}
