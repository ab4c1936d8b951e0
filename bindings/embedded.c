/* embedded.c: registers the stdlib in package.preload (as linit.c does for
 * Lua's own libraries) and finds bundled scripts by name. */
#include "ctx.h"
#include "embedded.h"
#include "readfile.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ltap_embedded_get(int kind, const char *name, struct ltap_chunk *out)
{
	const char *dev = getenv("LTAP_SOURCE_DIR");

	memset(out, 0, sizeof *out);
	if (dev && *dev) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s/%s.lua", dev, kind == LTAP_EMBED_STDLIB ? "stdlib" : "scripts", name);
		if ((out->src = ltap_file_read(path, LTAP_SCRIPT_MAX, &out->len)) != NULL) {
			out->owned = 1;
			return 0;
		}
	}
	for (const struct ltap_embedded *e = ltap_embedded; e->name; e++) {
		if (e->kind == kind && strcmp(e->name, name) == 0) {
			*out = (struct ltap_chunk){e->src, e->len, e->code, e->codelen, 0};
			return 0;
		}
	}
	return -1;
}

void ltap_chunk_free(struct ltap_chunk *c)
{
	if (c->owned)
		free((void *)c->src);
	memset(c, 0, sizeof *c);
}

int ltap_chunk_load(lua_State *L, const struct ltap_chunk *c, const char *chunkname)
{
	/* bytecode only from ltap's own image; whatever else is text only (a
	 * crafted binary chunk can crash the VM) */
	if (c->code)
		return luaL_loadbufferx(L, c->code, c->codelen, chunkname, "b");
	return luaL_loadbufferx(L, c->src ? c->src : "", c->len, chunkname, "t");
}

static int embedded_loader(lua_State *L)
{
	const char *name = lua_tostring(L, lua_upvalueindex(1));
	struct ltap_chunk c;
	char chunk[256];
	int st;

	if (ltap_embedded_get(LTAP_EMBED_STDLIB, name, &c))
		return luaL_error(L, "no stdlib module '%s'", name);
	snprintf(chunk, sizeof chunk, "@stdlib/%s.lua", name);
	st = ltap_chunk_load(L, &c, chunk);
	ltap_chunk_free(&c);
	if (st != LUA_OK)
		return lua_error(L);
	lua_call(L, 0, 1);
	return 1;
}

void ltap_open_embedded(lua_State *L, struct ltap_ctx *ctx)
{
	(void)ctx;
	luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
	for (const struct ltap_embedded *e = ltap_embedded; e->name; e++) {
		if (e->kind != LTAP_EMBED_STDLIB)
			continue;
		lua_pushfstring(L, "ltap.%s", e->name);
		lua_pushstring(L, e->name);
		lua_pushcclosure(L, embedded_loader, 1);
		lua_settable(L, -3);
	}
	lua_pop(L, 1);
}
