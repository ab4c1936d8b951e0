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
#include "ctx.h"

#include "symbols.h"

#include <lauxlib.h>
#include <linux/perf_event.h>

int ltap_stack_leaf(lua_State *L, struct ltap_ctx *ctx, const struct ltap_rec *r)
{
	int kernel = 0;

	for (int i = 0; i < r->nr_callchain; i++) {
		uint64_t a = r->callchain[i];
		struct ltap_sym sym;
		if (a >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = a == (uint64_t)PERF_CONTEXT_KERNEL;
			continue;
		}
		if (ltap_symbols_lookup(ctx->syms, r->pid, a, 0, &sym) != 0)
			sym.name = sym.module = NULL;
		if (sym.name)
			lua_pushstring(L, sym.name);
		else
			lua_pushnil(L);
		if (sym.module)
			lua_pushstring(L, sym.module);
		else
			lua_pushnil(L);
		lua_pushboolean(L, kernel);
		if (sym.name)
			lua_pushinteger(L, (lua_Integer)sym.off);
		else
			lua_pushnil(L);
		lua_pushinteger(L, (lua_Integer)a);
		return 5;
	}
	return 0;
}
