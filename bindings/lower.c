/* lower.c: a handler that does what s:by does runs in C.
 *
 *     local s = stats()
 *     probe("raw_syscalls:sys_enter", function(e) s:inc(e.comm) end)
 *
 * is what a script writes first, and it costs a Lua call per event (about
 * 85 ns here, bench/README.md) where s:by("comm") costs 16. A handler of
 * exactly that shape (s:inc or s:add on the event's fields, nothing else)
 * is recognized when the probe is declared and fed in C as s:by would be:
 * same aggregate, same keys, same figures.
 *
 * Recognized by its compiled code: lua_dump (luadump.c) of the handler is
 * compared with the dump of a template of the same shape, compiled by the
 * same Lua, with names for the fields: every instruction equal, every
 * constant equal but the field names. No opcode is known here, so any Lua
 * 5.4 compiles the templates as it compiles the handler.
 *
 * Kept honest: the handler's upvalue and the object's method may change,
 * but only by Lua code; after any Lua ran (call.c, a host's step, a
 * drain) each lowered probe checks both by address before its next event
 * (one check per stretch of events between Lua runs), and when either
 * changed the probe gives the feed up and calls the handler from then on.
 * Both are kept alive in the registry so an address is never reused. */
#include "lower.h"

#include "catalog.h"
#include "ctx.h"
#include "evdesc.h"
#include "feed.h"
#include "kinds.h"
#include "log.h"
#include "luadump.h"
#include "stats.h"

#include <event-parse.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#define LOWER_MAX_KEYS 3
#define LOWER_MAX_DUMP 4096 /* a handler of these shapes dumps to ~100 bytes */
/* lw->ref's table: the object and method kept alive, the method's name */
enum { LOWER_REF_OBJECT = 1, LOWER_REF_METHOD, LOWER_REF_NAME, LOWER_REF_N = LOWER_REF_NAME };

struct lower_shape {
	const char *method; /* "inc", "add" */
	int nkeys;
	/* the names read from the event: nkeys keys, then add's value */
	char names[LOWER_MAX_KEYS + 1][64];
};

/* the template of a shape: its names are placeholders k1__ ... and v__ */
static void lower_template(char *buf, size_t len, const char *method, int nkeys)
{
	int n = snprintf(buf, len, "local s return function(e) s:%s(", method);

	for (int i = 0; i < nkeys; i++)
		n += snprintf(buf + n, len - (size_t)n, "%se.k%d__", i ? ", " : "", i + 1);
	snprintf(buf + n, len - (size_t)n, "%s) end", strcmp(method, "add") == 0 ? ", e.v__" : "");
}

static int k_is(const struct ltap_luafn *f, int i, const char *s)
{
	return f->k[i].kind == LTAP_LUAK_STRING && f->k[i].len == strlen(s) &&
	       memcmp(f->k[i].bytes, s, f->k[i].len) == 0;
}

/* the handler h against the template t: the names into sh; 0 when equal */
static int lower_same(const struct ltap_luafn *h, const struct ltap_luafn *t, struct lower_shape *sh)
{
	int named = 0;

	if (h->numparams != t->numparams || h->is_vararg != t->is_vararg || h->maxstack != t->maxstack ||
	    h->ncode != t->ncode || memcmp(h->code, t->code, (size_t)h->ncode * 4) != 0 || h->nk != t->nk ||
	    h->nupv != 1 || t->nupv != 1 || h->nprotos || t->nprotos)
		return -1;
	/* a <const> local is an upvalue as good as any: its value is fixed */
	if (h->upv_kind[0] > 1)
		return -1;
	for (int i = 0; i < t->nk; i++) {
		if (t->k[i].kind != LTAP_LUAK_STRING || h->k[i].kind != LTAP_LUAK_STRING)
			return -1;
		int slot = k_is(t, i, "v__") ? sh->nkeys : -1;
		for (int j = 0; j < sh->nkeys; j++) {
			char place_j[] = "k1__";
			place_j[1] = (char)('1' + j);
			if (k_is(t, i, place_j))
				slot = j;
		}
		if (slot >= 0) { /* a name the handler reads */
			if (h->k[i].len == 0 || h->k[i].len >= sizeof sh->names[0])
				return -1;
			memcpy(sh->names[slot], h->k[i].bytes, h->k[i].len);
			sh->names[slot][h->k[i].len] = 0;
			named++;
		} else if (t->k[i].len != h->k[i].len || memcmp(t->k[i].bytes, h->k[i].bytes, t->k[i].len) != 0) {
			return -1;
		}
	}
	return named == sh->nkeys + (sh->method && strcmp(sh->method, "add") == 0) ? 0 : -1;
}

