/* stack.c: call chains of perf-ring samples as Lua tables of frames, and
 * sym(), the symbol lookup for scripts.
 *
 * A frame is {addr=, sym=, off=, module=, kernel=} (plus file= and line=
 * when asked), leaf first: frame 1 is where the event happened, as perf
 * script prints them. sym is nil for an address no symbol covers; module is
 * nil when not even the mapping is known. Frames are symbolized when the
 * handler asks, with results cached per (module, address) in symbols.c. */
#include "ctx.h"

#include "symbols.h"

#include <event-parse.h>
#include <lauxlib.h>
#include <linux/perf_event.h>

static void stack_push_frame(lua_State *L, struct ltap_ctx *ctx, int pid, uint64_t addr, int kernel,
			     int lines)
{
	struct ltap_sym sym;
	int known = ltap_symbols_lookup(ctx->syms, pid, addr, lines, &sym) == 0;

	lua_createtable(L, 0, lines ? 7 : 5);
	lua_pushinteger(L, (lua_Integer)addr);
	lua_setfield(L, -2, "addr");
	lua_pushboolean(L, kernel);
	lua_setfield(L, -2, "kernel");
	if (!known)
		return;
	if (sym.name) {
		lua_pushstring(L, sym.name);
		lua_setfield(L, -2, "sym");
		lua_pushinteger(L, (lua_Integer)sym.off);
		lua_setfield(L, -2, "off");
	}
	if (sym.module) {
		lua_pushstring(L, sym.module);
		lua_setfield(L, -2, "module");
	}
	if (sym.file) {
		lua_pushstring(L, sym.file);
		lua_setfield(L, -2, "file");
		lua_pushinteger(L, sym.line);
		lua_setfield(L, -2, "line");
	}
}

int ltap_stack_push(lua_State *L, struct ltap_ctx *ctx, const struct ltap_rec *r, int which, int lines)
{
	int kernel = 0, n = 0;

	if (!r->callchain)
		return luaL_error(L, "%s has no call chain (declare the probe with {stack=true})",
				  ctx->event->desc->ev ? ctx->event->desc->ev->name : "this event");
	lua_createtable(L, r->nr_callchain, 0);
	for (int i = 0; i < r->nr_callchain; i++) {
		uint64_t a = r->callchain[i];
		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = a == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if ((which == STACK_KERNEL && !kernel) || (which == STACK_USER && kernel))
			continue;
		stack_push_frame(L, ctx, r->pid, a, kernel, lines);
		lua_rawseti(L, -2, ++n);
	}
	return 1;
}

/* sym(ADDR, [PID]): name, offset, module, file, line of ADDR in process PID
 * (kernel addresses need none); nothing when no symbol covers ADDR. */
static int stack_sym(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	uint64_t addr = (uint64_t)luaL_checkinteger(L, 1);
	int pid = (int)luaL_optinteger(L, 2, 0);
	struct ltap_sym s;

	if (ltap_symbols_lookup(ctx->syms, pid, addr, 1, &s) != 0 || !s.name)
		return 0;
	lua_pushstring(L, s.name);
	lua_pushinteger(L, (lua_Integer)s.off);
	lua_pushstring(L, s.module);
	if (!s.file)
		return 3;
	lua_pushstring(L, s.file);
	lua_pushinteger(L, s.line);
	return 5;
}

static const luaL_Reg stack_funcs[] = {
	{"sym", stack_sym},
	{NULL, NULL},
};

void ltap_open_stack(lua_State *L)
{
	lua_pushglobaltable(L);
	luaL_setfuncs(L, stack_funcs, 0);
	lua_pop(L, 1);
}
