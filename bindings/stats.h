/* stats.h: the ltap.stats object, shared by stats.c (the aggregate's Lua
 * face: making, adding, reading one key) and statsrows.c (its keys in
 * order: s:sorted, the table report() prints). The store is runtime/agg.c. */
#ifndef LTAP_STATS_H
#define LTAP_STATS_H

#include "agg.h"

#include <lua.h>
#include <stddef.h>
#include <stdint.h>

struct ltap_ctx;
struct ltap_agg_part;

#define STATS_CACHE 32
#define STATS_MT "ltap.stats"

/* A single-part key lately added, and its slot: a string by its address
 * (an equal short string is the same object: Lua interns them; the string
 * is kept alive by the aggregate), an integer by its value. */
struct stats_cached {
	const void *p;
	lua_Integer i;
	long slot;
	int kind;              /* 0 none, LUA_TSTRING, LUA_TNUMBER */
};

struct stats {
	struct ltap_agg *agg;
	const void *object;    /* the object s:inc and s:add are bound to */
	/* events come in runs of a few keys (a process's syscalls, a CPU's
	 * allocations): those find their slot here with no hash */
	struct stats_cached cache[STATS_CACHE];
};

/* the aggregate at idx; raises when it is not one */
struct stats *ltap_stats_check(lua_State *L, int idx);
/* The store of the aggregate at idx, or NULL when idx is none: what the
 * dispatch loop would add to in C, with no Lua call per event
 * (ltap_agg_add_int, agg.h), keeping the aggregate alive by a reference. */
struct ltap_agg *ltap_stats_agg(lua_State *L, int idx);
/* slot's key as scripts see it: the part; for several parts a table of
 * them; true for the keyless aggregate */
void ltap_stats_push_slot_key(lua_State *L, const struct stats *s, long slot);
/* {count=, sum=, min=, max=, avg=, var=, stddev=} of slot */
void ltap_stats_push_figures(lua_State *L, const struct stats *s, long slot);
/* a figure's name (count, sum, ...) at idx, or def when none; raises as
 * sorted() does for another */
int ltap_stats_check_figure(lua_State *L, int idx, const char *def);
/* the figures' names, in enum ltap_agg_fig's order, then NULL */
extern const char *const ltap_stats_figure_names[];
/* raises "stats: out of memory" */
int ltap_stats_nomem(lua_State *L);

/* When the object at obj's own field name ("inc" or "add") is still its
 * method bound to it (s.inc = f replaces it): the method, pushed, and its
 * address; else NULL and nothing pushed (lower.c). */
const void *ltap_stats_bound_method(lua_State *L, int obj, const char *name);
void ltap_open_stats(lua_State *L, struct ltap_ctx *ctx);
/* read by metrics.c (the aggregate's layout stays here) */
struct ltap_stats_shape {
	int hist;       /* has a histogram of nbuckets buckets */
	int nbuckets;
	int int_bounds; /* every bucket bound is an integer */
	int arity;      /* key parts (0 until the first add) */
	int keyless;
	int64_t dropped;
	int nslots;     /* slots to walk with ltap_stats_row */
};
struct ltap_stats_row {
	int64_t count;
	int is_float;   /* the sum is dsum, else isum */
	int64_t isum;
	double dsum;
	const int64_t *buckets;
};
struct stats *ltap_stats_test(lua_State *L, int idx);
void ltap_stats_shape(const struct stats *s, struct ltap_stats_shape *sh);
/* slot i's figures; 0 when it holds no key */
int ltap_stats_row(const struct stats *s, int i, struct ltap_stats_row *row);
/* bucket k holds [lo, hi): its hi, HUGE_VAL for the open top one */
double ltap_stats_bucket_hi(const struct stats *s, int k);
/* slot i's key parts (strings point into the aggregate) */
void ltap_stats_key(const struct stats *s, int i, struct ltap_agg_part *key);
/* the Lua functions api.c lists */
int stats_new(lua_State *L);

#endif
