/* sched_internal.h — what the files of src/sched share and nobody else sees:
 * the arena, the resource-time profile, request shapes and the pass.
 *
 * Times: the profile works in absolute seconds (int64_t, as the snapshot);
 * a shape's search works in seconds after snapshot.now (uint32_t, REL_INF
 * for "never within the window"). A job may start at now or at a point of
 * the bf_resolution grid (absolute multiples of it); ends are rounded up to
 * the grid before they become candidate start times. */
#ifndef DRV_SCHED_INTERNAL_H
#define DRV_SCHED_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sched/sched.h"

#define REL_INF UINT32_MAX
#define POS_NONE UINT32_MAX

/* --- arena.c: bump allocation, everything freed at once ------------------- */

struct arena_chunk;
struct arena {
	struct arena_chunk *head;
};

/* n bytes aligned to 16, zeroed; NULL on ENOMEM. Owned by the arena. */
void *arena_alloc(struct arena *a, size_t n);
void arena_free(struct arena *a); /* frees every chunk; a is zeroed */

/* --- steps.c: an amount in use over time ----------------------------------- */

struct step {
	int64_t t;     /* from t to the next step's t */
	uint64_t used; /* in use */
};

struct steps {
	struct step *s; /* s[0].t is INT64_MIN; sorted by t; NULL: nothing yet */
	uint32_t n, cap;
	bool borrowed; /* s is in an arena: copied out when it grows */
};

int steps_init(struct steps *s); /* 0 or -ENOMEM */
void steps_fini(struct steps *s);
/* amount more in use over [start, end): 0 or -ENOMEM */
int steps_add(struct steps *s, int64_t start, int64_t end, uint64_t amount);
/* The most in use at one instant of [t, end). */
uint64_t steps_max(const struct steps *s, int64_t t, int64_t end);

/* What a node holds over time: memory, the CPUs held alone and the GPU
 * devices held, in one array so that one scan sees them all. */
struct nstep {
	int64_t t; /* from t to the next step's t */
	uint64_t mem;
	uint32_t cpus, gpus;
};

struct nsteps {
	struct nstep *s; /* s[0].t is INT64_MIN; sorted by t; NULL: nothing yet */
	uint32_t n, cap;
	bool borrowed; /* s is in an arena: copied out when it grows */
};

int nsteps_init(struct nsteps *s); /* 0 or -ENOMEM */
void nsteps_fini(struct nsteps *s);
/* these amounts more in use over [start, end): 0 or -ENOMEM */
int nsteps_add(struct nsteps *s, int64_t start, int64_t end, uint64_t mem, uint32_t cpus,
	       uint32_t gpus);
uint32_t nsteps_at(const struct nsteps *s, int64_t t); /* the step holding t */
/* The most memory in use at one instant of [t, end). */
uint64_t nsteps_max_mem(const struct nsteps *s, int64_t t, int64_t end);

/* --- profile.c: free resources per node and per license over time --------- */

/* One job's hold on one node over [start, end). */
struct resv {
	int64_t start, end;
	uint64_t cpus64; /* cpu_ids' first word, kept here (prof_add): most
			  * nodes have no more CPUs, and a window check then
			  * reads nothing but the node's array */
	uint64_t gpus64; /* bit d: it holds units of device d (d < 64) */
	uint64_t mem;
	const uint64_t *cpu_ids;   /* SCHED_WORDS(n_cpus) words; borrowed */
	const uint32_t *gpu_units; /* per device, or NULL; borrowed */
	uint32_t cpus;
	uint32_t part;	    /* its partition, or SCHED_NONE */
	uint32_t share_max; /* sharing: jobs its CPUs may hold at once, itself too */
	uint32_t version;   /* the node's version once it was added */
	bool shares;	    /* its CPUs may be shared (OverSubscribe=YES -s, FORCE) */
	bool excl;	    /* it holds the whole node */
};

/* One reservation added to a node by the pass, as prof_added sums it. */
struct added {
	int64_t start, end;
	uint32_t cpus, mem, gpus;
	bool excl;
};

