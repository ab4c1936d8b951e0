/* sorted.c: ltap.sort_table(T, HOW, N), the C side of sorted() on a plain
 * table (stdlib/prelude.lua): a 32-byte entry per pair instead of a Lua
 * table, ordered in C; with N below the table's size a bounded heap keeps
 * only N of them (O(size log N)), so sorted(t, 10) of a million keys sorts
 * nothing it does not return.
 *
 * The order is prelude.lua's: by value ("desc", "asc") then by key, or by
 * key ("key", "key-desc"), keys in ltap's key order (numbers, strings,
 * booleans). Pairs of other kinds (table keys, NaN or mixed values) are
 * left to the Lua version: nil is returned and nothing was changed. */
#include "sorted.h"

#include "agg.h"
#include "sort.h"
#include "statsrows.h"

#include <lauxlib.h>
#include <string.h>

#define KIND_OTHER 4 /* a value that is not compared (orders by key) */
#define SORTED_ONE_PASS 65536 /* an N up to this is kept in a heap of N in one pass */

enum { BY_DESC, BY_ASC, BY_KEY, BY_KEY_DESC };

struct tent {
	union {
		int64_t i;
		double d;
		const char *s;
		int b;
	} k, v;
	uint32_t klen, vlen; /* strings' lengths */
	uint32_t pos;        /* where its key and value are kept: 2 pos + 1, 2 pos + 2 */
	uint8_t kkind, vkind;
};

static struct ltap_agg_num tent_num(int kind, int64_t i, double d)
{
	return (struct ltap_agg_num){.is_int = kind == LTAP_AGG_INT, .i = i, .d = d};
}

static int str_cmp(const char *a, uint32_t alen, const char *b, uint32_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);
	return c ? c : (alen > blen) - (alen < blen);
}

static int rank(int kind)
{
	return kind == LTAP_AGG_FLOAT ? LTAP_AGG_INT : kind;
}

static int key_cmp(const struct tent *x, const struct tent *y)
{
	struct ltap_agg_num a, b;

	if (rank(x->kkind) != rank(y->kkind))
		return rank(x->kkind) < rank(y->kkind) ? -1 : 1;
	switch (x->kkind) {
	case LTAP_AGG_STR: return str_cmp(x->k.s, x->klen, y->k.s, y->klen);
	case LTAP_AGG_BOOL: return (x->k.b > y->k.b) - (x->k.b < y->k.b);
	default:
		a = tent_num(x->kkind, x->k.i, x->k.d);
		b = tent_num(y->kkind, y->k.i, y->k.d);
		return ltap_agg_num_cmp(&a, &b);
	}
}

static int value_cmp(const struct tent *x, const struct tent *y)
{
	struct ltap_agg_num a, b;

	if (x->vkind == LTAP_AGG_STR)
		return str_cmp(x->v.s, x->vlen, y->v.s, y->vlen);
	a = tent_num(x->vkind, x->v.i, x->v.d);
	b = tent_num(y->vkind, y->v.i, y->v.d);
	return ltap_agg_num_cmp(&a, &b);
}

static int tent_before(const void *xp, const void *yp, void *cp)
{
	const struct tent *x = xp, *y = yp;
	int by = *(const int *)cp, c;

	switch (by) {
	case BY_KEY: return key_cmp(x, y) < 0;
	case BY_KEY_DESC: return key_cmp(x, y) > 0;
	default:
		c = value_cmp(x, y);
		if (c)
			return by == BY_DESC ? c > 0 : c < 0;
		return key_cmp(x, y) < 0;
	}
}

/* The part at idx as an entry's key or value (k: a key); 0 when it is of a
 * kind compared in Lua only. */
