/* metrics.c: the "metrics" table: a script's figures as Prometheus metrics.
 *
 *   local calls = metrics.counter("syscalls_total", {labels = {"comm"}})
 *   probe("raw_syscalls:sys_enter", function(e) calls:inc(e.comm) end)
 *
 * A metric is a view over something the script keeps, read when a scrape
 * comes, never per event: a stats() aggregate (the declaration makes one,
 * or is given one as `source`), a table (nested one level per label), or a
 * function called at the scrape. So a counter costs exactly what s:inc
 * costs, and its keys are bounded by the aggregate's max_keys (drops are
 * counted and exported as ltap_metric_dropped_total).
 *
 * This file declares metrics into the set (metrics_set.c); the rendering
 * is metrics_render.c, ltap's own figures metrics_own.c, --export-all
 * metrics_export.c, --serve metrics_serve.c. */
#include "metrics.h"

#include "ctx.h"
#include "metrics_export.h"
#include "metrics_render.h"
#include "metrics_set.h"
#include "stats.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define METRICS_DEFAULT_KEYS 10000   /* keys of an aggregate a declaration makes */

enum source_kind { SRC_STATS, SRC_TABLE, SRC_FUNCTION };

static struct ltap_metrics *metrics_of(lua_State *L)
{
	return ltap_ctx_get(L)->metrics;
}

/* ------------------------------------------------------- declarations */

/* the sample names a family writes, to refuse two families that collide:
 * at most 3, the rows of sfx ending early with a NULL */
static int family_samples(const char *name, enum ltap_expo_type type, char out[3][160])
{
	static const char *const sfx[][3] = {{"_total"}, {""}, {"_bucket", "_sum", "_count"}, {"_sum", "_count"}};
	int i;

	for (i = 0; i < 3 && sfx[type][i]; i++)
		snprintf(out[i], 160, "%s%s", name, sfx[type][i]);
	return i;
}

static void check_collision(lua_State *L, struct ltap_metrics *ms, const char *name, enum ltap_expo_type type)
{
	char mine[3][160], theirs[3][160];
	int nm = family_samples(name, type, mine);

	for (int i = 0; i < ms->n; i++) {
		int nt = family_samples(ms->m[i].name, ms->m[i].type, theirs);
		if (strcmp(ms->m[i].name, name) == 0)
			luaL_error(L, "metrics: '%s' is declared twice", name);
		for (int a = 0; a < nm; a++)
			for (int b = 0; b < nt; b++)
				if (strcmp(mine[a], theirs[b]) == 0)
					luaL_error(L, "metrics: '%s' writes %s, as '%s' does", name, mine[a], ms->m[i].name);
	}
}

/* the family name of a declaration: checked, and a counter's without _total */
static char *metric_name(lua_State *L, const char *name, enum ltap_expo_type type)
{
	size_t n = strlen(name);

	if (!ltap_expo_metric_name(name))
		luaL_error(L, "metrics: bad metric name '%s' (letters, digits, '_' and ':', not starting with a digit)", name);
	if (strncmp(name, "ltap_", 5) == 0 || strncmp(name, "process_", 8) == 0)
		luaL_error(L, "metrics: the name '%s' is reserved: ltap_* and process_* are ltap's own", name);
	if (type == LTAP_EXPO_COUNTER && n > 6 && strcmp(name + n - 6, "_total") == 0)
		n -= 6;
	if (n >= 128)
		luaL_error(L, "metrics: metric name '%s' is longer than 127 characters", name);
	return strndup(name, n);
}

