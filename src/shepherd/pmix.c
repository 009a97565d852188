/* pmix.c — srun --mpi=pmix: this node's PMIx server for one step (Slurm's
 * mpi/pmix plugin in slurmstepd).
 *
 * It owns libpmix's server in the step shepherd: a private rendezvous
 * directory, the step's namespace ("drover.JOB.STEP") with the job-level and
 * per-rank data Open MPI reads, every local task registered as a client, and
 * each task's PMIX_* environment. libpmix calls the server module from its
 * own progress thread; the only callback that needs the rest of the step, a
 * fence, is handed to the shepherd's poll loop through a pipe, which sends
 * the node's part to srun (STEPIO_FENCE_UP) and completes it when srun
 * answers with every node's part (STEPIO_FENCE_DOWN). It never touches the
 * tasks' streams or srun's socket from the progress thread. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/stat.h>

#include <pmix.h>
#include <pmix_server.h>

#include "common/stepio.h"
#include "shepherd/shepherd.h"

struct fence {
	char *data; /* this node's part (a copy) */
	size_t ndata;
	pmix_modex_cbfunc_t cbfunc;
	void *cbdata;
	struct fence *next;
};

struct pmixsrv {
	pmix_nspace_t nspace;
	char tmpdir[128];
	int pipe[2];		    /* progress thread -> poll loop: struct fence * */
	volatile sig_atomic_t pgid; /* the tasks' group, for abort */
	struct fence *pending;	    /* sent up, waiting for srun's answer */
	struct fence *queue;	    /* not sent yet (one fence at a time) */
	bool inited;
};

/* One server per process: libpmix's callbacks carry no context of ours. */
static struct pmixsrv *the_srv;

/* --- waiting for libpmix's non-blocking calls ------------------------------ */

struct op_wait {
	pthread_mutex_t m;
	pthread_cond_t c;
	bool done;
	pmix_status_t st;
};

static void op_done(pmix_status_t st, void *cbdata)
{
	struct op_wait *w = cbdata;
	pthread_mutex_lock(&w->m);
	w->st = st;
	w->done = true;
	pthread_cond_signal(&w->c);
	pthread_mutex_unlock(&w->m);
}

/* rc is what the call returned: its result when it finished at once. */
static pmix_status_t op_finish(struct op_wait *w, pmix_status_t rc)
{
	if (rc == PMIX_OPERATION_SUCCEEDED)
		rc = PMIX_SUCCESS;
	else if (rc == PMIX_SUCCESS) {
		pthread_mutex_lock(&w->m);
		while (!w->done)
			pthread_cond_wait(&w->c, &w->m);
		rc = w->st;
		pthread_mutex_unlock(&w->m);
	}
	pthread_mutex_destroy(&w->m);
	pthread_cond_destroy(&w->c);
	return rc;
}

#define OP_WAIT_INIT                                                                     \
	{                                                                                \
		PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, PMIX_SUCCESS \
	}

/* --- the server module (libpmix's progress thread) ------------------------- */

static pmix_status_t client_connected(const pmix_proc_t *proc, void *obj,
				      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	if (cbfunc)
		cbfunc(PMIX_SUCCESS, cbdata);
	return PMIX_SUCCESS;
}

static pmix_status_t client_finalized(const pmix_proc_t *proc, void *obj,
				      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	if (cbfunc)
		cbfunc(PMIX_SUCCESS, cbdata);
	return PMIX_SUCCESS;
}

/* MPI_Abort: the whole step goes, as Slurm's plugin kills the step. The
 * poll loop reads a NULL fence as that request; the caller exits itself
 * once released. */
static pmix_status_t client_abort(const pmix_proc_t *proc, void *obj, int status,
				  const char msg[], pmix_proc_t procs[], size_t nprocs,
				  pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct fence *none = NULL;
	if (the_srv && write(the_srv->pipe[1], &none, sizeof(none)) < 0 &&
	    the_srv->pgid > 0)
		kill(-(pid_t)the_srv->pgid, SIGKILL);
	if (cbfunc)
		cbfunc(PMIX_SUCCESS, cbdata);
	return PMIX_SUCCESS;
}

static pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs,
			      const pmix_info_t info[], size_t ninfo, char *data,
			      size_t ndata, pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	struct fence *f = calloc(1, sizeof(*f));
	if (!f || !the_srv)
		goto fail;
	f->data = malloc(ndata ? ndata : 1);
	if (!f->data)
		goto fail;
	if (ndata)
		memcpy(f->data, data, ndata);
	f->ndata = ndata;
	f->cbfunc = cbfunc;
	f->cbdata = cbdata;
	if (write(the_srv->pipe[1], &f, sizeof(f)) != (ssize_t)sizeof(f))
		goto fail;
	return PMIX_SUCCESS;
fail:
	if (f)
		free(f->data);
	free(f);
	return PMIX_ERR_NOMEM;
}

static pmix_server_module_t module = {
    .client_connected = client_connected,
    .client_finalized = client_finalized,
    .abort = client_abort,
    .fence_nb = fence_nb,
};

/* --- the namespace ------------------------------------------------------------ */

struct ilist {
	pmix_info_t *info;
	size_t n, cap;
};

static pmix_info_t *next_info(struct ilist *l)
{
	return l->n < l->cap ? &l->info[l->n++] : NULL;
}

static void add_u32(struct ilist *l, const char *key, uint32_t v)
{
	pmix_info_t *i = next_info(l);
	if (i)
		PMIX_INFO_LOAD(i, key, &v, PMIX_UINT32);
}

static void add_str(struct ilist *l, const char *key, const char *v)
{
	pmix_info_t *i = next_info(l);
	if (i)
		PMIX_INFO_LOAD(i, key, v, PMIX_STRING);
}

static void add_regex(struct ilist *l, const char *key, char *regex)
{
	pmix_info_t *i = next_info(l);
	if (i && regex)
		PMIX_INFO_LOAD(i, key, regex, PMIX_REGEX);
	else if (i)
		l->n--;
}

/* Appends "a,b,c" of the ints of arr to buf. */
static void join_ids(char *buf, size_t cap, json_t *arr)
{
	size_t i, len = strlen(buf);
	json_t *x;
	json_array_foreach(arr, i, x)
	{
		int n = snprintf(buf + len, cap > len ? cap - len : 0, "%s%lld",
				 i ? "," : "", (long long)json_integer_value(x));
		len += n > 0 ? (size_t)n : 0;
	}
}

/* Every rank's own data: PMIX_PROC_DATA, PMIX_RANK first. */
static void add_proc(struct ilist *l, uint32_t rank, uint16_t local, uint32_t node_id,
		     const char *host)
{
	pmix_info_t *i = next_info(l);
	if (!i)
		return;
	pmix_data_array_t *da;
	PMIX_DATA_ARRAY_CREATE(da, 7, PMIX_INFO);
	pmix_info_t *p = da->array;
	pmix_rank_t r = rank;
	uint32_t zero = 0;
	PMIX_INFO_LOAD(&p[0], PMIX_RANK, &r, PMIX_PROC_RANK);
	PMIX_INFO_LOAD(&p[1], PMIX_GLOBAL_RANK, &r, PMIX_PROC_RANK);
	PMIX_INFO_LOAD(&p[2], PMIX_APPNUM, &zero, PMIX_UINT32);
	PMIX_INFO_LOAD(&p[3], PMIX_LOCAL_RANK, &local, PMIX_UINT16);
	PMIX_INFO_LOAD(&p[4], PMIX_NODE_RANK, &local, PMIX_UINT16);
	PMIX_INFO_LOAD(&p[5], PMIX_NODEID, &node_id, PMIX_UINT32);
	PMIX_INFO_LOAD(&p[6], PMIX_HOSTNAME, host, PMIX_STRING);
	PMIX_LOAD_KEY(i->key, PMIX_PROC_DATA);
	i->value.type = PMIX_DATA_ARRAY;
	i->value.data.darray = da;
}

