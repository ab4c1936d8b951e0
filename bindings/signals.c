/* signals.c: SIGINT, SIGTERM, SIGQUIT and SIGHUP, and ltap.on_interrupt.
 *
 * The four end a run alike (a second one ends it at once) and get a real
 * handler, not a signalfd: a signalfd cannot interrupt a Lua handler stuck
 * in a loop. The handler only sets flags, wakes the loop and installs the
 * count hook of call.c (lua_sethook is async-signal-safe, as lua.c's
 * laction relies on). A script's own SIGINT handler runs between batches,
 * in order with the events, never inside the signal handler or a read. */
#include "ctx.h"

#include <lauxlib.h>
#include <signal.h>
#include <string.h>

#define INTERRUPTS_HANDLED 5 /* SIGINTs an ltap.on_interrupt handler gets */

/* The one C global: a signal handler has no other way to find the run. */
static struct ltap_ctx *signal_ctx;

static void signals_on_signal(int sig)
{
	struct ltap_ctx *ctx = signal_ctx;

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
	ctx->end_signal = sig;
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

void ltap_signals_install(struct ltap_ctx *ctx)
{
	struct sigaction sa;

	signal_ctx = ctx;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = signals_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

void ltap_signals_restore(void)
{
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGQUIT, SIG_DFL);
	signal_ctx = NULL;
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

	while (ctx->interrupts_pending > 0 && !ctx->quit) {
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
		if (!ctx->opt.input && ctx->trace_now < now)
			ctx->trace_now = now;
		ltap_event_clear(ctx);
		if (ltap_call(ctx, 2, 1) != 0)
			return 1;
		what = lua_tostring(L, -1);
		if (what && strcmp(what, "quit") == 0) {
			ctx->quit = 1;
			ends = 1;
			if (ctx->loop)
				ltap_loop_halt(ctx->loop);
		} else if (what && strcmp(what, "stop") == 0) {
			ends = 1;
			if (ctx->loop)
				ltap_loop_stop(ctx->loop);
		}
		lua_pop(L, 1);
		ltap_report_flush(ctx);
		fflush(stdout);
	}
	return ends;
}
