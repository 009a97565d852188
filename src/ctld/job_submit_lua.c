/* job_submit_lua.c — the Lua state of JobSubmitPlugins=lua: loading and
 * reloading job_submit.lua, the limits every run is held to, the slurm
 * table, the job_desc proxy, and calling slurm_job_submit and
 * slurm_job_modify. What the descriptor's fields mean is job_desc.c's;
 * what ctld does with the outcome is job_policy.c's. */
#include "ctld/job_submit_lua.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/timefmt.h"
#include "ctld/job_submit_lua_args.h"
#include "ctld/slurm_errtab.h"

#define HOOK_EVERY 1000 /* instructions between two looks at the count */

/* One Lua state's bounds; the allocator's userdata, so that the count
 * hook finds it with lua_getallocf. Outlives its state. */
struct vm {
	size_t mem_used, mem_limit;
	uint64_t steps, step_limit;
};

/* The file as last seen: a new inode, size or time is a new version. */
struct version {
	int err; /* stat's errno, 0 when the file was there */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

struct job_submit_lua {
	char *path, *cluster_name;
	lua_State *L; /* NULL while no working script is loaded */
	struct vm *vm;
	struct version seen;
	bool tried;
	char why[sizeof(((struct drv_error *)0)->text)]; /* "" when loaded */
	/* the call in progress: the proxy of another call is dead */
	uint64_t gen;
	struct jd_doc *desc;
	bool modify;
	char *user_msg;
};

/* --- limits ------------------------------------------------------------ */

static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct vm *vm = ud;
	if (!ptr)
		osize = 0; /* then it is the kind of object, not a size */
	if (nsize == 0) {
		free(ptr);
		vm->mem_used -= osize;
		return NULL;
	}
	if (nsize > osize && vm->mem_used + (nsize - osize) > vm->mem_limit)
		return NULL; /* Lua raises "not enough memory" */
	void *q = realloc(ptr, nsize);
	if (q)
		vm->mem_used = vm->mem_used - osize + nsize;
	return q;
}

/* Every HOOK_EVERY instructions: a run past its count ends with an error
 * that names where it was. */
static void count_hook(lua_State *L, lua_Debug *ar)
{
	void *ud;
	lua_getallocf(L, &ud);
	struct vm *vm = ud;
	vm->steps += HOOK_EVERY;
	if (vm->steps <= vm->step_limit)
		return;
	lua_Debug here;
	if (lua_getstack(L, 0, &here) && lua_getinfo(L, "Sl", &here) &&
	    here.currentline > 0)
		lua_pushfstring(L, "%s:%d: ", here.short_src, here.currentline);
	else
		lua_pushliteral(L, "");
	lua_pushfstring(L, "ran past its limit of %I Lua instructions",
			(lua_Integer)vm->step_limit);
	lua_concat(L, 2);
	lua_error(L);
}

static int refuse_call(lua_State *L)
{
	return luaL_error(L, "%s is not allowed in job_submit.lua",
			  lua_tostring(L, lua_upvalueindex(1)));
}

/* What would stop ctld or lift the limits: os.exit and debug.sethook. */
static void sandbox(lua_State *L)
{
	static const char *const denied[][2] = {{"os", "exit"}, {"debug", "sethook"}};
	for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++) {
		lua_getglobal(L, denied[i][0]);
		if (lua_istable(L, -1)) {
			lua_pushfstring(L, "%s.%s", denied[i][0], denied[i][1]);
			lua_pushcclosure(L, refuse_call, 1);
			lua_setfield(L, -2, denied[i][1]);
		}
		lua_pop(L, 1);
	}
}

/* --- the slurm table ---------------------------------------------------- */

static struct job_submit_lua *plugin_of(lua_State *L)
{
	return lua_touserdata(L, lua_upvalueindex(1));
}

/* string.format(...) of the arguments from index first on, as Slurm's
 * log_* wrappers do; leaves the text on the stack. */
static const char *format_args(lua_State *L, int first)
{
	int n = lua_gettop(L) - first + 1;
	if (n <= 0) {
		lua_pushliteral(L, "");
		return "";
	}
	lua_getfield(L, LUA_REGISTRYINDEX, "drover.format");
	lua_insert(L, first);
	lua_call(L, n, 1);
	return luaL_tolstring(L, -1, NULL);
}

