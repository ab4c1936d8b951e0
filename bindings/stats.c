/* stats.c: the "ltap.stats" aggregate, SystemTap's `<<<` and bpftrace's
 * count/sum/min/max/avg/stats/hist/lhist for any key.
 *
 *   local s = stats{hist = "log2"}
 *   s:add(e.comm, e.pid, e.bytes)   -- key parts..., value
 *
 * In C because it runs per event: a Lua-table version (one table of figures
 * per key, updated field by field) cost ~3x more per add (bench/README.md).
 * The keys and figures live in runtime/agg.c, outside Lua's heap but held to
 * the script's memory limit (its allocator): no Lua table per key, no string
 * built for a tuple, the same memory per key at 10 keys or a million
 * (bench/bigagg.sh). Keys are numbers, strings and booleans. The
 * number of keys is bounded: going over is an error or a counted drop, as
 * the script chose. Ordering and the report's table are in statsrows.c.
 *
 * The object a script holds is a table with the metatable "ltap.stats",
 * whose own fields are this file's methods (s:inc, s:add, s:get, ...): C
 * closures bound to the aggregate's state (a userdata: the store and the
 * key cache) and to the object. Lua finds a table's own field at once,
 * where a method of a userdata is looked up through its metatable, which
 * cost as much as the rest of an add (bench/README.md, luacall.c); bound,
 * they check their object by its address. The metatable's __index has the
 * same methods unbound and the other files' (s:by, s:sorted, s:print):
 * those find the state from the object in the registry (STATS_OF, weak
 * keys). */
#include "stats.h"

#include "ctx.h"
#include "luaaux.h"
#include "options.h"

#include <errno.h>
#include <lauxlib.h>
#include <math.h>
#include <string.h>

#define STATS_DEFAULT_MAX_KEYS 1000000
#define STATS_STATE_MT "ltap.stats.state" /* the state's: its __gc */
#define STATS_OF "ltap.stats_of"          /* registry: object -> state, weak keys */
/* the state's uservalue: the strings of the key cache, kept alive so that
 * their addresses can be compared */
enum { UV_CACHED = 1 };
/* the upvalues of this file's methods: nil, nil in the metatable's */
#define UP_STATE lua_upvalueindex(1)
#define UP_OBJECT lua_upvalueindex(2) /* kept alive, so its address is its own */
#define UP_FIGURE lua_upvalueindex(3) /* s:count, s:sum, ...: which */

const char *const ltap_stats_figure_names[] = {"count", "sum", "min", "max", "avg", "var", "stddev", NULL};

/* The state of the object at idx, pushed; NULL and nothing pushed when idx
 * is not an aggregate. */
static struct stats *stats_push_state(lua_State *L, int idx)
{
	struct stats *s;

	idx = lua_absindex(L, idx);
	lua_getfield(L, LUA_REGISTRYINDEX, STATS_OF);
	lua_pushvalue(L, idx);
	lua_rawget(L, -2);
	lua_remove(L, -2); /* STATS_OF */
	if (!(s = lua_touserdata(L, -1)))
		lua_pop(L, 1);
	return s;
}

struct stats *ltap_stats_test(lua_State *L, int idx)
{
	struct stats *s = stats_push_state(L, idx);

	if (s)
		lua_pop(L, 1);
	return s;
}

struct stats *ltap_stats_check(lua_State *L, int idx)
{
	struct stats *s = ltap_stats_test(L, idx);

	if (!s)
		luaL_typeerror(L, idx, STATS_MT);
	return s;
}

/* The aggregate a method of this file runs on: the one it is bound to
 * when called on its object (s:get(k)), else the one at 1 (s.get(other,
 * k), the metatable's unbound methods). */
static struct stats *stats_check(lua_State *L)
{
	struct stats *s = lua_touserdata(L, UP_STATE);

	if (s && lua_topointer(L, 1) == s->object)
		return s;
	return ltap_stats_check(L, 1);
}

