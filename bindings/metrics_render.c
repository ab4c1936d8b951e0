/* metrics_render.c: the declared metrics rendered: an aggregate's rows,
 * a table's nested series in key order, a function's result, each as a
 * family of samples in Prometheus's text format or OpenMetrics (expo.c
 * writes the syntax). */
#include "metrics_render.h"

#include "agg.h"
#include "call.h"
#include "ctx.h"
#include "expo.h"
#include "log.h"
#include "metrics_own.h"
#include "metrics_set.h"
#include "stats.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define METRICS_BODY_LIMIT (64u << 20) /* bytes of one scrape's answer */

/* a label value from a key part: strings as they are, numbers as numbers */
static const char *label_value(lua_State *L, int idx, char *tmp, size_t *len)
{
	const char *s;
	switch (lua_type(L, idx)) {
	case LUA_TSTRING:
		return lua_tolstring(L, idx, len);
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx))
			ltap_expo_int(tmp, lua_tointeger(L, idx));
		else
			ltap_expo_double(tmp, lua_tonumber(L, idx));
		s = tmp;
		break;
	case LUA_TBOOLEAN:
		s = lua_toboolean(L, idx) ? "true" : "false";
		break;
	default:
		s = luaL_typename(L, idx);
	}
	*len = strlen(s);
	return s;
}

/* a label value from an aggregate's key part, as label_value makes it */
static const char *part_label(const struct ltap_agg_part *p, char *tmp, size_t *len)
{
	switch (p->kind) {
	case LTAP_AGG_STR:
		*len = p->v.s.len;
		return p->v.s.p;
	case LTAP_AGG_INT:
		ltap_expo_int(tmp, p->v.i);
		break;
	case LTAP_AGG_FLOAT:
		ltap_expo_double(tmp, p->v.d);
		break;
	default:
		strcpy(tmp, p->v.b ? "true" : "false");
	}
	*len = strlen(tmp);
	return tmp;
}

/* v * scale; a scale of 1/N divides by N, so 9 * 0.001 reads 0.009, not
 * 0.009000000000000001 */
static double scaled(double v, double scale)
{
	double inv = round(1 / scale);
	if (scale < 1 && inv > 1 && fabs(inv * scale - 1) < 1e-12)
		return v / inv;
	return v * scale;
}

static void value_str(char *buf, int is_int, int64_t i, double d, double scale)
{
	if (is_int && scale == 1)
		ltap_expo_int(buf, i);
	else
		ltap_expo_double(buf, scaled(is_int ? (double)i : d, scale));
}

static const char *auto_label(int nparts, int p, char *tmp)
{
	if (nparts == 1)
		return "key";
	snprintf(tmp, 16, "key%d", p + 1);
	return tmp;
}

/* the labels of the aggregate's slot i */
static void stats_series_labels(const struct stats *s, struct ltap_expo *x, struct metric *m, int i, int parts)
{
	struct ltap_agg_part key[LTAP_AGG_MAX_PARTS];
	char tmp[32], name[16];
	size_t len;
	const char *v;

	ltap_expo_labels_reset(x);
	if (!parts)
		return;
	ltap_stats_key(s, i, key);
	for (int p = 0; p < parts; p++) {
		v = part_label(&key[p], tmp, &len);
		ltap_expo_labels_add(x, m->auto_labels ? auto_label(parts, p, name) : m->labels[p], v, len);
	}
}

/* the buckets shown: from the lowest to the highest ever filled, so the
 * `le` values of a family stay the same from one scrape to the next */
static void hist_marks(const struct stats *s, const struct ltap_stats_shape *sh, struct metric *m)
{
	struct ltap_stats_row row;
	for (int i = 0; i < sh->nslots; i++) {
		if (!ltap_stats_row(s, i, &row))
			continue;
		for (int k = 0; k < sh->nbuckets; k++) {
			if (!row.buckets[k])
				continue;
			if (m->lo_mark < 0 || k < m->lo_mark)
				m->lo_mark = k;
			if (k > m->hi_mark)
				m->hi_mark = k;
		}
	}
}

/* One series of a histogram. ltap's buckets are [lo, hi); Prometheus's
 * `le` counts values <= le: for integer values (what tracing gives) and
 * integer bounds that is hi - 1, exact; else hi (a value equal to a bound
 * then counts in the next bucket up). */