/* The job-level and per-rank data of the step (layout: {"nodes":[S],
 * "tasks":[[N]]}), registered for nlocal local clients. */
static int register_nspace(struct pmixsrv *p, json_t *layout, uint32_t node_id,
			   const char *jobid, char *err, size_t errlen)
{
	json_t *nodes = json_object_get(layout, "nodes"),
	       *tasks = json_object_get(layout, "tasks");
	size_t nn = json_array_size(nodes), ntasks = 0;
	if (!nn || nn != json_array_size(tasks) || node_id >= nn) {
		snprintf(err, errlen, "PMIx: the step's layout is missing");
		return -EINVAL;
	}
	size_t hlen = 1, plen = 1;
	for (size_t k = 0; k < nn; k++) {
		hlen += strlen(json_string_value(json_array_get(nodes, k)) ?: "") + 1;
		plen += json_array_size(json_array_get(tasks, k)) * 12 + 1;
		ntasks += json_array_size(json_array_get(tasks, k));
	}
	char *hosts = calloc(1, hlen), *ppn_in = calloc(1, plen),
	     *peers = calloc(1, plen);
	struct ilist l = {.cap = 20 + ntasks};
	PMIX_INFO_CREATE(l.info, l.cap);
	if (!hosts || !ppn_in || !peers || !l.info) {
		free(hosts);
		free(ppn_in);
		free(peers);
		if (l.info)
			PMIX_INFO_FREE(l.info, l.cap);
		return -ENOMEM;
	}
	for (size_t k = 0; k < nn; k++) {
		json_t *mine = json_array_get(tasks, k);
		const char *host = json_string_value(json_array_get(nodes, k)) ?: "";
		if (k) {
			strcat(hosts, ",");
			strcat(ppn_in, ";");
		}
		strcat(hosts, host);
		join_ids(ppn_in, plen, mine);
		for (size_t t = 0; t < json_array_size(mine); t++)
			add_proc(&l,
				 (uint32_t)json_integer_value(json_array_get(mine, t)),
				 (uint16_t)t, (uint32_t)k, host);
	}
	json_t *local = json_array_get(tasks, node_id);
	uint32_t nlocal = (uint32_t)json_array_size(local);
	join_ids(peers, plen, local);
	char *node_map = NULL, *proc_map = NULL;
	PMIx_generate_regex(hosts, &node_map);
	PMIx_generate_ppn(ppn_in, &proc_map);
	add_u32(&l, PMIX_UNIV_SIZE, (uint32_t)ntasks);
	add_u32(&l, PMIX_JOB_SIZE, (uint32_t)ntasks);
	add_u32(&l, PMIX_MAX_PROCS, (uint32_t)ntasks);
	add_u32(&l, PMIX_APP_SIZE, (uint32_t)ntasks);
	add_u32(&l, PMIX_APPNUM, 0);
	add_u32(&l, PMIX_NUM_NODES, (uint32_t)nn);
	add_u32(&l, PMIX_NODEID, node_id);
	add_u32(&l, PMIX_LOCAL_SIZE, nlocal);
	add_u32(&l, PMIX_NODE_SIZE, nlocal);
	add_str(&l, PMIX_JOBID, jobid);
	add_str(&l, PMIX_HOSTNAME,
		json_string_value(json_array_get(nodes, node_id)) ?: "");
	add_str(&l, PMIX_LOCAL_PEERS, peers);
	add_str(&l, PMIX_TMPDIR, p->tmpdir);
	if (nlocal) {
		pmix_info_t *i = next_info(&l);
		pmix_rank_t ldr =
		    (pmix_rank_t)json_integer_value(json_array_get(local, 0));
		if (i)
			PMIX_INFO_LOAD(i, PMIX_LOCALLDR, &ldr, PMIX_PROC_RANK);
	}
	add_regex(&l, PMIX_NODE_MAP, node_map);
	add_regex(&l, PMIX_PROC_MAP, proc_map);
	struct op_wait w = OP_WAIT_INIT;
	pmix_status_t rc =
	    op_finish(&w, PMIx_server_register_nspace(p->nspace, (int)nlocal, l.info, l.n,
						      op_done, &w));
	PMIX_INFO_FREE(l.info, l.cap);
	free(node_map);
	free(proc_map);
	free(hosts);
	free(ppn_in);
	free(peers);
	if (rc != PMIX_SUCCESS) {
		snprintf(err, errlen, "PMIx_server_register_nspace: %s",
			 PMIx_Error_string(rc));
		return -EIO;
	}
	return 0;
}

