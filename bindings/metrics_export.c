/* metrics_export.c: --export-all: the aggregates a script made while it
 * loaded, exported without a declaration: a histogram, or a summary (its
 * count and sum), named PREFIX_VARIABLE by the global or upvalue holding
 * it, labelled key or key1..keyN. */
#include "metrics_export.h"

#include "ctx.h"
#include "log.h"
#include "metrics_set.h"
#include "stats.h"

#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* names[aggregate] = the variable holding it: a global, or an upvalue of a
 * function the run keeps (handlers, timers, hooks) or of one those hold */
static void name_upvalues(lua_State *L, int names, int seen, int fn, int depth)
{
	const char *up;

	if (lua_iscfunction(L, fn)) /* its upvalues have no names (an aggregate's bound methods) */
		return;
	lua_pushvalue(L, fn);
	if (lua_rawget(L, seen) != LUA_TNIL || depth > 8) {
		lua_pop(L, 1);
		return;
	}
	lua_pop(L, 1);
	lua_pushvalue(L, fn);
	lua_pushboolean(L, 1);
	lua_rawset(L, seen);
	for (int i = 1; (up = lua_getupvalue(L, fn, i)); i++) {
		if (ltap_stats_test(L, -1)) {
			lua_pushvalue(L, -1);
			if (lua_rawget(L, names) == LUA_TNIL) {
				lua_pushvalue(L, -2);
				lua_pushstring(L, up);
				lua_rawset(L, names);
			}
			lua_pop(L, 1);
		} else if (lua_isfunction(L, -1)) {
			name_upvalues(L, names, seen, lua_gettop(L), depth + 1);
		}
		lua_pop(L, 1);
	}
}

/* every function in the table at t (and in tables it holds, one level) */
static void name_table_functions(lua_State *L, int names, int seen, int t, int depth)
{
	lua_pushnil(L);
	while (lua_next(L, t)) {
		if (lua_isfunction(L, -1))
			name_upvalues(L, names, seen, lua_gettop(L), 0);
		else if (lua_istable(L, -1) && depth < 1 && !ltap_stats_test(L, -1))
			name_table_functions(L, names, seen, lua_gettop(L), depth + 1);
		lua_pop(L, 1);
	}
}

static void export_names(lua_State *L, int names)
{
	static const char *const kept[] = {"ltap.handlers", "ltap.timers", "ltap.begin", "ltap.finish", NULL};
	int seen;

	lua_newtable(L);
	seen = lua_gettop(L);
	lua_pushglobaltable(L);
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		if (lua_type(L, -2) == LUA_TSTRING && ltap_stats_test(L, -1)) {
			lua_pushvalue(L, -1);
			lua_pushvalue(L, -3);
			lua_rawset(L, names);
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	for (int i = 0; kept[i]; i++) {
		if (lua_getfield(L, LUA_REGISTRYINDEX, kept[i]) == LUA_TTABLE)
			name_table_functions(L, names, seen, lua_gettop(L), 0);
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
}

/* the script's name as a metric name prefix: "scripts/syscount.lua" -> syscount */
static void export_prefix(lua_State *L, char *out, size_t n)
{
	const char *a, *base;
	size_t len, i;

	lua_getglobal(L, "arg");
	lua_rawgeti(L, -1, 0);
	a = lua_tostring(L, -1);
	if (!a || strcmp(a, "-e") == 0)
		a = "script";
	base = strrchr(a, '/') ? strrchr(a, '/') + 1 : a;
	len = strlen(base);
	if (len > 4 && strcmp(base + len - 4, ".lua") == 0)
		len -= 4;
	for (i = 0; i < len && i + 1 < n; i++) {
		char c = base[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (i && c >= '0' && c <= '9');
		out[i] = ok ? c : '_';
	}
	out[i] = 0;
	lua_pop(L, 2);
}

static int exported(lua_State *L, struct ltap_metrics *ms, int idx)
{
	int found = 0;
	for (int i = 0; i < ms->n && !found; i++) {
		lua_rawgeti(L, LUA_REGISTRYINDEX, ms->m[i].source);
		found = lua_rawequal(L, -1, idx);
		lua_pop(L, 1);
	}
	return found;
}

static int export_clash(struct ltap_metrics *ms, const char *name)
{
	for (int j = 0; j < ms->n; j++)
		if (strcmp(ms->m[j].name, name) == 0)
			return 1;
	return 0;
}

/* each aggregate made while loading, not already a metric's source: a
 * histogram, or a summary (its count and sum), named PREFIX_VARIABLE */
static int export_all_protected(lua_State *L)
{
	struct ltap_metrics *ms = ltap_ctx_get(L)->metrics;
	char prefix[64], name[160];
	int list, names;
	lua_Integer n;

	export_prefix(L, prefix, sizeof prefix);
	lua_gc(L, LUA_GCCOLLECT); /* the aggregates nothing holds leave the weak list */
	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.export_all");
	list = lua_gettop(L);
	lua_newtable(L);
	names = lua_gettop(L);
	export_names(L, names);
	lua_getfield(L, list, "n"); /* stats.c lists them there */
	n = lua_tointeger(L, -1);
	lua_pop(L, 1);
	for (lua_Integer i = 1; i <= n; i++) {
		struct ltap_stats_shape sh;
		struct metric *m;
		const char *var;
		size_t base;
		int agg;

		if (lua_rawgeti(L, list, i) == LUA_TNIL || exported(L, ms, lua_gettop(L))) {
			lua_pop(L, 1);
			continue;
		}
		agg = lua_gettop(L);
		lua_pushvalue(L, agg);
		lua_rawget(L, names);
		var = lua_tostring(L, -1);
		if (var)
			snprintf(name, sizeof name, "%s_%s", prefix, var);
		else
			snprintf(name, sizeof name, "%s_stats%d", prefix, (int)i);
		ltap_stats_shape(ltap_stats_test(L, agg), &sh);
		base = strlen(name) < sizeof name - 8 ? strlen(name) : sizeof name - 8;
		for (int k = 2; k < 1000 && export_clash(ms, name); k++)
			snprintf(name + base, 8, "_%d", k);
		m = ltap_metric_add(L, ms);
		m->type = sh.hist ? LTAP_EXPO_HISTOGRAM : LTAP_EXPO_SUMMARY;
		m->auto_labels = 1;
		if (!(m->name = strdup(name))) {
			ltap_metric_drop_last(ms);
			return luaL_error(L, "metrics: out of memory");
		}
		lua_pushvalue(L, agg);
		m->source = luaL_ref(L, LUA_REGISTRYINDEX);
		ltap_info("export-all: %s (%s)", name, sh.hist ? "histogram" : "summary");
		lua_settop(L, names);
	}
	return 0;
}

int ltap_metrics_export_all(struct ltap_ctx *ctx)
{
	lua_State *L = ctx->L;

	lua_pushcfunction(L, export_all_protected);
	if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
		ltap_err("%s", lua_tostring(L, -1));
		lua_pop(L, 1);
		return -1;
	}
	return 0;
}

void ltap_metrics_export_track(lua_State *L)
{
	/* weak: an aggregate made and dropped while loading (a stdlib
	 * module's probe for its methods) is not exported */
	lua_newtable(L);
	lua_createtable(L, 0, 1);
	lua_pushliteral(L, "v");
	lua_setfield(L, -2, "__mode");
	lua_setmetatable(L, -2);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.export_all");
}
