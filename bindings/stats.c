/* stats.c: the "ltap.stats" aggregate, SystemTap's `<<<` and bpftrace's
 * count/sum/min/max/avg/stats/hist/lhist for any key.
 *
 *   local s = stats{hist = "log2"}
 *   s:add(e.comm, e.pid, e.bytes)   -- key parts..., value
 *
 * In C because it runs per event: a Lua-table version (one table of figures
 * per key, updated field by field) cost ~3x more per add (bench/README.md).
 * The key is one or more Lua values, turned into a slot by nested raw table
 * lookups (no string is built for a tuple); the figures and histogram of each
 * slot live in one C array. The number of keys is bounded: going over is an
 * error or a counted drop, as the script chose. Sorting and printing are in
 * stdlib/report.lua, over the reads below. */
#include "ctx.h"

#include <lauxlib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STATS_MT "ltap.stats"
#define STATS_DEFAULT_MAX_KEYS 1000000
#define LOG2_BUCKETS 65 /* (..,0), [0], [1], then [2^k, 2^(k+1)) for k = 1..62 */

enum { HIST_NONE, HIST_LOG2, HIST_LINEAR };
/* uservalues: key -> slot, slot -> key, the last key added (kept alive so
 * its address can be compared) */
enum { UV_INDEX = 1, UV_KEYS = 2, UV_LAST = 3 };

struct stats_slot {
	int64_t count;
	int live;
	int is_float;          /* a float value was added: the d* figures count */
	int64_t isum, imin, imax;
	double dsum, dmin, dmax;
	double shift, s1, s2;  /* sums of (v - shift) and its square: the variance
				* without a division per add (shift: the first value) */
};

#define STATS_MAGIC 0x5354415473ull

struct stats {
	uint64_t magic;        /* cheap type check on the per-event path */
	int hist, nbuckets;
	lua_Number lmin, lmax, lstep;
	int arity;             /* key parts, fixed by the first add; 0 = unset */
	int keyless;           /* s:add(value): one slot, stored under the key true */
	int max_keys, drop_when_full;
	int64_t dropped;
	int nslots, cap, nlive;
	size_t stride;         /* bytes per slot: the figures, then its buckets */
	char *slots;
	int *free_slots, nfree;
	/* the last single-part key added: events come in bursts of one key, and
	 * an equal string is the same object (short strings are interned) */
	const void *last_ptr;
	lua_Integer last_int;
	int last_kind, last_slot; /* last_kind: 0 none, LUA_TSTRING, LUA_TNUMBER */
};

static struct stats_slot *slot_at(struct stats *s, int i)
{
	return (struct stats_slot *)(s->slots + (size_t)i * s->stride);
}

static int64_t *slot_buckets(struct stats_slot *sl)
{
	return (int64_t *)(sl + 1);
}

/* luaL_checkudata costs a registry lookup per call; a userdata of the right
 * size holding the magic number is ours, anything else gets the full check
 * (and its error message). */
static struct stats *stats_check(lua_State *L)
{
	struct stats *s = lua_touserdata(L, 1);
	if (s && lua_rawlen(L, 1) == sizeof *s && s->magic == STATS_MAGIC)
		return s;
	return luaL_checkudata(L, 1, STATS_MT);
}

/* -------------------------------------------------------------- buckets */

static int log2_bucket(lua_Number v)
{
	int64_t x;
	int k = 0;

	if (v < 0)
		return 0;
	if (v >= 9.2e18)
		return LOG2_BUCKETS - 1;
	x = (int64_t)v;
	if (x < 2)
		return (int)x + 1;
	while (x >>= 1)
		k++;
	return k + 2 < LOG2_BUCKETS ? k + 2 : LOG2_BUCKETS - 1;
}

static int linear_bucket(struct stats *s, lua_Number v)
{
	lua_Number b;

	if (v < s->lmin)
		return 0;
	if (v >= s->lmax)
		return s->nbuckets - 1;
	b = floor((v - s->lmin) / s->lstep);
	return 1 + (int)b;
}

