/* flame.c: flame graphs' hot parts in C for stdlib/flamegraph.lua,
 * folded.lua and perfscript.lua, which keep the options, the rules'
 * documentation and the page around the frames: reading folded stacks
 * (runtime/folded.c) and perf script text (runtime/perfscript.c), and the
 * "ltap.flame" layout of frames and their SVG (runtime/flame.c).
 *
 *   local stacks, counts, before, ignored, first_bad = ltap.folded_parse(text, [file])
 *   local stacks, counts, info = ltap.perfscript_fold(text, [file], opts)
 *
 *   local keys, cnt, cnt0 = ltap.flame_sort(t, t0)   -- folded tables, stacks in byte order
 *   local fl = ltap.flame_layout(keys, cnt, cnt0, minw)
 *   local n, total, total_before, dmax, maxdelta = fl:info()
 *   local text = fl:svg({xpad=, wpt=, charw=, fh=, base=, ty_off=, inverted=, cap=,
 *                       fill="palette"|"self"|"inclusive", palette=, hash=, negate=, countname=} [, file])
 *
 * In C because it runs per stack and per frame: the Lua version spent
 * ~15 us a frame formatting its line, more than flamegraph.pl. */
#include "lflame.h"

#include "ctx.h"
#include "flame.h"
#include "folded.h"
#include "lines.h"
#include "luaaux.h"
#include "perfscript.h"
#include "progress.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define FLAME_MT "ltap.flame"

struct flame_ud {
	struct ltap_flame fl;
	int live;
};

static struct flame_ud *flame_check(lua_State *L)
{
	struct flame_ud *u = luaL_checkudata(L, 1, FLAME_MT);
	if (!u->live)
		luaL_error(L, "attempt to use a freed flame layout");
	return u;
}

/* the numbers of array idx, n of them, into a new C array (NULL: none asked) */
static double *flame_numbers(lua_State *L, int idx, size_t n)
{
	double *v = malloc((n ? n : 1) * sizeof *v);

	if (!v)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		lua_rawgeti(L, idx, (lua_Integer)i + 1);
		v[i] = lua_tonumber(L, -1);
		lua_pop(L, 1);
	}
	return v;
}

/* ltap.flame_layout(KEYS, CNT, [CNT0], MINW): the frames of the stacks KEYS
 * (drawing order) with counts CNT (and CNT0 before, for a differential). */
int flame_layout(lua_State *L)
{
	size_t n, i;
	const char **keys;
	size_t *lens;
	double *cnt, *cnt0 = NULL, minw;
	struct flame_ud *u;
	int rc;

	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_checktype(L, 2, LUA_TTABLE);
	if (!lua_isnoneornil(L, 3))
		luaL_checktype(L, 3, LUA_TTABLE);
	minw = luaL_checknumber(L, 4);
	n = (size_t)lua_rawlen(L, 1);
	u = lua_newuserdatauv(L, sizeof *u, 1); /* its keys, which the frames' names point into */
	memset(u, 0, sizeof *u);
	luaL_setmetatable(L, FLAME_MT);
	u->live = 1;
	lua_pushvalue(L, 1);
	lua_setiuservalue(L, -2, 1);
	keys = malloc((n ? n : 1) * sizeof *keys);
	lens = malloc((n ? n : 1) * sizeof *lens);
	cnt = flame_numbers(L, 2, n);
	if (!lua_isnoneornil(L, 3))
		cnt0 = flame_numbers(L, 3, n);
	rc = !keys || !lens || !cnt || (!lua_isnoneornil(L, 3) && !cnt0) ? -1 : 0;
	for (i = 0; !rc && i < n; i++) {
		lua_rawgeti(L, 1, (lua_Integer)i + 1);
		keys[i] = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &lens[i]) : NULL;
		lua_pop(L, 1); /* the string stays: the table holds it */
		if (!keys[i])
			rc = (int)i + 1;
	}
	if (!rc && ltap_flame_layout(&u->fl, keys, lens, cnt, cnt0, n, minw))
		rc = -1;
	free(keys);
	free(lens);
	free(cnt);
	free(cnt0);
	if (rc > 0)
		return luaL_error(L, "flame_layout: stack %d is not a string", rc);
	if (rc)
		return luaL_error(L, "not enough memory");
	return 1;
}