struct node_prof {
	struct resv *r; /* sorted by end */
	uint32_t n, cap;
	bool r_borrowed;	     /* r is in the profile's arena */
	uint32_t version;	     /* bumped by every change; starts at 1 */
	struct nsteps use;	     /* memory, CPUs and GPU devices over time */
	uint32_t cpus_now, gpus_now; /* held at now (CPUs: alone) */
	bool overbooked;	     /* two holders of a CPU or device at once
				      * (prof_add): its counts are no bound */
	uint64_t mem_now;
	int64_t first_end;	 /* the earliest end of what it holds; INT64_MAX */
	struct steps *part_cpus; /* per partition with MaxCPUsPerNode (mcpn_slot) */
	struct added *log;	 /* log[v - 2]: what version v added (prof_add) */
	uint32_t n_log, cap_log;
};

/* Where the last step over [t, end) that leaves less than need of total
 * ends (INT64_MAX: never), or INT64_MIN when none: a window of need must
 * start after it. */
int64_t steps_last_block(const struct steps *s, uint64_t total, uint64_t need, int64_t t,
			 int64_t end);

struct prof {
	const struct sched_node *nodes;
	uint32_t n_nodes;
	const struct sched_license *lics;
	uint32_t n_lics;
	const struct sched_part *parts;
	uint32_t n_parts;
	int64_t now, res, window; /* window: the last start is now + window */
	struct node_prof *np;
	struct steps *lp;    /* per license */
	uint32_t *mcpn_slot; /* per partition: its index among those with a
			      * MaxCPUsPerNode, or UINT32_MAX */
	uint32_t n_mcpn;
	uint64_t *slots; /* candidate start times that some end made: bit 0 is
			  * now, bit j >= 1 is g1 + (j - 1) * res */
	uint32_t n_slots;
	int64_t g1;	     /* the first grid point after now */
	uint16_t *cpu_count; /* scratch: 3 x per CPU */
	struct arena arena;  /* the first arrays of what runs */
	uint32_t max_words, max_gpus;
};

/* How one job looks at a node's reservations. */
struct job_view {
	uint32_t part;	    /* its partition */
	uint32_t part_mcpn; /* the partition's MaxCPUsPerNode; 0: none */
	uint32_t share_max; /* jobs a CPU it takes may hold, itself included */
	bool shares, excl;
};

/* How a job of part asking (or not) --exclusive and -s looks at nodes:
 * whole nodes in an EXCLUSIVE partition or with --exclusive; CPUs shared
 * in a FORCE partition, or a YES one when asked. part may be SCHED_NONE. */
void prof_view(const struct sched_snapshot *s, uint32_t part, bool exclusive,
	       bool oversubscribe, struct job_view *v);

/* What a node has free for a job over a window. */
struct node_free {
	uint32_t n_cpus;    /* usable CPU ids: the bits set in cpu_free */
	uint64_t mem;	    /* MiB; UINT64_MAX when the node does not track it */
	uint32_t part_room; /* CPUs the job's partition may still take; or MAX */
	bool busy;	    /* some reservation overlaps the window */
	bool blocked;	    /* an exclusive reservation overlaps it */
};

/* Builds the profile of snap's running jobs (and nothing else when idle:
 * every node empty). 0, -EINVAL when a running job holds what the node
 * does not have, -ENOMEM. p is the caller's; prof_fini frees it. */
int prof_init(struct prof *p, const struct sched_snapshot *snap, int64_t res,
	      int64_t window, bool idle);
void prof_fini(struct prof *p);

/* r's cpus64 and gpus64 from its arrays. */
void resv_masks(const struct sched_node *n, struct resv *r);
/* Adds r (copied, with its masks; its arrays stay borrowed) to node; 0 or
 * -ENOMEM. */
int prof_add(struct prof *p, uint32_t node, const struct resv *r);
/* The same for a plan honoured from a snapshot, which may hold what was
 * taken since it was made (a job above it started on its CPUs): the node
 * is then marked overbooked (its counts are no bound). What a pass gives
 * itself was chosen among what is free and is added with prof_add. */
int prof_add_plan(struct prof *p, uint32_t node, const struct resv *r);
/* Adds licenses held over [start, end); 0 or -ENOMEM. */
int prof_add_lics(struct prof *p, const struct sched_lic_req *l, uint32_t n,
		  int64_t start, int64_t end);

/* What node has free for a job seen as v over [t, t + len): cpu_free
 * (max_words words) and gpu_busy (max_gpus bytes) are the caller's. */
void prof_window(struct prof *p, uint32_t node, int64_t t, int64_t len,
		 const struct job_view *v, uint64_t *cpu_free, uint8_t *gpu_busy,
		 struct node_free *out);

