/* run.c: run control from Lua: begin(), finish(), exit(), os.exit(),
 * ltap.drain(), the targets a script's command line sets (ltap.options),
 * what the run lost (ltap.lost) and marks in its trace (ltap.mark); and the
 * running of begin and finish hooks. */
#include "run.h"

#include "call.h"
#include "ctx.h"
#include "dispatch.h"
#include "event.h"
#include "lcommand.h"
#include "loop.h"
#include "lower.h"
#include "options.h"
#include "source.h"
#include "targetopt.h"

#include <errno.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

static int run_hook(lua_State *L, const char *name)
{
	luaL_checktype(L, 1, LUA_TFUNCTION);
	lua_getfield(L, LUA_REGISTRYINDEX, name);
	lua_pushvalue(L, 1);
	lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
	return 0;
}

/* begin(FN): runs FN once the probes are attached. */
int run_begin(lua_State *L)
{
	return run_hook(L, "ltap.begin");
}

/* finish(FN): runs FN at the end of the run (end, SIGINT, -d, command exit). */
int run_finish(lua_State *L)
{
	return run_hook(L, "ltap.finish");
}

/* exit([CODE]): stops the run after this handler; finish hooks still run. */
int run_exit(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	lua_Integer code = luaL_optinteger(L, 1, -1);

	/* an exit status is one byte: exit(256) would be 0 */
	if (!lua_isnoneornil(L, 1) && (code < 0 || code > 255))
		return luaL_error(L, "exit: bad status %I (0 to 255)", code);
	ctx->run.exit_code = (int)code;
	ltap_run_end(ctx, LTAP_END_EXIT);
	return 0;
}

/* os.exit([CODE]): ends the run at once, as Lua's does, but through ltap's
 * end: no handler or hook runs after it (finish hooks neither: exit() is the
 * end with them), the kernel is cleaned, ltap exits with CODE (true: 0,
 * false: 1). */
int run_os_exit(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);

	if (lua_isboolean(L, 1))
		ctx->run.exit_code = lua_toboolean(L, 1) ? EXIT_SUCCESS : EXIT_FAILURE;
	else
		ctx->run.exit_code = (int)luaL_optinteger(L, 1, EXIT_SUCCESS);
	ltap_call_end(ctx, L, LTAP_END_EXIT);
	return luaL_error(L, "os.exit");
}

/* ltap.drain(): dispatches now the events the kernel holds, in begin hooks
 * between ltap.measure runs, so each run's events are handled before the
 * next starts (figures of the script's own per run, across runs). */
int run_drain(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);

	lua_State *outer_L = ctx->L, *T;

	if (ctx->run.state != LTAP_HOST_ATTACHED || ctx->run.in_loop)
		return luaL_error(L, "drain: only in begin hooks (the loop is not dispatching yet)");
	/* handlers run on a thread whose stack has the fixed slots where the
	 * per-event path expects them: this C call's own frame cannot */
	T = lua_newthread(L);
	ltap_dispatch_slots(T, ctx);
	ctx->L = T;
	ctx->run.in_loop = 1;
	if (ctx->lower_armed)
		ltap_lower_disarm(ctx); /* the hook calling drain ran Lua */
	ltap_loop_drain(ctx->loop, ltap_now());
	ctx->run.in_loop = 0;
	ctx->L = outer_L;
	lua_pop(L, 1);
	if (ctx->run.end & LTAP_END_ERROR)
		return luaL_error(L, "drain: a handler failed");
	return 0;
}

/* ltap.options{pid=, command=, duration=, all=, record=}: the target options
 * (-p, -c, -d, -a, --record) from a script's own command line; bundled
 * scripts declare `targets` and ltap.getopt hands them here. Each value is
 * checked as ltap's command line checks it (targetopt.c), and a bad one, or
 * one given there too, is a usage error with the same message ("-p: bad pid
 * '0' (1 to 2147483647)"): one line, exit 2. The command is a string (as -c)
 * or an argument vector run as it is. Only while the script loads. */