/* Bucket i as [lo, hi): lo_open/hi_open mark the unbounded ends. */
static void bucket_range(struct stats *s, int i, lua_Number *lo, lua_Number *hi, int *lo_open,
			 int *hi_open)
{
	*lo_open = *hi_open = 0;
	if (s->hist == HIST_LOG2) {
		if (i == 0) {
			*lo_open = 1;
			*lo = *hi = 0;
		} else if (i <= 2) {
			*lo = i - 1;
			*hi = i;
		} else {
			*lo = ldexp(1, i - 2);
			*hi = ldexp(1, i - 1);
			if (i == LOG2_BUCKETS - 1)
				*hi_open = 1;
		}
		return;
	}
	if (i == 0) {
		*lo_open = 1;
		*lo = *hi = s->lmin;
	} else if (i == s->nbuckets - 1) {
		*hi_open = 1;
		*lo = *hi = s->lmax;
	} else {
		*lo = s->lmin + (i - 1) * s->lstep;
		*hi = *lo + s->lstep;
		if (*hi > s->lmax)
			*hi = s->lmax;
	}
}

/* ----------------------------------------------------------- key lookup */

static void stats_check_key(lua_State *L, int idx)
{
	int t = lua_type(L, idx);
	if (t == LUA_TNIL)
		luaL_argerror(L, idx - 1, "key part is nil");
	if (t == LUA_TNUMBER && lua_tonumber(L, idx) != lua_tonumber(L, idx))
		luaL_argerror(L, idx - 1, "key part is NaN");
}

/* The slot of the key at stack [first, first + arity), or -1. With create,
 * makes the path and returns -2 when the key is new (the caller then makes a
 * slot and stores it with stats_bind). Leaves the innermost table on top. */
static int stats_find(lua_State *L, struct stats *s, int first, int create)
{
	lua_getiuservalue(L, 1, UV_INDEX);
	for (int p = 0; p < s->arity - 1; p++) {
		lua_pushvalue(L, first + p);
		if (lua_rawget(L, -2) != LUA_TTABLE) {
			lua_pop(L, 1);
			if (!create)
				return -1;
			stats_check_key(L, first + p);
			lua_newtable(L);
			lua_pushvalue(L, first + p);
			lua_pushvalue(L, -2);
			lua_rawset(L, -4);
		}
		lua_remove(L, -2);
	}
	lua_pushvalue(L, first + s->arity - 1);
	if (lua_rawget(L, -2) == LUA_TNUMBER) {
		int i = (int)lua_tointeger(L, -1);
		lua_pop(L, 1);
		return i;
	}
	lua_pop(L, 1);
	return create ? -2 : -1;
}

static int stats_new_slot(lua_State *L, struct stats *s)
{
	int i;

	if (s->nfree) {
		i = s->free_slots[--s->nfree];
	} else {
		if (s->nslots == s->cap) {
			int cap = s->cap ? s->cap * 2 : 16;
			char *n = realloc(s->slots, (size_t)cap * s->stride);
			int *f = realloc(s->free_slots, (size_t)cap * sizeof *f);
			if (!n || !f) {
				if (n)
					s->slots = n;
				if (f)
					s->free_slots = f;
				luaL_error(L, "stats: out of memory");
			}
			s->slots = n;
			s->free_slots = f;
			s->cap = cap;
		}
		i = s->nslots++;
	}
	memset(slot_at(s, i), 0, s->stride);
	slot_at(s, i)->live = 1;
	s->nlive++;
	return i;
}

/* Stores slot i under the key: the index path (innermost table on top) and
 * the reverse map, slot -> key (a tuple table when the key has parts). */
static void stats_bind(lua_State *L, struct stats *s, int first, int i)
{
	lua_pushvalue(L, first + s->arity - 1);
	lua_pushinteger(L, i);
	lua_rawset(L, -3);
	lua_pop(L, 1);
	lua_getiuservalue(L, 1, UV_KEYS);
	if (s->arity == 1) {
		lua_pushvalue(L, first);
	} else {
		lua_createtable(L, s->arity, 0);
		for (int p = 0; p < s->arity; p++) {
			lua_pushvalue(L, first + p);
			lua_rawseti(L, -2, p + 1);
		}
	}
	lua_rawseti(L, -2, i + 1);
	lua_pop(L, 1);
}

/* The key at 2..top-1 has parts parts; none means the keyless slot, whose
 * key (true) is put in place so the lookups see one part. */
static int stats_key_parts(lua_State *L, struct stats *s, int parts)
{
	int keyless = parts == 0;

	if (keyless) {
		lua_pushboolean(L, 1);
		lua_insert(L, 2);
		parts = 1;
	}
	if (s->arity == 0) {
		s->arity = parts;
		s->keyless = keyless;
	} else if (parts != s->arity || keyless != s->keyless) {
		int have = s->keyless ? 0 : s->arity;
		luaL_error(L, "stats: key of %d part%s, but this aggregate's keys have %d",
			   keyless ? 0 : parts, parts == 1 && !keyless ? "" : "s", have);
	}
	return parts;
}

