/* stackcount.c: the "ltap.stackcount" aggregate, samples counted per
 * distinct stack (bpftrace's @[comm, ustack, kstack] = count()):
 *
 *   local counts = ltap.stackcount()
 *   profile(99, function(e) counts:add(e) end)   -- or profile(99, counts)
 *   finish(function() folded.write(counts:folded(), "out.folded") end)
 *
 * A weight known only after the event (off-CPU time: at the switch back
 * in) goes to a stack kept at the event:
 *
 *   blocked[e.prev_pid] = counts:stack(e)        -- a key: no count yet
 *   counts:add(blocked[e.next_pid], us)          -- later
 *
 * add() keeps the frames of the sample as runtime/stackcount.c's entries,
 * without naming them; folded() and leaves() name each distinct stack (or
 * leaf) once. A profile's handler then costs one method call per sample,
 * where e:folded() with a Lua table built and hashed a string per sample.
 * The entries' memory is the script's (its Lua allocator and limit). */
#include "lstackcount.h"

#include "ctx.h"
#include "evdesc.h"
#include "eventud.h"
#include "log.h"
#include "loop.h"
#include "luaaux.h"
#include "proc.h"
#include "stack.h"
#include "stackcount.h"

#include <errno.h>
#include <event-parse.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STACKCOUNT_MT "ltap.stackcount"

struct sc_ud {
	struct ltap_stackcount *sc; /* NULL once collected */
};

static struct ltap_stackcount *sc_check(lua_State *L)
{
	struct sc_ud *u = luaL_checkudata(L, 1, STACKCOUNT_MT);
	if (!u->sc)
		luaL_error(L, "attempt to use a freed stack count");
	return u->sc;
}

static int sc_nomem(lua_State *L)
{
	return luaL_error(L, "not enough memory");
}

/* ltap.stackcount(): an empty stack count. */
int stackcount_new(lua_State *L)
{
	struct sc_ud *u = lua_newuserdatauv(L, sizeof *u, 0);
	void *ud;
	lua_Alloc alloc = lua_getallocf(L, &ud);

	u->sc = NULL;
	luaL_setmetatable(L, STACKCOUNT_MT);
	if (!(u->sc = ltap_stackcount_new(alloc, ud)))
		return sc_nomem(L);
	return 1;
}

/* n samples of r's stack in comm (n < 0: none, the stack interned); the
 * stack's key, or -ENOMEM after Lua's own answer to a refusal (a full
 * collection) and a second try */
long ltap_stackcount_stack(lua_State *L, struct ltap_stackcount *sc, struct ltap_ctx *ctx, const struct ltap_rec *r,
			   const char *comm, size_t len, int64_t n)
{
	struct ltap_frame frames[LTAP_STACK_MAX_FRAMES];
	uint64_t raw[LTAP_STACK_MAX_FRAMES];
	int k = ltap_stack_frames(ctx, r, frames, raw);

	for (int tries = 0; tries < 2; tries++) {
		long key = n < 0 ? ltap_stackcount_intern(sc, comm, len, frames, k, k ? raw[0] : 0)
				 : ltap_stackcount_add(sc, comm, len, frames, k, k ? raw[0] : 0, (uint64_t)n);
		if (key >= 0)
			return key;
		lua_gc(L, LUA_GCCOLLECT);
	}
	return -ENOMEM;
}

/* the event at 2, the handler's, with a call chain (raises otherwise); its
 * comm pushed */
static const struct ltap_rec *sc_event(lua_State *L, struct ltap_ctx *ctx, const char **comm, size_t *len)
{
	const struct ltap_rec *r = ctx->event->rec;

	if (lua_isnil(L, lua_upvalueindex(1))) { /* the event table, made after this closure */
		lua_getfield(L, LUA_REGISTRYINDEX, "ltap.the_event");
		lua_replace(L, lua_upvalueindex(1));
	}
	if (!lua_rawequal(L, 2, lua_upvalueindex(1)))
		luaL_argerror(L, 2, "the event of the handler or a stack's key expected");
	if (!r)
		luaL_error(L, "attempt to use an event outside its handler (use e:copy() to keep one)");
	if (!r->callchain)
		luaL_error(L, "%s has no call chain (declare the probe with {stack=true})",
			   ctx->event->desc->ev ? ctx->event->desc->ev->name : "this event");
	lua_pushliteral(L, "comm");
	lua_rawget(L, 2);
	*comm = lua_tolstring(L, -1, len);
	if (!*comm)
		*comm = "", *len = 0;
	return r;
}