static void log_at(int level, const char *msg)
{
	if (level < 0)
		log_error("lua: %s", msg);
	else if (level == 0)
		log_info("lua: %s", msg);
	else
		log_debug("lua: %s", msg);
}

static int l_log(lua_State *L) /* slurm.log(level, msg) */
{
	log_at((int)luaL_optinteger(L, 1, 0), luaL_optstring(L, 2, ""));
	return 0;
}

static int l_error(lua_State *L) /* slurm.error(msg) */
{
	log_at(-1, luaL_optstring(L, 1, ""));
	return 0;
}

/* slurm.log_info(fmt, ...) and friends: the level is the upvalue. */
static int l_log_fmt(lua_State *L)
{
	int level = (int)lua_tointeger(L, lua_upvalueindex(1));
	log_at(level, format_args(L, 1));
	return 0;
}

/* Mends text in place into what a JSON string may carry: a byte that
 * starts no valid UTF-8 sequence becomes '?'. */
static void utf8_mend(char *text)
{
	unsigned char *s = (unsigned char *)text;
	while (*s) {
		size_t n = s[0] < 0x80	 ? 1
			   : s[0] < 0xc2 ? 0
			   : s[0] < 0xe0 ? 2
			   : s[0] < 0xf0 ? 3
			   : s[0] < 0xf5 ? 4
					 : 0;
		bool ok = n > 0;
		for (size_t k = 1; ok && k < n; k++)
			ok = (s[k] & 0xc0) == 0x80;
		if (ok && n == 3) /* no overlong forms, no surrogates */
			ok = !(s[0] == 0xe0 && s[1] < 0xa0) &&
			     !(s[0] == 0xed && s[1] >= 0xa0);
		if (ok && n == 4)
			ok = !(s[0] == 0xf0 && s[1] < 0x90) &&
			     !(s[0] == 0xf4 && s[1] >= 0x90);
		if (!ok)
			*s++ = '?';
		else
			s += n;
	}
}

/* A copy of text, mended, cut at a character boundary to JSL_USER_MSG_MAX
 * bytes. NULL on ENOMEM. */
static char *user_text(const char *text)
{
	size_t len = strlen(text);
	if (len > JSL_USER_MSG_MAX) {
		len = JSL_USER_MSG_MAX;
		while (len && ((unsigned char)text[len] & 0xc0) == 0x80)
			len--;
	}
	char *s = strndup(text, len);
	if (s)
		utf8_mend(s);
	return s;
}

static void add_user_msg(struct job_submit_lua *p, const char *msg)
{
	char *joined = NULL;
	if (p->user_msg && asprintf(&joined, "%s\n%s", p->user_msg, msg) < 0)
		return;
	char *text = user_text(joined ? joined : msg);
	free(joined);
	if (!text)
		return;
	free(p->user_msg);
	p->user_msg = text;
}

static int l_user_msg(lua_State *L) /* slurm.user_msg(msg) */
{
	add_user_msg(plugin_of(L), luaL_optstring(L, 1, ""));
	return 0;
}

static int l_log_user(lua_State *L) /* slurm.log_user(fmt, ...) */
{
	add_user_msg(plugin_of(L), format_args(L, 1));
	return 0;
}

static int l_print(lua_State *L) /* print(...): into ctld's log */
{
	luaL_Buffer b;
	int n = lua_gettop(L);
	luaL_buffinit(L, &b);
	for (int i = 1; i <= n; i++) {
		if (i > 1)
			luaL_addchar(&b, '\t');
		luaL_tolstring(L, i, NULL);
		luaL_addvalue(&b);
	}
	luaL_pushresult(&b);
	log_at(0, lua_tostring(L, -1));
	return 0;
}

/* slurm.time_str2mins("1-00:00:00"): minutes, rounded up; INFINITE for
 * UNLIMITED, NO_VAL when it is not a time. */
static int l_time_str2mins(lua_State *L)
{
	int64_t secs;
	if (drv_time_parse_limit(luaL_checkstring(L, 1), &secs) < 0)
		lua_pushinteger(L, JD_NO_VAL);
	else
		lua_pushinteger(L, secs == DRV_INFINITE ? JD_INFINITE : (secs + 59) / 60);
	return 1;
}

