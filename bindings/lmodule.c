/* lmodule.c: require "ltap" from a stock Lua 5.4 (luaopen_ltap).
 *
 * The module is a host (host.c) living in the Lua program's own state: the
 * script functions in the module table (ltap.probe, ltap.every, ltap.stats,
 * ltap.printf, ...; nothing added to the globals), declared while the
 * program sets up, then either ltap.run() for a blocking run or
 * ltap.start(), ltap.fd() and ltap.step(TIMEOUT) for a loop the program
 * owns (luv, cqueues, its own poll). One host per Lua state: its
 * context is an upvalue of nothing, found through the registry as in
 * every host. The host ends with the state (its __gc): kernel state undone,
 * the command's tree ended. */
#include "ctx.h"
#include "host.h"
#include "loop.h"
#include "lower.h"
#include "options.h"
#include "parse.h"
#include "sources.h"

#include <errno.h>
#include <lauxlib.h>
#include <signal.h>
#include <string.h>

#define HOST_MT "ltap.host"

/* the module's host, or an error for one that was freed */
static struct ltap_ctx *lmodule_ctx(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	if (!ctx)
		luaL_error(L, "ltap: the host is gone (its Lua state is closing)");
	return ctx;
}

/* Runs fn(ctx) with the host's messages routed to its log target. */
#define MODULE_CALL(ctx, expr)                                                       \
	do {                                                                         \
		struct ltap_log_target *prev_ = ltap_log_enter(&(ctx)->io.log);      \
		expr;                                                                \
		ltap_log_leave(prev_);                                               \
	} while (0)

/* ltap.start(): attaches what was declared, starts the command, runs begin
 * hooks. true, or nil, message (the run has then ended: ltap.status()). */
static int lmodule_start(lua_State *L)
{
	struct ltap_ctx *ctx = lmodule_ctx(L);
	int e;

	MODULE_CALL(ctx, e = ltap_ctx_start(ctx));
	if (e == 0) {
		lua_pushboolean(L, 1);
		return 1;
	}
	luaL_pushfail(L);
	lua_pushstring(L, ctx->io.error[0] ? ctx->io.error : strerror(-e));
	return 2;
}

/* ltap.fd(): the fd to poll for readability (ltap_host_fd) */
static int lmodule_fd(lua_State *L)
{
	lua_pushinteger(L, ltap_loop_fd(lmodule_ctx(L)->loop));
	return 1;
}

/* ltap.step([TIMEOUT_MS]): the ready work (ltap_host_step); true while the
 * run goes on, false once it has ended */
static int lmodule_step(lua_State *L)
{
	struct ltap_ctx *ctx = lmodule_ctx(L);
	int timeout = (int)luaL_optinteger(L, 1, 0), r;

	if (ctx->run.in_loop && ctx->in_call)
		return luaL_error(L, "ltap.step: called from one of ltap's own handlers");
	MODULE_CALL(ctx, r = ltap_ctx_step(ctx, timeout));
	if (r < 0)
		return luaL_error(L, "ltap.step: %s", ctx->io.error);
	lua_pushboolean(L, r > 0);
	return 1;
}

/* ltap.run(): start if need be, step until the end; the exit status */
static int lmodule_run(lua_State *L)
{
	struct ltap_ctx *ctx = lmodule_ctx(L);
	int r = 1;

	if (ctx->run.state == LTAP_HOST_LOADING)
		MODULE_CALL(ctx, ltap_ctx_start(ctx));
	while (r > 0)
		MODULE_CALL(ctx, r = ltap_ctx_step(ctx, -1));
	lua_pushinteger(L, ltap_ctx_status(ctx));
	return 1;
}

/* ltap.stop(): ends the run after the current event (a second: at once) */
static int lmodule_stop(lua_State *L)
{
	ltap_host_stop((ltap_host *)lmodule_ctx(L));
	return 0;
}

/* ltap.status(): the exit status once the run ended, else nil */
static int lmodule_status(lua_State *L)
{
	struct ltap_ctx *ctx = lmodule_ctx(L);

	if (ctx->run.state != LTAP_HOST_ENDED)
		luaL_pushfail(L);
	else
		lua_pushinteger(L, ltap_ctx_status(ctx));
	return 1;
}

/* ltap.state(): "loading", "attached", "running", "draining" or "ended" */
static int lmodule_state(lua_State *L)
{
	static const char *const names[] = {"loading", "attached", "running", "draining", "ended"};
	lua_pushstring(L, names[lmodule_ctx(L)->run.state]);
	return 1;
}

/* ltap.setup{input=, ring=, unordered=, max_drain=, json=, verbose=,
 * log=FN}: what a command line gives the ltap command beyond ltap.options'
 * targets; before the first probe (a saved trace brings the formats
 * probes resolve against). log(level, msg) gets ltap's messages instead of
 * stderr; level is "error", "warn", "info" or "debug". */
static void lmodule_log(void *ud, enum ltap_log_level level, const char *msg)
{
	static const char *const levels[] = {"error", "warn", "info", "debug"};
	struct ltap_ctx *ctx = ud;
	lua_State *L = ctx->L;

	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.module_log");
	lua_pushstring(L, levels[level]);
	lua_pushstring(L, msg);
	if (lua_pcall(L, 2, 0, 0) != LUA_OK)
		lua_pop(L, 1); /* a log function that fails loses its message */
	if (ctx->lower_armed)
		ltap_lower_disarm(ctx); /* Lua ran, maybe in the middle of a run's events */
}