/* a key at idx (from counts:stack()), as the runtime's */
static long sc_key(lua_State *L, struct ltap_stackcount *sc, int idx)
{
	lua_Integer k = luaL_checkinteger(L, idx);
	luaL_argcheck(L, k >= 1 && (size_t)k <= ltap_stackcount_keys(sc), idx, "not a key of this stack count");
	return (long)k - 1;
}

/* counts:add(e, [n]): n (default 1) samples of e's stack, in e.comm.
 * counts:add(KEY, n, [WAKER]): n added to the stack counts:stack() gave
 * KEY, when the weight is known after the event (off-CPU time, at the
 * switch back in); with WAKER (another key) to the joined stack "KEY's;
 * --;WAKER's reversed", as an off-wake profile folds it. */
static int sc_add(lua_State *L)
{
	struct ltap_stackcount *sc = sc_check(L);
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	lua_Integer n = luaL_optinteger(L, 3, 1);
	const char *comm;
	size_t len;

	luaL_argcheck(L, n >= 0, 3, "a count of 0 or more expected");
	if (lua_type(L, 2) == LUA_TNUMBER) {
		long key = sc_key(L, sc, 2);
		if (lua_isnoneornil(L, 4)) {
			ltap_stackcount_add_at(sc, key, (uint64_t)n);
			return 0;
		}
		if (ltap_stackcount_join(sc, key, sc_key(L, sc, 4), (uint64_t)n) == 0)
			return 0;
		lua_gc(L, LUA_GCCOLLECT);
		return ltap_stackcount_join(sc, key, sc_key(L, sc, 4), (uint64_t)n) ? sc_nomem(L) : 0;
	}
	sc_event(L, ctx, &comm, &len);
	return ltap_stackcount_stack(L, sc, ctx, ctx->event->rec, comm, len, n) < 0 ? sc_nomem(L) : 0;
}

/* counts:stack(e): the key of e's stack in e.comm, kept with no count yet
 * (a stack without one is in none of the results): counts:add(KEY, n)
 * later. An integer; the same stack gives the same key. */
static int sc_stack(lua_State *L)
{
	struct ltap_stackcount *sc = sc_check(L);
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	const char *comm;
	size_t len;
	const struct ltap_rec *r = sc_event(L, ctx, &comm, &len);
	long key = ltap_stackcount_stack(L, sc, ctx, r, comm, len, -1);

	if (key < 0)
		return sc_nomem(L);
	lua_pushinteger(L, (lua_Integer)key + 1);
	return 1;
}

struct ltap_stackcount **ltap_stackcount_at(lua_State *L, int idx)
{
	struct sc_ud *u = luaL_testudata(L, idx, STACKCOUNT_MT);
	return u ? &u->sc : NULL;
}

int ltap_stackcount_sample(struct ltap_ctx *ctx, struct ltap_stackcount **count, const struct ltap_rec *r, int tid)
{
	const char *comm;

	if (!*count) /* closed by the script (<close>): nothing to count into */
		return 0;
	comm = ltap_proc_comm(ctx->proc, tid);
	if (ltap_stackcount_stack(ctx->L, *count, ctx, r, comm, strlen(comm), 1) >= 0)
		return 0;
	ltap_err("profile: out of memory counting stacks");
	ltap_run_end(ctx, LTAP_END_ERROR);
	return -1;
}

