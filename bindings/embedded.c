/* embedded.c: registers the stdlib in package.preload (as linit.c does for
 * Lua's own libraries) and finds bundled scripts by name. */
#include "ctx.h"
#include "embedded.h"
#include "readfile.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ltap_embedded_find(int kind, const char *name, size_t *len, int *owned)
{
	const char *dev = getenv("LTAP_SOURCE_DIR");

	*owned = 0;
	if (dev && *dev) {
		char path[4096];
		char *s;
		snprintf(path, sizeof path, "%s/%s/%s.lua", dev, kind == LTAP_EMBED_STDLIB ? "stdlib" : "scripts", name);
		if ((s = ltap_file_read(path, LTAP_SCRIPT_MAX, len)) != NULL) {
			*owned = 1;
			return s;
		}
	}
	for (const struct ltap_embedded *e = ltap_embedded; e->name; e++) {
		if (e->kind == kind && strcmp(e->name, name) == 0) {
			*len = e->len;
			return e->src;
		}
	}
	return NULL;
}

static int embedded_loader(lua_State *L)
{
	const char *name = lua_tostring(L, lua_upvalueindex(1));
	size_t len;
	int owned, st;
	const char *src = ltap_embedded_find(LTAP_EMBED_STDLIB, name, &len, &owned);
	char chunk[256];

	if (!src)
		return luaL_error(L, "no stdlib module '%s'", name);
	snprintf(chunk, sizeof chunk, "@stdlib/%s.lua", name);
	st = luaL_loadbuffer(L, src, len, chunk);
	if (owned)
		free((void *)src);
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