static int lmodule_setup(lua_State *L)
{
	static const struct ltap_optspec opts[] = {{"input", "string"}, {"ring", "string|integer"},
		{"unordered", "boolean"}, {"max_drain", "string|number"}, {"json", "boolean"},
		{"verbose", "boolean"}, {"log", "function"}, {NULL, NULL}};
	struct ltap_ctx *ctx = lmodule_ctx(L);
	uint64_t v;

	luaL_checktype(L, 1, LUA_TTABLE);
	ltap_check_options(L, 1, "ltap.setup", opts);
	if (ltap_run_started(ctx))
		return luaL_error(L, "ltap.setup: only before ltap.start");
	if (lua_getfield(L, 1, "input") != LUA_TNIL) {
		if (ctx->sources_opened)
			return luaL_error(L, "ltap.setup: input before the first probe (their formats come with it)");
		ctx->opt.input = lua_tostring(L, -1);
		ltap_ctx_sources_plan(ctx);
		lua_setfield(L, LUA_REGISTRYINDEX, "ltap.module_input"); /* keeps the string */
		ltap_push_ltap(L, ctx);
		lua_pushboolean(L, ltap_ctx_live(ctx));
		lua_setfield(L, -2, "live");
		lua_pop(L, 1);
		if (ltap_ctx_sources(ctx))
			return luaL_error(L, "ltap.setup: %s", ctx->io.error);
	} else {
		lua_pop(L, 1);
	}
	if (lua_getfield(L, 1, "ring") != LUA_TNIL) {
		if (ltap_parse_size(luaL_tolstring(L, -1, NULL), &v) || v < 4096)
			return luaL_error(L, "ltap.setup: bad ring size '%s' (try \"8M\")", lua_tostring(L, -1));
		ctx->opt.buffer_kb = (size_t)(v / 1024);
		ctx->opt.buffer_exact = 1;
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	if (lua_getfield(L, 1, "max_drain") != LUA_TNIL) {
		if (ltap_parse_duration(luaL_tolstring(L, -1, NULL), &v))
			return luaL_error(L, "ltap.setup: bad max_drain '%s' (try \"2s\")", lua_tostring(L, -1));
		ctx->opt.max_drain = v;
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	if (lua_getfield(L, 1, "unordered") != LUA_TNIL)
		ctx->opt.ordered = !lua_toboolean(L, -1);
	if (lua_getfield(L, 1, "json") != LUA_TNIL)
		ctx->opt.json = lua_toboolean(L, -1);
	if (lua_getfield(L, 1, "verbose") != LUA_TNIL) {
		ctx->opt.verbose = lua_toboolean(L, -1);
		ctx->io.log.max = ctx->opt.verbose ? LTAP_LOG_DEBUG : LTAP_LOG_INFO;
	}
	if (lua_getfield(L, 1, "log") != LUA_TNIL) {
		lua_pushvalue(L, -1);
		lua_setfield(L, LUA_REGISTRYINDEX, "ltap.module_log");
		ctx->io.user_log = lmodule_log;
		ctx->io.user_ud = ctx;
	}
	return 0;
}

/* the host goes with the Lua state (or when collected): kernel state
 * undone, the command ended, no Lua run */
static int lmodule_gc(lua_State *L)
{
	struct ltap_ctx **p = luaL_checkudata(L, 1, HOST_MT);

	if (*p) {
		struct ltap_log_target *prev = ltap_log_enter(&(*p)->io.log);
		ltap_ctx_free(*p);
		ltap_log_leave(prev);
		*p = NULL;
	}
	return 0;
}

static const luaL_Reg lmodule_funcs[] = {
	{"setup", lmodule_setup},
	{"start", lmodule_start},
	{"fd", lmodule_fd},
	{"step", lmodule_step},
	{"run", lmodule_run},
	{"stop", lmodule_stop},
	{"status", lmodule_status},
	{"state", lmodule_state},
	{NULL, NULL},
};

/* the script environment's own keys the prelude set (printf, sorted,
 * report, fmt, metrics) into the module table too */
static void lmodule_export(lua_State *L, struct ltap_ctx *ctx)
{
	ltap_push_ltap(L, ctx);
	lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->env_ref);
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		if (lua_type(L, -2) == LUA_TSTRING && strcmp(lua_tostring(L, -2), "ltap") != 0) {
			lua_pushvalue(L, -2);
			if (lua_rawget(L, -5) == LUA_TNIL) {
				lua_pop(L, 1);
				lua_pushvalue(L, -2);
				lua_pushvalue(L, -2);
				lua_rawset(L, -6);
			} else {
				lua_pop(L, 1);
			}
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1); /* env; the module table stays */
}

__attribute__((visibility("default"))) int luaopen_ltap(lua_State *L)
{
	struct ltap_options opt = {.ordered = 1, .buffer_kb = 8192, .max_drain = LTAP_MAX_DRAIN};
	struct ltap_ctx **p;

	if (ltap_ctx_get(L))
		return luaL_error(L, "ltap: this Lua state has a host already");
	p = lua_newuserdatauv(L, sizeof *p, 0);
	*p = NULL;
	if (luaL_newmetatable(L, HOST_MT)) {
		lua_pushcfunction(L, lmodule_gc);
		lua_setfield(L, -2, "__gc");
	}
	lua_setmetatable(L, -2);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.module_host"); /* freed when the state closes */
	if (!(*p = ltap_ctx_new_module(L, &opt)))
		return luaL_error(L, "ltap: cannot make a host");
	lmodule_export(L, *p);
	luaL_setfuncs(L, lmodule_funcs, 0);
	return 1;
}
