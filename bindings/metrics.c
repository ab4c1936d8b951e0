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
 * Scrapes are answered between batches of the loop (serve.c), so a metric
 * is read as a timer would read it: never in the middle of a handler. While
 * serving, a script error in a handler is counted (ltap_handler_errors_total)
 * and shown, not fatal: a service goes on; without --serve it ends the run
 * as always. --export-all exports every aggregate the script made while it
 * loaded, named by the variable that holds it. */
#include "metrics.h"

#include "agg.h"
#include "call.h"
#include "ctx.h"
#include "event.h"
#include "expo.h"
#include "log.h"
#include "serve.h"
#include "source.h"
#include "stats.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define METRICS_DEFAULT_KEYS 10000   /* keys of an aggregate a declaration makes */
#define METRICS_MAX_LABELS 16
#define METRICS_BODY_LIMIT (64u << 20) /* bytes of one scrape's answer */
#define ERRORS_SHOWN 10               /* handler errors shown in full while serving */
#define ERROR_SUMMARY 60000000000ull  /* then one summary line a minute */

enum source_kind { SRC_STATS, SRC_TABLE, SRC_FUNCTION };
enum { VALUE_SUM, VALUE_COUNT };

struct metric {
	char *name;         /* the family's name (a counter's without _total) */
	char *help;
	enum ltap_expo_type type;
	char *labels[METRICS_MAX_LABELS];
	int nlabels;
	int auto_labels;    /* --export-all: key, or key1..keyN, as the aggregate's keys come */
	int value;          /* VALUE_*: what a counter or gauge of an aggregate shows */
	double scale;       /* values (and bucket bounds) are multiplied by it */
	int source;         /* registry ref */
	int max_series;     /* a table's or function's series shown at most */
	int lo_mark, hi_mark; /* histogram: the buckets shown so far (-1: none) */
	int64_t skipped;    /* a table's series over max_series at the last scrape */
	int warned;
};

struct ltap_metrics {
	struct metric *m;
	int n, cap;
	struct ltap_server *server;
	uint64_t attach_ns;
	double start_unix;
	uint64_t handler_errors, suppressed, last_summary;
	int errors_shown;
	struct ltap_expo x;  /* the rendering in progress */
};

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

static void metric_free(struct metric *m)
{
	free(m->name);
	free(m->help);
	for (int j = 0; j < m->nlabels; j++)
		free(m->labels[j]);
}

static struct metric *metric_add(lua_State *L, struct ltap_metrics *ms)
{
	if (ms->n == ms->cap) {
		int cap = ms->cap ? ms->cap * 2 : 16;
		struct metric *m = realloc(ms->m, (size_t)cap * sizeof *m);
		if (!m)
			luaL_error(L, "metrics: out of memory");
		ms->m = m;
		ms->cap = cap;
	}
	memset(&ms->m[ms->n], 0, sizeof ms->m[ms->n]);
	ms->m[ms->n].lo_mark = ms->m[ms->n].hi_mark = -1;
	ms->m[ms->n].scale = 1;
	ms->m[ms->n].source = LUA_NOREF;
	return &ms->m[ms->n++];
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
	m = metric_add(L, ms);
	m->type = type;
	m->value = value && strcmp(value, "count") == 0 ? VALUE_COUNT : VALUE_SUM;
	m->scale = scale;
	m->max_series = max_series < 0 ? 0 : max_series > 1e9 ? 1000000000 : (int)max_series;
	m->name = strdup(family);
	m->help = help ? strdup(help) : NULL;
	for (int i = 0; i < nlabels; i++)
		if ((m->labels[i] = strdup(labels[i])))
			m->nlabels++;
	if (!m->name || (help && !m->help) || m->nlabels != nlabels) {
		metric_free(m);
		ms->n--;
		luaL_error(L, "metrics: out of memory");
	}
	lua_pushvalue(L, 4);
	m->source = luaL_ref(L, LUA_REGISTRYINDEX);
	lua_pushvalue(L, 4);
	return 1;
}

/* ----------------------------------------------------------- rendering */

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
			if (m->value == VALUE_COUNT)
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

/* ---------------------------------------------------- ltap's own metrics */

static void own_sample(struct ltap_expo *x, const char *name, const char *label, const char *lv, const char *val)
{
	ltap_expo_labels_reset(x);
	if (label)
		ltap_expo_labels_add(x, label, lv, strlen(lv));
	ltap_expo_sample(x, name, "", NULL, val);
}