static int register_clients(struct pmixsrv *p, json_t *local, uid_t uid, gid_t gid,
			    char *err, size_t errlen)
{
	for (size_t t = 0; t < json_array_size(local); t++) {
		pmix_proc_t proc;
		PMIX_PROC_LOAD(&proc, p->nspace,
			       (pmix_rank_t)json_integer_value(json_array_get(local, t)));
		struct op_wait w = OP_WAIT_INIT;
		pmix_status_t rc = op_finish(
		    &w, PMIx_server_register_client(&proc, uid, gid, NULL, op_done, &w));
		if (rc != PMIX_SUCCESS) {
			snprintf(err, errlen, "PMIx_server_register_client: %s",
				 PMIx_Error_string(rc));
			return -EIO;
		}
	}
	return 0;
}

/* --- the step's side ----------------------------------------------------------- */

static int server_init(struct pmixsrv *p, char *err, size_t errlen)
{
	pmix_info_t *info;
	PMIX_INFO_CREATE(info, 2);
	PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, p->tmpdir, PMIX_STRING);
	PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, p->tmpdir, PMIX_STRING);
	pmix_status_t rc = PMIx_server_init(&module, info, 2);
	PMIX_INFO_FREE(info, 2);
	if (rc != PMIX_SUCCESS) {
		snprintf(err, errlen, "PMIx_server_init: %s", PMIx_Error_string(rc));
		return -EIO;
	}
	p->inited = true;
	return 0;
}

struct pmixsrv *pmixsrv_new(json_t *spec, const char *node, int64_t job_id,
			    int64_t step_id, uid_t uid, gid_t gid, char *err,
			    size_t errlen)
{
	struct pmixsrv *p = calloc(1, sizeof(*p));
	json_t *layout = NULL;
	if (!p)
		goto fail;
	p->pipe[0] = p->pipe[1] = -1;
	snprintf(p->nspace, sizeof(p->nspace), "drover.%lld.%lld", (long long)job_id,
		 (long long)step_id);
	/* under /tmp, not the step dir: the rendezvous socket's path must fit
	 * a sun_path, and the job's user must reach it */
	snprintf(p->tmpdir, sizeof(p->tmpdir), "/tmp/drover-pmix.%lld.%lld.XXXXXX",
		 (long long)job_id, (long long)step_id);
	if (!mkdtemp(p->tmpdir) || chown(p->tmpdir, uid, gid) < 0) {
		snprintf(err, errlen, "PMIx: cannot make %s: %s", p->tmpdir,
			 strerror(errno));
		p->tmpdir[0] = '\0';
		goto fail;
	}
	if (pipe2(p->pipe, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "PMIx: pipe: %s", strerror(errno));
		goto fail;
	}
	const char *text = json_string_value(json_object_get(spec, "mpi_layout"));
	layout = text ? json_loads(text, 0, NULL) : NULL;
	json_int_t node_id = json_integer_value(json_object_get(spec, "node_id"));
	char jobid[64];
	snprintf(jobid, sizeof(jobid), "%lld.%lld", (long long)job_id,
		 (long long)step_id);
	the_srv = p;
	if (server_init(p, err, errlen) < 0 ||
	    register_nspace(p, layout, (uint32_t)node_id, jobid, err, errlen) < 0 ||
	    register_clients(p, json_object_get(spec, "tasks"), uid, gid, err, errlen) <
		0)
		goto fail;
	json_decref(layout);
	(void)node;
	return p;
fail:
	json_decref(layout);
	if (!p)
		snprintf(err, errlen, "PMIx: out of memory");
	pmixsrv_free(p);
	return NULL;
}