struct ltap_agg *ltap_stats_agg(lua_State *L, int idx)
{
	struct stats *s = ltap_stats_test(L, idx);
	return s ? s->agg : NULL;
}

int ltap_stats_nomem(lua_State *L)
{
	return luaL_error(L, "stats: out of memory");
}

/* ------------------------------------------------------------ key parts */

/* The part at idx, a key's; raises for one no key can have. */
static void stats_part(lua_State *L, int idx, struct ltap_agg_part *p)
{
	size_t len;

	switch (lua_type(L, idx)) {
	case LUA_TSTRING:
		p->kind = LTAP_AGG_STR;
		p->v.s.p = lua_tolstring(L, idx, &len);
		p->v.s.len = len;
		break;
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx))
			*p = LTAP_AGG_INT_PART(lua_tointeger(L, idx));
		else if (ltap_agg_number_part(p, lua_tonumber(L, idx)))
			luaL_argerror(L, idx - 1, "key part is NaN");
		break;
	case LUA_TBOOLEAN:
		p->kind = LTAP_AGG_BOOL;
		p->v.b = lua_toboolean(L, idx);
		break;
	case LUA_TNIL:
		luaL_argerror(L, idx - 1, "key part is nil");
		break;
	default:
		luaL_argerror(L, idx - 1, lua_pushfstring(L, "key part is a %s (keys are numbers, strings, booleans)",
							 luaL_typename(L, idx)));
	}
}

/* The parts at 2..1+n as a key, or 0 when no key of the aggregate can be
 * those (a nil, NaN, another type or number of parts). */
static int stats_key_at(lua_State *L, const struct stats *s, int n, struct ltap_agg_part *key)
{
	if (n != ltap_agg_arity(s->agg) || n > LTAP_AGG_MAX_PARTS)
		return 0;
	for (int p = 0; p < n; p++) {
		int t = lua_type(L, 2 + p);
		if (t != LUA_TSTRING && t != LUA_TNUMBER && t != LUA_TBOOLEAN)
			return 0;
		if (t == LUA_TNUMBER && !lua_isinteger(L, 2 + p) && lua_tonumber(L, 2 + p) != lua_tonumber(L, 2 + p))
			return 0;
		stats_part(L, 2 + p, &key[p]);
	}
	return 1;
}

static void push_part(lua_State *L, const struct ltap_agg_part *p)
{
	switch (p->kind) {
	case LTAP_AGG_INT: lua_pushinteger(L, p->v.i); break;
	case LTAP_AGG_FLOAT: lua_pushnumber(L, p->v.d); break;
	case LTAP_AGG_BOOL: lua_pushboolean(L, p->v.b); break;
	default: lua_pushlstring(L, p->v.s.p, p->v.s.len);
	}
}

void ltap_stats_push_slot_key(lua_State *L, const struct stats *s, long slot)
{
	struct ltap_agg_part key[LTAP_AGG_MAX_PARTS];
	int n = ltap_agg_arity(s->agg);

	ltap_agg_key(s->agg, slot, key);
	if (n == 0) {
		lua_pushboolean(L, 1);
	} else if (n == 1) {
		push_part(L, &key[0]);
	} else {
		lua_createtable(L, n, 0);
		for (int p = 0; p < n; p++) {
			push_part(L, &key[p]);
			lua_rawseti(L, -2, p + 1);
		}
	}
}

/* ---------------------------------------------------------------- adding */

static int stats_slot_error(lua_State *L, const struct stats *s, long r, int n)
{
	int have = ltap_agg_arity(s->agg);

	if (r == LTAP_AGG_DROPPED)
		return 0;
	if (r == -ENOSPC)
		return luaL_error(L, "stats: more than %d keys (raise max_keys, or full = \"drop\")",
				  (int)ltap_agg_config(s->agg)->max_keys);
	if (r == -EINVAL && have >= 0 && n != have)
		return luaL_error(L, "stats: key of %d part%s, but this aggregate's keys have %d", n, n == 1 ? "" : "s",
				  have);
	if (r == -EINVAL)
		return luaL_error(L, "stats: a key has at most %d parts", LTAP_AGG_MAX_PARTS);
	return ltap_stats_nomem(L);
}