/* fl:info(): frames, total, total before, deepest depth, largest change */
static int flame_info(lua_State *L)
{
	struct flame_ud *u = flame_check(L);

	lua_pushinteger(L, (lua_Integer)u->fl.n);
	lua_pushnumber(L, u->fl.total);
	lua_pushnumber(L, u->fl.total_before);
	lua_pushinteger(L, u->fl.dmax);
	lua_pushnumber(L, u->fl.maxdelta);
	return 5;
}

static double flame_field(lua_State *L, const char *name)
{
	double v;
	lua_getfield(L, 2, name);
	v = luaL_checknumber(L, -1);
	lua_pop(L, 1);
	return v;
}

/* fl:svg(STYLE [, FILE]): the frames' lines of the SVG; with FILE (an io
 * file) they are written to it and the number of bytes is returned: a
 * graph of many MB is then not copied into a Lua string and again into
 * the whole SVG's. */
static int flame_svg(lua_State *L)
{
	static const char *const fills[] = {"palette", "self", "inclusive", NULL};
	struct flame_ud *u = flame_check(L);
	struct ltap_flame_style st;
	struct ltap_strbuf text = {0};
	luaL_Stream *f = lua_isnoneornil(L, 3) ? NULL : luaL_checkudata(L, 3, LUA_FILEHANDLE);
	int rc;

	luaL_checktype(L, 2, LUA_TTABLE);
	lua_settop(L, 3); /* the style's fields go above the arguments */
	st.xpad = flame_field(L, "xpad");
	st.wpt = flame_field(L, "wpt");
	st.charw = flame_field(L, "charw");
	st.fh = flame_field(L, "fh");
	st.base = flame_field(L, "base");
	st.ty_off = flame_field(L, "ty_off");
	st.cap = (int)flame_field(L, "cap");
	lua_getfield(L, 2, "inverted");
	st.inverted = lua_toboolean(L, -1);
	lua_getfield(L, 2, "hash");
	st.hash = lua_toboolean(L, -1);
	lua_getfield(L, 2, "negate");
	st.negate = lua_toboolean(L, -1);
	lua_getfield(L, 2, "fill");
	st.fill = (enum ltap_flame_fill)luaL_checkoption(L, -1, "palette", fills);
	lua_getfield(L, 2, "palette");
	st.palette = luaL_optstring(L, -1, "hot");
	lua_getfield(L, 2, "countname");
	st.countname = luaL_optstring(L, -1, "samples");
	rc = ltap_flame_svg(&u->fl, &st, &text);
	if (rc) {
		free(text.p);
		return luaL_error(L, "not enough memory");
	}
	if (f) {
		size_t put = f->closef && text.len ? fwrite(text.p, 1, text.len, f->f) : 0;
		free(text.p);
		if (!f->closef)
			return luaL_error(L, "attempt to use a closed file");
		if (put != text.len)
			return luaL_fileresult(L, 0, NULL);
		lua_pushinteger(L, (lua_Integer)put);
		return 1;
	}
	lua_pushlstring(L, text.p ? text.p : "", text.len);
	free(text.p);
	return 1;
}

static int flame_gc(lua_State *L)
{
	struct flame_ud *u = luaL_checkudata(L, 1, FLAME_MT);
	if (u->live)
		ltap_flame_free(&u->fl);
	u->live = 0;
	return 0;
}

struct sort_key {
	const char *s;
	size_t len;
	int idx; /* in the keys array on the stack */
};