/* the label names of OPTS.labels, checked; they live in the options table */
static int metric_labels(lua_State *L, int opts, enum ltap_expo_type type, const char **labels)
{
	lua_Integer n;

	if (lua_getfield(L, opts, "labels") == LUA_TNIL) {
		lua_pop(L, 1);
		return 0;
	}
	if (!lua_istable(L, -1))
		luaL_error(L, "metrics: labels must be a list of names ({\"comm\", \"pid\"})");
	n = (lua_Integer)lua_rawlen(L, -1);
	if (n > METRICS_MAX_LABELS)
		luaL_error(L, "metrics: more than %d labels", METRICS_MAX_LABELS);
	for (lua_Integer i = 1; i <= n; i++) {
		const char *l;
		lua_rawgeti(L, -1, i);
		l = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
		if (!l || !ltap_expo_label_name(l))
			luaL_error(L, "metrics: bad label name '%s' (letters, digits and '_', not starting with a digit or '__')",
				   l ? l : luaL_typename(L, -1));
		if (type == LTAP_EXPO_HISTOGRAM && strcmp(l, "le") == 0)
			luaL_error(L, "metrics: a histogram cannot have a label named 'le' (its buckets are)");
		for (lua_Integer j = 1; j < i; j++)
			if (strcmp(labels[j - 1], l) == 0)
				luaL_error(L, "metrics: label '%s' given twice", l);
		labels[i - 1] = l;
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	return (int)n;
}

static const char *opt_string(lua_State *L, int opts, const char *key)
{
	const char *s = NULL;
	if (lua_getfield(L, opts, key) != LUA_TNIL) {
		if (lua_type(L, -1) != LUA_TSTRING)
			luaL_error(L, "metrics: '%s' must be a string", key);
		s = lua_tostring(L, -1);
	}
	lua_pop(L, 1); /* the string stays alive in the options table */
	return s;
}

static lua_Number opt_number(lua_State *L, int opts, const char *key, lua_Number dflt)
{
	lua_Number v = dflt;
	if (lua_getfield(L, opts, key) != LUA_TNIL) {
		if (!lua_isnumber(L, -1))
			luaL_error(L, "metrics: '%s' must be a number", key);
		v = lua_tonumber(L, -1);
	}
	lua_pop(L, 1);
	return v;
}

/* pushes a new aggregate for a declaration without a source: stats{...} */
static void new_source(lua_State *L, int opts, enum ltap_expo_type type)
{
	static const char *const keys[] = {"hist", "min", "max", "step", NULL};

	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.stats_new");
	lua_createtable(L, 0, 6);
	lua_pushinteger(L, (lua_Integer)opt_number(L, opts, "max_keys", METRICS_DEFAULT_KEYS));
	lua_setfield(L, -2, "max_keys");
	lua_pushliteral(L, "drop");
	lua_setfield(L, -2, "full");
	if (type == LTAP_EXPO_HISTOGRAM) {
		lua_pushliteral(L, "log2");
		lua_setfield(L, -2, "hist");
		for (int i = 0; keys[i]; i++) {
			if (lua_getfield(L, opts, keys[i]) != LUA_TNIL)
				lua_setfield(L, -2, keys[i]);
			else
				lua_pop(L, 1);
		}
	}
	lua_call(L, 1, 1);
}

/* metrics.counter|gauge|histogram(NAME, [OPTS]) -> the source: OPTS are
 * help, labels, source (an aggregate, a table, a function), value ("sum"
 * or "count" of an aggregate), max_keys (of the aggregate made when there is
 * no source), scale; a histogram's own aggregate takes hist, min, max, step. */
static int metrics_declare(lua_State *L)
{
	enum ltap_expo_type type = (enum ltap_expo_type)lua_tointeger(L, lua_upvalueindex(1));
	struct ltap_metrics *ms = metrics_of(L);
	const char *name = luaL_checkstring(L, 1), *help, *value, *labels[METRICS_MAX_LABELS];
	struct metric *m;
	const char *family;
	char *fam;
	int kind, nlabels;
	lua_Number scale, max_series;

	lua_settop(L, 2);
	if (lua_isnil(L, 2)) {
		lua_newtable(L);
		lua_replace(L, 2);
	}
	luaL_checktype(L, 2, LUA_TTABLE);
	if (ltap_run_started(ltap_ctx_get(L)))
		luaL_error(L, "metrics: declare metrics when the script loads, not in a handler");
	fam = metric_name(L, name, type);
	lua_pushstring(L, fam); /* 3: the family name, kept by Lua if a check raises */
	free(fam);
	family = lua_tostring(L, 3);
	check_collision(L, ms, family, type);
	help = opt_string(L, 2, "help");
	value = opt_string(L, 2, "value");
	if (value && strcmp(value, "sum") != 0 && strcmp(value, "count") != 0)
		luaL_error(L, "metrics: value must be \"sum\" or \"count\" (got '%s')", value);
	nlabels = metric_labels(L, 2, type, labels);
	if (lua_getfield(L, 2, "source") == LUA_TNIL) {
		lua_pop(L, 1);
		new_source(L, 2, type);
	}
	/* the source is at 4 */
	kind = ltap_stats_test(L, 4) ? SRC_STATS : lua_istable(L, 4) ? SRC_TABLE : lua_isfunction(L, 4) ? SRC_FUNCTION : -1;
	if (kind < 0)
		luaL_error(L, "metrics: source must be a stats() aggregate, a table or a function (got %s)", luaL_typename(L, 4));
	if (type == LTAP_EXPO_HISTOGRAM) {
		struct ltap_stats_shape sh;
		if (kind != SRC_STATS)
			luaL_error(L, "metrics: a histogram's source is a stats() aggregate with a histogram");
		ltap_stats_shape(ltap_stats_test(L, 4), &sh);
		if (!sh.hist)
			luaL_error(L, "metrics: '%s': its aggregate has no histogram (stats{hist = \"log2\"})", name);
	}
	if (kind == SRC_TABLE && nlabels == 0)
		luaL_error(L, "metrics: '%s': a table source needs labels (one per level of keys)", name);
	scale = opt_number(L, 2, "scale", 1);
	if (!(scale > 0) || isinf(scale))
		luaL_error(L, "metrics: scale must be a positive number");
	max_series = opt_number(L, 2, "max_keys", METRICS_DEFAULT_KEYS);
	/* nothing raises from here on but out of memory: no half-made metric */
	m = ltap_metric_add(L, ms);
	m->type = type;
	m->value = value && strcmp(value, "count") == 0 ? METRIC_COUNT : METRIC_SUM;
	m->scale = scale;
	m->max_series = max_series < 0 ? 0 : max_series > 1e9 ? 1000000000 : (int)max_series;
	m->name = strdup(family);
	m->help = help ? strdup(help) : NULL;
	for (int i = 0; i < nlabels; i++)
		if ((m->labels[i] = strdup(labels[i])))
			m->nlabels++;
	if (!m->name || (help && !m->help) || m->nlabels != nlabels) {
		ltap_metric_drop_last(ms);
		luaL_error(L, "metrics: out of memory");
	}
	lua_pushvalue(L, 4);
	m->source = luaL_ref(L, LUA_REGISTRYINDEX);
	lua_pushvalue(L, 4);
	return 1;
}

/* --------------------------------------------------------------- module */

static const luaL_Reg metrics_funcs[] = {
	{"render", ltap_metrics_render_lua},
	{NULL, NULL},
};

void ltap_open_metrics(lua_State *L, struct ltap_ctx *ctx)
{
	static const struct {
		const char *name;
		enum ltap_expo_type type;
	} kinds[] = {{"counter", LTAP_EXPO_COUNTER}, {"gauge", LTAP_EXPO_GAUGE}, {"histogram", LTAP_EXPO_HISTOGRAM}};

	if (!(ctx->metrics = ltap_metrics_new()))
		luaL_error(L, "metrics: out of memory");
	luaL_newlib(L, metrics_funcs);
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		lua_pushinteger(L, kinds[i].type);
		lua_pushcclosure(L, metrics_declare, 1);
		lua_setfield(L, -2, kinds[i].name);
	}
	lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->env_ref);
	lua_insert(L, -2);
	lua_setfield(L, -2, "metrics");
	lua_pop(L, 1);
	ltap_push_ltap(L, ctx);
	if (ctx->opt.serve)
		lua_pushstring(L, ctx->opt.serve);
	else
		lua_pushboolean(L, 0);
	lua_setfield(L, -2, "serving");
	lua_pop(L, 1);
	if (ctx->opt.export_all)
		ltap_metrics_export_track(L);
}
