/* options.c: the one check of an options table, for every function that
 * takes one (probe{filter=, stack=}, counter{}, stats{}, ltap.options{},
 * and in the stdlib report{}, derive.*{}, flamegraph{}): each key must be an
 * option the function knows and its value of the option's type, or the
 * call raises one line naming it ("probe: unknown option 'filtr'
 * (options: filter, stack)"), never a silently ignored misspelling.
 *
 * Types are Lua type names joined by '|' ("string|table"), plus "integer"
 * (a number with an integer value) and "any". Lua code checks with
 * ltap.check_options(T, {NAME = TYPES, ...}, WHAT, [LEVEL]).
 *
 * A script's command line has its own error channel: a usage error (an
 * unknown option, a missing or bad value) is raised as an object of type
 * ltap.usage, which ltap_call prints as one line under the script's name,
 * without a traceback, and ltap exits 2, as for a bad option of its own.
 * A script's pcall can still catch it (tostring gives the message). */
#include "options.h"

#include "ctx.h"
#include "log.h"
#include "parse.h"

#include <lauxlib.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define USAGE_TYPE "ltap.usage"

#define OPTIONS_MAX 64

static int options_type_ok(lua_State *L, int idx, const char *types)
{
	const char *have = luaL_typename(L, idx);
	size_t hl = strlen(have);

	for (const char *t = types; *t;) {
		size_t n = strcspn(t, "|");
		if ((n == 3 && strncmp(t, "any", 3) == 0) || (n == hl && strncmp(t, have, n) == 0) ||
		    (n == 7 && strncmp(t, "integer", 7) == 0 && lua_isinteger(L, idx)) ||
		    (n == 7 && strncmp(t, "integer", 7) == 0 && lua_type(L, idx) == LUA_TNUMBER &&
		     lua_tonumber(L, idx) == (lua_Number)(lua_Integer)lua_tonumber(L, idx)))
			return 1;
		t += n + (t[n] == '|');
	}
	return 0;
}

/* raises at level: 1 is the Lua code calling the C function that checks */
static void options_check(lua_State *L, int idx, const char *what, const struct ltap_optspec *spec, int n,
			  int level)
{
	idx = lua_absindex(L, idx);
	luaL_checktype(L, idx, LUA_TTABLE);
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : NULL;
		int i = 0;

		while (key && i < n && strcmp(key, spec[i].name) != 0)
			i++;
		if (!key || i == n) {
			const char *name = luaL_tolstring(L, -2, NULL);
			luaL_checkstack(L, 2 * n + 4, "options");
			luaL_where(L, level);
			lua_pushfstring(L, "%s: unknown option '%s' (options: ", what, name);
			for (int k = 0; k < n; k++) {
				lua_pushstring(L, spec[k].name);
				lua_pushstring(L, k + 1 < n ? ", " : ")");
			}
			lua_concat(L, 2 + 2 * n);
			lua_error(L);
		}
		if (!options_type_ok(L, -1, spec[i].types)) {
			const char *have = luaL_typename(L, -1);
			luaL_where(L, level);
			luaL_gsub(L, spec[i].types, "|", " or ");
			lua_pushfstring(L, "%s: option '%s' must be %s %s, not %s %s", what, key,
					strchr("aeiou", spec[i].types[0]) ? "an" : "a", lua_tostring(L, -1),
					strchr("aeiou", have[0]) ? "an" : "a", have);
			lua_remove(L, -2);
			lua_concat(L, 2);
			lua_error(L);
		}
		lua_pop(L, 1);
	}
}

void ltap_check_options(lua_State *L, int idx, const char *what, const struct ltap_optspec *spec)
{
	int n = 0;

	while (spec[n].name)
		n++;
	options_check(L, idx, what, spec, n, 1);
}

static int options_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ltap_optspec *)a)->name, ((const struct ltap_optspec *)b)->name);
}

/* ltap.check_options(T, SPEC, WHAT, [LEVEL]): T's keys against SPEC (name ->
 * types); an error at LEVEL (default 2: the caller of the function whose
 * options T are). T nil is no options. */
int options_lua(lua_State *L)
{
	struct ltap_optspec spec[OPTIONS_MAX];
	const char *what = luaL_checkstring(L, 3);
	int level = (int)luaL_optinteger(L, 4, 2), n = 0;

	luaL_checktype(L, 2, LUA_TTABLE);
	if (lua_isnil(L, 1))
		return 0;
	lua_pushnil(L);
	while (lua_next(L, 2)) {
		if (n == OPTIONS_MAX || lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
			return luaL_error(L, "check_options: a spec is at most %d NAME = \"TYPES\" pairs", OPTIONS_MAX);
		/* the strings stay alive in the spec table */
		spec[n].name = lua_tostring(L, -2);
		spec[n++].types = lua_tostring(L, -1);
		lua_pop(L, 1);
	}
	qsort(spec, (size_t)n, sizeof *spec, options_cmp); /* a stable message */
	if (!lua_istable(L, 1)) {
		luaL_where(L, level);
		lua_pushfstring(L, "%s: options must be a table, not %s", what, luaL_typename(L, 1));
		lua_concat(L, 2);
		return lua_error(L);
	}
	options_check(L, 1, what, spec, n, level);
	return 0;
}

int ltap_usage_error(lua_State *L, const char *fmt, ...)
{
	va_list ap;

	lua_newuserdatauv(L, 0, 1);
	va_start(ap, fmt);
	lua_pushvfstring(L, fmt, ap);
	va_end(ap);
	lua_setiuservalue(L, -2, 1); /* the message */
	luaL_setmetatable(L, USAGE_TYPE);
	return lua_error(L);
}

int ltap_usage_report(lua_State *L, int idx)
{
	if (!luaL_testudata(L, idx, USAGE_TYPE))
		return 0;
	lua_getiuservalue(L, idx, 1);
	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.script");
	ltap_err("%s: %s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "script", lua_tostring(L, -2));
	lua_pop(L, 2); /* the name, the message */
	return 1;
}

static int usage_tostring(lua_State *L)
{
	luaL_checkudata(L, 1, USAGE_TYPE);
	lua_getiuservalue(L, 1, 1);
	return 1;
}

/* ltap.usage_error(MSG): raises MSG as a usage error (see above). */
int options_usage_error(lua_State *L)
{
	return ltap_usage_error(L, "%s", luaL_checkstring(L, 1));
}

/* ltap.parse_size(V) -> bytes: V a number of bytes, or a string with a unit
 * (K M G T, powers of 1024), as -b takes it; nil, msg if it is not one. */
int options_parse_size(lua_State *L)
{
	int t = lua_type(L, 1);
	const char *s = luaL_tolstring(L, 1, NULL);
	uint64_t bytes;

	if ((t != LUA_TSTRING && t != LUA_TNUMBER) || ltap_parse_size(s, &bytes) || bytes > (uint64_t)LUA_MAXINTEGER) {
		luaL_pushfail(L);
		lua_pushfstring(L, "bad size '%s' (try 8M)", s);
		return 2;
	}
	lua_pushinteger(L, (lua_Integer)bytes);
	return 1;
}

/* the type of usage errors, for luaL_testudata and tostring */
void ltap_open_options(lua_State *L, struct ltap_ctx *ctx)
{
	(void)ctx;
	luaL_newmetatable(L, USAGE_TYPE);
	lua_pushcfunction(L, usage_tostring);
	lua_setfield(L, -2, "__tostring");
	lua_pop(L, 1); /* the metatable */
}
