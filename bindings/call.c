/* call.c: ltap_call (lua_pcall with a traceback) and the count hook that
 * interrupts a running call.
 *
 * A signal (signals.c) or the end of the run from inside (os.exit, the
 * memory limit) installs the hook; it interrupts a handler that is still
 * in the same call half a second after the first SIGINT, or at once after
 * the second or an end from inside, and keeps raising on every few
 * instructions so a pcall in the script cannot swallow the interruption.
 * A call that fails ends the run (ltap_run_end) with why. */
#include "call.h"

#include "ctx.h"
#include "log.h"
#include "loop.h"
#include "lower.h"
#include "options.h"

#include <lauxlib.h>
#include <signal.h>
#include <string.h>

#define INTERRUPT_GRACE 500000000ull /* ns a running handler may finish in */

static int call_msghandler(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);
	if (msg == NULL && luaL_testudata(L, 1, "ltap.usage"))
		return 1; /* a usage error: its one line, no traceback (options.c) */
	if (msg == NULL) {
		if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
			return 1;
		msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
	}
	luaL_traceback(L, L, msg, 1);
	return 1;
}

static void call_interrupt_hook(lua_State *L, lua_Debug *ar)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	(void)ar;

	if (ctx->run.end & LTAP_END_NOLUA) {
		/* os.exit() or the memory limit: unwind to ltap_call, through
		 * any pcall of the script */
		lua_sethook(L, call_interrupt_hook, LUA_MASKCOUNT, 1);
		luaL_error(L, "the run is ending");
	}
	if (ctx->interrupted || ctx->sigints > 1 ||
	    (ctx->in_call && ctx->call_seq == ctx->sig_call_seq &&
	     ltap_now() - ctx->sig_time > INTERRUPT_GRACE)) {
		ctx->interrupted = 1;
		lua_sethook(L, call_interrupt_hook, LUA_MASKCOUNT, 1);
		luaL_error(L, "interrupted by SIG%s: the handler did not return", ctx->last_signal ? sigabbrev_np(ctx->last_signal) : "TERM");
	}
	if (!ctx->in_call || ctx->call_seq != ctx->sig_call_seq)
		lua_sethook(L, NULL, 0, 0);
}

void ltap_call_interrupt(struct ltap_ctx *ctx, int count)
{
	lua_sethook(ctx->L, call_interrupt_hook, LUA_MASKCOUNT, count);
}

/* The script ended the run from inside (os.exit) or reached its memory
 * limit: no finish hooks, the kernel is cleaned as on every end. */
static int call_end(struct ltap_ctx *ctx)
{
	lua_sethook(ctx->L, NULL, 0, 0);
	return -1;
}

void ltap_call_end(struct ltap_ctx *ctx, lua_State *L, unsigned why)
{
	ltap_run_end(ctx, LTAP_END_NOLUA | why);
	/* the next instruction of the script raises, and every one after it */
	lua_sethook(L, call_interrupt_hook, LUA_MASKCOUNT, 1);
	if (L != ctx->L)
		lua_sethook(ctx->L, call_interrupt_hook, LUA_MASKCOUNT, 1);
}

int ltap_call(struct ltap_ctx *ctx, int nargs, int nres)
{
	lua_State *L = ctx->L;
	int st, outer = ctx->in_call; /* ltap.drain() calls handlers inside a hook */
	unsigned why = LTAP_END_ERROR;

	if (ctx->run.end & LTAP_END_NOLUA) {
		/* nothing of the script runs after os.exit() or the memory limit */
		lua_pop(L, nargs + 1);
		return call_end(ctx);
	}
	ctx->call_seq++;
	ctx->in_call = 1;
	/* a SIGINT that came between calls still has to reach a runaway handler */
	if (ctx->sigints > 1)
		lua_sethook(L, call_interrupt_hook, LUA_MASKCOUNT, 1);
	st = lua_pcall(L, nargs, nres, ctx->msgh_slot);
	ctx->in_call = outer;
	if (ctx->lower_armed)
		ltap_lower_disarm(ctx); /* what the call changed is checked before a lowered handler's next event */
	if (st == LUA_OK && !(ctx->run.end & LTAP_END_NOLUA))
		return 0;
	if (ctx->run.end & LTAP_END_NOLUA) {
		if (st == LUA_OK)
			lua_pop(L, nres); /* a coroutine that caught it ran to the end */
		else
			lua_pop(L, 1);
		return call_end(ctx);
	}
	if (ltap_usage_report(L, -1)) {
		why = LTAP_END_ERROR | LTAP_END_USAGE;
	} else if (ctx->forgive && ctx->forgive(ctx, lua_tostring(L, -1))) { /* serving: counted, not fatal */
		lua_pop(L, 1);
		return -1;
	} else {
		ltap_err("%s", lua_tostring(L, -1));
	}
	lua_pop(L, 1);
	if (ctx->interrupted) {
		/* the user stopped a runaway handler: end hooks still run */
		lua_sethook(L, NULL, 0, 0);
		ctx->interrupted = 0;
		why = LTAP_END_INTERRUPTED;
	}
	ltap_run_end(ctx, why);
	return -1;
}

int ltap_push_msghandler(lua_State *L)
{
	lua_pushcfunction(L, call_msghandler);
	return lua_gettop(L);
}

/* Ends one report (a timer run, a hook): in JSON mode stdlib/report.lua then
 * writes what the callback printed as one document. */
void ltap_report_flush(struct ltap_ctx *ctx)
{
	lua_State *L = ctx->L;

	if (!ctx->opt.json)
		return;
	ltap_push_ltap(L, ctx);
	lua_getfield(L, -1, "report_flush");
	lua_remove(L, -2);
	if (lua_isfunction(L, -1))
		ltap_call(ctx, 0, 0);
	else
		lua_pop(L, 1);
}