static void own_counter(struct ltap_expo *x, const char *name, const char *help, uint64_t v)
{
	char val[32];
	char total[96];
	ltap_expo_family(x, name, LTAP_EXPO_COUNTER, help);
	ltap_expo_int(val, (int64_t)v);
	snprintf(total, sizeof total, "%s_total", name);
	own_sample(x, total, NULL, NULL, val);
}

static void own_gauge(struct ltap_expo *x, const char *name, const char *help, double v)
{
	char val[32];
	ltap_expo_family(x, name, LTAP_EXPO_GAUGE, help);
	ltap_expo_double(val, v);
	own_sample(x, name, NULL, NULL, val);
}

enum { OWN_CPUS = 1024 };

struct own_counts {
	uint64_t read[OWN_CPUS], lost[OWN_CPUS];
	unsigned char seen[OWN_CPUS], reads[OWN_CPUS];
};

static void own_count(void *ud, const struct ltap_source *s, const struct ltap_stream *st,
		      const struct ltap_source_counts *c)
{
	struct own_counts *o = ud;

	(void)s;
	if (st->cpu < 0 || st->cpu >= OWN_CPUS)
		return;
	o->seen[st->cpu] = 1;
	o->reads[st->cpu] |= (unsigned char)c->counts_read;
	o->read[st->cpu] += c->read;
	o->lost[st->cpu] += c->lost;
}

/* a counter family of a sample per CPU that has one (has[cpu]) */
static void own_percpu(struct ltap_expo *x, const char *name, const char *help, const uint64_t *v,
		       const unsigned char *has)
{
	char total[96], cpu[16], val[32];

	ltap_expo_family(x, name, LTAP_EXPO_COUNTER, help);
	snprintf(total, sizeof total, "%s_total", name);
	for (int i = 0; i < OWN_CPUS; i++) {
		if (!has[i])
			continue;
		snprintf(cpu, sizeof cpu, "%d", i);
		ltap_expo_int(val, (int64_t)v[i]);
		own_sample(x, total, "cpu", cpu, val);
	}
}

/* events read and lost per CPU, by the sources' own counts (source.h's
 * one reader: the ring stats, free per event); a run of perf rings alone
 * (profiles, stacks) has only its losses */
static void own_events(struct ltap_ctx *ctx, struct ltap_expo *x)
{
	struct own_counts o;

	memset(&o, 0, sizeof o);
	ltap_sources_counts(ctx->sources, ctx->nsources, own_count, &o);
	own_percpu(x, "ltap_events_read", "Events ltap read from the kernel's ftrace ring, per CPU (the ring's own count)",
		   o.read, o.reads);
	own_percpu(x, "ltap_events_lost", "Events the kernel dropped because a ring was full, per CPU", o.lost, o.seen);
}

static void own_per_metric(struct ltap_metrics *ms, struct ltap_expo *x, lua_State *L)
{
	char val[32];

	ltap_expo_family(x, "ltap_metric_dropped", LTAP_EXPO_COUNTER,
			 "Values not counted because their aggregate was at its max_keys (new keys are dropped)");
	for (int i = 0; i < ms->n; i++) {
		struct stats *s;
		struct ltap_stats_shape sh;
		lua_rawgeti(L, LUA_REGISTRYINDEX, ms->m[i].source);
		s = ltap_stats_test(L, -1);
		lua_pop(L, 1);
		if (!s)
			continue;
		ltap_stats_shape(s, &sh);
		ltap_expo_int(val, sh.dropped);
		own_sample(x, "ltap_metric_dropped_total", "metric", ms->m[i].name, val);
	}
	ltap_expo_family(x, "ltap_metric_series_skipped", LTAP_EXPO_GAUGE,
			 "Series of a table or function metric over its max_keys, not exported at the last scrape");
	for (int i = 0; i < ms->n; i++) {
		lua_rawgeti(L, LUA_REGISTRYINDEX, ms->m[i].source);
		if (!ltap_stats_test(L, -1)) {
			ltap_expo_int(val, ms->m[i].skipped);
			own_sample(x, "ltap_metric_series_skipped", "metric", ms->m[i].name, val);
		}
		lua_pop(L, 1);
	}
}

