/* text.c: the Lua face of a text input (the text the kernel prints in
 * trace / trace_pipe; the source is runtime/src_text.c).
 *
 * The text names events without their system and prints fields as the
 * event's print format renders them. Where this machine has the event
 * (its tracefs), a probe resolves to the local format: the line's fields
 * are turned back into the raw record the kernel would have written
 * (runtime/text_decode.c) on first use, so e.FIELD is typed as in a live
 * run (gfp_flags=GFP_KERNEL is a number), filters apply in user space as
 * the kernel applies them (runtime/filter.c), and e.name is
 * "kmem:mm_page_alloc". Otherwise fields come from the line's key=value
 * pairs. Those are the two kinds of a text event (struct ltap_desc_ops).
 * Probes with globs ("kmem:*", "*:*") take every event of the text whose
 * name matches: the source pauses at a name first seen that a glob wants,
 * and its descriptor is declared here between batches, in a protected
 * call. */
#include "text.h"

#include "call.h"
#include "catalog.h"
#include "ctx.h"
#include "desc.h"
#include "evdesc.h"
#include "event.h"
#include "eventud.h"
#include "kinds.h"
#include "log.h"
#include "luprobe.h"
#include "proc.h"
#include "src_text.h"
#include "text_decode.h"

#include <errno.h>
#include <event-parse.h>
#include <fnmatch.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_RECORD_MAX 65536
#define TEXT_ID_MAX 65535

struct text_glob {
	char *sys, *name; /* sys NULL: any system */
	char *filter;
	int handler;
	char where[128];
};

struct ltap_textmode {
	struct ltap_face face;      /* first: the context holds the face */
	struct ltap_ctx *ctx;
	struct tep_handle *tep;     /* no formats: the catalog of a text replay */
	struct ltap_catalog *local; /* this machine's formats, NULL without tracefs */
	struct ltap_textsrc *src;
	char **names;               /* id -> the text's name of its event */
	int next_id;
	struct text_glob *globs;
	int nglobs;
	/* the raw record of the current event, decoded once */
	struct ltap_evdesc *dec_desc;
	long dec_line;
	struct ltap_rec dec;
	uint64_t present;
	char *buf;
	/* the run of lines (struct ltap_textline) of the last line the task
	 * table was checked for: a run of one task's lines looks its name up
	 * once */
	unsigned long last_run;
	unsigned last_gen; /* the task table's generation then */
};

/* The local event a text name stands for: by "sys:name", or by name alone. */
static struct tep_event *text_local_event(struct ltap_textmode *tm, const char *sys, const char *name)
{
	char spec[1040];

	if (!tm->local)
		return NULL;
	if (!sys)
		return ltap_catalog_by_name(tm->local, name);
	snprintf(spec, sizeof spec, "%.512s:%.512s", sys, name);
	return ltap_catalog_event(tm->local, spec);
}

static struct ltap_textmode *text_mode(struct ltap_ctx *ctx)
{
	return (struct ltap_textmode *)ctx->face;
}

/* the raw record a line with a local format stands for, decoded once per
 * event; *present (when asked) has bit i for own field i found */
static const struct ltap_rec *text_record(struct ltap_ctx *ctx, struct ltap_evdesc *d, const struct ltap_rec *r)
{
	struct ltap_textmode *tm = text_mode(ctx);
	struct ltap_textline t;

	ltap_textsrc_line(r, &t);
	if (tm->dec_desc != d || tm->dec_line != t.line) {
		int size = ltap_textdec_record(d->kind_data, r, tm->buf, TEXT_RECORD_MAX, &tm->present);
		tm->dec = *r;
		tm->dec.data = tm->buf;
		tm->dec.size = size < 0 ? 0 : size;
		tm->dec_desc = d;
		tm->dec_line = t.line;
	}
	return &tm->dec;
}

static const struct ltap_rec *text_kv_record(struct ltap_ctx *ctx, struct ltap_evdesc *d, const struct ltap_rec *r)
{
	(void)ctx;
	(void)d;
	return r;
}

/* A format field: from the record the line stands for; nil when the line
 * does not print it. */
static void text_field(lua_State *L, struct ltap_event_ud *e, int i)
{
	const struct ltap_rec *rec = text_record(e->ctx, e->desc, e->rec);

	if (i < 64 && !(text_mode(e->ctx)->present >> i & 1))
		lua_pushnil(L);
	else
		ltap_push_raw_field(L, rec, e->desc->fields[i]);
}