/* h against the template compiled from src: 0 when equal (the names in sh) */
static int lower_against(lua_State *L, const struct ltap_luafn *h, const char *src, struct lower_shape *sh)
{
	struct ltap_luafn t;
	int r;

	if (luaL_loadstring(L, src) != LUA_OK) {
		lua_pop(L, 1);
		return -1;
	}
	if (lua_pcall(L, 0, 1, 0) != LUA_OK || ltap_luafn_read(L, -1, LOWER_MAX_DUMP, &t)) {
		lua_pop(L, 1);
		return -1;
	}
	lua_pop(L, 1);
	r = lower_same(h, &t, sh);
	ltap_luafn_free(&t);
	return r;
}

/* The shape of the Lua function at idx, or -1 for any other function. A
 * handler counting into a Lua table, n[e.K] = (n[e.K] or 0) + 1, is the
 * shape with no method: not run in C (lower.h), only named by -v. */
static int lower_match(lua_State *L, int idx, struct lower_shape *sh)
{
	static const char table_count[] = "local n return function(e) n[e.k1__] = (n[e.k1__] or 0) + 1 end";
	struct ltap_luafn h;
	char src[160];
	int r = -1;

	if (ltap_luafn_read(L, idx, LOWER_MAX_DUMP, &h))
		return -1;
	/* the method's name is the first constant; the names follow, so their
	 * number says which template to compile */
	memset(sh, 0, sizeof *sh);
	if (h.numparams != 1 || h.nupv != 1 || h.nk < 1)
		goto out;
	if (k_is(&h, 0, "inc")) {
		sh->method = "inc";
		sh->nkeys = h.nk - 1;
	} else if (k_is(&h, 0, "add")) {
		sh->method = "add";
		sh->nkeys = h.nk - 2;
	} else if (h.nk == 1) {
		sh->nkeys = 1;
		r = lower_against(L, &h, table_count, sh);
		goto out;
	} else {
		goto out;
	}
	if (sh->nkeys < 1 || sh->nkeys > LOWER_MAX_KEYS)
		goto out;
	lower_template(src, sizeof src, sh->method, sh->nkeys);
	r = lower_against(L, &h, src, sh);
out:
	ltap_luafn_free(&h);
	return r;
}

/* Whether e.NAME on d's events is what s:by's NAME reads: the common
 * names, and a format field of a raw record that a feed reads the way the
 * event object does (numbers, fixed char arrays, __data_loc strings). */
static int lower_name_ok(const struct ltap_evdesc *d, const char *name)
{
	static const char *const common[] = {"comm", "pid", "tid", "cpu", "name"};

	for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
		if (strcmp(name, common[i]) == 0)
			return 1;
	if (ltap_catalog_is_reserved(name) || (d->ops != &ltap_kind_raw && d->ops != &ltap_kind_task))
		return 0;
	for (int i = 0; i < d->nfields; i++) {
		const struct tep_format_field *f = d->fields[i];
		unsigned long fl = f->flags;
		if (strcmp(f->name, name) != 0)
			continue;
		if (fl & TEP_FIELD_IS_DYNAMIC)
			return (fl & TEP_FIELD_IS_STRING) && !(fl & TEP_FIELD_IS_RELATIVE);
		if (fl & TEP_FIELD_IS_ARRAY)
			return (fl & TEP_FIELD_IS_STRING) && f->size > 0;
		return f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8;
	}
	return 0;
}

/* what the handler runs as, in s:by's words: "comm", {"comm", "pid"}, "bytes" */
static void lower_describe(char *by, size_t len, const struct lower_shape *sh)
{
	int add = strcmp(sh->method, "add") == 0;
	size_t n = 0;

	for (int i = 0; i < sh->nkeys && n < len; i++)
		n += (size_t)snprintf(by + n, len - n, "%s\"%s\"", i ? ", " : sh->nkeys > 1 ? "{" : "", sh->names[i]);
	if (n < len)
		snprintf(by + n, len - n, "%s%s%s%s", sh->nkeys > 1 ? "}" : "", add ? ", \"" : "",
			 add ? sh->names[sh->nkeys] : "", add ? "\"" : "");
}

static void lower_arm_on(struct ltap_ctx *ctx, struct ltap_lower *lw)
{
	struct ltap_feed_fast *fast = lw->p->cdata;

	fast->count_by_task = lw->count_by_task; /* the fed path's increment in line again */
	lw->armed = 1;
	lw->next_armed = ctx->lower_armed;
	ctx->lower_armed = lw;
}