static void own_process(struct ltap_expo *x, double start)
{
	struct rusage ru;
	long rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%*d %ld", &rss) != 1)
			rss = 0;
		fclose(f);
	}
	getrusage(RUSAGE_SELF, &ru);
	own_gauge(x, "process_resident_memory_bytes", "Resident memory of ltap in bytes",
		  (double)rss * (double)sysconf(_SC_PAGESIZE));
	ltap_expo_family(x, "process_cpu_seconds", LTAP_EXPO_COUNTER, "CPU time of ltap (user and system) in seconds");
	{
		char val[32];
		ltap_expo_double(val, (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
					      (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
		own_sample(x, "process_cpu_seconds_total", NULL, NULL, val);
	}
	own_gauge(x, "process_start_time_seconds", "When ltap started, in seconds since the epoch", start);
}

static void render_own(lua_State *L, struct ltap_ctx *ctx, struct ltap_metrics *ms, struct ltap_expo *x)
{
	const struct ltap_server_counts *c = ms->server ? ltap_server_counts(ms->server) : NULL;
	static const struct ltap_server_counts none;
	char val[32];

	if (!c)
		c = &none;
	own_events(ctx, x);
	own_counter(x, "ltap_handler_errors", "Script errors in handlers, timers and metric functions while serving",
		    ms->handler_errors);
	ltap_expo_family(x, "ltap_scrapes", LTAP_EXPO_COUNTER, "Scrapes of /metrics answered (this one included), by format");
	ltap_expo_int(val, (int64_t)(c->scrapes - c->scrapes_om));
	own_sample(x, "ltap_scrapes_total", "format", "text", val);
	ltap_expo_int(val, (int64_t)c->scrapes_om);
	own_sample(x, "ltap_scrapes_total", "format", "openmetrics", val);
	ltap_expo_family(x, "ltap_http_rejected", LTAP_EXPO_COUNTER,
			 "HTTP requests answered with an error, and connections closed at their deadline or to free a slot, by reason");
	{
		static const char *const reasons[] = {"not_found", "bad_method", "render_failed", "timeout", "evicted"};
		uint64_t v[] = {c->not_found, c->bad_method, c->failed, c->timeouts, c->evicted};
		for (int i = 0; i < 5; i++) {
			ltap_expo_int(val, (int64_t)v[i]);
			own_sample(x, "ltap_http_rejected_total", "reason", reasons[i], val);
		}
	}
	own_gauge(x, "ltap_attach_seconds", "Time from the start of the run to the probes attached, in seconds",
		  (double)ms->attach_ns / 1e9);
	own_per_metric(ms, x, L);
	own_process(x, ms->start_unix);
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
		render_own(L, ctx, ms, &ms->x);
	return 0;
}

/* renders into a malloc'd body; NULL on failure */
static char *metrics_render(struct ltap_ctx *ctx, int om, int own, int serving, size_t *len)
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

/* the server's callback: a scrape, between batches */
static char *metrics_scrape(void *ud, int om, size_t *len)
{
	struct ltap_ctx *ctx = ud;
	ltap_event_clear(ctx);
	return metrics_render(ctx, om, 1, 1, len);
}

/* metrics.render(["text" | "openmetrics"], [{ltap = false}]) -> the body a
 * scrape would get (ltap = false: without ltap's own metrics) */
static int metrics_render_lua(lua_State *L)
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
	body = metrics_render(ctx, om, own, 0, &len);
	if (!body)
		return luaL_error(L, "metrics: cannot render the metrics");
	lua_pushlstring(L, body, len);
	free(body);
	return 1;
}

/* ------------------------------------------------------- --export-all */

/* names[aggregate] = the variable holding it: a global, or an upvalue of a
 * function the run keeps (handlers, timers, hooks) or of one those hold */
static void name_upvalues(lua_State *L, int names, int seen, int fn, int depth)
{
	const char *up;

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
		else if (lua_istable(L, -1) && depth < 1)
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
	struct ltap_metrics *ms = metrics_of(L);
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
		m = metric_add(L, ms);
		m->type = sh.hist ? LTAP_EXPO_HISTOGRAM : LTAP_EXPO_SUMMARY;
		m->auto_labels = 1;
		if (!(m->name = strdup(name))) {
			ms->n--;
			return luaL_error(L, "metrics: out of memory");
		}
		lua_pushvalue(L, agg);
		m->source = luaL_ref(L, LUA_REGISTRYINDEX);
		ltap_info("export-all: %s (%s)", name, sh.hist ? "histogram" : "summary");
		lua_settop(L, names);
	}
	return 0;
}

