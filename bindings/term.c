/* term.c: ltap.term, the terminal of a full-screen script (ltap top):
 *
 *   ltap.term.interactive()  -> true when standard input and output are terminals
 *   ltap.term.open(ON_KEY)   -> rows, cols: the screen is ltap's; ON_KEY(name) runs
 *                               between batches for every key (runtime/term.h names
 *                               them), "resize" when the window changed, "eof" when
 *                               the terminal went away; nil, msg on no terminal
 *   ltap.term.size()         -> rows, cols (nil, msg when stdout is no terminal)
 *   ltap.term.write(TEXT)    -> the text to the screen, in one go
 *   ltap.term.close()        -> the terminal as it was (also at ltap's end)
 *
 * open is for a run that is attached (a begin hook or later): the keys are
 * watched by the run's loop. */
#include "lterm.h"

#include "call.h"
#include "ctx.h"
#include "event.h"
#include "loop.h"
#include "term.h"

#include <errno.h>
#include <lauxlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define TERM_STATE "ltap.term.state"

struct term_state {
	struct ltap_ctx *ctx;
	int key_ref;            /* the ON_KEY function */
	int in_watch, winch_watch;
	int open;
};

static struct term_state *term_state(lua_State *L)
{
	struct term_state *t;

	lua_getfield(L, LUA_REGISTRYINDEX, TERM_STATE);
	t = lua_touserdata(L, -1);
	lua_pop(L, 1);
	return t;
}

/* Calls ON_KEY(name) as timers are called; 0 while the run goes on. */
static int term_deliver(struct term_state *t, const char *name)
{
	struct ltap_ctx *ctx = t->ctx;
	lua_State *L = ctx->L;

	if (!t->open || ltap_run_halting(ctx))
		return -1;
	ltap_event_clear(ctx);
	lua_rawgeti(L, LUA_REGISTRYINDEX, t->key_ref);
	lua_pushstring(L, name);
	if (ltap_call(ctx, 1, 0))
		return -1;
	ltap_host_flush(ctx);
	return 0;
}

static void term_unwatch(struct term_state *t)
{
	if (t->ctx->loop && t->in_watch >= 0)
		ltap_loop_unwatch(t->ctx->loop, t->in_watch);
	if (t->ctx->loop && t->winch_watch >= 0)
		ltap_loop_unwatch(t->ctx->loop, t->winch_watch);
	t->in_watch = t->winch_watch = -1;
}

static void term_on_input(void *ud)
{
	struct term_state *t = ud;
	unsigned char buf[256];
	char name[16];
	ssize_t n = read(STDIN_FILENO, buf, sizeof buf);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) { /* the terminal hung up */
		if (t->ctx->loop && t->in_watch >= 0)
			ltap_loop_unwatch(t->ctx->loop, t->in_watch);
		t->in_watch = -1;
		term_deliver(t, "eof");
		return;
	}
	for (size_t i = 0; i < (size_t)n;) {
		i += ltap_term_key(buf + i, (size_t)n - i, name, sizeof name);
		if (name[0] && term_deliver(t, name))
			return;
	}
}

static void term_on_winch(void *ud)
{
	if (ltap_term_resized())
		term_deliver(ud, "resize");
}

static int term_fail(lua_State *L, const char *what, int e)
{
	lua_pushnil(L);
	lua_pushfstring(L, "%s: %s", what, strerror(e));
	return 2;
}

static int term_push_size(lua_State *L)
{
	int rows, cols, e = ltap_term_size(STDOUT_FILENO, &rows, &cols);

	if (e)
		return term_fail(L, "term: cannot read the window size", -e);
	lua_pushinteger(L, rows);
	lua_pushinteger(L, cols);
	return 2;
}

static int term_interactive(lua_State *L)
{
	lua_pushboolean(L, isatty(STDIN_FILENO) && isatty(STDOUT_FILENO));
	return 1;
}

static void term_close_state(struct term_state *t)
{
	if (!t->open)
		return;
	t->open = 0;
	term_unwatch(t);
	ltap_term_leave();
}

static int term_open(lua_State *L)
{
	struct term_state *t = term_state(L);
	struct ltap_ctx *ctx = t->ctx;
	int e;

	luaL_checktype(L, 1, LUA_TFUNCTION);
	if (!ltap_run_started(ctx) || !ctx->loop)
		return luaL_error(L, "ltap.term.open: only in a live run once attached (a begin hook or later)");
	if (t->open)
		return luaL_error(L, "ltap.term.open: the terminal is open already");
	ltap_host_flush(ctx);
	e = ltap_term_enter(STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO);
	if (e)
		return term_fail(L, "term: cannot take the terminal", -e);
	t->open = 1;
	lua_pushvalue(L, 1);
	luaL_unref(L, LUA_REGISTRYINDEX, t->key_ref);
	t->key_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	t->in_watch = ltap_loop_watch(ctx->loop, STDIN_FILENO, term_on_input, t);
	t->winch_watch = ltap_loop_watch(ctx->loop, ltap_term_winch_fd(), term_on_winch, t);
	if (t->in_watch < 0 || t->winch_watch < 0) {
		e = t->in_watch < 0 ? t->in_watch : t->winch_watch;
		term_close_state(t);
		return term_fail(L, "term: cannot watch the terminal", -e);
	}
	return term_push_size(L);
}

static int term_size(lua_State *L)
{
	return term_push_size(L);
}

static int term_write(lua_State *L)
{
	size_t n;
	const char *s = luaL_checklstring(L, 1, &n);

	ltap_host_flush(ltap_ctx_get(L));
	while (n > 0) {
		ssize_t w = write(STDOUT_FILENO, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return term_fail(L, "term: cannot write the screen", w < 0 ? errno : EIO);
		s += w;
		n -= (size_t)w;
	}
	lua_pushboolean(L, 1);
	return 1;
}

static int term_close(lua_State *L)
{
	term_close_state(term_state(L));
	return 0;
}

static int term_gc(lua_State *L)
{
	term_close_state(lua_touserdata(L, 1));
	return 0;
}

static const luaL_Reg term_funcs[] = {
	{"interactive", term_interactive},
	{"open", term_open},
	{"size", term_size},
	{"write", term_write},
	{"close", term_close},
	{NULL, NULL},
};

void ltap_open_term(lua_State *L, struct ltap_ctx *ctx)
{
	struct term_state *t = lua_newuserdatauv(L, sizeof *t, 0);

	*t = (struct term_state){.ctx = ctx, .key_ref = LUA_NOREF, .in_watch = -1, .winch_watch = -1};
	lua_createtable(L, 0, 1);
	lua_pushcfunction(L, term_gc);
	lua_setfield(L, -2, "__gc");
	lua_setmetatable(L, -2);
	lua_setfield(L, LUA_REGISTRYINDEX, TERM_STATE);
	ltap_push_ltap(L, ctx);
	luaL_newlib(L, term_funcs);
	lua_setfield(L, -2, "term");
	lua_pop(L, 1);
}