int ltap_lower_try(struct ltap_ctx *ctx, struct ltap_probe *p)
{
	lua_State *L = ctx->L;
	int top = lua_gettop(L), fn, obj, r = 0;
	struct lower_shape sh;
	const char *keys[LOWER_MAX_KEYS];
	const void *method;
	struct stats *s;
	struct ltap_lower *lw;
	int arity;
	char why[sizeof ctx->why];

	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.handlers");
	lua_rawgeti(L, -1, p->handler);
	fn = lua_gettop(L);
	if (lower_match(L, fn, &sh))
		goto out;
	if (!sh.method) {
		/* the table count: said once per handler (a glob's events share it) */
		if (ctx->lower_hinted != p->handler)
			ltap_debug("%sthe handler counts into a Lua table, a Lua call per event; stats() and "
				   "function(e) s:inc(e.%s) end would count in C (docs/lua-api.md, Handlers run in C)",
				   p->where, sh.names[0]);
		ctx->lower_hinted = p->handler;
		goto out;
	}
	for (int i = 0; i < sh.nkeys + (strcmp(sh.method, "add") == 0); i++)
		if (!lower_name_ok(p->desc, sh.names[i]))
			goto out;
	if (!lua_getupvalue(L, fn, 1))
		goto out;
	obj = lua_gettop(L);
	if (!(s = ltap_stats_test(L, obj)) || !(method = ltap_stats_bound_method(L, obj, sh.method)))
		goto out;
	/* a key of another arity is the handler's error to raise */
	arity = ltap_agg_arity(s->agg);
	if (arity >= 0 && arity != sh.nkeys)
		goto out;
	for (int i = 0; i < sh.nkeys; i++)
		keys[i] = sh.names[i];
	if (!(lw = calloc(1, sizeof *lw))) {
		r = -1;
		goto out;
	}
	if (ltap_feed_bind_names(ctx, p, s, keys, sh.nkeys, strcmp(sh.method, "add") == 0 ? sh.names[sh.nkeys] : NULL,
				 why, sizeof why)) {
		free(lw);
		goto out;
	}
	lua_createtable(L, LOWER_REF_N, 0);
	lua_pushvalue(L, obj);
	lua_rawseti(L, -2, LOWER_REF_OBJECT);
	lua_pushvalue(L, obj + 1); /* the method */
	lua_rawseti(L, -2, LOWER_REF_METHOD);
	lua_pushstring(L, sh.method);
	lua_rawseti(L, -2, LOWER_REF_NAME);
	lw->ref = luaL_ref(L, LUA_REGISTRYINDEX);
	lw->p = p;
	lw->object = lua_topointer(L, obj);
	lw->method = method;
	lw->method_name = sh.method;
	lw->count_by_task = ((struct ltap_feed_fast *)p->cdata)->count_by_task;
	p->lower = lw;
	lower_arm_on(ctx, lw);
	lower_describe(lw->by, sizeof lw->by, &sh);
out:
	lua_settop(L, top);
	return r;
}

/* Whether p's handler still has the aggregate and method it was lowered
 * with. On the per-event path (an event after any Lua ran): the handler
 * from the run's fixed slot, the method's name from lw->ref, no lookup by
 * name. */
static int lower_holds(struct ltap_ctx *ctx, const struct ltap_lower *lw)
{
	lua_State *L = ctx->L;
	int top = lua_gettop(L), ok;

	lua_rawgeti(L, ctx->handlers_slot, lw->p->handler);
	ok = lua_getupvalue(L, -1, 1) != NULL && lua_type(L, -1) == LUA_TTABLE && lua_topointer(L, -1) == lw->object;
	if (ok) {
		lua_rawgeti(L, LUA_REGISTRYINDEX, lw->ref);
		lua_rawgeti(L, -1, LOWER_REF_NAME);
		ok = lua_rawget(L, -3) == LUA_TFUNCTION && lua_topointer(L, -1) == lw->method;
	}
	lua_settop(L, top);
	return ok;
}

int ltap_lower_arm(struct ltap_ctx *ctx, struct ltap_probe *p)
{
	struct ltap_lower *lw = p->lower;

	if (lw->armed)
		return 0;
	if (lower_holds(ctx, lw)) {
		lower_arm_on(ctx, lw);
		return 0;
	}
	ltap_debug("%sthe handler's aggregate or method changed: it runs in Lua from now on", p->where);
	p->desc->fed_count = NULL;
	if (p->cdata_owned)
		free(p->cdata);
	p->cdata = NULL;
	p->cdata_owned = 0;
	p->cfn = NULL;
	luaL_unref(ctx->L, LUA_REGISTRYINDEX, lw->ref);
	free(lw);
	p->lower = NULL;
	return -1;
}

void ltap_lower_disarm(struct ltap_ctx *ctx)
{
	struct ltap_lower *lw = ctx->lower_armed;

	ctx->lower_armed = NULL;
	for (; lw; lw = lw->next_armed) {
		lw->armed = 0;
		/* the fed path's increment (dispatch_fed.c) waits for the check */
		((struct ltap_feed_fast *)lw->p->cdata)->count_by_task = 0;
	}
}

void ltap_lower_report(struct ltap_ctx *ctx)
{
	for (const struct ltap_probe *p = ctx->probes; p; p = p->next)
		if (p->lower)
			ltap_debug("%sthe handler runs in C, as s:by(%s)", p->where, p->lower->by);
}

void ltap_lower_free(struct ltap_probe *p)
{
	free(p->lower); /* its registry reference goes with the Lua state */
	p->lower = NULL;
}