/* -------------------------------------------------------------- serving */

int ltap_metrics_bind(struct ltap_ctx *ctx)
{
	struct ltap_metrics *ms = ctx->metrics;
	lua_State *L = ctx->L;

	if (ctx->opt.export_all) {
		lua_pushcfunction(L, export_all_protected);
		if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
			ltap_err("%s", lua_tostring(L, -1));
			lua_pop(L, 1);
			return -1;
		}
	}
	if (!ctx->opt.serve)
		return 0;
	ms->server = ltap_server_open(ctx->opt.serve, metrics_scrape, ctx);
	return ms->server ? 0 : -1;
}

/* ctx->forgive while serving: a script error is counted and shown, not
 * fatal; 1 when forgiven */
static int metrics_forgive(struct ltap_ctx *ctx, const char *msg)
{
	struct ltap_metrics *ms = ctx->metrics;
	uint64_t now;

	if (!ms || !ms->server || !ctx->run.in_loop || ctx->interrupted || ctx->sigints > 1)
		return 0;
	ms->handler_errors++;
	if (ms->errors_shown < ERRORS_SHOWN) {
		ltap_err("%s", msg);
		if (++ms->errors_shown == ERRORS_SHOWN)
			ltap_warn("serving: more handler errors are counted (ltap_handler_errors_total) and summed up once a minute");
		ms->last_summary = ltap_now();
		return 1;
	}
	ms->suppressed++;
	now = ltap_now();
	if (now - ms->last_summary >= ERROR_SUMMARY) {
		ltap_warn("serving: %llu more handler errors; the last: %.*s", (unsigned long long)ms->suppressed,
			  (int)strcspn(msg, "\n"), msg);
		ms->suppressed = 0;
		ms->last_summary = now;
	}
	return 1;
}

int ltap_metrics_serve(struct ltap_ctx *ctx, uint64_t attach_ns)
{
	struct ltap_metrics *ms = ctx->metrics;

	ms->attach_ns = attach_ns;
	if (!ms->server)
		return 0;
	if (ltap_server_attach(ms->server, ctx->loop))
		return -1;
	ctx->forgive = metrics_forgive;
	ltap_info("serving on %s (GET /metrics)", ltap_server_address(ms->server));
	return 0;
}


void ltap_metrics_free(struct ltap_ctx *ctx)
{
	struct ltap_metrics *ms = ctx->metrics;

	if (!ms)
		return;
	if (ms->handler_errors)
		ltap_warn("serving: %llu handler errors in all", (unsigned long long)ms->handler_errors);
	ltap_server_close(ms->server);
	for (int i = 0; i < ms->n; i++)
		metric_free(&ms->m[i]);
	free(ms->m);
	ltap_expo_free(&ms->x);
	free(ms);
	ctx->metrics = NULL;
}

/* --------------------------------------------------------------- module */

static const luaL_Reg metrics_funcs[] = {
	{"render", metrics_render_lua},
	{NULL, NULL},
};

void ltap_open_metrics(lua_State *L, struct ltap_ctx *ctx)
{
	static const struct {
		const char *name;
		enum ltap_expo_type type;
	} kinds[] = {{"counter", LTAP_EXPO_COUNTER}, {"gauge", LTAP_EXPO_GAUGE}, {"histogram", LTAP_EXPO_HISTOGRAM}};
	struct timespec ts;

	ctx->metrics = calloc(1, sizeof *ctx->metrics);
	if (!ctx->metrics)
		luaL_error(L, "metrics: out of memory");
	clock_gettime(CLOCK_REALTIME, &ts);
	ctx->metrics->start_unix = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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
	if (ctx->opt.export_all) {
		/* weak: an aggregate made and dropped while loading (a stdlib
		 * module's probe for its methods) is not exported */
		lua_newtable(L);
		lua_createtable(L, 0, 1);
		lua_pushliteral(L, "v");
		lua_setfield(L, -2, "__mode");
		lua_setmetatable(L, -2);
		lua_setfield(L, LUA_REGISTRYINDEX, "ltap.export_all");
	}
}