/* ---------------------------------------------------------------- adding */

static void slot_add(struct stats *s, struct stats_slot *sl, lua_State *L, int vidx)
{
	int isint;
	lua_Integer x = lua_tointegerx(L, vidx, &isint);
	lua_Number v = isint ? (lua_Number)x : lua_tonumber(L, vidx);
	double d;

	if (isint && !sl->is_float) {
		if (sl->count == 0 || x < sl->imin)
			sl->imin = x;
		if (sl->count == 0 || x > sl->imax)
			sl->imax = x;
		sl->isum += x;
	} else {
		if (!sl->is_float) { /* switch to floats from here on */
			sl->is_float = 1;
			sl->dsum = (double)sl->isum;
			sl->dmin = (double)sl->imin;
			sl->dmax = (double)sl->imax;
		}
		if (sl->count == 0 || v < sl->dmin)
			sl->dmin = v;
		if (sl->count == 0 || v > sl->dmax)
			sl->dmax = v;
		sl->dsum += v;
	}
	if (sl->count++ == 0)
		sl->shift = v;
	d = v - sl->shift;
	sl->s1 += d;
	sl->s2 += d * d;
	if (s->hist == HIST_LOG2)
		slot_buckets(sl)[log2_bucket(v)]++;
	else if (s->hist == HIST_LINEAR)
		slot_buckets(sl)[linear_bucket(s, v)]++;
}

/* s:add(key..., value) */
static int stats_last_key(lua_State *L, struct stats *s)
{
	int t = lua_type(L, 2);
	if (t == LUA_TSTRING && s->last_kind == t)
		return lua_topointer(L, 2) == s->last_ptr ? s->last_slot : -1;
	if (t == LUA_TNUMBER && s->last_kind == t && lua_isinteger(L, 2))
		return lua_tointeger(L, 2) == s->last_int ? s->last_slot : -1;
	return -1;
}

static void stats_remember_key(lua_State *L, struct stats *s, int i)
{
	int t = lua_type(L, 2);
	s->last_kind = 0;
	if (t == LUA_TSTRING) {
		s->last_ptr = lua_topointer(L, 2);
		lua_pushvalue(L, 2);
		lua_setiuservalue(L, 1, UV_LAST);
	} else if (t == LUA_TNUMBER && lua_isinteger(L, 2)) {
		s->last_int = lua_tointeger(L, 2);
	} else {
		return;
	}
	s->last_kind = t;
	s->last_slot = i;
}

static int stats_add(lua_State *L)
{
	struct stats *s = stats_check(L);
	int top = lua_gettop(L), i;

	luaL_checknumber(L, top);
	if (top == 3 && s->arity == 1 && !s->keyless && (i = stats_last_key(L, s)) >= 0) {
		slot_add(s, slot_at(s, i), L, top);
		return 0;
	}
	if (top == 2 || s->arity != top - 2 || s->keyless)
		top = 1 + stats_key_parts(L, s, top - 2) + 1;
	i = stats_find(L, s, 2, 1);
	if (i == -2) {
		if (s->nlive >= s->max_keys) {
			if (s->drop_when_full) {
				s->dropped++;
				return 0;
			}
			return luaL_error(L, "stats: more than %d keys (raise max_keys, or full = \"drop\")",
					  s->max_keys);
		}
		for (int p = 0; p < s->arity; p++)
			stats_check_key(L, 2 + p);
		i = stats_new_slot(L, s);
		stats_bind(L, s, 2, i);
	} else {
		lua_pop(L, 1);
	}
	if (s->arity == 1 && !s->keyless)
		stats_remember_key(L, s, i);
	slot_add(s, slot_at(s, i), L, top);
	return 0;
}

/* s:inc(key...): add 1 */
static int stats_inc(lua_State *L)
{
	stats_check(L);
	lua_pushinteger(L, 1);
	return stats_add(L);
}

/* --------------------------------------------------------------- reading */

static const char *const figure_names[] = {"count", "sum", "min", "max", "avg", "var", "stddev", NULL};
enum { FIG_COUNT, FIG_SUM, FIG_MIN, FIG_MAX, FIG_AVG, FIG_VAR, FIG_STDDEV };