/* The earliest candidate time >= t (absolute) at which every license of l
 * is free over [t', t' + len); INT64_MAX when none within the window. */
int64_t prof_lics_earliest(const struct prof *p, const struct sched_lic_req *l,
			   uint32_t n, int64_t t, int64_t len);

/* The end e as a candidate start time: now when e <= now, else e rounded up
 * to the grid. */
int64_t prof_quant(const struct prof *p, int64_t e);
/* What a node has beyond what a job needs of it: when what is added
 * since takes no more than this, the job still fits there. */
struct spare {
	uint32_t cpus, gpus, mem; /* mem: MiB, UINT32_MAX when not tracked */
};

/* What a job needs of one node at least, for prof_earliest_counts. */
struct node_need {
	uint32_t cpus, gpus;
	uint64_t mem;
};

/* The earliest time >= t at which node has, by count, need free over
 * [t', t' + len) (CPUs held, memory, GPU devices, the partition's CPUs
 * under MaxCPUsPerNode): a lower bound of when a job can fit there that
 * ignores which CPU ids and devices are free, unless the node is
 * overbooked (then t). INT64_MAX: not within the window. */
int64_t prof_earliest_counts(const struct prof *p, uint32_t node, int64_t t, int64_t len,
			     const struct job_view *v, const struct node_need *need);
/* A cheap lower bound of when a job needing need can fit on node, in
 * seconds after now: 0 when its counts allow it now, else its first end,
 * or REL_INF beyond the window. */
uint32_t prof_bound_now(const struct prof *p, uint32_t node,
			const struct node_need *need);
/* What was added to node since version over [t, t + len): CPUs, memory
 * and GPU devices, summed into *added (excl: something exclusive). */
void prof_added(const struct prof *p, uint32_t node, uint32_t version, int64_t t,
		int64_t len, struct spare *added, uint32_t *count, bool *excl);
/* The first end on node after t, as a candidate time; or INT64_MAX. */
int64_t prof_next_end(const struct prof *p, uint32_t node, int64_t t);
/* The next candidate time after t that some reservation's end made; or
 * INT64_MAX when none is left within the window. */
int64_t prof_next_event(const struct prof *p, int64_t t);

int64_t add_sat(int64_t t, int64_t len); /* t + len, INT64_MAX at most */

/* profile_build.c: adds what snap's running jobs hold to the empty p and
 * checks it fits their nodes: 0, -EINVAL, -ENOMEM. */
int prof_build_running(struct prof *p, const struct sched_snapshot *snap);
/* Makes the end's candidate time one a search tries (profile.c). */
void prof_mark_end(struct prof *p, int64_t end);

/* Without -mpopcnt, __builtin_popcountll is a call into libgcc. */
static inline uint32_t sched_popcount64(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (uint32_t)((x * 0x0101010101010101ULL) >> 56);
}

/* --- mintree.c: a min tree of 16 children per node ------------------------- */

#define MINTREE_LEVELS 8

struct mintree {
	uint32_t n, levels;
	int32_t *lv[MINTREE_LEVELS]; /* lv[0]: the values as keys (mintree.c);
				      * lv[l + 1][i]: the least of lv[l][16 i ..
				      * 16 i + 15]; one allocation */
	uint32_t len[MINTREE_LEVELS];
};

/* n values, all REL_INF: 0 or -ENOMEM. mintree_fill writes values without
 * updating the levels above, mintree_rebuild then does it at once.
 * mintree_fini frees it. */
int mintree_init(struct mintree *t, uint32_t n);
void mintree_rebuild(struct mintree *t);
void mintree_fini(struct mintree *t);
/* Each value i raised to v[i] where that is more, then rebuilt. */
void mintree_raise_all(struct mintree *t, const uint32_t *v);

static inline int32_t mintree_key(uint32_t v) /* signed order = unsigned order */
{
	return (int32_t)(v ^ 0x80000000u);
}

static inline void mintree_fill(struct mintree *t, uint32_t i, uint32_t v)
{
	t->lv[0][i] = mintree_key(v);
}

static inline uint32_t mintree_get(const struct mintree *t, uint32_t i)
{
	return (uint32_t)t->lv[0][i] ^ 0x80000000u;
}

void mintree_set(struct mintree *t, uint32_t i, uint32_t v);
/* The levels above value i after mintree_fill changed values of its block
 * of 16 (a search may write several, then mend once). */