/* the cache entry of the single-part key at 2, or NULL for a key not
 * cached by kind (a float, a boolean); *hit when it holds that key */
static struct stats_cached *stats_cache_entry(lua_State *L, struct stats *s, int *hit)
{
	const void *p = lua_topointer(L, 2); /* a string's (or a table's: never cached) */
	struct stats_cached *c;
	lua_Integer i;

	if (p) {
		c = &s->cache[((uintptr_t)p >> 4) % STATS_CACHE];
		*hit = c->p == p && c->kind == LUA_TSTRING;
		return c;
	}
	if (!lua_isinteger(L, 2))
		return NULL;
	i = lua_tointeger(L, 2);
	c = &s->cache[(lua_Unsigned)i % STATS_CACHE];
	*hit = c->i == i && c->kind == LUA_TNUMBER;
	return c;
}

/* the key at 2 into cache entry c, found at slot; the state at state */
static void stats_cache_keep(lua_State *L, struct stats *s, int state, struct stats_cached *c, long slot)
{
	c->kind = lua_type(L, 2);
	c->slot = slot;
	if (c->kind == LUA_TSTRING) {
		c->p = lua_topointer(L, 2);
		lua_getiuservalue(L, state, UV_CACHED);
		lua_pushvalue(L, 2);
		lua_rawseti(L, -2, c - s->cache + 1);
		lua_pop(L, 1);
	} else {
		c->i = lua_tointeger(L, 2);
	}
}

static void stats_cache_clear(struct stats *s)
{
	memset(s->cache, 0, sizeof s->cache);
}

/* The slot of the key at 2..1+n, made when new; -1 when the aggregate is
 * full and drops. The state at state. */
static long stats_slot_of(lua_State *L, struct stats *s, int state, int n)
{
	struct ltap_agg_part key[LTAP_AGG_MAX_PARTS];
	struct stats_cached *c = NULL;
	int have, hit = 0;
	long i;

	if (n == 1 && (c = stats_cache_entry(L, s, &hit)) && hit)
		return c->slot;
	have = ltap_agg_arity(s->agg);
	if ((have >= 0 && n != have) || n > LTAP_AGG_MAX_PARTS)
		return stats_slot_error(L, s, -EINVAL, n) - 1;
	for (int p = 0; p < n; p++)
		stats_part(L, 2 + p, &key[p]);
	i = ltap_agg_slot(s->agg, key, n, 1);
	if (i < 0)
		return stats_slot_error(L, s, i, n) - 1;
	if (c)
		stats_cache_keep(L, s, state, c, i);
	return i;
}

/* the slot of a single string key at 2 when the cache has it, else -1:
 * the path of most adds, kept apart from stats_slot_of's frame */
static inline long stats_hit(lua_State *L, const struct stats *s)
{
	const void *p = lua_topointer(L, 2);
	const struct stats_cached *c = &s->cache[((uintptr_t)p >> 4) % STATS_CACHE];

	return p && c->p == p && c->kind == LUA_TSTRING ? c->slot : -1;
}

/* The aggregate s:inc or s:add adds to, its state's index at *state: the
 * one it is bound to when called on its object (s:inc(k)), else the one
 * at 1 (s.inc(other, k)), whose state is then pushed. */
static struct stats *stats_bound(lua_State *L, int *state)
{
	struct stats *s;

	s = lua_touserdata(L, UP_STATE);
	if (s && lua_topointer(L, 1) == s->object) {
		*state = UP_STATE;
		return s;
	}
	if (!(s = stats_push_state(L, 1)))
		luaL_typeerror(L, 1, STATS_MT);
	*state = lua_gettop(L);
	return s;
}

