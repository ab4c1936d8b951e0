/* signals.c: what a signal does to a run (ltap_host_signal, ltap.h), and
 * ltap.on_interrupt.
 *
 * The library installs no handler: the process that hosts it forwards its
 * signals (main.c does, for SIGINT, SIGTERM, SIGQUIT and SIGHUP), from a
 * real handler, not a signalfd: a signalfd cannot interrupt a Lua handler
 * stuck in a loop. ltap_host_signal only sets flags, wakes the loop and
 * installs the count hook of call.c (lua_sethook is async-signal-safe, as
 * lua.c's laction relies on). A script's own SIGINT handler runs between
 * batches, in order with the events, never inside the signal handler or a
 * read. */
#include "signals.h"

#include "call.h"
#include "ctx.h"
#include "event.h"
#include "loop.h"

#include <lauxlib.h>
#include <signal.h>
#include <string.h>

#define INTERRUPTS_HANDLED 5 /* SIGINTs an ltap.on_interrupt handler gets */

void ltap_host_signal(ltap_host *h, int sig)
{
	struct ltap_ctx *ctx = (struct ltap_ctx *)h;

	if (!ctx)
		return;
	if (ctx->on_interrupt && sig == SIGINT && ctx->interrupts + ctx->interrupts_pending < INTERRUPTS_HANDLED) {
		/* the script decides: its handler runs between batches; from the
		 * sixth SIGINT on, the default (a second one ends the run at once)
		 * is back, so ^C always gets out */
		ctx->interrupts_pending++;
		if (ctx->loop)
			ltap_loop_wake(ctx->loop);
		return;
	}
	ctx->sigints += ctx->on_interrupt ? 2 : 1;
	if (sig)
		ctx->last_signal = sig;
	if (ctx->sigints == 1) {
		ctx->sig_time = ltap_now();
		ctx->sig_call_seq = ctx->call_seq;
	}
	if (ctx->loop) {
		if (ctx->sigints > 1)
			ltap_loop_halt(ctx->loop);
		else
			ltap_loop_stop(ctx->loop);
	}
	if (ctx->in_call)
		ltap_call_interrupt(ctx, 1000);
}

/* ltap.on_interrupt(FN): FN(count, seconds since the previous SIGINT) runs,
 * in order with the events, for every SIGINT; it returns nothing to go on,
 * "stop" to end the run as a SIGINT would (finish hooks run), or "quit" to
 * end it at once without them. SIGINTs that came before a "stop" took
 * effect still reach FN, which may then "quit". */
int signals_on_interrupt(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	luaL_checktype(L, 1, LUA_TFUNCTION);
	lua_pushvalue(L, 1);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.on_interrupt");
	ctx->on_interrupt = 1;
	return 0;
}

int ltap_interrupt_dispatch(struct ltap_ctx *ctx)
{
	lua_State *L = ctx->L;
	int ends = 0;

	while (ctx->interrupts_pending > 0 && !(ctx->run.end & (LTAP_END_NOW | LTAP_END_NOLUA))) {
		uint64_t now = ltap_now();
		const char *what;
		ctx->interrupts_pending--;
		ctx->interrupts++;
		lua_getfield(L, LUA_REGISTRYINDEX, "ltap.on_interrupt");
		lua_pushinteger(L, ctx->interrupts);
		lua_pushnumber(L, ctx->last_interrupt ? (double)(now - ctx->last_interrupt) / 1e9 : 1e9);
		ctx->last_interrupt = now;
		/* live, the signal came at `now`, which may be past the last event
		 * dispatched: a timer FN sets (after(2, ...)) counts from the signal,
		 * so it cannot come due before the time FN is told about */
		if (ltap_ctx_live(ctx) && ctx->trace_now < now)
			ctx->trace_now = now;
		ltap_event_clear(ctx);
		if (ltap_call(ctx, 2, 1) != 0)
			return 1;
		what = lua_tostring(L, -1);
		if (what && strcmp(what, "quit") == 0) {
			ends = 1;
			ltap_run_end(ctx, LTAP_END_NOW);
		} else if (what && strcmp(what, "stop") == 0) {
			ends = 1;
			ltap_run_end(ctx, LTAP_END_STOP);
		}
		lua_pop(L, 1);
		ltap_report_flush(ctx);
		ltap_host_flush(ctx);
	}
	return ends;
}
