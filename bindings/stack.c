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
#include "stack.h"

#include "ctx.h"
#include "evdesc.h"

#include <event-parse.h>
#include <lauxlib.h>
#include <string.h>

/* Pushes the table of frame f (raw: its address in the process). */
void ltap_stack_push_frame(lua_State *L, struct ltap_ctx *ctx, const struct ltap_frame *f, uint64_t raw, int lines)
{
	struct ltap_sym sym;
	int known = ltap_symbols_frame_sym(ctx->syms, f, lines, &sym) == 0;

	lua_createtable(L, 0, lines ? 7 : 5);
	lua_pushinteger(L, (lua_Integer)raw);
	lua_setfield(L, -2, "addr");
	lua_pushboolean(L, (int)f->kernel);
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

/* A tracepoint's chain starts where the kernel called the probe that took
 * the sample: in the traced function itself (__schedule) when its one
 * probe is called directly, in __traceiter_NAME when it has several (a
 * tracefs instance recording task names has one on sched_switch too). The
 * latter is the tracing's, not the traced code's: perf and bpftrace stacks
 * start at __schedule, and so do ltap's. A tracepoint's first frames are
 * few addresses: the descriptor keeps one of each kind, so a sample costs
 * a comparison, the symbol is looked up once. */
int ltap_stack_untraced(struct ltap_ctx *ctx, const struct ltap_rec *r, struct ltap_frame *frames, uint64_t *raw,
			int n)
{
	struct ltap_evdesc *d;
	struct ltap_sym sym;
	uint16_t id;

	if (n < 2 || !frames[0].kernel)
		return n;
	memcpy(&id, r->data, sizeof id);
	d = ltap_desc_at(ctx, id);
	if (!d || !d->ev || frames[0].addr == d->traced_leaf)
		return n;
	if (frames[0].addr != d->tracing_leaf) {
		if (ltap_symbols_frame_sym(ctx->syms, &frames[0], 0, &sym) != 0 || !sym.name ||
		    strncmp(sym.name, "__traceiter_", 12) != 0) {
			d->traced_leaf = frames[0].addr;
			return n;
		}
		d->tracing_leaf = frames[0].addr;
	}
	memmove(frames, frames + 1, (size_t)(n - 1) * sizeof *frames);
	if (raw)
		memmove(raw, raw + 1, (size_t)(n - 1) * sizeof *raw);
	return n - 1;
}

/* The frames of r, leaf first, cut where the frame-pointer walk went
 * astray (ltap_symbols_chain); that frame stays, as "[unknown]". */
int ltap_stack_frames(struct ltap_ctx *ctx, const struct ltap_rec *r, struct ltap_frame *frames, uint64_t *raw)
{
	int n = ltap_symbols_chain(ctx->syms, r->pid, r->callchain, r->nr_callchain, frames, raw,
				   LTAP_STACK_MAX_FRAMES);
	return ltap_stack_untraced(ctx, r, frames, raw, n);
}

/* How many bytes of s come before the first one in bad, or NUL; len if none */
static size_t stack_clean_span(const char *s, size_t len, const char *bad)
{
	const char *hit = memchr(s, 0, len);
	size_t end = hit ? (size_t)(hit - s) : len;

	for (; *bad; bad++)
		if ((hit = memchr(s, *bad, end)))
			end = (size_t)(hit - s);
	return end;
}

/* Adds s with each of the characters in bad (and NUL) replaced by to: in
 * runs, as most names have none (a folded profile names every frame of
 * every stack here) */
static void stack_add_clean(luaL_Buffer *b, const char *s, size_t len, const char *bad, char to)
{
	while (len) {
		size_t run = stack_clean_span(s, len, bad);
		luaL_addlstring(b, s, run);
		if (run == len)
			break;
		luaL_addchar(b, to);
		s += run + 1;
		len -= run + 1;
	}
}

/* The folded name of a frame, the one rule of ltap's folded stacks: the
 * symbol with ';' made ':', else "[module]" (the file's base name), else
 * "[unknown]"; "_[k]" after kernel frames (stackcollapse-perf.pl --all). */
void ltap_stack_add_folded_name(luaL_Buffer *b, const char *name, const char *module, int kernel)
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

void ltap_stack_add_frame_name(luaL_Buffer *b, struct ltap_ctx *ctx, const struct ltap_frame *f)
{
	struct ltap_sym sym;

	if (ltap_symbols_frame_sym(ctx->syms, f, 0, &sym) != 0)
		sym.name = sym.module = NULL;
	ltap_stack_add_folded_name(b, sym.name, sym.module, (int)f->kernel);
}

void ltap_stack_add_comm(luaL_Buffer *b, const char *comm, size_t len)
{
	stack_add_clean(b, comm, len, " ;", '_');
}

/* "comm;root;...;leaf", built in one buffer, no table per frame. */
static int stack_folded(lua_State *L, struct ltap_ctx *ctx, const struct ltap_rec *r, int comm_idx)
{
	struct ltap_frame frames[LTAP_STACK_MAX_FRAMES];
	int n = ltap_stack_frames(ctx, r, frames, NULL);
	size_t len;
	const char *comm = lua_tolstring(L, comm_idx, &len);
	luaL_Buffer b;

	luaL_buffinit(L, &b);
	ltap_stack_add_comm(&b, comm ? comm : "", comm ? len : 0);
	for (int i = n - 1; i >= 0; i--) {
		luaL_addchar(&b, ';');
		ltap_stack_add_frame_name(&b, ctx, &frames[i]);
	}
	luaL_pushresult(&b);
	return 1;
}

int ltap_stack_push(lua_State *L, struct ltap_ctx *ctx, const struct ltap_rec *r, int which, int arg)
{
	struct ltap_frame frames[LTAP_STACK_MAX_FRAMES];
	uint64_t raw[LTAP_STACK_MAX_FRAMES];
	int n, k = 0;

	if (which == STACK_FOLDED)
		return stack_folded(L, ctx, r, arg);
	n = ltap_stack_frames(ctx, r, frames, raw);
	if (which == STACK_FRAME) {
		if (arg < 1 || arg > n)
			return 0;
		ltap_stack_push_frame(L, ctx, &frames[arg - 1], raw[arg - 1], 0);
		return 1;
	}
	lua_createtable(L, n, 0);
	for (int i = 0; i < n; i++) {
		if ((which == STACK_KERNEL && !frames[i].kernel) || (which == STACK_USER && frames[i].kernel))
			continue;
		ltap_stack_push_frame(L, ctx, &frames[i], raw[i], arg);
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
	ltap_stack_add_folded_name(&b, name, module, lua_toboolean(L, 3));
	luaL_pushresult(&b);
	return 1;
}
