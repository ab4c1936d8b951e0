/* statsrows.c: an aggregate's keys in order, by a figure then by key
 * (runtime/aggorder.c: a bounded heap for the top N, else one sort of
 * 16-byte entries for counts), for scripts and for report():
 *
 *   for k, st in s:sorted("sum", "desc", 10) do ... end
 *   s:write(io.stdout, {top = 10, keys = {"comm"}})   -- report()'s table
 *
 * s:write formats and writes the rows as it goes, in C: a report of a
 * million keys holds the order (16 bytes a key while it is made, then 4)
 * and one buffer, never a Lua value per row. The cells are what report.lua's text layout makes:
 * keys as tostring() shows them, integers as they are, floats "%.2f". */
#include "statsrows.h"

#include "ctx.h"
#include "stats.h"

#include <lauxlib.h>
#include <lualib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define ROWS_MT "ltap.stats_rows"

/* the order of an iteration: ids[pos..n) still to come; ids from the
 * aggregate's allocator (the state's: kept here, as the aggregate may be
 * collected first) */
struct rows {
	const struct stats *s; /* its object is the iterator's upvalue: alive */
	lua_Alloc alloc;
	void *ud;
	uint32_t *ids;
	size_t n, pos;
};

size_t ltap_rows_wanted(lua_State *L, int idx, size_t size)
{
	lua_Number n;

	if (lua_isnoneornil(L, idx))
		return size;
	n = luaL_checknumber(L, idx);
	return !(n >= 1) ? 0 : n >= (lua_Number)size ? size : (size_t)n;
}

static int rows_desc(lua_State *L, const char *order)
{
	if (strcmp(order, "desc") == 0)
		return 1;
	if (strcmp(order, "asc") != 0)
		luaL_error(L, "sorted: bad order '%s' (desc, asc)", order);
	return 0;
}

static int rows_gc(lua_State *L)
{
	struct rows *r = lua_touserdata(L, 1);

	if (r->ids)
		r->alloc(r->ud, r->ids, r->n * sizeof *r->ids, 0);
	r->ids = NULL;
	return 0;
}

/* A userdata holding the first n slots by fig (desc or asc); raises when
 * out of memory. */
static struct rows *rows_make(lua_State *L, const struct stats *s, int fig, int desc, size_t n)
{
	struct rows *r = lua_newuserdatauv(L, sizeof *r, 0);
	long k;

	memset(r, 0, sizeof *r);
	r->s = s;
	r->alloc = lua_getallocf(L, &r->ud);
	if (luaL_newmetatable(L, ROWS_MT)) {
		lua_pushcfunction(L, rows_gc);
		lua_setfield(L, -2, "__gc");
	}
	lua_setmetatable(L, -2);
	if ((k = ltap_agg_order(s->agg, fig, desc, n, &r->ids)) < 0)
		ltap_stats_nomem(L);
	r->n = (size_t)k;
	return r;
}

/* the iterator: key, figures of the next row whose key is still there */
static int rows_next(lua_State *L)
{
	struct rows *r = lua_touserdata(L, lua_upvalueindex(2));
	const struct stats *s = r->s;

	while (r->pos < r->n) {
		long id = r->ids[r->pos++];
		if (!ltap_agg_live(s->agg, id))
			continue;
		ltap_stats_push_slot_key(L, s, id);
		ltap_stats_push_figures(L, s, id);
		return 2;
	}
	return 0;
}

/* s:sorted([BY], [ORDER], [N]): key, figures of each key, by a figure
 * ("count" default; sum, min, max, avg, var, stddev), "desc" (default) or
 * "asc", ties by key, at most N. A key of several parts comes as a table
 * {part1, ...}. The order is made at the call; keys removed meanwhile are
 * skipped. */
static int stats_sorted(lua_State *L)
{
	const struct stats *s = ltap_stats_check(L, 1);
	int fig, desc;

	lua_settop(L, 4);
	if (lua_type(L, 2) == LUA_TNUMBER) { /* s:sorted(N) */
		lua_copy(L, 2, 4);
		lua_pushnil(L);
		lua_copy(L, -1, 2);
		lua_copy(L, -1, 3);
		lua_pop(L, 1);
	} else if (lua_type(L, 3) == LUA_TNUMBER) { /* s:sorted(BY, N) */
		lua_copy(L, 3, 4);
		lua_pushnil(L);
		lua_replace(L, 3);
	}
	fig = ltap_stats_check_figure(L, 2, "count");
	desc = rows_desc(L, luaL_optstring(L, 3, "desc"));
	lua_pushvalue(L, 1);
	rows_make(L, s, fig, desc, ltap_rows_wanted(L, 4, ltap_agg_size(s->agg)));
	lua_pushcclosure(L, rows_next, 2);
	return 1;
}

/* ------------------------------------------------------ the text table */

#define CELL_MAX 420 /* "%.2f" of the largest double, as string.format allows */
#define OUT_BUF 65536

struct cell {
	const char *p;
	size_t len;
	char tmp[CELL_MAX];
};

