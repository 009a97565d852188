/* sacctmgr.h — what sacctmgr's files share: the options, the request an
 * add/modify/delete builds (assoc.update's declared struct, whose strings
 * an arena owns), Slurm's word matching, and the entry points per verb.
 *
 * Files: sacctmgr.c (options, verbs, the prompt), sacctmgr_words.c (words
 * and values as Slurm's sacctmgr reads them; talking to ctld), sacctmgr_add.c,
 * sacctmgr_change.c (modify, delete), sacctmgr_list.c and
 * sacctmgr_fields.c (show/list). */
#ifndef DRV_CLI_SACCTMGR_H
#define DRV_CLI_SACCTMGR_H

#include <stdbool.h>
#include <stddef.h>

#include "cli/acct_tables.h"
#include "cli/fields.h"
#include "common/conf.h"
#include "common/proto_gen.h"

struct sm_opts {
	bool immediate; /* -i: commit without asking */
	bool noheader;	/* -n */
	bool assoc;	/* -s: withassoc */
	enum cli_fields_mode mode;
};

/* An update being built: m points into memory the arena owns. */
struct sm_req {
	struct drv_assoc_update m;
	void **arena;
	size_t n_arena;
	/* what the words set, as Slurm's sacctmgr tracks it for its output */
	bool cond_set;	/* a condition was given */
	bool rec_user;	/* an entity field was set (SA_SET_USER) */
	bool rec_assoc; /* an association field was set (SA_SET_ASSOC) */
	bool limit_set; /* the add's " Settings" block is printed */
	bool bad;	/* a word was refused (message printed) */
	bool in_qos;	/* reading a QOS's words: Slurm says less of bad ones */
	bool soft_bad;	/* a QOS count that is no number: Slurm leaves it unset
			 * (Drover refuses the command) */
};

void sm_req_init(struct sm_req *q, const char *action, const char *entity);
void sm_req_fini(struct sm_req *q);
char *sm_strdup(struct sm_req *q, const char *s); /* owned by the arena */
/* A value as Slurm's strip_quotes leaves it (lower-cased unless keep_case). */
char *sm_value(struct sm_req *q, const char *v, bool keep_case);
/* Appends a comma list's items to a list of the request (lower-cased
 * unless keep_case, quotes stripped, a repeat moved to the end as Slurm
 * does); returns how many it added. */
size_t sm_list_add(struct sm_req *q, const char ***v, size_t *n, bool *given,
		   const char *csv, bool keep_case);

/* Slurm's keyword match: word's first max(klen, min) bytes against name,
 * in any case (klen: the length before '=', or of the whole word). */
bool sm_kw(const char *word, size_t klen, const char *name, size_t min);

/* One word split as Slurm's parse_option_end does: key length, operator
 * ('+' or '-' before '=', else 0) and value (NULL: no '='). */
struct sm_word {
	const char *word;
	size_t klen;
	char op;
	const char *value;
};
void sm_word_split(const char *word, struct sm_word *w);

/* An association or QOS field of a word into the request's change, with
 * Slurm's messages on a bad value (then q->bad). Returns true when the
 * word named such a field. t: the tables (QOS names). */
bool sm_set_assoc_rec(struct sm_req *q, const struct sm_word *w,
		      const struct cli_acct *t);
bool sm_set_qos_rec(struct sm_req *q, const struct sm_word *w, const struct cli_acct *t);
/* A word no rule knows: q->bad, and Slurm's " Unknown option" lines on
 * stderr (none while reading a QOS's words: Slurm prints only the value's
 * error then). */
void sm_unknown_option(struct sm_req *q, const struct sm_word *w);
/* An association condition (Accounts=, Clusters=, Partitions=, Parents=,
 * Users=) into the request's cond. */
bool sm_set_assoc_cond(struct sm_req *q, const struct sm_word *w);

/* Reads the config and ctld's tables into *t (free with cli_acct_fini);
 * *conf, when conf is not NULL, gets the config (free with
 * drv_conf_free). 0; or 1 after saying why: the config's error, or
 * problem (followed by ctld's reason when with_reason) when the tables
 * could not be had. */
int sm_load_tables(struct cli_acct *t, struct drv_conf **conf, const char *problem,
		   bool with_reason);
/* The request sent: assoc.update; *reply decoded (free with
 * drv_assoc_update_reply_free, then json_decref(*json)). 0, or 1 after
 * printing why it failed. */
int sm_send(const struct drv_conf *conf, struct sm_req *q, bool dry_run,
	    struct drv_assoc_update_reply *reply, json_t **json);
/* Prints what a dry run's (or -i's) reply says will change; returns
 * whether anything will (then sacctmgr asks), *failed (false on entry)
 * when Slurm exits 1 all the same. arg: the verb's. */
typedef bool (*sm_show_f)(const struct sm_req *q, const struct drv_assoc_update_reply *r,
			  const void *arg, bool *failed);
/* Sends q (a dry run unless -i), prints ctld's refusal or what show
 * prints, asks (not with -i) and commits. The exit code. */
int sm_run(const struct sm_opts *o, struct sm_req *q, sm_show_f show, const void *arg);
/* Slurm's commit question; true on y/Y. Prints " Changes Discarded"
 * otherwise (or "timeout" and it after 30 s). */
bool sm_commit_check(const char *warning);
/* The same question without the " Changes Discarded" line. */
bool sm_ask(const char *warning);

/* Per verb; each returns the exit code. */
int sm_add(const struct sm_opts *o, int argc, char **argv);
int sm_modify(const struct sm_opts *o, int argc, char **argv);
int sm_delete(const struct sm_opts *o, int argc, char **argv);
int sm_list(const struct sm_opts *o, int argc, char **argv);

/* Prints an add's " Settings" lines for the limits q sets (Slurm's
 * sacctmgr_print_assoc_limits / _print_qos_limits). */
void sm_print_assoc_limits(const struct sm_req *q);
void sm_print_qos_limits(const struct sm_req *q);

#endif