static int sort_cmp(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;
	int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Appends to the array keys the keys of table idx, but those table skip has. */
static void sort_collect(lua_State *L, int idx, int skip, int keys)
{
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		int known = 0;
		lua_pop(L, 1);
		if (skip) {
			lua_pushvalue(L, -1);
			known = lua_rawget(L, skip) != LUA_TNIL;
			lua_pop(L, 1);
		}
		if (!known) {
			lua_pushvalue(L, -1);
			lua_rawseti(L, keys, (lua_Integer)lua_rawlen(L, keys) + 1);
		}
	}
}

/* ltap.flame_sort(T, [T0]): the stacks of folded tables T (and T0, before)
 * in byte order (flamegraph.pl's, and Lua's in the C locale), their counts
 * in T and in T0 (0 where a table lacks one). */
int flame_sort(lua_State *L)
{
	int with0 = !lua_isnoneornil(L, 2), keys;
	size_t n;
	struct sort_key *k;

	luaL_checktype(L, 1, LUA_TTABLE);
	if (with0)
		luaL_checktype(L, 2, LUA_TTABLE);
	lua_settop(L, 2);
	lua_newtable(L);
	keys = lua_gettop(L);
	sort_collect(L, 1, 0, keys);
	if (with0)
		sort_collect(L, 2, 1, keys);
	n = (size_t)lua_rawlen(L, keys);
	if (!(k = malloc((n ? n : 1) * sizeof *k)))
		return luaL_error(L, "not enough memory");
	for (size_t i = 0; i < n; i++) {
		lua_rawgeti(L, keys, (lua_Integer)i + 1);
		k[i].s = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &k[i].len) : NULL;
		k[i].idx = (int)i + 1;
		lua_pop(L, 1); /* the keys table holds the string */
		if (!k[i].s) {
			free(k);
			return luaL_error(L, "flame_sort: a stack that is not a string");
		}
	}
	qsort(k, n, sizeof *k, sort_cmp);
	lua_createtable(L, (int)n, 0); /* sorted keys */
	lua_createtable(L, (int)n, 0); /* counts */
	if (with0)
		lua_createtable(L, (int)n, 0);
	for (size_t i = 0; i < n; i++) {
		lua_rawgeti(L, keys, k[i].idx);
		lua_pushvalue(L, -1);
		lua_rawseti(L, keys + 1, (lua_Integer)i + 1);
		for (int t = 0; t <= with0; t++) {
			lua_pushvalue(L, -1);
			if (lua_rawget(L, 1 + t) == LUA_TNIL) {
				lua_pop(L, 1);
				lua_pushinteger(L, 0);
			}
			lua_rawseti(L, keys + 2 + t, (lua_Integer)i + 1);
		}
		lua_pop(L, 1);
	}
	free(k);
	if (!with0)
		lua_pushnil(L);
	return 3;
}

/* The input of the parsers: TEXT at idx, then the open file at idx + 1
 * (none or nil: TEXT alone). */
static void input_lines(lua_State *L, int idx, struct ltap_lines *r)
{
	size_t len;
	const char *text = luaL_checklstring(L, idx, &len);
	FILE *f = NULL;

	if (!lua_isnoneornil(L, idx + 1)) {
		luaL_Stream *p = luaL_checkudata(L, idx + 1, LUA_FILEHANDLE);
		if (!p->closef)
			luaL_argerror(L, idx + 1, "attempt to use a closed file");
		f = p->f;
	}
	ltap_lines_init(r, text, len, f);
}

/* A progress line while a large input is read (progress.h), kept in the
 * run's context, so an error raised meanwhile still has it erased (host.c) */
struct input_progress {
	struct ltap_ctx *ctx;
	FILE *f;
	uint64_t total; /* the file's size; 0: a pipe's, not known */
};