static size_t int_text(char *out, int64_t v)
{
	char t[24];
	size_t n = 0, len;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	do {
		t[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		t[n++] = '-';
	for (len = 0; n;)
		out[len++] = t[--n];
	return len;
}

static void cell_text(struct cell *c, size_t len)
{
	c->p = c->tmp;
	c->len = len;
}

/* a key part as tostring() shows it */
static void cell_part(struct cell *c, const struct ltap_agg_part *p)
{
	switch (p->kind) {
	case LTAP_AGG_STR:
		c->p = p->v.s.p;
		c->len = p->v.s.len;
		break;
	case LTAP_AGG_INT:
		cell_text(c, int_text(c->tmp, p->v.i));
		break;
	case LTAP_AGG_FLOAT: {
		int n = snprintf(c->tmp, sizeof c->tmp - 2, LUA_NUMBER_FMT, p->v.d);
		if (c->tmp[strspn(c->tmp, "-0123456789")] == '\0') { /* looks like an int: as lua_Number2str */
			c->tmp[n++] = '.';
			c->tmp[n++] = '0';
		}
		cell_text(c, (size_t)n);
		break;
	}
	default:
		c->p = p->v.b ? "true" : "false";
		c->len = strlen(c->p);
	}
}

/* "%.2f" of d as printf writes it, 0 when unsure: 100 |d| below 2^40 is
 * one rounding from its exact value (an error under 2^-12), so unless it
 * lies that close to a half its nearest integer is printf's */
static size_t fixed2_text(char *out, double d)
{
	double x = fabs(d) * 100, y = floor(x + 0.5);
	size_t n = 0;
	int64_t u;

	if (!(x < 1099511627776.0) || fabs(x - floor(x) - 0.5) < 1e-3)
		return 0;
	u = (int64_t)y;
	if (signbit(d))
		out[n++] = '-';
	n += int_text(out + n, u / 100);
	out[n++] = '.';
	out[n++] = (char)('0' + u % 100 / 10);
	out[n++] = (char)('0' + u % 10);
	return n;
}

/* a figure as report.lua's cell(): integers as they are, floats "%.2f" */
static void cell_figure(struct cell *c, struct ltap_agg_num v)
{
	size_t n;

	if (v.is_int)
		cell_text(c, int_text(c->tmp, v.i));
	else if (v.d != v.d)
		cell_text(c, (size_t)snprintf(c->tmp, sizeof c->tmp, "nan"));
	else if ((n = fixed2_text(c->tmp, v.d)))
		cell_text(c, n);
	else
		cell_text(c, (size_t)snprintf(c->tmp, sizeof c->tmp, "%.2f", v.d));
}

struct table {
	const struct stats *s;
	int nkeys, ncols;      /* key columns (left-aligned), all columns */
	const char **head;     /* the header's cells */
	int *fig;              /* per figure column: enum ltap_agg_fig, or -1 for a name that is none ("nil") */
	size_t *width;
	FILE *f;
	size_t len;
	int failed;
	char out[OUT_BUF];
};

static void out_flush(struct table *t)
{
	if (t->len && fwrite(t->out, 1, t->len, t->f) != t->len)
		t->failed = 1;
	t->len = 0;
}

static void out_put(struct table *t, const char *p, size_t n)
{
	if (t->len + n > sizeof t->out)
		out_flush(t);
	if (n > sizeof t->out) {
		if (fwrite(p, 1, n, t->f) != n)
			t->failed = 1;
		return;
	}
	memcpy(t->out + t->len, p, n);
	t->len += n;
}

static void out_pad(struct table *t, size_t n)
{
	static const char spaces[] = "                                ";

	for (; n > sizeof spaces - 1; n -= sizeof spaces - 1)
		out_put(t, spaces, sizeof spaces - 1);
	out_put(t, spaces, n);
}

/* column c of slot's row (slot -1: the header) */
static void table_cell(const struct table *t, long slot, int c, const struct ltap_agg_part *key, struct cell *cell)
{
	if (slot < 0) {
		cell->p = t->head[c];
		cell->len = strlen(t->head[c]);
	} else if (c < t->nkeys) {
		cell_part(cell, &key[c]);
	} else if (t->fig[c - t->nkeys] < 0) {
		cell->p = "nil";
		cell->len = 3;
	} else {
		cell_figure(cell, ltap_agg_figure(t->s->agg, slot, t->fig[c - t->nkeys]));
	}
}

/* one row: measured (widths grow) or written (padded to them) */
static void table_row(struct table *t, long slot, int write)
{
	struct ltap_agg_part key[LTAP_AGG_MAX_PARTS];
	struct cell cell;

	if (slot >= 0 && t->nkeys)
		ltap_agg_key(t->s->agg, slot, key);
	for (int c = 0; c < t->ncols; c++) {
		table_cell(t, slot, c, key, &cell);
		if (!write) {
			if (cell.len > t->width[c])
				t->width[c] = cell.len;
			continue;
		}
		if (c)
			out_put(t, "  ", 2);
		if (c >= t->nkeys)
			out_pad(t, t->width[c] - cell.len);
		out_put(t, cell.p, cell.len);
		if (c < t->nkeys && c + 1 < t->ncols)
			out_pad(t, t->width[c] - cell.len);
	}
	if (write)
		out_put(t, "\n", 1);
}

/* the header's cells: OPTS.keys or key / key1, key2...; OPTS.fields or the
 * default figures. The names are kept in a table left on the stack. */
static void table_columns(lua_State *L, struct table *t, int opts)
{
	static const char *const default_fields[] = {"count", "sum", "min", "avg", "max"};
	int arity = ltap_agg_arity(t->s->agg), nfields, keys, fields, names;
	char *mem;

	t->nkeys = arity < 0 ? 0 : arity;
	lua_newtable(L);
	names = lua_gettop(L);
	lua_getfield(L, opts, "keys");
	keys = lua_gettop(L);
	lua_getfield(L, opts, "fields");
	fields = lua_gettop(L);
	nfields = lua_istable(L, fields) ? (int)luaL_len(L, fields) : 5;
	t->ncols = t->nkeys + nfields;
	mem = lua_newuserdatauv(L, (size_t)t->ncols * (sizeof *t->head + sizeof *t->fig + sizeof *t->width), 0);
	lua_rawseti(L, names, 0);
	t->width = (size_t *)mem;
	t->head = (const char **)(t->width + t->ncols);
	t->fig = (int *)(t->head + t->ncols);
	for (int c = 0; c < t->ncols; c++) {
		int f = c - t->nkeys;
		int list = f < 0 ? keys : fields, named = 0;
		t->width[c] = 0;
		if (lua_istable(L, list)) {
			lua_rawgeti(L, list, (f < 0 ? c : f) + 1);
			named = lua_tostring(L, -1) != NULL;
			if (!named)
				lua_pop(L, 1);
		}
		if (named)
			;
		else if (f < 0)
			lua_pushfstring(L, arity > 1 ? "key%d" : "key", c + 1);
		else
			lua_pushstring(L, lua_istable(L, fields) ? "nil" : default_fields[f]);
		t->head[c] = lua_tostring(L, -1);
		lua_rawseti(L, names, c + 1); /* keeps the name alive */
		if (f < 0)
			continue;
		t->fig[f] = -1;
		for (int g = 0; ltap_stats_figure_names[g]; g++)
			if (strcmp(t->head[c], ltap_stats_figure_names[g]) == 0)
				t->fig[f] = g;
	}
	lua_settop(L, names);
}

/* s:write(FILE, [OPTS]): the table report(s, OPTS) prints as text, written
 * to FILE (io.stdout): rows by OPTS.by ("count") and OPTS.order ("desc"),
 * at most OPTS.top, columns OPTS.keys (names of the key parts) and
 * OPTS.fields (figures; count, sum, min, avg, max) as wide as their widest
 * cell. true, or nil, message as file:write. */
static int stats_write(lua_State *L)
{
	const struct stats *s = ltap_stats_check(L, 1);
	luaL_Stream *stream = luaL_checkudata(L, 2, LUA_FILEHANDLE);
	struct table *t;
	struct rows *r;
	int fig, desc;
	size_t n;

	if (!stream->closef)
		return luaL_error(L, "attempt to use a closed file");
	if (lua_isnoneornil(L, 3)) {
		lua_settop(L, 2);
		lua_newtable(L);
	}
	luaL_checktype(L, 3, LUA_TTABLE);
	lua_settop(L, 3);
	lua_getfield(L, 3, "by");
	lua_getfield(L, 3, "order");
	lua_getfield(L, 3, "top");
	fig = ltap_stats_check_figure(L, 4, "count");
	desc = rows_desc(L, luaL_optstring(L, 5, "desc"));
	n = ltap_rows_wanted(L, 6, ltap_agg_size(s->agg));
	t = lua_newuserdatauv(L, sizeof *t, 0);
	t->s = s;
	t->f = stream->f;
	t->len = 0;
	t->failed = 0;
	table_columns(L, t, 3);
	r = rows_make(L, s, fig, desc, n);
	table_row(t, -1, 0);
	if (r->n == ltap_agg_size(s->agg)) { /* every row: measured in slot order, which reads memory in order */
		for (size_t i = 0; i < ltap_agg_slots(s->agg); i++)
			if (ltap_agg_live(s->agg, (long)i))
				table_row(t, (long)i, 0);
	} else {
		for (size_t i = 0; i < r->n; i++)
			table_row(t, r->ids[i], 0);
	}
	table_row(t, -1, 1);
	for (size_t i = 0; i < r->n; i++)
		table_row(t, r->ids[i], 1);
	out_flush(t);
	return luaL_fileresult(L, !t->failed, NULL);
}

void ltap_open_statsrows(lua_State *L, struct ltap_ctx *ctx)
{
	static const luaL_Reg meth[] = {
		{"sorted", stats_sorted},
		{"write", stats_write},
		{NULL, NULL},
	};

	(void)ctx;
	luaL_getmetatable(L, STATS_MT);
	lua_getfield(L, -1, "__index");
	luaL_setfuncs(L, meth, 0);
	lua_pop(L, 2); /* __index, the metatable */
}