/* s:add(key..., value) */
static int stats_add(lua_State *L)
{
	int top = lua_gettop(L), isint, state;
	struct stats *s = stats_bound(L, &state);
	lua_Integer x = lua_tointegerx(L, top, &isint);
	lua_Number v = isint ? 0 : luaL_checknumber(L, top);
	long i = top == 3 ? stats_hit(L, s) : -1;

	if (i < 0)
		i = stats_slot_of(L, s, state, top - 2);

	if (i >= 0 && (isint ? ltap_agg_slot_add_int(s->agg, i, x) : ltap_agg_slot_add_float(s->agg, i, v)))
		return ltap_stats_nomem(L);
	return 0;
}

/* s:inc(key...): add 1, which costs a count alone (the other figures of a
 * count are known) */
static int stats_inc(lua_State *L)
{
	int top = lua_gettop(L), state;
	struct stats *s = stats_bound(L, &state);
	long i = top == 2 ? stats_hit(L, s) : -1;

	if (i < 0)
		i = stats_slot_of(L, s, state, top - 1);

	if (i >= 0 && ltap_agg_slot_add_int(s->agg, i, 1))
		return ltap_stats_nomem(L);
	return 0;
}

/* --------------------------------------------------------------- reading */

static void push_num(lua_State *L, struct ltap_agg_num v)
{
	if (v.is_int)
		lua_pushinteger(L, v.i);
	else
		lua_pushnumber(L, v.d);
}

void ltap_stats_push_figures(lua_State *L, const struct stats *s, long slot)
{
	lua_createtable(L, 0, LTAP_AGG_NFIGS);
	for (int f = 0; f < LTAP_AGG_NFIGS; f++) {
		push_num(L, ltap_agg_figure(s->agg, slot, f));
		lua_setfield(L, -2, ltap_stats_figure_names[f]);
	}
}

/* The slot of the key given as arguments 2.., or -1. */
static long stats_lookup(lua_State *L, const struct stats *s)
{
	struct ltap_agg_part key[LTAP_AGG_MAX_PARTS];
	int n = lua_gettop(L) - 1;

	if (!stats_key_at(L, s, n, key))
		return -1;
	return ltap_agg_slot(s->agg, key, n, 0);
}

/* s:get(key...) -> {count=, sum=, min=, max=, avg=, var=, stddev=} or nil */
static int stats_get(lua_State *L)
{
	struct stats *s = stats_check(L);
	long i = stats_lookup(L, s);

	if (i < 0)
		lua_pushnil(L);
	else
		ltap_stats_push_figures(L, s, i);
	return 1;
}

/* s:count(key...), s:sum(key...), ...: one figure, nil for an absent key */
static int stats_figure(lua_State *L)
{
	struct stats *s = stats_check(L);
	int fig = (int)lua_tointeger(L, UP_FIGURE);
	long i = stats_lookup(L, s);

	if (i < 0)
		lua_pushnil(L);
	else
		push_num(L, ltap_agg_figure(s->agg, i, fig));
	return 1;
}

static int stats_len(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)ltap_agg_size(stats_check(L)->agg));
	return 1;
}

static int stats_dropped(lua_State *L)
{
	lua_pushinteger(L, ltap_agg_dropped(stats_check(L)->agg));
	return 1;
}

int ltap_stats_check_figure(lua_State *L, int idx, const char *def)
{
	const char *name = luaL_optstring(L, idx, def);

	for (int f = 0; ltap_stats_figure_names[f]; f++)
		if (strcmp(name, ltap_stats_figure_names[f]) == 0)
			return f;
	return luaL_error(L, "sorted: bad figure '%s' (count, sum, min, max, avg, var, stddev)", name);
}

/* s:rows(FIGURE) -> ids, values: parallel arrays over the keys, in no
 * order; a row is read with s:row(id) */
static int stats_rows(lua_State *L)
{
	struct stats *s = stats_check(L);
	int fig = luaL_checkoption(L, 2, "count", ltap_stats_figure_names);
	size_t slots = ltap_agg_slots(s->agg);
	lua_Integer n = 0;

	lua_createtable(L, (int)ltap_agg_size(s->agg), 0);
	lua_createtable(L, (int)ltap_agg_size(s->agg), 0);
	for (size_t i = 0; i < slots; i++) {
		if (!ltap_agg_live(s->agg, (long)i))
			continue;
		n++;
		lua_pushinteger(L, (lua_Integer)i + 1);
		lua_rawseti(L, -3, n);
		push_num(L, ltap_agg_figure(s->agg, (long)i, fig));
		lua_rawseti(L, -2, n);
	}
	return 2;
}