/* the sample variance (n - 1), from the shifted sums */
static double slot_var(const struct stats_slot *sl)
{
	double n = (double)sl->count, v;
	if (sl->count < 2)
		return 0;
	v = (sl->s2 - sl->s1 * sl->s1 / n) / (n - 1);
	return v > 0 ? v : 0;
}

static void push_figure(lua_State *L, struct stats_slot *sl, int fig)
{
	switch (fig) {
	case FIG_COUNT: lua_pushinteger(L, sl->count); break;
	case FIG_SUM: sl->is_float ? lua_pushnumber(L, sl->dsum) : lua_pushinteger(L, sl->isum); break;
	case FIG_MIN: sl->is_float ? lua_pushnumber(L, sl->dmin) : lua_pushinteger(L, sl->imin); break;
	case FIG_MAX: sl->is_float ? lua_pushnumber(L, sl->dmax) : lua_pushinteger(L, sl->imax); break;
	case FIG_AVG: lua_pushnumber(L, sl->count ? sl->shift + sl->s1 / (double)sl->count : 0); break;
	case FIG_VAR: lua_pushnumber(L, slot_var(sl)); break;
	case FIG_STDDEV: lua_pushnumber(L, sqrt(slot_var(sl))); break;
	}
}

static void push_figures(lua_State *L, struct stats_slot *sl)
{
	lua_createtable(L, 0, 7);
	for (int f = 0; figure_names[f]; f++) {
		push_figure(L, sl, f);
		lua_setfield(L, -2, figure_names[f]);
	}
}

/* The slot of the key given as arguments 2.., or -1 (also for a key of
 * another arity: such a key cannot be there). */
static int stats_lookup(lua_State *L, struct stats *s)
{
	int parts = lua_gettop(L) - 1, i;
	if (s->keyless && parts == 0) {
		lua_pushboolean(L, 1);
		parts = 1;
	} else if (s->keyless || parts != s->arity) {
		return -1;
	}
	for (int p = 0; p < parts; p++)
		if (lua_isnil(L, 2 + p))
			return -1;
	i = stats_find(L, s, 2, 0);
	lua_settop(L, parts + 1);
	return i;
}

/* s:get(key...) -> {count=, sum=, min=, max=, avg=, var=, stddev=} or nil */
static int stats_get(lua_State *L)
{
	struct stats *s = stats_check(L);
	int i = stats_lookup(L, s);
	if (i < 0)
		lua_pushnil(L);
	else
		push_figures(L, slot_at(s, i));
	return 1;
}

/* s:count(key...), s:sum(key...), ...: one figure, nil for an absent key */
static int stats_figure(lua_State *L)
{
	struct stats *s = stats_check(L);
	int fig = (int)lua_tointeger(L, lua_upvalueindex(1));
	int i = stats_lookup(L, s);
	if (i < 0)
		lua_pushnil(L);
	else
		push_figure(L, slot_at(s, i), fig);
	return 1;
}

static int stats_len(lua_State *L)
{
	lua_pushinteger(L, stats_check(L)->nlive);
	return 1;
}

static int stats_dropped(lua_State *L)
{
	lua_pushinteger(L, stats_check(L)->dropped);
	return 1;
}

/* s:rows(FIGURE) -> keys, values: parallel arrays over the live keys, values
 * the figure by which stdlib sorts; rows are read with s:row(i). */
static int stats_rows(lua_State *L)
{
	struct stats *s = stats_check(L);
	int fig = luaL_checkoption(L, 2, "count", figure_names), n = 0;

	lua_createtable(L, s->nlive, 0);
	lua_createtable(L, s->nlive, 0);
	for (int i = 0; i < s->nslots; i++) {
		struct stats_slot *sl = slot_at(s, i);
		if (!sl->live)
			continue;
		n++;
		lua_pushinteger(L, i + 1);
		lua_rawseti(L, -3, n);
		push_figure(L, sl, fig);
		lua_rawseti(L, -2, n);
	}
	return 2;
}