/* a key=value of the line: integers (decimal, 0x hex) as integers,
 * anything else as the string printed */
static void text_push_value(lua_State *L, const char *v)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(v, &end, 0);
	if (*v && !*end && !errno)
		lua_pushinteger(L, (lua_Integer)n);
	else
		lua_pushstring(L, v);
}

/* The line's own key=value pairs: the value of key, or every pair into
 * the table at the top; a key the line lacks raises, naming its pairs. */
static int text_pairs(lua_State *L, struct ltap_event_ud *e, const char *key)
{
	const char *k, *v;
	struct ltap_textline t;
	int n = ltap_textsrc_nfields(e->rec);

	if (!key) {
		for (int i = 0; i < n; i++) {
			k = ltap_textsrc_field_at(e->rec, i, &v);
			text_push_value(L, v);
			lua_setfield(L, -2, k);
		}
		return 0;
	}
	if ((v = ltap_textsrc_field(e->rec, key)) != NULL) {
		text_push_value(L, v);
		return 1;
	}
	ltap_textsrc_line(e->rec, &t);
	luaL_where(L, 1);
	lua_pushfstring(L, "%s at line %d has no field '%s' (fields:", t.event, (int)t.line, key);
	for (int i = 0; i < n; i++)
		lua_pushfstring(L, "%s %s", i ? "," : "", ltap_textsrc_field_at(e->rec, i, &v));
	lua_pushliteral(L, ")");
	lua_concat(L, n + 3);
	return lua_error(L);
}

/* tostring(e): the line's own rendering */
static void text_tostring(lua_State *L, struct ltap_event_ud *e)
{
	struct ltap_textline t;

	ltap_textsrc_line(e->rec, &t);
	lua_pushfstring(L, "%s: %s", t.event, t.info);
}

/* a and b (b 0-terminated) the same name as the task table keeps it: 15 bytes at most */
static int same_comm(const char *a, const char *b)
{
	for (int i = 0; i < 15; i++) {
		if (a[i] != b[i])
			return 0;
		if (!a[i])
			return 1;
	}
	return 1;
}

/* The line names its task: the comm and tgid it shows win. */
static void text_observe(struct ltap_ctx *ctx, struct ltap_evdesc *d, const struct ltap_rec *r)
{
	struct ltap_textmode *tm = text_mode(ctx);
	struct ltap_textline t;

	(void)d;
	ltap_textsrc_line(r, &t);
	if (t.tgid < 0 && t.run == tm->last_run && tm->last_gen == ltap_proc_generation(ctx->proc))
		return;
	if (!same_comm(ltap_proc_comm(ctx->proc, t.tid), t.comm) || t.tgid >= 0) {
		ltap_proc_update(ctx->proc, t.tid, t.tgid, t.comm);
		ltap_event_forget_comm(ctx, t.tid);
	}
	tm->last_run = t.run;
	tm->last_gen = ltap_proc_generation(ctx->proc);
}

static void text_free(struct ltap_evdesc *d)
{
	ltap_textdec_free(d->kind_data);
}

/* an event of the text with this machine's format of it */
static const struct ltap_desc_ops text_local = {
	.field = text_field,
	.pairs = text_pairs,
	.record = text_record,
	.tostring = text_tostring,
	.observe = text_observe,
	.free = text_free,
};

/* an event of the text known by its key=value pairs only */
static const struct ltap_desc_ops text_kv = {
	.field = text_field, /* it has no format fields */
	.pairs = text_pairs,
	.record = text_kv_record,
	.tostring = text_tostring,
	.observe = text_observe,
};

/* A descriptor for text event name; its fields from ev when there is one. */
static struct ltap_evdesc *text_desc(lua_State *L, struct ltap_ctx *ctx, const char *name, struct tep_event *ev,
				     const char *shown)
{
	struct ltap_textmode *tm = text_mode(ctx);
	struct ltap_evdesc *d;
	char **names;
	int id = tm->next_id + 1;

	if (id > TEXT_ID_MAX || !(names = realloc(tm->names, (size_t)(id + 1) * sizeof *names)))
		return NULL;
	tm->names = names;
	if (!(names[id] = strdup(name)))
		return NULL;
	tm->next_id = id;
	if (ltap_textsrc_set_id(tm->src, name, id))
		return NULL;
	d = ev ? ltap_desc_event(L, ctx, id, ev, &text_local) : ltap_desc_synthetic(L, ctx, id, shown, &text_kv);
	if (ev)
		d->kind_data = ltap_textdec_new(ev);
	/* the line's tid is where every record keeps common_pid */
	d->tid_off = LTAP_REC_TID_OFFSET;
	return d;
}