static void hist_series(struct ltap_expo *x, struct metric *m, const struct stats *s,
			const struct ltap_stats_shape *sh, const struct ltap_stats_row *row)
{
	char le[32], val[32];
	int64_t cum = 0;
	int negative = 0;

	for (int k = 0; m->lo_mark >= 0 && k <= m->hi_mark; k++) {
		double hi = ltap_stats_bucket_hi(s, k), bound = scaled(sh->int_bounds ? hi - 1 : hi, m->scale);
		cum += row->buckets[k];
		if (k < m->lo_mark || hi == HUGE_VAL)
			continue;
		negative |= bound < 0;
		ltap_expo_double(le, bound);
		ltap_expo_int(val, cum);
		ltap_expo_sample(x, m->name, "_bucket", le, val);
	}
	ltap_expo_int(val, row->count);
	ltap_expo_sample(x, m->name, "_bucket", "+Inf", val);
	/* OpenMetrics: no _sum (nor the _count that goes with it) for a
	 * histogram with negative buckets; the +Inf bucket is the count */
	if (x->om && negative)
		return;
	value_str(val, !row->is_float, row->isum, row->dsum, m->scale);
	ltap_expo_sample(x, m->name, "_sum", NULL, val);
	ltap_expo_int(val, row->count);
	ltap_expo_sample(x, m->name, "_count", NULL, val);
}

static void render_stats(lua_State *L, struct ltap_expo *x, struct metric *m, int idx)
{
	const struct stats *s = ltap_stats_test(L, idx);
	struct ltap_stats_shape sh;
	struct ltap_stats_row row;
	char val[32];
	int parts;

	ltap_stats_shape(s, &sh);
	if (!sh.arity)
		return; /* nothing added yet */
	parts = sh.keyless ? 0 : sh.arity;
	if (!m->auto_labels && parts != m->nlabels) {
		if (!m->warned++)
			ltap_warn("metrics: %s has %d label%s but its aggregate's keys have %d part%s: not exported",
				  m->name, m->nlabels, m->nlabels == 1 ? "" : "s", parts, parts == 1 ? "" : "s");
		return;
	}
	if (m->type == LTAP_EXPO_HISTOGRAM)
		hist_marks(s, &sh, m);
	for (int i = 0; i < sh.nslots; i++) {
		if (!ltap_stats_row(s, i, &row))
			continue;
		stats_series_labels(s, x, m, i, parts);
		if (x->labels_cut)
			continue;
		switch (m->type) {
		case LTAP_EXPO_HISTOGRAM:
			hist_series(x, m, s, &sh, &row);
			break;
		case LTAP_EXPO_SUMMARY:
			value_str(val, !row.is_float, row.isum, row.dsum, m->scale);
			ltap_expo_sample(x, m->name, "_sum", NULL, val);
			ltap_expo_int(val, row.count);
			ltap_expo_sample(x, m->name, "_count", NULL, val);
			break;
		default:
			if (m->value == METRIC_COUNT)
				value_str(val, 1, row.count, 0, m->scale);
			else
				value_str(val, !row.is_float, row.isum, row.dsum, m->scale);
			ltap_expo_sample(x, m->name, m->type == LTAP_EXPO_COUNTER ? "_total" : "", NULL, val);
		}
	}
}

/* a table nested one level per label; its numbers are the values */
struct walk {
	lua_State *L;
	struct ltap_expo *x;
	struct metric *m;
	int series;
	const char *parts[METRICS_MAX_LABELS];
	size_t lens[METRICS_MAX_LABELS];
	char tmp[METRICS_MAX_LABELS][32];
};

static void render_number(struct walk *w, int idx)
{
	char val[32];
	int isint;
	lua_Integer i = lua_tointegerx(w->L, idx, &isint);

	if (w->series++ >= w->m->max_series) {
		w->m->skipped++;
		return;
	}
	ltap_expo_labels_reset(w->x);
	for (int d = 0; d < w->m->nlabels; d++)
		ltap_expo_labels_add(w->x, w->m->labels[d], w->parts[d], w->lens[d]);
	if (w->x->labels_cut)
		return;
	value_str(val, isint, i, lua_tonumber(w->L, idx), w->m->scale);
	ltap_expo_sample(w->x, w->m->name, w->m->type == LTAP_EXPO_COUNTER ? "_total" : "", NULL, val);
}

/* key order of a table's series: numbers, then strings, then the rest */
static int key_less(lua_State *L)
{
	int ta = lua_type(L, 1), tb = lua_type(L, 2);
	int ra = ta == LUA_TNUMBER ? 0 : ta == LUA_TSTRING ? 1 : 2, rb = tb == LUA_TNUMBER ? 0 : tb == LUA_TSTRING ? 1 : 2;

	if (ra != rb || ra == 2)
		lua_pushboolean(L, ra < rb);
	else
		lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPLT));
	return 1;
}

/* Walks the table at idx in key order (a scrape's output does not change
 * with the hash order of a table), one level per label. */
