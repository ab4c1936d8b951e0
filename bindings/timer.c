/* timer.c: every(INTERVAL, FN) and after(DELAY, FN). Timers run on the trace
 * clock inside the loop's merge, so a report at T sees exactly the events
 * before T. On a live run intervals and delays are at least TIMER_MIN (a
 * shorter one runs at TIMER_MIN, every() says so), and a periodic timer the
 * loop fell behind runs once for the ticks it missed (loop.c), counted and
 * reported at the end. */
#include "timer.h"

#include "call.h"
#include "ctx.h"
#include "event.h"
#include "log.h"
#include "loop.h"
#include "parse.h"
#include "probestats.h"

#include <errno.h>
#include <lauxlib.h>

/* A duration: seconds as a number, or a string with a unit ("5s", "250ms",
 * "2m"; runtime/parse.c): 0 and *ns, or -EINVAL. */
static int timer_duration(lua_State *L, int arg, uint64_t *ns)
{
	if (lua_type(L, arg) == LUA_TNUMBER)
		return ltap_parse_seconds(lua_tonumber(L, arg), ns);
	if (lua_type(L, arg) == LUA_TSTRING)
		return ltap_parse_duration(lua_tostring(L, arg), ns);
	return -EINVAL;
}

#define TIMER_MIN 1000000ull /* ns: 1 ms, the shortest interval of a live run */

static uint64_t timer_interval(lua_State *L, int arg)
{
	uint64_t ns;
	if (lua_type(L, arg) != LUA_TNUMBER)
		luaL_checkstring(L, arg);
	if (timer_duration(L, arg, &ns) == 0 && ns == 0 && lua_type(L, arg) == LUA_TNUMBER && lua_tonumber(L, arg) > 0)
		return 1; /* a positive number of seconds below 1 ns */
	if (timer_duration(L, arg, &ns) != 0 || ns == 0)
		luaL_argerror(L, arg, lua_pushfstring(L, "bad duration '%s' (try \"5s\", \"250ms\")",
						     luaL_tolstring(L, arg, NULL)));
	return ns;
}

/* ltap.parse_duration(V) -> ns: V in seconds (a number), or a string with a
 * unit (ns us ms s m h), as every() and -d take it; nil, msg if it is not
 * one: the one duration grammar for Lua code too. */
int timer_parse_duration(lua_State *L)
{
	uint64_t ns;
	luaL_checkany(L, 1);
	if (timer_duration(L, 1, &ns) != 0 || ns > (uint64_t)LUA_MAXINTEGER) {
		const char *v = luaL_tolstring(L, 1, NULL);
		luaL_pushfail(L);
		lua_pushfstring(L, "bad duration '%s' (try \"5s\", \"250ms\")", v);
		return 2;
	}
	lua_pushinteger(L, (lua_Integer)ns);
	return 1;
}
/* [fn, ns, periodic, "file:line:"] in ltap.timers */
enum { TIMER_FN = 1, TIMER_NS, TIMER_PERIODIC, TIMER_WHERE };

static int timer_add(lua_State *L, int periodic)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	uint64_t ns = timer_interval(L, 1);
	int id;

	luaL_checktype(L, 2, LUA_TFUNCTION);
	luaL_where(L, 1);
	if (ns < TIMER_MIN && ltap_ctx_live(ctx)) {
		if (periodic)
			ltap_warn("timer: %severy(%llu ns) runs every 1 ms, the shortest interval of a live run",
				  lua_tostring(L, -1), (unsigned long long)ns);
		ns = TIMER_MIN;
	}
	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.timers");
	id = ++ctx->ntimers;
	lua_createtable(L, 4, 0);
	lua_pushvalue(L, 2);
	lua_rawseti(L, -2, TIMER_FN);
	lua_pushinteger(L, (lua_Integer)ns);
	lua_rawseti(L, -2, TIMER_NS);
	lua_pushboolean(L, periodic);
	lua_rawseti(L, -2, TIMER_PERIODIC);
	lua_pushvalue(L, -3);
	lua_rawseti(L, -2, TIMER_WHERE);
	lua_rawseti(L, -2, id);
	lua_pop(L, 1); /* where */
	lua_pop(L, 1);
	/* declared while running: relative to now on the trace clock */
	if (ltap_run_started(ctx) && ltap_loop_timer(ctx->loop, id, ctx->trace_now + ns, periodic ? ns : 0))
		return luaL_error(L, "too many timers");
	lua_pushinteger(L, id);
	return 1;
}

/* every(INTERVAL, FN): FN() every INTERVAL ("5s", "250ms", or seconds). */
int timer_every(lua_State *L)
{
	return timer_add(L, 1);
}