int run_options(lua_State *L)
{
	static const struct ltap_optspec opts[] = {{"pid", "integer|string"}, {"command", "string|table"},
		{"duration", "string|number"}, {"all", "boolean"}, {"record", "string"}, {NULL, NULL}};
	static const char *const keys[] = {"pid", "duration", "all", "record", NULL};
	static const char letters[] = "pdaR";
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	char why[4200];

	luaL_checktype(L, 1, LUA_TTABLE);
	ltap_check_options(L, 1, "ltap.options", opts);
	if (ltap_run_started(ctx))
		return luaL_error(L, "ltap.options: only while the script loads");
	for (int i = 0; keys[i]; i++) {
		const char *value;
		int t = lua_getfield(L, 1, keys[i]), integral;
		lua_Integer n = lua_tointegerx(L, -1, &integral);

		if (t == LUA_TNIL || (t == LUA_TBOOLEAN && !lua_toboolean(L, -1))) {
			lua_pop(L, 1);
			continue;
		}
		if (t == LUA_TNUMBER && integral)
			value = lua_pushfstring(L, "%I", n); /* pid 5.0 is 5 */
		else
			value = luaL_tolstring(L, -1, NULL);
		if (ltap_targetopt_set(&ctx->opt, letters[i], value, why, sizeof why))
			return ltap_usage_error(L, "%s", why);
		if (letters[i] == 'R')
			lua_setfield(L, LUA_REGISTRYINDEX, "ltap.record"); /* keeps the file name alive */
		else
			lua_pop(L, 1); /* the text */
		lua_pop(L, 1); /* the value */
	}
	if (lua_getfield(L, 1, "command") != LUA_TNIL) {
		struct ltap_cmd cmd;
		if (lua_type(L, -1) == LUA_TTABLE)
			ltap_check_command(L, -1, &cmd, "ltap.options");
		else if (ltap_targetopt_command(lua_tostring(L, -1), &cmd, why, sizeof why))
			return ltap_usage_error(L, "%s", why);
		if (ltap_targetopt_set(&ctx->opt, 'c', cmd.text, why, sizeof why)) {
			ltap_cmd_free(&cmd);
			return ltap_usage_error(L, "%s", why);
		}
		ctx->command = cmd; /* ctx->opt.command is its text */
	}
	if (ltap_targetopt_check(&ctx->opt, why, sizeof why))
		return ltap_usage_error(L, "%s", why);
	return 0;
}

/* ltap.lost(): total events lost, and a table of them per CPU: what the
 * kernel dropped on every source's streams and, in finish hooks, what the
 * final drain left for want of time (source.h's one reader). */
static void run_lost_one(void *ud, const struct ltap_source *s, const struct ltap_stream *st,
			 const struct ltap_source_counts *c)
{
	lua_State *L = ud;

	(void)s;
	lua_rawgeti(L, -1, st->cpu);
	lua_pushinteger(L, lua_tointeger(L, -1) + (lua_Integer)c->lost);
	lua_rawseti(L, -3, st->cpu);
	lua_pop(L, 1);
}

int run_lost(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	lua_Integer total = 0;

	lua_newtable(L);
	ltap_sources_counts(ctx->sources, ctx->nsources, run_lost_one, L);
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		total += lua_tointeger(L, -1);
		lua_pop(L, 1);
	}
	lua_pushinteger(L, total);
	lua_insert(L, -2);
	return 2;
}

/* ltap.mark(TEXT): writes TEXT into the trace (an ftrace:print event in
 * ltap's instance), in order with the events: a marker of the script's own */
int run_mark(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	const char *text = luaL_checkstring(L, 1);

	for (int k = 0; k < ctx->nsources; k++) {
		struct ltap_source *s = ctx->sources[k];
		int e = s->ops->mark ? s->ops->mark(s, text) : -ENODEV;
		if (e == -ENODEV)
			continue;
		if (e)
			return luaL_error(L, "mark: cannot write the marker: %s", strerror(-e));
		return 0;
	}
	return luaL_error(L, "mark: only during a live run with probes (there is no trace to write into)");
}

int ltap_run_hooks(struct ltap_ctx *ctx, const char *name)
{
	lua_State *L = ctx->L;
	lua_Integer n;

	ltap_event_clear(ctx);
	lua_getfield(L, LUA_REGISTRYINDEX, name);
	n = (lua_Integer)lua_rawlen(L, -1);
	for (lua_Integer i = 1; i <= n && !(ctx->run.end & LTAP_END_ERROR); i++) {
		lua_rawgeti(L, -1, i);
		if (ltap_call(ctx, 0, 0) != 0)
			break;
		ltap_report_flush(ctx);
		if ((ctx->run.end & LTAP_END_EXIT) && strcmp(name, "ltap.begin") == 0)
			break;
	}
	lua_pop(L, 1);
	ltap_host_flush(ctx);
	return ctx->run.end & LTAP_END_ERROR ? -1 : 0;
}

void ltap_run_hold(struct ltap_ctx *ctx, int pid)
{
	ltap_gate_hold(&ctx->gate, pid);
	ltap_dispatch_gate_order(ctx);
	for (int k = 0; k < ctx->nsources; k++)
		if (ctx->sources[k]->ops->hold)
			ctx->sources[k]->ops->hold(ctx->sources[k], pid);
}

void ltap_open_run(lua_State *L, struct ltap_ctx *ctx)
{
	(void)ctx;
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.begin");
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.finish");
}