/* s:row(id) -> key, figures (id from s:rows), nothing for a key gone */
static int stats_row(lua_State *L)
{
	struct stats *s = stats_check(L);
	lua_Integer id = luaL_checkinteger(L, 2);

	if (id < 1 || id > (lua_Integer)ltap_agg_slots(s->agg) || !ltap_agg_live(s->agg, (long)id - 1))
		return 0;
	ltap_stats_push_slot_key(L, s, (long)id - 1);
	ltap_stats_push_figures(L, s, (long)id - 1);
	return 2;
}

/* a bucket bound: an integer when it is one, so labels read [4K, 8K) */
static void set_bound(lua_State *L, const char *name, lua_Number v, const char *open_name, int open)
{
	ltap_push_exact(L, v);
	lua_setfield(L, -2, name);
	lua_pushboolean(L, open);
	lua_setfield(L, -2, open_name);
}

/* s:hist(key...) -> {{lo=, hi=, count=, lo_open=, hi_open=}, ...} with the
 * empty buckets at both ends cut off; nil for an absent key */
static int stats_hist(lua_State *L)
{
	struct stats *s = stats_check(L);
	int first = -1, last = -1, n = 0, nb = ltap_agg_nbuckets(s->agg);
	const int64_t *b;
	long i;

	if (!nb)
		return luaL_error(L, "stats: no histogram (declare stats{hist = \"log2\"} or \"linear\")");
	i = stats_lookup(L, s);
	if (i < 0) {
		lua_pushnil(L);
		return 1;
	}
	b = ltap_agg_buckets(s->agg, i);
	for (int k = 0; k < nb; k++)
		if (b[k]) {
			if (first < 0)
				first = k;
			last = k;
		}
	lua_createtable(L, first < 0 ? 0 : last - first + 1, 0);
	for (int k = first; first >= 0 && k <= last; k++) {
		double lo, hi;
		int lo_open, hi_open;
		ltap_agg_bucket_range(s->agg, k, &lo, &hi, &lo_open, &hi_open);
		lua_createtable(L, 0, 5);
		lua_pushinteger(L, b[k]);
		lua_setfield(L, -2, "count");
		set_bound(L, "lo", lo, "lo_open", lo_open);
		set_bound(L, "hi", hi, "hi_open", hi_open);
		lua_rawseti(L, -2, ++n);
	}
	return 1;
}

/* s:clear() empties it; s:clear(key...) removes one key */
static int stats_clear(lua_State *L)
{
	struct stats *s = stats_check(L);
	long i;

	stats_cache_clear(s);
	if (lua_gettop(L) == 1) {
		ltap_agg_clear(s->agg);
		return 0;
	}
	if ((i = stats_lookup(L, s)) >= 0)
		ltap_agg_remove(s->agg, i);
	return 0;
}

/* s:info() -> {hist=, min=, max=, step=, max_keys=, arity=, bytes=} */
static int stats_info(lua_State *L)
{
	struct stats *s = stats_check(L);
	const struct ltap_agg_config *cfg = ltap_agg_config(s->agg);
	static const char *const kinds[] = {"none", "log2", "linear"};

	lua_createtable(L, 0, 7);
	lua_pushstring(L, kinds[cfg->hist]);
	lua_setfield(L, -2, "hist");
	if (cfg->hist == LTAP_AGG_HIST_LINEAR) {
		lua_pushnumber(L, cfg->lmin);
		lua_setfield(L, -2, "min");
		lua_pushnumber(L, cfg->lmax);
		lua_setfield(L, -2, "max");
		lua_pushnumber(L, cfg->lstep);
		lua_setfield(L, -2, "step");
	}
	lua_pushinteger(L, (lua_Integer)cfg->max_keys);
	lua_setfield(L, -2, "max_keys");
	lua_pushinteger(L, ltap_agg_arity(s->agg) < 0 ? 0 : ltap_agg_arity(s->agg));
	lua_setfield(L, -2, "arity");
	lua_pushinteger(L, (lua_Integer)ltap_agg_bytes(s->agg));
	lua_setfield(L, -2, "bytes");
	return 1;
}