/* after(DELAY, FN): FN() once, DELAY after the start (or after now in a handler). */
int timer_after(lua_State *L)
{
	return timer_add(L, 0);
}

/* cancel(ID): stops a timer made by every() or after(). */
int timer_cancel(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	lua_Integer id = luaL_checkinteger(L, 1);
	if (ctx->loop)
		ltap_loop_timer_cancel(ctx->loop, (int)id);
	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.timers");
	lua_pushnil(L);
	lua_rawseti(L, -2, id);
	return 0;
}

/* ltap.now(): the run's current time in ns (CLOCK_MONOTONIC): the time of
 * the event or timer being dispatched, so a replayed trace has its own. */
int timer_now(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	lua_pushinteger(L, (lua_Integer)(ltap_run_started(ctx) && ctx->trace_now ? ctx->trace_now : ltap_now()));
	return 1;
}

/* ltap.start_time(): when the probes were attached (ns, CLOCK_MONOTONIC). */
int timer_start_time(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	lua_pushinteger(L, (lua_Integer)(ctx->start_time ? ctx->start_time : ltap_now()));
	return 1;
}

void ltap_open_timer(lua_State *L, struct ltap_ctx *ctx)
{
	(void)ctx;
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.timers");
}

int ltap_timers_attach(struct ltap_ctx *ctx)
{
	lua_State *L = ctx->L;

	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.timers");
	for (int id = 1; id <= ctx->ntimers; id++) {
		if (lua_rawgeti(L, -1, id) == LUA_TTABLE) {
			uint64_t ns, periodic;
			lua_rawgeti(L, -1, TIMER_NS);
			ns = (uint64_t)lua_tointeger(L, -1);
			lua_rawgeti(L, -2, TIMER_PERIODIC);
			periodic = (uint64_t)lua_toboolean(L, -1);
			lua_pop(L, 2);
			if (ltap_loop_timer(ctx->loop, id, ctx->start_time + ns, periodic ? ns : 0))
				return -1;
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	if (ctx->opt.duration &&
	    ltap_loop_end_at(ctx->loop, LTAP_TIMER_DURATION, ctx->start_time + ctx->opt.duration))
		return -1;
	/* the probes' rates, checked once a second of a live run (probestats.c) */
	if (ctx->probes && ltap_ctx_live(ctx) &&
	    ltap_loop_timer(ctx->loop, LTAP_TIMER_PROBES, ctx->start_time + 1000000000ull, 1000000000ull))
		return -1;
	return 0;
}

int ltap_dispatch_timer(void *ud, int id, uint64_t at)
{
	struct ltap_ctx *ctx = ud;
	lua_State *L = ctx->L;
	int periodic;

	ctx->trace_now = at;
	if (id == LTAP_TIMER_DURATION) {
		ctx->run.stop_at = at;
		ltap_run_end(ctx, LTAP_END_STOP);
		return 1; /* nothing after the end of the run is dispatched */
	}
	if (id == LTAP_TIMER_PROBES) {
		ltap_probes_check(ctx, at);
		return 0;
	}
	lua_rawgeti(L, ctx->timers_slot, id);
	if (!lua_istable(L, -1)) {
		lua_pop(L, 1);
		return 0;
	}
	lua_rawgeti(L, -1, TIMER_PERIODIC);
	periodic = lua_toboolean(L, -1);
	lua_pop(L, 1);
	lua_rawgeti(L, -1, TIMER_FN);
	lua_remove(L, -2);
	if (!periodic) {
		lua_pushnil(L);
		lua_rawseti(L, ctx->timers_slot, id);
	}
	ltap_event_clear(ctx);
	if (ltap_call(ctx, 0, 0) == 0)
		ltap_report_flush(ctx);
	ltap_host_flush(ctx);
	return ltap_run_halting(ctx);
}

void ltap_timers_report(struct ltap_ctx *ctx)
{
	lua_State *L = ctx->L;

	if (!ctx->loop)
		return;
	/* the end of the run's reports on the clock's work: the probes' rates too */
	ltap_probes_report(ctx);
	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.timers");
	for (int id = 1; id <= ctx->ntimers; id++) {
		uint64_t missed = ltap_loop_timer_missed(ctx->loop, id);
		if (!missed || lua_rawgeti(L, -1, id) != LUA_TTABLE) {
			if (missed)
				lua_pop(L, 1);
			continue;
		}
		lua_rawgeti(L, -1, TIMER_WHERE);
		lua_rawgeti(L, -2, TIMER_NS);
		ltap_warn("timer: %severy(%.3f ms) missed %llu ticks: the loop was behind the clock, it ran once for them",
			  lua_tostring(L, -2), (double)lua_tointeger(L, -1) / 1e6, (unsigned long long)missed);
		lua_pop(L, 3);
	}
	lua_pop(L, 1);
}