static void render_table(struct walk *w, int idx, int depth)
{
	lua_State *L = w->L;
	lua_Integer n = 0;
	int keys;

	luaL_checkstack(L, 8, "metrics: table too deep");
	lua_newtable(L);
	keys = lua_gettop(L);
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		lua_pop(L, 1);
		lua_pushvalue(L, -1);
		lua_rawseti(L, keys, ++n);
	}
	lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE); /* the real table.sort, whatever the globals */
	lua_getfield(L, -1, "table");
	lua_getfield(L, -1, "sort");
	lua_replace(L, -3);
	lua_pop(L, 1);
	if (lua_isfunction(L, -1)) {
		lua_pushvalue(L, keys);
		lua_pushcfunction(L, key_less);
		lua_call(L, 2, 0);
	} else {
		lua_pop(L, 1);
	}
	for (lua_Integer i = 1; i <= n; i++) {
		lua_rawgeti(L, keys, i);
		lua_pushvalue(L, -1);
		lua_rawget(L, idx);
		/* the key stays on the stack while its value is walked: its string lives */
		w->parts[depth] = label_value(L, -2, w->tmp[depth], &w->lens[depth]);
		if (depth + 1 == w->m->nlabels) {
			if (lua_type(L, -1) == LUA_TNUMBER)
				render_number(w, lua_gettop(L));
		} else if (lua_istable(L, -1)) {
			render_table(w, lua_gettop(L), depth + 1);
		}
		lua_pop(L, 2);
	}
	lua_pop(L, 1);
}

/* the value at idx, a function source's result or a source itself */
static void render_value(lua_State *L, struct ltap_expo *x, struct metric *m, int idx)
{
	struct walk w = {.L = L, .x = x, .m = m};

	if (ltap_stats_test(L, idx)) {
		render_stats(L, x, m, idx);
	} else if (lua_istable(L, idx) && m->nlabels) {
		render_table(&w, idx, 0);
	} else if (lua_type(L, idx) == LUA_TNUMBER && !m->nlabels) {
		render_number(&w, idx);
	} else if (!lua_isnil(L, idx) && !m->warned++) {
		ltap_warn("metrics: %s: its function gave a %s, not %s: not exported", m->name, luaL_typename(L, idx),
			  m->nlabels ? "a table or an aggregate" : "a number or an aggregate");
	}
}

static void render_metric(lua_State *L, struct ltap_ctx *ctx, struct ltap_expo *x, struct metric *m, int serving)
{
	int top = lua_gettop(L);

	m->skipped = 0;
	ltap_expo_family(x, m->name, m->type, m->help);
	lua_rawgeti(L, LUA_REGISTRYINDEX, m->source);
	if (lua_isfunction(L, -1)) {
		/* a scrape goes on past a failing function (counted, as a
		 * handler's error); metrics.render() lets the error through */
		if (serving) {
			if (ltap_call(ctx, 0, 1) != 0) {
				lua_settop(L, top);
				return;
			}
		} else {
			lua_call(L, 0, 1);
		}
	}
	render_value(L, x, m, lua_gettop(L));
	lua_settop(L, top);
}

/* the rendering, run protected (a Lua error, out of memory, cannot escape
 * the loop): upvalue 1 is 1 for OpenMetrics, 2 is 1 with ltap's own
 * metrics, 3 is 1 when serving */
static int metrics_render_all(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	struct ltap_metrics *ms = ctx->metrics;
	int own = lua_toboolean(L, 2), serving = lua_toboolean(L, 3);

	for (int i = 0; i < ms->n; i++)
		render_metric(L, ctx, &ms->x, &ms->m[i], serving);
	if (own)
		ltap_metrics_own(L, ctx, ms, &ms->x);
	return 0;
}


/* renders into a malloc'd body; NULL on failure */

char *ltap_metrics_render(struct ltap_ctx *ctx, int om, int own, int serving, size_t *len)
{
	lua_State *L = ctx->L;
	struct ltap_metrics *ms = ctx->metrics;
	int top = lua_gettop(L);

	ltap_expo_init(&ms->x, om, METRICS_BODY_LIMIT);
	lua_pushcfunction(L, metrics_render_all);
	lua_pushboolean(L, om);
	lua_pushboolean(L, own);
	lua_pushboolean(L, serving);
	if (lua_pcall(L, 3, 0, 0) != LUA_OK) {
		ltap_err("metrics: cannot render: %s", lua_tostring(L, -1));
		lua_settop(L, top);
		ltap_expo_free(&ms->x);
		return NULL;
	}
	lua_settop(L, top);
	if (ms->x.failed)
		ltap_err("metrics: the answer is over %u MB: not sent", METRICS_BODY_LIMIT >> 20);
	return ltap_expo_finish(&ms->x, len);
}

/* metrics.render(["text" | "openmetrics"], [{ltap = false}]) -> the body a
 * scrape would get (ltap = false: without ltap's own metrics) */

int ltap_metrics_render_lua(lua_State *L)
{
	static const char *const formats[] = {"text", "openmetrics", NULL};
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	int om = luaL_checkoption(L, 1, "text", formats), own = 1;
	size_t len;
	char *body;

	if (lua_istable(L, 2)) {
		lua_getfield(L, 2, "ltap");
		own = lua_isnil(L, -1) || lua_toboolean(L, -1);
		lua_pop(L, 1);
	}
	body = ltap_metrics_render(ctx, om, own, 0, &len);
	if (!body)
		return luaL_error(L, "metrics: cannot render the metrics");
	lua_pushlstring(L, body, len);
	free(body);
	return 1;
}