/* t[key] = (t[key] or 0) + n, key at the top (popped), t at idx */
static void sc_count(lua_State *L, int idx, uint64_t n)
{
	lua_pushvalue(L, -1);
	if (lua_rawget(L, idx) == LUA_TNUMBER)
		n += (uint64_t)lua_tointeger(L, -1);
	lua_pop(L, 1);
	lua_pushinteger(L, (lua_Integer)n);
	lua_rawset(L, idx);
}

/* counts:folded([t]): the folded stacks, "comm;root;...;leaf" -> samples,
 * added into t (a new table by default); stacks that name alike add up. */
static int sc_folded(lua_State *L)
{
	struct ltap_stackcount *sc = sc_check(L);
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	const struct ltap_stackcount_entry *e;
	size_t it = 0;

	if (lua_isnoneornil(L, 2))
		lua_createtable(L, 0, (int)ltap_stackcount_size(sc));
	else
		luaL_checktype(L, 2, LUA_TTABLE);
	lua_settop(L, 2);
	while ((e = ltap_stackcount_next(sc, &it)) != NULL) {
		const struct ltap_stackcount_entry *st = e->blocked ? e->blocked : e;
		luaL_Buffer b;
		luaL_buffinit(L, &b);
		ltap_stack_add_comm(&b, st->comm, st->commlen);
		for (int i = st->n - 1; i >= 0; i--) {
			luaL_addchar(&b, ';');
			ltap_stack_add_frame_name(&b, ctx, &st->frames[i]);
		}
		if (e->waker) { /* offwaketime's order: the waker's stack from its leaf, then its comm */
			luaL_addstring(&b, ";--");
			for (int i = 0; i < e->waker->n; i++) {
				luaL_addchar(&b, ';');
				ltap_stack_add_frame_name(&b, ctx, &e->waker->frames[i]);
			}
			luaL_addchar(&b, ';');
			ltap_stack_add_comm(&b, e->waker->comm, e->waker->commlen);
		}
		luaL_pushresult(&b);
		sc_count(L, 2, e->count);
	}
	return 1;
}

static void *sc_malloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	(void)ud;
	(void)osize;
	if (!nsize) {
		free(ptr);
		return NULL;
	}
	return realloc(ptr, nsize);
}

/* The counts of sc by command and leaf frame (a stack count of one frame
 * or none); raises when out of memory. */
static struct ltap_stackcount *sc_leaf_counts(lua_State *L, struct ltap_stackcount *sc)
{
	struct ltap_stackcount *leaves = ltap_stackcount_new(sc_malloc, NULL);
	const struct ltap_stackcount_entry *e;
	size_t it = 0;

	if (!leaves)
		sc_nomem(L);
	while ((e = ltap_stackcount_next(sc, &it)) != NULL)
		if (ltap_stackcount_add(leaves, e->comm, e->commlen, (e->blocked ? e->blocked : e)->frames,
					(e->blocked ? e->blocked : e)->n ? 1 : 0, e->leaf_raw, e->count)) {
			ltap_stackcount_free(leaves);
			sc_nomem(L);
		}
	return leaves;
}

/* counts:leaves(): {comm=, frame=, count=} for each command and leaf frame
 * (the frame where the samples happened, as e:frame(1) gives it; nil for
 * an empty stack), in the order first counted. */
static int sc_leaves(lua_State *L)
{
	struct ltap_stackcount *sc = sc_check(L);
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	struct ltap_stackcount *leaves = sc_leaf_counts(L, sc);
	const struct ltap_stackcount_entry *e;
	size_t it = 0;
	lua_Integer k = 0;

	lua_createtable(L, (int)ltap_stackcount_size(leaves), 0);
	while ((e = ltap_stackcount_next(leaves, &it)) != NULL) {
		lua_createtable(L, 0, 3);
		lua_pushlstring(L, e->comm, e->commlen);
		lua_setfield(L, -2, "comm");
		if (e->n) {
			ltap_stack_push_frame(L, ctx, &e->frames[0], e->leaf_raw, 0);
			lua_setfield(L, -2, "frame");
		}
		lua_pushinteger(L, (lua_Integer)e->count);
		lua_setfield(L, -2, "count");
		lua_rawseti(L, -2, ++k);
	}
	ltap_stackcount_free(leaves);
	return 1;
}