static void set_int(lua_State *L, const char *name, lua_Integer v)
{
	lua_pushinteger(L, v);
	lua_setfield(L, -2, name);
}

static void set_num(lua_State *L, const char *name, lua_Number v)
{
	lua_pushnumber(L, v);
	lua_setfield(L, -2, name);
}

static void slurm_constants(lua_State *L)
{
	set_int(L, "SUCCESS", 0);
	set_int(L, "ERROR", -1);
	set_int(L, "FAILURE", -1);
	for (size_t i = 0; i < slurm_errtab_len; i++)
		set_int(L, slurm_errtab[i].name, slurm_errtab[i].code);
	set_int(L, "NO_VAL", JD_NO_VAL);
	set_int(L, "NO_VAL16", JD_NO_VAL16);
	set_int(L, "NO_VAL8", 0xfe);
	set_num(L, "NO_VAL64", JD_NO_VAL64);
	set_int(L, "INFINITE", JD_INFINITE);
	set_int(L, "INFINITE16", JD_INFINITE16);
	set_num(L, "INFINITE64", 18446744073709551615.0);
	set_num(L, "MEM_PER_CPU", JD_MEM_PER_CPU);
	set_int(L, "NICE_OFFSET", JD_NICE_OFFSET);
	set_int(L, "JOB_SHARED_NONE", JD_SHARED_NONE);
	set_int(L, "JOB_SHARED_OK", JD_SHARED_OK);
	set_int(L, "JOB_SHARED_USER", JD_SHARED_USER);
	set_int(L, "JOB_SHARED_MCS", JD_SHARED_MCS);
}

static void slurm_table(lua_State *L, struct job_submit_lua *p)
{
	static const struct {
		const char *name;
		int level;
	} fmt_logs[] = {{"log_error", -1}, {"log_info", 0},   {"log_verbose", 1},
			{"log_debug", 2},  {"log_debug2", 3}, {"log_debug3", 4},
			{"log_debug4", 5}};
	lua_getglobal(L, "string"); /* the formatter the log_* use, kept safe */
	lua_getfield(L, -1, "format");
	lua_setfield(L, LUA_REGISTRYINDEX, "drover.format");
	lua_pop(L, 1);
	lua_newtable(L);
	lua_pushcfunction(L, l_log);
	lua_setfield(L, -2, "log");
	lua_pushcfunction(L, l_error);
	lua_setfield(L, -2, "error");
	lua_pushcfunction(L, l_time_str2mins);
	lua_setfield(L, -2, "time_str2mins");
	for (size_t i = 0; i < sizeof(fmt_logs) / sizeof(fmt_logs[0]); i++) {
		lua_pushinteger(L, fmt_logs[i].level);
		lua_pushcclosure(L, l_log_fmt, 1);
		lua_setfield(L, -2, fmt_logs[i].name);
	}
	lua_pushlightuserdata(L, p);
	lua_pushcclosure(L, l_user_msg, 1);
	lua_setfield(L, -2, "user_msg");
	lua_pushlightuserdata(L, p);
	lua_pushcclosure(L, l_log_user, 1);
	lua_setfield(L, -2, "log_user");
	slurm_constants(L);
	lua_pushstring(L, p->cluster_name ? p->cluster_name : "");
	lua_setfield(L, -2, "CLUSTER_NAME");
	lua_setglobal(L, "slurm");
	lua_pushcfunction(L, l_print);
	lua_setglobal(L, "print");
}

/* --- loading ------------------------------------------------------------ */

static const char *const required[] = {"slurm_job_submit", "slurm_job_modify"};

static void close_state(lua_State **L, struct vm **vm)
{
	if (*L)
		lua_close(*L);
	free(*vm);
	*L = NULL;
	*vm = NULL;
}

/* The chunk ran: Slurm takes a number it returns as its verdict (nothing
 * returned reads as 0), then wants both functions. */
