/* stack.c: call chains of perf-ring samples as Lua tables of frames, and
 * sym(), the symbol lookup for scripts.
 *
 * A frame is {addr=, sym=, off=, module=, kernel=} (plus file= and line=
 * when asked), leaf first: frame 1 is where the event happened, as perf
 * script prints them. sym is nil for an address no symbol covers; module is
 * nil when not even the mapping is known. Frames are symbolized when the
 * handler asks, with results cached per (module, address) in symbols.c.
 * e:folded() gives the folded line of the stack (stdlib/folded.lua's
 * format) straight from C, and e:frame(N) one frame: no table per frame. */
#include "ctx.h"

#include "symbols.h"

#include <event-parse.h>
#include <lauxlib.h>
#include <linux/perf_event.h>
#include <string.h>

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

#define MAX_FRAMES LTAP_STACK_MAX_FRAMES

/* The frames of r, leaf first, without the context markers. A user frame
 * outside every mapping of the process ends the chain: the frame-pointer
 * walk went astray there (code built without frame pointers, such as
 * Debian's libc), and what follows is stack garbage, often up to the
 * kernel's limit of 127 frames. That frame stays, as "[unknown]". */
int ltap_stack_frames(struct ltap_ctx *ctx, const struct ltap_rec *r, uint64_t *addrs, unsigned char *kern)
{
	int kernel = 0, n = 0;

	for (int i = 0; i < r->nr_callchain && n < MAX_FRAMES; i++) {
		uint64_t a = r->callchain[i];
		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = a == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		addrs[n] = a;
		kern[n++] = (unsigned char)kernel;
		if (!kernel && !ltap_symbols_mapped(ctx->syms, r->pid, a))
			break;
	}
	return n;
}

/* Adds s with each of the characters in bad replaced by to. */
static void stack_add_clean(luaL_Buffer *b, const char *s, size_t len, const char *bad, char to)
{
	for (size_t i = 0; i < len; i++)
		luaL_addchar(b, strchr(bad, s[i]) ? to : s[i]);
}

/* The folded name of a frame, the one rule of ltap's folded stacks: the
 * symbol with ';' made ':', else "[module]" (the file's base name), else
 * "[unknown]"; "_[k]" after kernel frames (stackcollapse-perf.pl --all). */
static void stack_add_folded_name(luaL_Buffer *b, const char *name, const char *module, int kernel)
{
	if (name) {
		stack_add_clean(b, name, strlen(name), ";", ':');
	} else if (module) {
		const char *base = strrchr(module, '/');
		base = base ? base + 1 : module;
		luaL_addchar(b, '[');
		stack_add_clean(b, base, strlen(base), ";", ':');
		luaL_addchar(b, ']');
	} else {
		luaL_addstring(b, "[unknown]");
	}
	if (kernel)
		luaL_addstring(b, "_[k]");
}

static void stack_add_name(luaL_Buffer *b, struct ltap_ctx *ctx, int pid, uint64_t addr, int kernel)
{
	struct ltap_sym sym;

	if (ltap_symbols_lookup(ctx->syms, pid, addr, 0, &sym) != 0)
		sym.name = sym.module = NULL;
	stack_add_folded_name(b, sym.name, sym.module, kernel);
}

/* "comm;root;...;leaf", built in one buffer, no table per frame. */
static int stack_folded(lua_State *L, struct ltap_ctx *ctx, const struct ltap_rec *r, int comm_idx)
{
	uint64_t addrs[MAX_FRAMES];
	unsigned char kern[MAX_FRAMES];
	int n = ltap_stack_frames(ctx, r, addrs, kern);
	size_t len;
	const char *comm = lua_tolstring(L, comm_idx, &len);
	luaL_Buffer b;

	luaL_buffinit(L, &b);
	stack_add_clean(&b, comm ? comm : "", comm ? len : 0, " ;", '_');
	for (int i = n - 1; i >= 0; i--) {
		luaL_addchar(&b, ';');
		stack_add_name(&b, ctx, r->pid, addrs[i], kern[i]);
	}
	luaL_pushresult(&b);
	return 1;
}

int ltap_stack_push(lua_State *L, struct ltap_ctx *ctx, const struct ltap_rec *r, int which, int arg)
{
	uint64_t addrs[MAX_FRAMES];
	unsigned char kern[MAX_FRAMES];
	int n, k = 0;

	if (which == STACK_FOLDED)
		return stack_folded(L, ctx, r, arg);
	n = ltap_stack_frames(ctx, r, addrs, kern);
	if (which == STACK_FRAME) {
		if (arg < 1 || arg > n)
			return 0;
		stack_push_frame(L, ctx, r->pid, addrs[arg - 1], kern[arg - 1], 0);
		return 1;
	}
	lua_createtable(L, n, 0);
	for (int i = 0; i < n; i++) {
		if ((which == STACK_KERNEL && !kern[i]) || (which == STACK_USER && kern[i]))
			continue;
		stack_push_frame(L, ctx, r->pid, addrs[i], kern[i], arg);
		lua_rawseti(L, -2, ++k);
	}
	return 1;
}

/* sym(ADDR, [PID]): name, offset, module, file, line of ADDR in process PID
 * (kernel addresses need none). name and offset are nil where no symbol
 * covers ADDR but its module (and maybe its source line) is known; nothing
 * at all when not even the module is. */
int stack_sym(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	uint64_t addr = (uint64_t)luaL_checkinteger(L, 1);
	int pid = (int)luaL_optinteger(L, 2, 0);
	struct ltap_sym s;

	if (ltap_symbols_lookup(ctx->syms, pid, addr, 1, &s) != 0 || !(s.name || s.module))
		return 0;
	if (s.name) {
		lua_pushstring(L, s.name);
		lua_pushinteger(L, (lua_Integer)s.off);
	} else {
		lua_pushnil(L);
		lua_pushnil(L);
	}
	lua_pushstring(L, s.module);
	if (!s.file)
		return 3;
	lua_pushstring(L, s.file);
	lua_pushinteger(L, s.line);
	return 5;
}

/* ltap.folded_name(SYM, MODULE, KERNEL): the folded name of a frame, by the
 * rule e:folded() follows (stdlib/folded.lua's frame_name calls it). */
int stack_folded_name(lua_State *L)
{
	const char *name = luaL_optstring(L, 1, NULL), *module = luaL_optstring(L, 2, NULL);
	luaL_Buffer b;

	luaL_buffinit(L, &b);
	stack_add_folded_name(&b, name, module, lua_toboolean(L, 3));
	luaL_pushresult(&b);
	return 1;
}