static int tent_part(lua_State *L, int idx, int k, struct tent *e, int compared)
{
	uint8_t *kind = k ? &e->kkind : &e->vkind;
	size_t len;

	switch (lua_type(L, idx)) {
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx)) {
			*kind = LTAP_AGG_INT;
			(k ? &e->k : &e->v)->i = lua_tointeger(L, idx);
		} else {
			*kind = LTAP_AGG_FLOAT;
			(k ? &e->k : &e->v)->d = lua_tonumber(L, idx);
			if ((k ? e->k.d : e->v.d) != (k ? e->k.d : e->v.d))
				return !compared;
		}
		return 1;
	case LUA_TSTRING:
		*kind = LTAP_AGG_STR;
		(k ? &e->k : &e->v)->s = lua_tolstring(L, idx, &len);
		if (len > UINT32_MAX)
			return !compared;
		*(k ? &e->klen : &e->vlen) = (uint32_t)len;
		return 1;
	case LUA_TBOOLEAN:
		*kind = k ? LTAP_AGG_BOOL : KIND_OTHER;
		(k ? &e->k : &e->v)->b = lua_toboolean(L, idx);
		return k || !compared;
	default:
		*kind = KIND_OTHER;
		return !compared;
	}
}

/* the iterator: upvalues the pairs kept, the entries in order, how many,
 * how many given */
static int sorted_next(lua_State *L)
{
	const struct tent *e = lua_touserdata(L, lua_upvalueindex(2));
	lua_Integer n = lua_tointeger(L, lua_upvalueindex(3)), i = lua_tointeger(L, lua_upvalueindex(4));

	if (i >= n)
		return 0;
	lua_pushinteger(L, i + 1);
	lua_replace(L, lua_upvalueindex(4));
	lua_rawgeti(L, lua_upvalueindex(1), 2 * (lua_Integer)e[i].pos + 1);
	lua_rawgeti(L, lua_upvalueindex(1), 2 * (lua_Integer)e[i].pos + 2);
	return 2;
}

/* ltap.sort_table(T, HOW, N) -> an iterator of key, value in order, at most
 * N pairs; or nil for a table it leaves to Lua */
int sorted_table(lua_State *L)
{
	static const char *const hows[] = {"desc", "asc", "key", "key-desc", NULL};
	int by = luaL_checkoption(L, 2, NULL, hows), values = by == BY_DESC || by == BY_ASC;
	size_t size = 0, n, k = 0;
	struct tent *heap;
	int kept, vkind = -1, all = 0;

	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 3);
	if (!lua_isnil(L, 3) && luaL_checknumber(L, 3) <= SORTED_ONE_PASS) {
		n = ltap_rows_wanted(L, 3, SORTED_ONE_PASS); /* a heap of n, whatever the size */
	} else {
		/* each step of lua_next looks its key up again: the count is a
		 * second pass, made only for a sort of everything or a large N */
		for (lua_pushnil(L); lua_next(L, 1); lua_pop(L, 1))
			size++;
		n = ltap_rows_wanted(L, 3, size);
		all = n == size;
	}
	if (n > UINT32_MAX)
		return 0;
	lua_createtable(L, (int)(2 * n), 0); /* 4: the pairs kept */
	kept = lua_gettop(L);
	heap = lua_newuserdatauv(L, n * sizeof *heap + 1, 0); /* 5 */
	for (lua_pushnil(L); lua_next(L, 1); lua_pop(L, 1)) {
		struct tent e;
		if (!tent_part(L, -2, 1, &e, 1) || !tent_part(L, -1, 0, &e, values))
			return 0;
		if (values) {
			int kind = rank(e.vkind);
			if (vkind >= 0 && kind != vkind)
				return 0; /* numbers and strings: Lua raises comparing them */
			vkind = kind;
		}
		if (k < n)
			e.pos = (uint32_t)k;
		else if (n && tent_before(&e, heap, &by))
			e.pos = heap[0].pos;
		else
			continue;
		lua_pushvalue(L, -2);
		lua_rawseti(L, kept, 2 * (lua_Integer)e.pos + 1);
		lua_pushvalue(L, -1);
		lua_rawseti(L, kept, 2 * (lua_Integer)e.pos + 2);
		if (all)
			heap[k++] = e; /* everything: sorted once at the end */
		else
			ltap_topn_offer(heap, &k, n, sizeof e, &e, tent_before, &by);
	}
	if (all)
		ltap_sort(heap, k, sizeof *heap, tent_before, &by);
	else
		ltap_topn_finish(heap, k, sizeof *heap, tent_before, &by);
	lua_pushinteger(L, (lua_Integer)k);
	lua_pushinteger(L, 0);
	lua_pushcclosure(L, sorted_next, 4);
	return 1;
}
