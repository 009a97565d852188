/* job_submit_lua_args.h — the read-only arguments job_submit.lua's hooks
 * get beside job_desc: part_list and job_rec, as plain Lua tables with
 * Slurm's field names. Internal to job_submit_lua.c. */
#ifndef CTLD_JOB_SUBMIT_LUA_ARGS_H
#define CTLD_JOB_SUBMIT_LUA_ARGS_H

#include <lua.h>

struct ctld;
struct job;

/* Pushes { [name] = { name=, nodes=, max_time=, ... }, ... } for every
 * partition of c. */
void jsl_push_part_list(lua_State *L, const struct ctld *c);

/* Pushes job j's record (job_rec of slurm_job_modify). */
void jsl_push_job_rec(lua_State *L, const struct job *j);

#endif