void mintree_mend(struct mintree *t, uint32_t i);
uint32_t mintree_min(const struct mintree *t);
/* The first i >= from whose value is <= x, or POS_NONE. */
uint32_t mintree_first_le(const struct mintree *t, uint32_t from, uint32_t x);
/* The least value above x, or REL_INF. */
uint32_t mintree_min_above(const struct mintree *t, uint32_t x);

/* --- shapes (shape.c) and placement (place.c) ------------------------------ */

struct pass;

/* What every job of one shape asks for: jobs of one shape fit the same
 * nodes at the same times, so the earliest time a shape fits only moves
 * later as the pass gives resources away. */
struct shape {
	uint32_t part;
	int64_t len; /* the time limit it runs with */
	const struct sched_req *req;
	const struct sched_lic_req *lics;
	uint32_t n_lics;
	uint64_t hash;
	struct shape *next; /* in the pass's hash table */
	struct job_view view;
	uint32_t cpt;	       /* CPUs per task */
	uint32_t gpus_node;    /* GPUs each node must give */
	uint32_t node_min;     /* tasks a node must take to be of use: all of
				* them when the job has one node, else 1 */
	uint32_t lc;	       /* its leaf class (leafcache.c) */
	uint64_t seen;	       /* the class's learnt at its last refresh */
	bool generic;	       /* -w or a -C count: nodes outside the order first */
	int fits;	       /* sched_fits_config: -1 unknown, 0 yes, -ENOSPC */
	uint32_t lb;	       /* no job of the shape fits before now + lb */
	uint32_t m;	       /* partition nodes */
	bool has_tree;	       /* else nodes are scanned in order */
	struct mintree tree;   /* a lower bound of each node's earliest fit, in
				* seconds after now (node order[i] at i); what
				* was seen to fit is its leaf class's to say */
	const uint32_t *order; /* the partition's nodes by (weight, position) */
};

/* What one node gives a job. */
struct pick {
	uint32_t node, cap, tasks;
};

/* The shape of jobs of j in partition part running for len: 0 and *out, or
 * -ENOMEM. Owned by the pass. */
int shape_get(struct pass *c, const struct sched_pending *j, uint32_t part, int64_t len,
	      struct shape **out);
/* A shape that scans nodes in order without a tree (for probes). */
void shape_init_linear(struct pass *c, struct shape *s, const struct sched_pending *j,
		       uint32_t part, int64_t len);

/* The earliest time (seconds after now, <= tmax) at which a job of s fits,
 * with its nodes in picks[0..*n); REL_INF when none. -ENOMEM as REL_INF
 * with c->err set. */
uint32_t shape_earliest(struct pass *c, struct shape *s, uint32_t tmax,
			struct pick *picks, uint32_t *n);
/* The first position >= from of a node of s that fits at now + t; POS_NONE.
 * With a tree, *cap (when not NULL) is the tasks it takes then. */
uint32_t shape_next(struct pass *c, struct shape *s, uint32_t t, uint32_t from,
		    uint32_t *cap);
/* Could a job of s ever run, all nodes up and idle? 0 or -ENOSPC (cached). */
int shape_fits_config(struct pass *c, struct shape *s);

/* Tasks node can take for a job of s over [t, t + s->len); 0: none.
 * spare (may be NULL): what it has beyond the job's need of it then. */
uint32_t place_node_cap(struct pass *c, const struct shape *s, uint32_t node, int64_t t,
			struct spare *spare);
/* Node's fixed properties against -x, -C (alternative alt; -1 none, -2 any),
 * --tmp, --mincpus, and whether it is up. */
bool place_node_allowed(const struct pass *c, const struct shape *s, uint32_t node,
			int alt);
/* What node must have free, at least, for a job of s. */
void place_node_need(const struct pass *c, const struct shape *s, uint32_t node,
		     struct node_need *need);
/* Tasks a node must take for a job of s to be of use (struct shape). */
uint32_t place_node_min(const struct pass *c, const struct shape *s);
/* Chooses nodes for a job of s at now + t; fills picks; the node count or 0. */
uint32_t place_choose(struct pass *c, struct shape *s, uint32_t t, struct pick *picks);
/* What picks[i] gives at start over [start, start + s->len): writes a's
 * fields, its cpu_ids and gpu_units from the result's pool. 0 or -ENOMEM. */
int place_fill(struct pass *c, const struct shape *s, const struct pick *picks,
	       uint32_t n, int64_t start, struct sched_alloc *a);