/* s:row(id) -> key, figures (id from s:rows) */
static int stats_row(lua_State *L)
{
	struct stats *s = stats_check(L);
	lua_Integer id = luaL_checkinteger(L, 2);
	if (id < 1 || id > s->nslots || !slot_at(s, (int)id - 1)->live)
		return 0;
	lua_getiuservalue(L, 1, UV_KEYS);
	lua_rawgeti(L, -1, id);
	push_figures(L, slot_at(s, (int)id - 1));
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
	int i, first = -1, last = -1, n = 0;
	int64_t *b;

	if (s->hist == HIST_NONE)
		return luaL_error(L, "stats: no histogram (declare stats{hist = \"log2\"} or \"linear\")");
	i = stats_lookup(L, s);
	if (i < 0) {
		lua_pushnil(L);
		return 1;
	}
	b = slot_buckets(slot_at(s, i));
	for (int k = 0; k < s->nbuckets; k++)
		if (b[k]) {
			if (first < 0)
				first = k;
			last = k;
		}
	lua_createtable(L, first < 0 ? 0 : last - first + 1, 0);
	for (int k = first; first >= 0 && k <= last; k++) {
		lua_Number lo, hi;
		int lo_open, hi_open;
		bucket_range(s, k, &lo, &hi, &lo_open, &hi_open);
		lua_createtable(L, 0, 5);
		lua_pushinteger(L, b[k]);
		lua_setfield(L, -2, "count");
		set_bound(L, "lo", lo, "lo_open", lo_open);
		set_bound(L, "hi", hi, "hi_open", hi_open);
		lua_rawseti(L, -2, ++n);
	}
	return 1;
}

static void stats_reset_tables(lua_State *L)
{
	lua_newtable(L);
	lua_setiuservalue(L, 1, UV_INDEX);
	lua_newtable(L);
	lua_setiuservalue(L, 1, UV_KEYS);
}

/* s:clear() empties it; s:clear(key...) removes one key */
static int stats_clear(lua_State *L)
{
	struct stats *s = stats_check(L);
	int i;

	s->last_kind = 0;
	if (lua_gettop(L) == 1) {
		s->nslots = s->nlive = s->nfree = 0;
		s->dropped = 0;
		stats_reset_tables(L);
		return 0;
	}
	i = stats_lookup(L, s);
	if (i < 0)
		return 0;
	/* the index path: remove the innermost entry */
	stats_find(L, s, 2, 0);
	lua_pushvalue(L, 2 + s->arity - 1);
	lua_pushnil(L);
	lua_rawset(L, -3);
	lua_getiuservalue(L, 1, UV_KEYS);
	lua_pushnil(L);
	lua_rawseti(L, -2, i + 1);
	slot_at(s, i)->live = 0;
	s->free_slots[s->nfree++] = i;
	s->nlive--;
	return 0;
}

/* s:info() -> {hist=, min=, max=, step=, max_keys=, arity=} for stdlib */
static int stats_info(lua_State *L)
{
	struct stats *s = stats_check(L);
	static const char *const kinds[] = {"none", "log2", "linear"};

	lua_createtable(L, 0, 6);
	lua_pushstring(L, kinds[s->hist]);
	lua_setfield(L, -2, "hist");
	if (s->hist == HIST_LINEAR) {
		lua_pushnumber(L, s->lmin);
		lua_setfield(L, -2, "min");
		lua_pushnumber(L, s->lmax);
		lua_setfield(L, -2, "max");
		lua_pushnumber(L, s->lstep);
		lua_setfield(L, -2, "step");
	}
	lua_pushinteger(L, s->max_keys);
	lua_setfield(L, -2, "max_keys");
	lua_pushinteger(L, s->keyless ? 0 : s->arity);
	lua_setfield(L, -2, "arity");
	return 1;
}

static int stats_gc(lua_State *L)
{
	struct stats *s = luaL_checkudata(L, 1, STATS_MT);
	s->magic = 0;
	free(s->slots);
	free(s->free_slots);
	s->slots = NULL;
	s->free_slots = NULL;
	return 0;
}