static int check_loaded(lua_State *L, const char *path, char *why, size_t len)
{
	if (lua_type(L, -1) == LUA_TNUMBER && lua_tointeger(L, -1) != 0) {
		snprintf(why, len, "%s: returned %lld on load", path,
			 (long long)lua_tointeger(L, -1));
		return -EINVAL;
	}
	lua_pop(L, 1);
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		lua_getglobal(L, required[i]);
		bool ok = lua_isfunction(L, -1);
		lua_pop(L, 1);
		if (!ok) {
			snprintf(why, len, "%s: missing required function %s", path,
				 required[i]);
			return -EINVAL;
		}
	}
	return 0;
}

/* The libraries, less what would stop ctld, and the slurm table; in
 * protected mode. */
static int setup_state(lua_State *L)
{
	struct job_submit_lua *p = lua_touserdata(L, 1);
	luaL_openlibs(L);
	sandbox(L);
	slurm_table(L, p);
	return 0;
}

/* A new state with p's script loaded and run; on failure why says what
 * went wrong with the file's own "path:line:" when Lua knows it. */
static int load_state(struct job_submit_lua *p, lua_State **out, struct vm **out_vm,
		      char *why, size_t len)
{
	struct vm *vm = calloc(1, sizeof(*vm));
	lua_State *L = NULL;
	if (vm) {
		vm->mem_limit = JSL_MEMORY_LIMIT;
		vm->step_limit = JSL_INSTRUCTION_LIMIT;
		L = lua_newstate(limited_alloc, vm);
	}
	if (!L) {
		free(vm);
		snprintf(why, len, "%s: cannot create a Lua state: out of memory",
			 p->path);
		return -ENOMEM;
	}
	lua_pushcfunction(L, setup_state);
	lua_pushlightuserdata(L, p);
	int st = lua_pcall(L, 1, 0, 0);
	lua_sethook(L, count_hook, LUA_MASKCOUNT, HOOK_EVERY);
	if (st == LUA_OK)
		st = luaL_loadfilex(L, p->path, "t");
	if (st == LUA_OK)
		st = lua_pcall(L, 0, 1, 0);
	int rc = -EINVAL;
	if (st != LUA_OK)
		snprintf(why, len, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "?");
	else
		rc = check_loaded(L, p->path, why, len);
	if (rc < 0) {
		close_state(&L, &vm);
		return rc;
	}
	lua_settop(L, 0);
	vm->steps = 0;
	*out = L;
	*out_vm = vm;
	return 0;
}

static bool same_version(const struct version *a, const struct version *b)
{
	return a->err == b->err && a->dev == b->dev && a->ino == b->ino &&
	       a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec &&
	       a->mtime.tv_nsec == b->mtime.tv_nsec;
}