/* counts:rows(t): the samples by command and leaf frame added into t as
 * ltap.overhead keeps its rows ("comm\0dso\0[k] sym" -> samples: the shared
 * object's base name, the symbol or the leaf's address, "[unknown]" for
 * what is not known); returns the samples added. The rows of leaves() and
 * overhead.add_frame, without a table per leaf. */
static int sc_rows(lua_State *L)
{
	struct ltap_stackcount *sc = sc_check(L);
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	struct ltap_stackcount *leaves;
	const struct ltap_stackcount_entry *e;
	size_t it = 0;
	uint64_t total = 0;

	luaL_checktype(L, 2, LUA_TTABLE);
	lua_settop(L, 2);
	leaves = sc_leaf_counts(L, sc);
	while ((e = ltap_stackcount_next(leaves, &it)) != NULL) {
		struct ltap_sym sym = {0};
		const char *dso = "[unknown]";
		char addr[24];
		luaL_Buffer b;

		if (e->n && ltap_symbols_frame_sym(ctx->syms, &e->frames[0], 0, &sym) != 0)
			sym.name = sym.module = NULL;
		if (sym.module) {
			const char *slash = strrchr(sym.module, '/');
			dso = slash ? slash + 1 : sym.module;
		}
		luaL_buffinit(L, &b);
		luaL_addlstring(&b, e->comm, e->commlen);
		luaL_addchar(&b, '\0');
		luaL_addstring(&b, dso);
		luaL_addchar(&b, '\0');
		luaL_addstring(&b, e->n && e->frames[0].kernel ? "[k] " : "[.] ");
		if (!e->n) {
			luaL_addstring(&b, "[unknown]");
		} else if (sym.name) {
			luaL_addstring(&b, sym.name);
		} else {
			snprintf(addr, sizeof addr, "0x%016llx", (unsigned long long)e->leaf_raw);
			luaL_addstring(&b, addr);
		}
		luaL_pushresult(&b);
		sc_count(L, 2, e->count);
		total += e->count;
	}
	ltap_stackcount_free(leaves);
	lua_pushinteger(L, (lua_Integer)total);
	return 1;
}

/* counts:total(): the samples counted */
static int sc_total(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)ltap_stackcount_total(sc_check(L)));
	return 1;
}

/* #counts: the distinct stacks */
static int sc_len(lua_State *L)
{
	lua_pushinteger(L, (lua_Integer)ltap_stackcount_size(sc_check(L)));
	return 1;
}

static int sc_gc(lua_State *L)
{
	struct sc_ud *u = luaL_checkudata(L, 1, STACKCOUNT_MT);
	ltap_stackcount_free(u->sc);
	u->sc = NULL;
	return 0;
}

static const luaL_Reg sc_meth[] = {
	{"add", NULL}, /* a closure over the event table */
	{"stack", NULL},
	{"folded", sc_folded},
	{"leaves", sc_leaves},
	{"rows", sc_rows},
	{"total", sc_total},
	{NULL, NULL},
};

static const luaL_Reg sc_metameth[] = {
	{"__index", NULL},
	{"__len", sc_len},
	{"__gc", sc_gc},
	{"__close", sc_gc},
	{NULL, NULL},
};

void ltap_open_stackcount(lua_State *L, struct ltap_ctx *ctx)
{
	(void)ctx;
	ltap_newmeta(L, STACKCOUNT_MT, sc_metameth, sc_meth);
	lua_getfield(L, -1, "__index");
	lua_pushnil(L);
	lua_pushcclosure(L, sc_add, 1);
	lua_setfield(L, -2, "add");
	lua_pushnil(L);
	lua_pushcclosure(L, sc_stack, 1);
	lua_setfield(L, -2, "stack");
	lua_pop(L, 2);
}