char **pmixsrv_task_env(struct pmixsrv *p, uint32_t id)
{
	char **env = calloc(1, sizeof(*env));
	pmix_proc_t proc;
	PMIX_PROC_LOAD(&proc, p->nspace, id);
	if (env && PMIx_server_setup_fork(&proc, &env) != PMIX_SUCCESS) {
		env_free(env);
		return NULL;
	}
	return env;
}

void pmixsrv_set_pgid(struct pmixsrv *p, pid_t pgid)
{
	p->pgid = pgid;
}

int pmixsrv_fd(const struct pmixsrv *p)
{
	return p ? p->pipe[0] : -1;
}

static int send_up(struct pmixsrv *p, int sock)
{
	if (p->pending || !p->queue)
		return 0;
	p->pending = p->queue;
	p->queue = p->queue->next;
	if (p->pending->ndata > STEPIO_MAX_PAYLOAD)
		return -E2BIG;
	return stepio_send(sock, STEPIO_FENCE_UP, 0, p->pending->data,
			   (uint32_t)p->pending->ndata);
}

int pmixsrv_ready(struct pmixsrv *p, int sock)
{
	struct fence *f;
	if (read(p->pipe[0], &f, sizeof(f)) != (ssize_t)sizeof(f))
		return 0;
	if (!f)
		return 1;
	struct fence **tail = &p->queue;
	while (*tail)
		tail = &(*tail)->next;
	*tail = f;
	return send_up(p, sock);
}

static void release_merged(void *cbdata)
{
	free(cbdata);
}

int pmixsrv_fence_down(struct pmixsrv *p, int sock, const void *data, uint32_t len)
{
	struct fence *f = p->pending;
	if (!f)
		return 0;
	p->pending = NULL;
	/* libpmix wants the nodes' parts back to back */
	char *merged = malloc(len ? len : 1);
	size_t n = 0;
	const uint8_t *q = data, *end = q + len;
	while (merged && end - q >= 4) {
		uint32_t part = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 |
				(uint32_t)q[2] << 8 | q[3];
		q += 4;
		if ((size_t)(end - q) < part)
			break;
		memcpy(merged + n, q, part);
		n += part;
		q += part;
	}
	if (f->cbfunc) {
		if (merged)
			f->cbfunc(PMIX_SUCCESS, merged, n, f->cbdata, release_merged,
				  merged);
		else
			f->cbfunc(PMIX_ERR_NOMEM, NULL, 0, f->cbdata, NULL, NULL);
	} else {
		free(merged);
	}
	free(f->data);
	free(f);
	return send_up(p, sock);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	remove(path);
	return 0;
}

static void free_list(struct fence *f)
{
	while (f) {
		struct fence *next = f->next;
		free(f->data);
		free(f);
		f = next;
	}
}

void pmixsrv_free(struct pmixsrv *p)
{
	if (!p)
		return;
	if (p->inited) {
		PMIx_server_deregister_nspace(p->nspace, NULL, NULL);
		PMIx_server_finalize();
	}
	if (p->pipe[0] >= 0) {
		struct fence *f;
		fcntl(p->pipe[0], F_SETFL, O_NONBLOCK);
		while (read(p->pipe[0], &f, sizeof(f)) == (ssize_t)sizeof(f))
			free_list(f);
		close(p->pipe[0]);
		close(p->pipe[1]);
	}
	free_list(p->pending);
	free_list(p->queue);
	if (p->tmpdir[0])
		nftw(p->tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (the_srv == p)
		the_srv = NULL;
	free(p);
}