/* Which TRES a job of s lacks now (bits 1 << SCHED_TRES_*). */
uint32_t place_lacks(struct pass *c, const struct shape *s);

/* --- leafcache.c: node checks shared by shapes of one leaf class ----------- */

/* What one node was seen to give a leaf class: from `from` on, it does not
 * fit before `at`; fits: it fits at `at`, taking cap tasks (0: not known)
 * with what the class keeps as its spare beyond the need, as of the
 * node's version. 16 bytes: a class keeps one per node of its partition,
 * and they are read far more often than the spare. */
struct leaf_entry {
	uint32_t from, at, version;
	uint16_t cap;
	uint8_t state; /* LEAF_EMPTY, LEAF_BOUND, LEAF_FITS */
};

enum { LEAF_EMPTY, LEAF_BOUND, LEAF_FITS };

struct leaf_class;

/* Finds or makes s's leaf class (s->lc): 0 or -ENOMEM. */
int leaf_class_of(struct pass *c, struct shape *s);
/* What the node at position pos of s's order is known to give s's class
 * at now + t: t when it fits then (*cap: the tasks it takes, 0 when not
 * known), a later time before which it does not fit, or REL_INF - 1 when
 * nothing is known (the caller checks). */
#define LEAF_UNKNOWN (REL_INF - 1)
uint32_t leaf_cache_ask(struct pass *c, const struct shape *s, uint32_t pos, uint32_t t,
			uint32_t *cap);
/* Remembers what the node at pos was seen to give s's class from t on
 * (spare: when it fits). */
/* Starts bringing what the class knows of the node at pos into the cache
 * (a search asks it next). */
void leaf_cache_prefetch(const struct pass *c, const struct shape *s, uint32_t pos);
void leaf_cache_put(struct pass *c, const struct shape *s, uint32_t pos,
		    const struct leaf_entry *e, const struct spare *spare);
/* The first leaves of a new tree of s's class, made by the first shape of
 * the class without -x, --tmp or -C and copied by the others; NULL. They
 * are bounds from now: a walk that finds the node cannot serve the class
 * anywhere in [now, at) raises its first leaf to at (leaf_class_learn), so
 * that the shapes made later start from what the class knows, and once
 * every first leaf is REL_INF no shape of the class fits within the window
 * (leaf_class_never). */
uint32_t *leaf_class_first(struct pass *c, const struct shape *s);
void leaf_class_learn(struct pass *c, const struct shape *s, uint32_t pos, uint32_t at);
/* The node at pos does not serve s's class before now + this (0: not known). */
uint32_t leaf_class_bound(const struct pass *c, const struct shape *s, uint32_t pos);
/* The same, as classes weaker than s's know it (what they cannot have,
 * s's class cannot either). */
uint32_t leaf_class_weaker_bound(const struct pass *c, const struct shape *s,
				 uint32_t pos);
/* Does s's class keep bounds from now (leaf_class_first made them)? */
bool leaf_class_bound_kept(const struct pass *c, const struct shape *s);
bool leaf_class_never(const struct pass *c, const struct shape *s);
/* s's tree takes its class's bounds from now when they grew much since. */
void leaf_refresh(struct pass *c, struct shape *s);
void leaf_classes_free(struct pass *c);

/* --- limits.c: association and QOS limits ---------------------------------- */

struct lim_use {
	uint32_t jobs;
	uint64_t tres[SCHED_TRES_COUNT];
};

struct lim_user {
	uint32_t qos, uid; /* SCHED_NONE qos: an empty slot */
	struct lim_use use;
};

struct limits {
	const struct sched_snapshot *snap;
	bool on_assoc, on_qos;
	struct lim_use *qos;	/* n_qos */
	struct lim_use *sub;	/* n_assocs: the subtree's running jobs */
	uint32_t *own;		/* n_assocs: the association's own jobs */
	struct lim_user *users; /* open addressing by (qos, uid) */
	uint32_t users_mask, n_users;
	bool *qos_counted;	/* n_qos: a limit of it reads what is counted */
	uint8_t (*qos_sets)[3]; /* n_qos: per kind (Grp, per user, per job),
				 * bit k when TRES k is limited */
	bool assoc_grp;		/* some association has a Grp* limit */
};