/* the state's: the store goes with the object (the state lives as long) */
static int stats_gc(lua_State *L)
{
	struct stats *s = luaL_checkudata(L, 1, STATS_STATE_MT);
	ltap_agg_free(s->agg);
	s->agg = NULL;
	return 0;
}

static int stats_newindex(lua_State *L)
{
	return luaL_error(L, "ltap.stats: cannot set a field (keys are added with s:add or s:inc)");
}

static int stats_pairs(lua_State *L)
{
	return luaL_error(L, "ltap.stats: iterate with sorted(s) or s:sorted()");
}

static int stats_tostring(lua_State *L)
{
	struct stats *s = stats_check(L);
	lua_pushfstring(L, "ltap.stats (%I keys)", (lua_Integer)ltap_agg_size(s->agg));
	return 1;
}

/* ------------------------------------------------------------- creating */

static lua_Number opt_number(lua_State *L, const char *name, int *present)
{
	lua_Number v = 0;
	*present = lua_getfield(L, 1, name) != LUA_TNIL;
	if (*present) {
		if (!lua_isnumber(L, -1))
			luaL_error(L, "stats: '%s' must be a number", name);
		v = lua_tonumber(L, -1);
	}
	lua_pop(L, 1);
	return v;
}

static int stats_option(lua_State *L, const char *name, const char *const *choices)
{
	const char *v;
	int r = 0;

	if (lua_getfield(L, 1, name) != LUA_TNIL) {
		v = lua_tostring(L, -1);
		for (r = 0; choices[r] && !(v && strcmp(v, choices[r]) == 0); r++)
			;
		if (!choices[r])
			luaL_error(L, "stats: %s must be %s or %s (got '%s')", name, choices[1],
				   choices[2] ? choices[2] : choices[0], v ? v : luaL_typename(L, -1));
	}
	lua_pop(L, 1);
	return r;
}

/* --export-all (metrics.c) exports the aggregates made while the script
 * loads: each is listed in its registry table, when there is one, the
 * count in t.n (the table's values are weak: its border means nothing) */
static void stats_made(lua_State *L, int idx)
{
	lua_Integer n;

	if (ltap_run_started(ltap_ctx_get(L)))
		return;
	if (lua_getfield(L, LUA_REGISTRYINDEX, "ltap.export_all") != LUA_TTABLE) {
		lua_pop(L, 1);
		return;
	}
	lua_getfield(L, -1, "n");
	n = lua_tointeger(L, -1) + 1;
	lua_pop(L, 1);
	lua_pushvalue(L, idx);
	lua_rawseti(L, -2, n);
	lua_pushinteger(L, n);
	lua_setfield(L, -2, "n");
	lua_pop(L, 1);
}