static int stats_tostring(lua_State *L)
{
	struct stats *s = stats_check(L);
	lua_pushfstring(L, "ltap.stats (%d keys)", s->nlive);
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

/* stats([{hist = "log2" | "linear", min =, max =, step =, max_keys =, full = "error" | "drop"}]) */
int stats_new(lua_State *L)
{
	static const char *const hists[] = {"none", "log2", "linear", NULL};
	static const char *const fulls[] = {"error", "drop", NULL};
	struct stats cfg;
	struct stats *s;
	int present;

	lua_settop(L, 1); /* the userdata is made at 2, then put in place of the options */
	memset(&cfg, 0, sizeof cfg);
	cfg.magic = STATS_MAGIC;
	cfg.max_keys = STATS_DEFAULT_MAX_KEYS;
	if (!lua_isnoneornil(L, 1)) {
		lua_Number mk;
		static const struct ltap_optspec opts[] = {{"hist", "string"}, {"min", "number"}, {"max", "number"},
			{"step", "number"}, {"max_keys", "integer"}, {"full", "string"}, {NULL, NULL}};
		luaL_checktype(L, 1, LUA_TTABLE);
		ltap_check_options(L, 1, "stats", opts);
		cfg.hist = stats_option(L, "hist", hists);
		cfg.drop_when_full = stats_option(L, "full", fulls);
		mk = opt_number(L, "max_keys", &present);
		if (present) {
			if (mk < 1 || mk > 1e9)
				return luaL_error(L, "stats: max_keys must be from 1 to 1e9");
			cfg.max_keys = (int)mk;
		}
		if (cfg.hist == HIST_LINEAR) {
			int a, b, c;
			cfg.lmin = opt_number(L, "min", &a);
			cfg.lmax = opt_number(L, "max", &b);
			cfg.lstep = opt_number(L, "step", &c);
			if (!a || !b || !c)
				return luaL_error(L, "stats: a linear histogram needs min, max and step");
			if (!(cfg.lstep > 0) || !(cfg.lmax > cfg.lmin))
				return luaL_error(L, "stats: linear histogram needs min < max and step > 0");
			if ((cfg.lmax - cfg.lmin) / cfg.lstep > 10000)
				return luaL_error(L, "stats: linear histogram of more than 10000 buckets");
			cfg.nbuckets = 2 + (int)ceil((cfg.lmax - cfg.lmin) / cfg.lstep);
		} else if (cfg.hist == HIST_LOG2) {
			cfg.nbuckets = LOG2_BUCKETS;
		}
	}
	cfg.stride = sizeof(struct stats_slot) + (size_t)cfg.nbuckets * sizeof(int64_t);
	s = lua_newuserdatauv(L, sizeof *s, 3);
	*s = cfg;
	luaL_setmetatable(L, STATS_MT);
	lua_replace(L, 1);
	lua_settop(L, 1);
	stats_reset_tables(L);
	stats_made(L, 1);
	return 1;
}

/* ---------------------------------------------- reading, for metrics.c */

struct stats *ltap_stats_test(lua_State *L, int idx)
{
	return luaL_testudata(L, idx, STATS_MT);
}

void ltap_stats_shape(const struct stats *s, struct ltap_stats_shape *sh)
{
	sh->hist = s->hist != HIST_NONE;
	sh->nbuckets = s->nbuckets;
	sh->int_bounds = s->hist == HIST_LOG2 || (s->lmin == floor(s->lmin) && s->lstep == floor(s->lstep));
	sh->arity = s->arity;
	sh->keyless = s->keyless;
	sh->dropped = s->dropped;
	sh->nslots = s->nslots;
}

int ltap_stats_row(const struct stats *s, int i, struct ltap_stats_row *row)
{
	struct stats_slot *sl = slot_at((struct stats *)s, i);
	if (!sl->live)
		return 0;
	row->count = sl->count;
	row->is_float = sl->is_float;
	row->isum = sl->isum;
	row->dsum = sl->dsum;
	row->buckets = s->hist != HIST_NONE ? slot_buckets(sl) : NULL;
	return 1;
}

double ltap_stats_bucket_hi(const struct stats *s, int k)
{
	lua_Number lo, hi;
	int lo_open, hi_open;
	bucket_range((struct stats *)s, k, &lo, &hi, &lo_open, &hi_open);
	return hi_open ? HUGE_VAL : hi;
}

void ltap_stats_push_key(lua_State *L, int idx, int i)
{
	lua_getiuservalue(L, idx, UV_KEYS);
	lua_rawgeti(L, -1, i + 1);
	lua_remove(L, -2);
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

static const luaL_Reg stats_metameth[] = {
	{"__index", NULL},
	{"__len", stats_len},
	{"__gc", stats_gc},
	{"__tostring", stats_tostring},
	{NULL, NULL},
};

void ltap_open_stats(lua_State *L, struct ltap_ctx *ctx)
{
	(void)ctx;
	ltap_newmeta(L, STATS_MT, stats_metameth, stats_meth);
	lua_getfield(L, -1, "__index");
	for (int f = 0; figure_names[f]; f++) {
		lua_pushinteger(L, f);
		lua_pushcclosure(L, stats_figure, 1);
		lua_setfield(L, -2, figure_names[f]);
	}
	lua_pop(L, 2);
	lua_pushcfunction(L, stats_new);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.stats_new"); /* for metrics.c, whatever the script does to the global */
}