struct job_submit_lua *jsl_new(const char *path, const char *cluster_name)
{
	struct job_submit_lua *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->path = strdup(path);
	p->cluster_name = cluster_name ? strdup(cluster_name) : NULL;
	if (!p->path || (cluster_name && !p->cluster_name)) {
		jsl_free(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

void jsl_free(struct job_submit_lua *p)
{
	if (!p)
		return;
	close_state(&p->L, &p->vm);
	free(p->user_msg);
	free(p->path);
	free(p->cluster_name);
	free(p);
}

int jsl_refresh(struct job_submit_lua *p, struct drv_error *err)
{
	struct stat st;
	struct version now = {0};
	if (stat(p->path, &st) < 0)
		now.err = errno;
	else
		now = (struct version){0, st.st_dev, st.st_ino, st.st_size, st.st_mtim};
	if (!p->tried || !same_version(&now, &p->seen)) {
		p->tried = true;
		p->seen = now;
		close_state(&p->L, &p->vm); /* a broken edit refuses jobs, see compat */
		if (now.err)
			snprintf(p->why, sizeof(p->why), "cannot read %s: %s", p->path,
				 strerror(now.err));
		else if (load_state(p, &p->L, &p->vm, p->why, sizeof(p->why)) == 0)
			p->why[0] = '\0';
		if (p->L)
			log_info("job_submit/lua: loaded %s", p->path);
		else
			log_error("job_submit/lua: %s", p->why);
	}
	if (p->L)
		return 0;
	return drv_error_set(err, EINVAL, "%s", p->why);
}

int jsl_check(const char *path, struct drv_error *err)
{
	struct job_submit_lua p = {.path = (char *)path};
	lua_State *L = NULL;
	struct vm *vm = NULL;
	if (access(path, R_OK) < 0) {
		int e = errno;
		return drv_error_set(err, e, "cannot read %s: %s", path, strerror(e));
	}
	int rc = load_state(&p, &L, &vm, p.why, sizeof(p.why));
	close_state(&L, &vm);
	free(p.user_msg);
	return rc < 0 ? drv_error_set(err, -rc, "%s", p.why) : 0;
}

/* --- job_desc ------------------------------------------------------------ */

/* The descriptor of the call in progress; a proxy kept from an earlier
 * call (a script may stash it in a global) raises an error instead. */
static struct jd_doc *live_desc(lua_State *L)
{
	struct job_submit_lua *p = plugin_of(L);
	if (!p->desc || (uint64_t)lua_tointeger(L, lua_upvalueindex(2)) != p->gen)
		luaL_error(L, "job_desc used outside the call it was given to");
	return p->desc;
}

static void push_value(lua_State *L, const struct jd_value *v)
{
	switch (v->type) {
	case JD_INT:
		lua_pushinteger(L, (lua_Integer)v->i);
		break;
	case JD_NUM:
		lua_pushnumber(L, v->d);
		break;
	case JD_STR:
		lua_pushstring(L, v->s);
		break;
	default:
		lua_pushnil(L);
	}
}

/* job_desc.environment: a table of the job's variables. */
static void push_environment(lua_State *L, const struct jd_doc *d)
{
	size_t n = job_desc_env_count(d);
	lua_createtable(L, 0, (int)n);
	for (size_t i = 0; i < n; i++) {
		const char *e = job_desc_env_at(d, i), *eq = e ? strchr(e, '=') : NULL;
		if (!eq)
			continue;
		lua_pushlstring(L, e, (size_t)(eq - e));
		lua_pushstring(L, eq + 1);
		lua_rawset(L, -3);
	}
}

static int desc_index(lua_State *L)
{
	struct jd_doc *d = live_desc(L);
	const char *name = luaL_checkstring(L, 2);
	struct jd_value v;
	char buf[128];
	if (!strcmp(name, "environment")) {
		push_environment(L, d);
		return 1;
	}
	job_desc_get(d, name, &v, buf, sizeof(buf)); /* unknown: nil */
	push_value(L, &v);
	return 1;
}

/* Where the script is, for a log line: "path:line:" or "". */
static const char *script_where(lua_State *L)
{
	luaL_where(L, 1);
	return lua_tostring(L, -1);
}

static int desc_newindex(lua_State *L)
{
	struct jd_doc *d = live_desc(L);
	const char *name = luaL_checkstring(L, 2);
	struct jd_value v = {JD_NIL};
	struct drv_error err = {{0}};
	switch (lua_type(L, 3)) {
	case LUA_TNIL:
		break;
	case LUA_TNUMBER:
		v = lua_isinteger(L, 3)
			? (struct jd_value){.type = JD_INT, .i = lua_tointeger(L, 3)}
			: (struct jd_value){.type = JD_NUM, .d = lua_tonumber(L, 3)};
		break;
	case LUA_TSTRING:
		v = (struct jd_value){.type = JD_STR, .s = lua_tostring(L, 3)};
		break;
	default:
		return luaL_error(L, "job_desc.%s: a %s cannot be stored", name,
				  luaL_typename(L, 3));
	}
	int rc = job_desc_set(d, name, &v, &err);
	if (rc == -ENOENT)
		log_error("job_submit/lua: %s unrecognized field job_desc.%s: ignored",
			  script_where(L), name);
	else if (rc == -ENOTSUP)
		log_warn("job_submit/lua: %s job_desc.%s cannot be set%s: ignored",
			 script_where(L), name,
			 plugin_of(L)->modify ? " by an update" : " in Drover");
	else if (rc == -EROFS)
		log_warn("job_submit/lua: %s job_desc.%s is read-only: ignored",
			 script_where(L), name);
	else if (rc < 0)
		return luaL_error(L, "%s", rc == -ENOMEM ? "out of memory" : err.text);
	return 0;
}

static void push_desc(lua_State *L, struct job_submit_lua *p)
{
	lua_newtable(L);
	lua_createtable(L, 0, 2);
	lua_pushlightuserdata(L, p);
	lua_pushinteger(L, (lua_Integer)p->gen);
	lua_pushcclosure(L, desc_index, 2);
	lua_setfield(L, -2, "__index");
	lua_pushlightuserdata(L, p);
	lua_pushinteger(L, (lua_Integer)p->gen);
	lua_pushcclosure(L, desc_newindex, 2);
	lua_setfield(L, -2, "__newindex");
	lua_setmetatable(L, -2);
}

/* --- calls ----------------------------------------------------------------- */

static void refuse(struct jsl_result *out, const char *fmt, const char *what)
{
	char *text = NULL;
	out->rc = -1; /* SLURM_ERROR: "Unspecified error" */
	if (asprintf(&text, fmt, what) < 0)
		text = NULL;
	out->user_msg = text ? user_text(text) : NULL;
	free(text);
}

/* What one hook call needs, for the protected trampoline. */
struct call {
	struct job_submit_lua *p;
	const char *fn;
	const struct ctld *c;
	const struct job *j; /* slurm_job_modify's job_rec; NULL for submit */
	uint32_t uid;
};

/* Runs in protected mode, so that running out of memory while pushing
 * the arguments is an error like any other, never a panic. */
static int call_trampoline(lua_State *L)
{
	const struct call *a = lua_touserdata(L, 1);
	lua_settop(L, 0);
	if (lua_getglobal(L, a->fn) != LUA_TFUNCTION) /* removed since loading */
		return luaL_error(L, "%s: %s is not a function", a->p->path, a->fn);
	push_desc(L, a->p);
	if (a->j)
		jsl_push_job_rec(L, a->j);
	jsl_push_part_list(L, a->c);
	lua_pushinteger(L, a->uid);
	lua_call(L, a->j ? 4 : 3, 1);
	return 1;
}

/* Runs fn as Slurm does: a number returned is the verdict, anything else
 * success; an error refuses the job with the error's text in place of
 * the user messages. */
static void run_call(const struct call *a, struct jd_doc *d, struct jsl_result *out)
{
	struct job_submit_lua *p = a->p;
	struct drv_error err = {{0}};
	memset(out, 0, sizeof(*out));
	if (jsl_refresh(p, &err) < 0) {
		refuse(out, "job_submit/lua: %s", err.text);
		return;
	}
	lua_State *L = p->L;
	p->gen++;
	p->desc = d;
	p->modify = a->j != NULL;
	free(p->user_msg);
	p->user_msg = NULL;
	p->vm->steps = 0;
	lua_settop(L, 0);
	lua_pushcfunction(L, call_trampoline);
	lua_pushlightuserdata(L, (void *)a);
	int st = lua_pcall(L, 1, 1, 0);
	if (st != LUA_OK) {
		const char *msg =
		    lua_tostring(L, -1) ? lua_tostring(L, -1) : "(no message)";
		bool oom = st == LUA_ERRMEM;
		log_error("job_submit/lua: %s: %s%s", a->fn, msg,
			  oom ? " (past the script's memory limit)" : "");
		refuse(out, oom ? "job_submit/lua: %s: not enough memory" : "%s",
		       oom ? a->fn : msg);
	} else {
		int isnum = 0;
		lua_Integer rc = lua_tointegerx(L, -1, &isnum);
		if (!isnum)
			log_info("job_submit/lua: %s: %s: non-numeric return code", a->fn,
				 p->path);
		out->rc = !isnum ? 0 : rc < INT32_MIN || rc > INT32_MAX ? -1 : (int)rc;
		out->user_msg = p->user_msg;
		p->user_msg = NULL;
	}
	lua_settop(L, 0);
	p->desc = NULL;
	p->gen++;
}

void jsl_submit(struct job_submit_lua *p, const struct ctld *c, struct jd_doc *d,
		uint32_t submit_uid, struct jsl_result *out)
{
	struct call a = {p, "slurm_job_submit", c, NULL, submit_uid};
	run_call(&a, d, out);
}

void jsl_modify(struct job_submit_lua *p, const struct ctld *c, struct jd_doc *d,
		const struct job *j, uint32_t modify_uid, struct jsl_result *out)
{
	struct call a = {p, "slurm_job_modify", c, j, modify_uid};
	run_call(&a, d, out);
}
