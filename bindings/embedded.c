/* embedded.c: registers the stdlib in package.preload (as linit.c does for
 * Lua's own libraries), finds bundled scripts by name, and gives ltap's own
 * code (stdlib modules, bundled scripts) a require of its own.
 *
 * Why a require of its own: ltap runs as root, and Lua's require searches
 * LUA_PATH and LUA_CPATH, which whoever set the environment chose; a
 * planted dkjson.lua there would run as root inside report.lua. ltap's
 * code loads ltap.* from ltap's own image and dkjson from the path Debian
 * installs it at, checked as root's, and nothing else; what a user's script
 * requires is the user's business (Lua's require, unchanged). */
#include "embedded.h"

#include "ctx.h"
#include "readfile.h"

#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LTAP_DKJSON_PATH
#define LTAP_DKJSON_PATH "/usr/share/lua/5.4/dkjson.lua"
#endif
#define OWN_ENV "ltap.own_env"   /* registry: the globals of ltap's own code */
#define DKJSON "ltap.dkjson"     /* registry: dkjson, loaded once */

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

void ltap_embedded_own_env(lua_State *L, struct ltap_ctx *ctx)
{
	(void)ctx;
	lua_getfield(L, LUA_REGISTRYINDEX, OWN_ENV);
	if (!lua_setupvalue(L, -2, 1)) /* a main chunk's first upvalue is _ENV */
		lua_pop(L, 1);
}

/* Loads stdlib module name (without "ltap.") as ltap's own code and calls
 * it; leaves its value. */
static void embedded_run(lua_State *L, const char *name)
{
	struct ltap_chunk c;
	char chunk[256];
	int st;

	if (ltap_embedded_get(LTAP_EMBED_STDLIB, name, &c))
		luaL_error(L, "no stdlib module 'ltap.%s'", name);
	snprintf(chunk, sizeof chunk, "@stdlib/%s.lua", name);
	st = ltap_chunk_load(L, &c, chunk);
	ltap_chunk_free(&c);
	if (st != LUA_OK)
		lua_error(L);
	ltap_embedded_own_env(L, ltap_ctx_get(L));
	lua_pushfstring(L, "ltap.%s", name);
	lua_call(L, 1, 1);
}

/* package.preload["ltap.NAME"]: a script's require of a stdlib module */
static int embedded_loader(lua_State *L)
{
	embedded_run(L, lua_tostring(L, lua_upvalueindex(1)));
	return 1;
}

/* dkjson from where Debian installs it, when the file and its directory
 * are root's and nobody else may write them (a link may lead there:
 * Debian's 5.4 name links to 5.1's file) */
static void embedded_dkjson(lua_State *L)
{
	char real[PATH_MAX], dir[PATH_MAX];
	struct stat st, ds;
	const char *why = NULL;
	size_t len;
	char *src;
	int fd;

	if (!realpath(LTAP_DKJSON_PATH, real)) {
		luaL_error(L, "dkjson: cannot find %s: %s (Debian's lua-dkjson)", LTAP_DKJSON_PATH, strerror(errno));
		return;
	}
	snprintf(dir, sizeof dir, "%s", real);
	fd = open(real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || stat(dirname(dir), &ds) < 0)
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)) || ds.st_uid != 0 ||
		 (ds.st_mode & (S_IWGRP | S_IWOTH)))
		why = "not root's, or others may write it";
	if (fd >= 0)
		close(fd);
	if (why)
		luaL_error(L, "dkjson: %s: %s", real, why);
	if (!(src = ltap_file_read(real, LTAP_SCRIPT_MAX, &len)))
		luaL_error(L, "dkjson: cannot read %s: %s", real, strerror(errno));
	lua_pushfstring(L, "@%s", real);
	if (luaL_loadbufferx(L, src, len, lua_tostring(L, -1), "t") != LUA_OK) {
		free(src);
		lua_error(L);
	}
	free(src);
	lua_pushliteral(L, "dkjson");
	lua_call(L, 1, 1);
}

/* require(NAME) of ltap's own code: ltap.NAME from ltap's image (shared
 * with scripts through package.loaded), dkjson from its installed path */
static int embedded_require(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);

	if (strncmp(name, "ltap.", 5) == 0) {
		lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
		if (lua_getfield(L, -1, name) != LUA_TNIL)
			return 1;
		lua_pop(L, 1);
		embedded_run(L, name + 5);
		if (lua_isnil(L, -1)) {
			lua_pop(L, 1);
			lua_pushboolean(L, 1);
		}
		lua_pushvalue(L, -1);
		lua_setfield(L, -3, name);
		return 1;
	}
	if (strcmp(name, "dkjson") == 0) {
		if (lua_getfield(L, LUA_REGISTRYINDEX, DKJSON) != LUA_TNIL)
			return 1;
		lua_pop(L, 1);
		embedded_dkjson(L);
		lua_pushvalue(L, -1);
		lua_setfield(L, LUA_REGISTRYINDEX, DKJSON);
		return 1;
	}
	return luaL_error(L, "module '%s' not found: ltap's own code loads only ltap.* and dkjson", name);
}

void ltap_open_embedded(lua_State *L, struct ltap_ctx *ctx)
{
	/* the globals of ltap's own code: the script environment's, with
	 * ltap's require */
	lua_createtable(L, 0, 1);
	lua_pushcfunction(L, embedded_require);
	lua_setfield(L, -2, "require");
	lua_createtable(L, 0, 2);
	lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->env_ref);
	lua_pushvalue(L, -1);
	lua_setfield(L, -3, "__index");
	lua_setfield(L, -2, "__newindex");
	lua_setmetatable(L, -2);
	lua_setfield(L, LUA_REGISTRYINDEX, OWN_ENV);
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