/* spec "sys:name", "name", "tracepoint:sys:name": *sys is NULL without one */
static void text_split(const char *spec, char *buf, size_t len, char **sys, char **name)
{
	char *colon;

	spec = ltap_catalog_strip_prefix(spec);
	snprintf(buf, len, "%s", spec);
	colon = strpbrk(buf, ":/");
	*sys = NULL;
	*name = buf;
	if (colon) {
		*colon = 0;
		*sys = buf;
		*name = colon + 1;
	}
}

/* probe() over a text trace */
static void text_probe(lua_State *L, struct ltap_ctx *ctx, struct ltap_face *f, const char *spec,
		       const char *filter, int fn)
{
	struct ltap_textmode *tm = (struct ltap_textmode *)f;
	struct tep_event *ev;
	struct ltap_evdesc *d;
	char buf[512], *sys, *name;
	int id;

	if (ltap_is_uprobe_spec(spec))
		luaL_error(L, "probe %s: a text trace holds only what the kernel printed", spec);
	text_split(spec, buf, sizeof buf, &sys, &name);
	if (!*name || (sys && !*sys))
		luaL_error(L, "probe %s: a text trace's events are named 'sys:name' or 'name'", spec);
	if (ltap_catalog_is_glob(spec)) {
		struct text_glob *g = realloc(tm->globs, (size_t)(tm->nglobs + 1) * sizeof *g);
		if (!g)
			luaL_error(L, "out of memory");
		tm->globs = g;
		g += tm->nglobs++;
		memset(g, 0, sizeof *g);
		g->sys = sys && strcmp(sys, "*") ? strdup(sys) : NULL;
		g->name = strdup(name);
		g->filter = filter && *filter ? strdup(filter) : NULL;
		g->handler = ltap_handler_add(L, ctx, fn);
		luaL_where(L, 1);
		snprintf(g->where, sizeof g->where, "%s", lua_tostring(L, -1));
		lua_pop(L, 1);
		return;
	}
	ev = text_local_event(tm, sys, name);
	if (filter && *filter && !ev)
		luaL_error(L, "probe %s: a filter over a text trace needs the event's format, and this machine has "
			   "none for it (test the fields in the handler)", spec);
	id = ltap_textsrc_id(tm->src, name);
	d = id > 0 ? ltap_desc_at(ctx, id) : text_desc(L, ctx, name, ev, spec);
	if (!d)
		luaL_error(L, "probe %s: out of memory", spec);
	ltap_probe_add(L, ctx, d, fn, filter);
}

static int text_glob_match(struct ltap_textmode *tm, const struct text_glob *g, const char *name,
			   struct tep_event **ev)
{
	if (fnmatch(g->name, name, 0) != 0)
		return 0;
	if (!g->sys)
		return 1;
	if (!*ev)
		*ev = text_local_event(tm, NULL, name);
	return *ev && fnmatch(g->sys, (*ev)->system, 0) == 0;
}

/* The glob probes that take events called name join its descriptor. */
static int text_add_globs(struct ltap_ctx *ctx, struct ltap_evdesc *d, const char *name, struct tep_event *ev)
{
	struct ltap_textmode *tm = text_mode(ctx);

	for (int i = 0; i < tm->nglobs; i++) {
		struct text_glob *g = &tm->globs[i];
		if (!text_glob_match(tm, g, name, &ev))
			continue;
		if (g->filter && !d->kind_data) {
			ltap_warn("%sprobe %s: no local format for %s: its filter cannot apply, the events are skipped",
				  g->where, g->name, name);
			continue;
		}
		if (!ltap_probe_on(ctx, d, g->handler, g->filter, g->where)) {
			if (ctx->why[0])
				ltap_err("%sprobe %s: %s", g->where, g->name, ctx->why);
			return -1;
		}
		if (g->filter && ltap_desc_user_filters(ctx, d, NULL))
			return -1;
	}
	return 0;
}

/* A name first seen in the text: whether a glob wants it (plain C, as the
 * source reads lines). */