/* the options table at 1 as a configuration */
static void stats_config(lua_State *L, struct ltap_agg_config *cfg)
{
	static const char *const hists[] = {"none", "log2", "linear", NULL};
	static const char *const fulls[] = {"error", "drop", NULL};
	static const struct ltap_optspec opts[] = {{"hist", "string"}, {"min", "number"}, {"max", "number"},
		{"step", "number"}, {"max_keys", "integer"}, {"full", "string"}, {NULL, NULL}};
	lua_Number mk;
	int present;

	luaL_checktype(L, 1, LUA_TTABLE);
	ltap_check_options(L, 1, "stats", opts);
	cfg->hist = stats_option(L, "hist", hists);
	cfg->drop_when_full = stats_option(L, "full", fulls);
	mk = opt_number(L, "max_keys", &present);
	if (present) {
		if (mk < 1 || mk > 1e9)
			luaL_error(L, "stats: max_keys must be from 1 to 1e9");
		cfg->max_keys = (size_t)mk;
	}
	if (cfg->hist == LTAP_AGG_HIST_LINEAR) {
		int a, b, c;
		cfg->lmin = opt_number(L, "min", &a);
		cfg->lmax = opt_number(L, "max", &b);
		cfg->lstep = opt_number(L, "step", &c);
		if (!a || !b || !c)
			luaL_error(L, "stats: a linear histogram needs min, max and step");
		if (!(cfg->lstep > 0) || !(cfg->lmax > cfg->lmin))
			luaL_error(L, "stats: linear histogram needs min < max and step > 0");
		if ((cfg->lmax - cfg->lmin) / cfg->lstep > 10000)
			luaL_error(L, "stats: linear histogram of more than 10000 buckets");
	}
}

static const luaL_Reg stats_meth[] = {
	{"add", stats_add},
	{"inc", stats_inc},
	{"get", stats_get},
	{"hist", stats_hist},
	{"clear", stats_clear},
	{"dropped", stats_dropped},
	{"rows", stats_rows},
	{"row", stats_row},
	{"info", stats_info},
	{NULL, NULL},
};
#define STATS_NMETH 9

/* This file's methods into the table at t, bound to the state at state
 * and the object at object (both nil: unbound); absolute indices. */
static void stats_methods(lua_State *L, int t, int state, int object)
{
	for (const luaL_Reg *m = stats_meth; m->name; m++) {
		lua_pushvalue(L, state);
		lua_pushvalue(L, object);
		lua_pushcclosure(L, m->func, 2);
		lua_setfield(L, t, m->name);
	}
	for (int f = 0; ltap_stats_figure_names[f]; f++) {
		lua_pushvalue(L, state);
		lua_pushvalue(L, object);
		lua_pushinteger(L, f);
		lua_pushcclosure(L, stats_figure, 3);
		lua_setfield(L, t, ltap_stats_figure_names[f]);
	}
}

/* stats([{hist = "log2" | "linear", min =, max =, step =, max_keys =, full = "error" | "drop"}]) */
int stats_new(lua_State *L)
{
	struct ltap_agg_config cfg = {.max_keys = STATS_DEFAULT_MAX_KEYS};
	struct stats *s;
	void *ud;
	lua_Alloc alloc = lua_getallocf(L, &ud);

	lua_settop(L, 1); /* the state is made at 2, the object at 3, then put in place of the options */
	if (!lua_isnoneornil(L, 1))
		stats_config(L, &cfg);
	s = lua_newuserdatauv(L, sizeof *s, 1);
	memset(s, 0, sizeof *s);
	luaL_setmetatable(L, STATS_STATE_MT);
	lua_createtable(L, STATS_CACHE, 0);
	lua_setiuservalue(L, -2, UV_CACHED);
	if (!(s->agg = ltap_agg_new(&cfg, alloc, ud)))
		return ltap_stats_nomem(L);
	lua_createtable(L, 0, STATS_NMETH + LTAP_AGG_NFIGS);
	stats_methods(L, 3, 2, 3);
	luaL_setmetatable(L, STATS_MT); /* its __newindex refuses fields */
	s->object = lua_topointer(L, 3);
	lua_getfield(L, LUA_REGISTRYINDEX, STATS_OF);
	lua_pushvalue(L, 3);
	lua_pushvalue(L, 2);
	lua_rawset(L, -3);
	lua_pop(L, 1); /* STATS_OF */
	lua_replace(L, 1);
	lua_settop(L, 1);
	stats_made(L, 1);
	return 1;
}

/* ------------------------------------------------ for lower.c */

