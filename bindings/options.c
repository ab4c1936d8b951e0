/* options.c: the one check of an options table, for every function that
 * takes one (probe{filter=, stack=}, counter{}, stats{}, ltap.options{},
 * and in the stdlib report{}, derive.*{}, flamegraph{}): each key must be an
 * option the function knows and its value of the option's type, or the
 * call raises one line naming it ("probe: unknown option 'filtr'
 * (options: filter, stack)"), never a silently ignored misspelling.
 *
 * Types are Lua type names joined by '|' ("string|table"), plus "integer"
 * (a number with an integer value) and "any". Lua code checks with
 * ltap.check_options(T, {NAME = TYPES, ...}, WHAT, [LEVEL]). */
#include "ctx.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

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