static void input_progress_read(void *ud, uint64_t nread)
{
	struct input_progress *ip = ud;
	off_t pos;

	if (ltap_progress_due(ip->ctx->io.progress))
		ltap_progress_show(ip->ctx->io.progress, (pos = ftello(ip->f)) >= 0 ? (uint64_t)pos : nread, ip->total,
				   LTAP_PROGRESS_BYTES);
}

static void input_progress_start(lua_State *L, struct ltap_lines *r, struct input_progress *ip)
{
	struct stat st;

	ip->ctx = ltap_ctx_get(L);
	ip->f = r->f;
	if (!r->f || !ltap_progress_wanted(ip->ctx->opt.progress) || ip->ctx->io.progress)
		return;
	ip->total = fstat(fileno(r->f), &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	ip->ctx->io.progress = ltap_progress_new(ip->ctx->opt.progress, ip->ctx->io.out,
						 r->f == stdin ? "reading standard input" : "reading input");
	if (ip->ctx->io.progress) {
		r->on_read = input_progress_read;
		r->on_read_ud = ip;
	}
}

static void input_progress_end(struct ltap_lines *r, struct input_progress *ip)
{
	if (r->on_read) {
		ltap_progress_free(ip->ctx->io.progress);
		ip->ctx->io.progress = NULL;
	}
}

/* pushes the number a count's digits spell, as tonumber() reads them */
static void push_count(lua_State *L, const char *s, size_t len)
{
	char buf[128];

	if (len < sizeof buf) {
		memcpy(buf, s, len);
		buf[len] = 0;
		if (lua_stringtonumber(L, buf))
			return;
	} else {
		lua_pushlstring(L, s, len);
		if (lua_stringtonumber(L, lua_tostring(L, -1))) {
			lua_remove(L, -2);
			return;
		}
		lua_pop(L, 1);
	}
	lua_pushinteger(L, 1);
}

/* ltap.folded_parse(TEXT, [FILE]): the stacks of folded lines (TEXT, then
 * the rest of FILE) in input order, their counts, the counts before of
 * two-column lines (nil when there are none), the number of lines that are
 * no stack lines and the first one's number (nil when none). */
int flame_folded_parse(lua_State *L)
{
	struct input_progress ip;
	struct ltap_lines r;
	struct ltap_folded_line fl;
	const char *line;
	size_t len, lineno = 0, ignored = 0, first_bad = 0;
	lua_Integer n = 0;
	int got, before = 0;

	input_lines(L, 1, &r);
	lua_settop(L, 2);
	input_progress_start(L, &r, &ip);
	lua_newtable(L); /* 3: stacks */
	lua_newtable(L); /* 4: counts */
	lua_newtable(L); /* 5: before (returned once a line has two columns) */
	while ((got = ltap_lines_next(&r, &line, &len)) > 0) {
		int kind = ltap_folded_parse(line, len, &fl);
		lineno++;
		if (kind == 0)
			continue;
		if (kind < 0) {
			ignored++;
			first_bad = first_bad ? first_bad : lineno;
			continue;
		}
		n++;
		lua_pushlstring(L, fl.stack, fl.stacklen);
		lua_rawseti(L, 3, n);
		push_count(L, fl.count, fl.countlen);
		if (fl.before && !before) { /* the lines so far: no change */
			before = 1;
			for (lua_Integer i = 1; i < n; i++) {
				lua_rawgeti(L, 4, i);
				lua_rawseti(L, 5, i);
			}
		}
		if (before) {
			if (fl.before)
				push_count(L, fl.before, fl.beforelen);
			else
				lua_pushvalue(L, -1); /* one column among two: no change */
			lua_rawseti(L, 5, n);
		}
		lua_rawseti(L, 4, n);
	}
	input_progress_end(&r, &ip);
	ltap_lines_free(&r);
	if (got < 0)
		return luaL_error(L, "folded_parse: %s", strerror(-got));
	if (!before) {
		lua_pushnil(L);
		lua_replace(L, 5);
	}
	lua_pushinteger(L, (lua_Integer)ignored);
	if (first_bad)
		lua_pushinteger(L, (lua_Integer)first_bad);
	else
		lua_pushnil(L);
	return 5;
}

/* The stacks being collected: in input order, or merged (first-seen order). */
struct fold_out {
	lua_State *L;
	int merge;
	lua_Integer n;
	int stacks, counts; /* stack indices of the tables */
	int unique;         /* stack number + 1 -> its string (one string per stack) */
};

static void push_period(lua_State *L, const char *period, size_t plen)
{
	if (period)
		push_count(L, period, plen);
	else
		lua_pushinteger(L, 1);
}

static int fold_sample(void *ud, size_t id, const char *stack, size_t len, const char *period, size_t plen)
{
	struct fold_out *o = ud;
	lua_State *L = o->L;

	if (stack) {
		lua_pushlstring(L, stack, len);
		if (!o->merge) {
			lua_pushvalue(L, -1);
			lua_rawseti(L, o->unique, (lua_Integer)id + 1);
		}
	} else if (o->merge) {
		/* counts[id] = counts[id] + period, as ltap.folded.merge sums them */
		lua_rawgeti(L, o->counts, (lua_Integer)id + 1);
		push_period(L, period, plen);
		lua_arith(L, LUA_OPADD);
		lua_rawseti(L, o->counts, (lua_Integer)id + 1);
		return 0;
	} else {
		lua_rawgeti(L, o->unique, (lua_Integer)id + 1);
	}
	lua_rawseti(L, o->stacks, ++o->n);
	push_period(L, period, plen);
	lua_rawseti(L, o->counts, o->n);
	return 0;
}

static int opt_flag(lua_State *L, int idx, const char *name)
{
	int v;
	lua_getfield(L, idx, name);
	v = lua_toboolean(L, -1);
	lua_pop(L, 1);
	return v;
}

/* ltap.perfscript_fold(TEXT, [FILE], OPTS): the samples of perf script
 * text (TEXT, then the rest of FILE) folded as stackcollapse-perf.pl folds
 * them: their stacks and counts in input order, or with OPTS.merge each
 * stack once (first-seen order) with its samples summed; and the info
 * table of ltap.perfscript's read(). */
int flame_perfscript_fold(lua_State *L)
{
	struct input_progress ip;
	struct ltap_lines r;
	struct ltap_perfscript_opts o = {0};
	struct ltap_perfscript_info info;
	struct fold_out out = {L, 0, 0, 0, 0, 0};
	int rc, all;

	input_lines(L, 1, &r);
	luaL_checktype(L, 3, LUA_TTABLE);
	lua_settop(L, 3);
	all = opt_flag(L, 3, "all");
	o.pid = opt_flag(L, 3, "pid");
	o.tid = opt_flag(L, 3, "tid");
	o.addrs = opt_flag(L, 3, "addrs");
	o.kernel = all || opt_flag(L, 3, "kernel");
	o.jit = all || opt_flag(L, 3, "jit");
	o.srcline = opt_flag(L, 3, "srcline");
	out.merge = opt_flag(L, 3, "merge");
	lua_getfield(L, 3, "event_filter"); /* 4: kept on the stack while the string is used */
	o.event = lua_tostring(L, 4);
	lua_newtable(L);
	out.stacks = lua_gettop(L);
	lua_newtable(L);
	out.counts = lua_gettop(L);
	lua_newtable(L);
	out.unique = lua_gettop(L);
	input_progress_start(L, &r, &ip);
	rc = ltap_perfscript_fold(&r, &o, fold_sample, &out, &info);
	input_progress_end(&r, &ip);
	ltap_lines_free(&r);
	if (rc)
		return luaL_error(L, "perfscript_fold: %s", strerror(-rc));
	lua_pop(L, 1); /* unique */
	lua_createtable(L, 0, 4);
	lua_pushinteger(L, (lua_Integer)info.unrecognized);
	lua_setfield(L, -2, "unrecognized");
	if (info.first_unrecognized) {
		lua_pushinteger(L, (lua_Integer)info.first_unrecognized);
		lua_setfield(L, -2, "first_unrecognized");
	}
	if (info.event[0]) {
		lua_pushstring(L, info.event);
		lua_setfield(L, -2, "event");
	}
	if (info.left_out[0]) {
		lua_pushstring(L, info.left_out);
		lua_setfield(L, -2, "left_out");
	}
	return 3;
}

static int merge_cmp(const void *a, const void *b)
{
	const struct sort_key *x = a, *y = b;
	int c = sort_cmp(a, b);
	return c ? c : (x->idx > y->idx) - (x->idx < y->idx);
}

/* ltap.flame_merge(STACKS, COUNTS, [BEFORE]): a stack list (ltap.folded's)
 * as ltap.flame_sort(ltap.folded.merge(list)) gives it: each stack once, in
 * byte order, its counts summed in list order (so float sums come out
 * alike); already sorted input (stackcollapse's, ltap's) is not sorted
 * again. */
int flame_merge(lua_State *L)
{
	int with0 = !lua_isnoneornil(L, 3);
	size_t n, i, out = 0;
	struct sort_key *k;
	int sorted = 1;

	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_checktype(L, 2, LUA_TTABLE);
	if (with0)
		luaL_checktype(L, 3, LUA_TTABLE);
	lua_settop(L, 3);
	n = (size_t)lua_rawlen(L, 1);
	if (!(k = malloc((n ? n : 1) * sizeof *k)))
		return luaL_error(L, "not enough memory");
	for (i = 0; i < n; i++) {
		lua_rawgeti(L, 1, (lua_Integer)i + 1);
		k[i].s = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &k[i].len) : NULL;
		k[i].idx = (int)i + 1;
		lua_pop(L, 1); /* the list holds the string */
		if (!k[i].s) {
			free(k);
			return luaL_error(L, "flame_merge: stack %d is not a string", (int)i + 1);
		}
		if (i && sorted && sort_cmp(&k[i - 1], &k[i]) > 0)
			sorted = 0;
	}
	if (!sorted)
		qsort(k, n, sizeof *k, merge_cmp);
	lua_createtable(L, (int)n, 0); /* 4: keys */
	lua_createtable(L, (int)n, 0); /* 5: counts */
	if (with0)
		lua_createtable(L, (int)n, 0); /* 6: before */
	for (i = 0; i < n; i++) {
		int same = out && k[i].len == k[i - 1].len && memcmp(k[i].s, k[i - 1].s, k[i].len) == 0;
		if (!same) {
			lua_rawgeti(L, 1, k[i].idx);
			lua_rawseti(L, 4, (lua_Integer)++out);
		}
		for (int t = 0; t <= with0; t++) {
			if (same)
				lua_rawgeti(L, 5 + t, (lua_Integer)out);
			else
				lua_pushinteger(L, 0); /* (t[s] or 0) + n, as folded.merge sums */
			lua_rawgeti(L, 2 + t, k[i].idx);
			lua_arith(L, LUA_OPADD);
			lua_rawseti(L, 5 + t, (lua_Integer)out);
		}
	}
	free(k);
	if (!with0)
		lua_pushnil(L);
	return 3;
}

static const luaL_Reg flame_meth[] = {
	{"info", flame_info},
	{"svg", flame_svg},
	{NULL, NULL},
};

static const luaL_Reg flame_metameth[] = {
	{"__index", NULL},
	{"__gc", flame_gc},
	{"__close", flame_gc},
	{NULL, NULL},
};

void ltap_open_flame(lua_State *L, struct ltap_ctx *ctx)
{
	(void)ctx;
	ltap_newmeta(L, FLAME_MT, flame_metameth, flame_meth);
	lua_pop(L, 1);
}