int limits_init(struct limits *l, const struct sched_snapshot *snap);
void limits_fini(struct limits *l);
/* Why j may not start in part with tres now, or SCHED_R_NONE. */
enum sched_reason limits_check(const struct limits *l, const struct sched_pending *j,
			       uint32_t part, const struct sched_tres_vec *tres);
/* Counts a job started in part with tres: 0 or -ENOMEM. */
int limits_add(struct limits *l, uint32_t qos, uint32_t assoc, uint32_t uid,
	       uint32_t part, const struct sched_tres_vec *tres);
/* What a request asks for before placement (the TRES its limits see). */
void limits_req_tres(const struct sched_req *r, struct sched_tres_vec *out);
/* What an allocation holds. */
void limits_alloc_tres(const struct sched_snapshot *snap, const struct sched_alloc *a,
		       uint32_t n, struct sched_tres_vec *out);

/* --- the pass (pass.c, decide.c) ------------------------------------------------ */

/* Job ids (or uids) to numbers, open addressing; UINT32_MAX keys are free. */
struct idmap {
	uint32_t *keys, *vals; /* one allocation: keys */
	uint32_t mask, n;
};

int idmap_init(struct idmap *m, uint32_t n); /* room for n keys; 0 or -ENOMEM */
uint32_t *idmap_slot(struct idmap *m, uint32_t key, bool make);

/* A candidate partition of the job being decided. */
struct cand {
	uint32_t part;
	struct shape *s;
};

struct pass {
	const struct sched_snapshot *snap;
	const struct sched_params *par;
	bool backfill;
	bool idle;	/* sched_fits_config: every node up and empty */
	bool reference; /* sched_run_reference: the plainest search */
	int err;	/* -ENOMEM met on the way */
	struct arena arena;
	struct prof prof;
	const uint32_t **order; /* per partition: its nodes by (weight, position) */
	struct shape **shapes;	/* hash table */
	uint32_t shapes_mask, n_shapes;
	struct limits lim;
	uint64_t *cpu_free; /* scratch: prof.max_words */
	uint8_t *gpu_busy;  /* scratch: prof.max_gpus */
	uint32_t max_part_nodes;
	struct pick *picks, *best; /* scratch: max_part_nodes each */
	struct pass *idle_pass;	   /* for sched_fits_config's questions */
	bool *waiting;		   /* per partition: a job tried before waits */
	bool *blocked;		   /* QUICK, per partition: one waits, unplanned */
	struct cand *cands;	   /* scratch: the candidates of one job */
	uint32_t cap_cands;
	struct idmap user_seen;		/* bf_max_job_user: jobs tried per uid */
	struct leaf_class **classes;	/* 1024 buckets */
	struct leaf_class **class_list; /* by id */
	uint32_t n_classes, cap_classes;
	struct sched_result *res;
	struct arena *pool; /* the result's */
};

/* Builds what placement needs (node order, scratch, the profile of what
 * runs, limits) for a pass of par over snap in c; 0, -EINVAL (see
 * prof_init), -ENOMEM. pass_release frees it (also after a failure). */
int pass_prepare(struct pass *c, const struct sched_snapshot *snap,
		 const struct sched_params *par);
/* c->idle_pass: the same nodes, all up and empty; 0 or -ENOMEM. */
int pass_prepare_idle(struct pass *c);
void pass_release(struct pass *c);
/* Runs the pass prepared in c into c->res: 0 or -ENOMEM. */
int pass_run(struct pass *c);
/* Keeps pl's resources for its job: 0 or -ENOMEM. */
int pass_honour_plan(struct pass *c, const struct sched_plan *pl,
		     const struct sched_req *req);
/* Decides pending job idx into c->res; *waits when some of it waits (its
 *plan, if any, is then to be honoured). plan: its last plan (QUICK echoes
 * it). 0, -EINVAL (its request is malformed), -ENOMEM. */
int decide_job(struct pass *c, uint32_t idx, const struct sched_plan *plan, bool *waits);

/* sched.c: 0 or -EINVAL. The snapshot's frame, what runs and what ordering
 * reads of each pending job; the rest of a job when the pass decides it
 * and a plan when the pass honours it. */
int sched_check_snapshot(const struct sched_snapshot *s, const struct sched_params *p);
int sched_check_order(const struct sched_snapshot *s, const struct sched_pending *j);
int sched_check_job(const struct sched_snapshot *s, const struct sched_pending *j);
int sched_check_plan(const struct sched_snapshot *s, const struct sched_plan *pl);

#endif