static int text_wanted(void *ud, const char *event)
{
	struct ltap_textmode *tm = ud;
	struct tep_event *ev = NULL;

	for (int i = 0; i < tm->nglobs; i++)
		if (text_glob_match(tm, &tm->globs[i], event, &ev))
			return 1;
	return 0;
}

/* text_declare's Lua work: (tm, name) -> the descriptor's id, or nothing
 * when its globs' probes could not join it */
static int text_declare_lua(lua_State *L)
{
	struct ltap_textmode *tm = lua_touserdata(L, 1);
	const char *event = lua_touserdata(L, 2);
	struct tep_event *ev = text_local_event(tm, NULL, event);
	struct ltap_evdesc *d = text_desc(L, tm->ctx, event, ev, event);

	if (!d || text_add_globs(tm->ctx, d, event, ev))
		return 0;
	lua_pushinteger(L, d->id);
	return 1;
}

/* Between batches: the descriptor of a name a glob wants, made under
 * protection (a memory error is the script's failure, not a panic). */
static int text_declare(void *ud, const char *event)
{
	struct ltap_textmode *tm = ud;
	struct ltap_ctx *ctx = tm->ctx;
	int id = 0;

	lua_pushcfunction(ctx->L, text_declare_lua);
	lua_pushlightuserdata(ctx->L, tm);
	lua_pushlightuserdata(ctx->L, (void *)event);
	if (ltap_call(ctx, 2, 1) != 0)
		return 0;
	id = (int)lua_tointeger(ctx->L, -1);
	lua_pop(ctx->L, 1);
	if (!id) {
		ltap_err("replay: cannot follow event %s", event);
		ltap_run_end(ctx, LTAP_END_ERROR);
	}
	return id;
}

/* After the load phase: the globs join the descriptors declared by name. */
static int text_attach(struct ltap_ctx *ctx, struct ltap_face *f)
{
	struct ltap_textmode *tm = (struct ltap_textmode *)f;

	for (int id = 1; id <= tm->next_id; id++) {
		struct ltap_evdesc *d = ltap_desc_at(ctx, id);
		if (d && text_add_globs(ctx, d, tm->names[id], d->ev))
			return -1;
	}
	return 0;
}

static void text_close(struct ltap_face *f)
{
	struct ltap_textmode *tm = (struct ltap_textmode *)f;

	for (int i = 1; i <= tm->next_id; i++)
		free(tm->names[i]);
	free(tm->names);
	for (int i = 0; i < tm->nglobs; i++) {
		free(tm->globs[i].sys);
		free(tm->globs[i].name);
		free(tm->globs[i].filter);
	}
	free(tm->globs);
	ltap_catalog_close(tm->local);
	if (tm->tep)
		tep_free(tm->tep);
	free(tm->buf);
	free(tm);
}

static const char *text_no_comm(void *ud, int tid)
{
	(void)ud;
	(void)tid;
	return NULL; /* a text trace names its tasks itself, line by line */
}

int ltap_text_open(struct ltap_ctx *ctx, const char *path, struct ltap_text_input *out)
{
	struct ltap_textmode *tm = calloc(1, sizeof *tm);
	struct ltap_textsrc_names names = {text_wanted, text_declare, tm};

	if (!tm)
		return -1;
	tm->face = (struct ltap_face){.probe = text_probe, .attach = text_attach, .close = text_close};
	tm->ctx = ctx;
	tm->tep = tep_alloc();
	tm->buf = malloc(TEXT_RECORD_MAX);
	tm->src = ltap_textsrc_new(path, &names);
	out->cat = tm->tep ? ltap_catalog_from_tep(tm->tep) : NULL;
	if (!out->cat || !tm->src || !tm->buf) {
		ltap_catalog_close(out->cat);
		ltap_textsrc_close(tm->src);
		tm->src = NULL;
		text_close(&tm->face);
		return -1;
	}
	out->source = ltap_textsrc_source(tm->src);
	out->face = &tm->face;
	/* the local formats type the fields; a machine without tracefs (or a
	 * user who may not read it) replays with key=value fields only */
	enum ltap_log_level was = ltap_log_set_verbosity(LTAP_LOG_NONE);
	tm->local = ltap_catalog_open();
	ltap_log_set_verbosity(was);
	if (!tm->local && ctx->opt.verbose)
		ltap_info("replay: no local tracefs formats: fields come from the text's key=value pairs");
	ltap_proc_set_lookup(ctx->proc, text_no_comm, NULL);
	return 0;
}
