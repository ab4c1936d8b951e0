/* leaf.c: e:leaf(), the frame a sample (or stack event) happened in, as
 * plain values: the per-sample path of ltap top and ltap annotate makes no
 * table.
 *
 *   local sym, module, kernel, off, addr = e:leaf()
 *
 * sym is nil where no symbol covers the address, module where not even the
 * mapping is known (then off is nil too); nothing at all for an empty
 * chain. module is the file's path ("[kernel.kallsyms]", "[ext4]" for the
 * kernel), as e:frame(1).module. */
#include "leaf.h"

#include "ctx.h"
#include "stack.h"
#include "symbols.h"

#include <lauxlib.h>

int ltap_stack_leaf(lua_State *L, struct ltap_ctx *ctx, const struct ltap_rec *r)
{
	struct ltap_frame fs[2], f;
	struct ltap_sym sym;
	uint64_t addrs[2], addr;
	int n = ltap_symbols_chain(ctx->syms, r->pid, r->callchain, r->nr_callchain, fs, addrs, 2);

	if (ltap_stack_untraced(ctx, r, fs, addrs, n) < 1)
		return 0;
	f = fs[0];
	addr = addrs[0];
	if (ltap_symbols_frame_sym(ctx->syms, &f, 0, &sym) != 0)
		sym.name = sym.module = NULL;
	if (sym.name)
		lua_pushstring(L, sym.name);
	else
		lua_pushnil(L);
	if (sym.module)
		lua_pushstring(L, sym.module);
	else
		lua_pushnil(L);
	lua_pushboolean(L, (int)f.kernel);
	if (sym.name)
		lua_pushinteger(L, (lua_Integer)sym.off);
	else
		lua_pushnil(L);
	lua_pushinteger(L, (lua_Integer)addr);
	return 5;
}