const void *ltap_stats_bound_method(lua_State *L, int obj, const char *name)
{
	lua_CFunction want = strcmp(name, "inc") == 0 ? stats_inc : strcmp(name, "add") == 0 ? stats_add : NULL;
	const void *m;

	obj = lua_absindex(L, obj);
	if (!want || !ltap_stats_test(L, obj))
		return NULL;
	lua_pushstring(L, name);
	if (lua_rawget(L, obj) != LUA_TFUNCTION || lua_tocfunction(L, -1) != want) {
		lua_pop(L, 1);
		return NULL;
	}
	m = lua_topointer(L, -1);
	lua_getupvalue(L, -1, 2); /* UP_OBJECT */
	if (lua_topointer(L, -1) != lua_topointer(L, obj)) {
		lua_pop(L, 2);
		return NULL;
	}
	lua_pop(L, 1);
	return m;
}

/* ---------------------------------------------- reading, for metrics.c */

void ltap_stats_shape(const struct stats *s, struct ltap_stats_shape *sh)
{
	const struct ltap_agg_config *cfg = ltap_agg_config(s->agg);
	int arity = ltap_agg_arity(s->agg);

	sh->hist = cfg->hist != LTAP_AGG_HIST_NONE;
	sh->nbuckets = ltap_agg_nbuckets(s->agg);
	sh->int_bounds = cfg->hist == LTAP_AGG_HIST_LOG2 || (cfg->lmin == floor(cfg->lmin) && cfg->lstep == floor(cfg->lstep));
	sh->arity = arity < 0 ? 0 : arity ? arity : 1;
	sh->keyless = arity == 0;
	sh->dropped = ltap_agg_dropped(s->agg);
	sh->nslots = (int)ltap_agg_slots(s->agg);
}

int ltap_stats_row(const struct stats *s, int i, struct ltap_stats_row *row)
{
	struct ltap_agg_num sum;

	if (!ltap_agg_live(s->agg, i))
		return 0;
	sum = ltap_agg_figure(s->agg, i, LTAP_AGG_SUM);
	row->count = ltap_agg_figure(s->agg, i, LTAP_AGG_COUNT).i;
	row->is_float = !sum.is_int;
	row->isum = sum.i;
	row->dsum = sum.d;
	row->buckets = ltap_agg_buckets(s->agg, i);
	return 1;
}

double ltap_stats_bucket_hi(const struct stats *s, int k)
{
	double lo, hi;
	int lo_open, hi_open;
	ltap_agg_bucket_range(s->agg, k, &lo, &hi, &lo_open, &hi_open);
	return hi_open ? HUGE_VAL : hi;
}

void ltap_stats_key(const struct stats *s, int i, struct ltap_agg_part *key)
{
	ltap_agg_key(s->agg, i, key);
}

static const luaL_Reg stats_metameth[] = {
	{"__index", NULL},
	{"__len", stats_len},
	{"__tostring", stats_tostring},
	{"__newindex", stats_newindex},
	{"__pairs", stats_pairs},
	{NULL, NULL},
};

void ltap_open_stats(lua_State *L, struct ltap_ctx *ctx)
{
	(void)ctx;
	lua_newtable(L); /* STATS_OF: a state lives as long as its object */
	lua_createtable(L, 0, 1);
	lua_pushliteral(L, "k");
	lua_setfield(L, -2, "__mode");
	lua_setmetatable(L, -2);
	lua_setfield(L, LUA_REGISTRYINDEX, STATS_OF);
	/* the metatable, its methods unbound (state and object nil) */
	luaL_newmetatable(L, STATS_MT);
	luaL_setfuncs(L, stats_metameth, 0);
	lua_newtable(L);
	lua_pushnil(L);
	stats_methods(L, lua_gettop(L) - 1, lua_gettop(L), lua_gettop(L));
	lua_pop(L, 1); /* nil */
	lua_setfield(L, -2, "__index");
	lua_pop(L, 1);
	luaL_newmetatable(L, STATS_STATE_MT);
	lua_pushcfunction(L, stats_gc);
	lua_setfield(L, -2, "__gc");
	lua_pop(L, 1);
	lua_pushcfunction(L, stats_new);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.stats_new"); /* for metrics.c, whatever the script does to the global */
}
