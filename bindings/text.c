/* text.c: --input of the text the kernel prints in trace / trace_pipe.
 *
 * The text names events without their system and prints fields as the
 * event's print format renders them. Where this machine has the event
 * (its tracefs), a probe resolves to the local format: the line's fields
 * are turned back into the raw record the kernel would have written
 * (runtime/text_decode.c) on first use, so e.FIELD is typed as in a live
 * run (gfp_flags=GFP_KERNEL is a number), filters apply in user space as
 * the kernel applies them (runtime/filter.c), and e.name is "kmem:mm_page_alloc". Otherwise fields come
 * from the line's key=value pairs. Probes with globs ("kmem:*", "*:*")
 * take every event of the text whose name matches, found as lines come. */
#include "ctx.h"

#include "catalog.h"
#include "log.h"
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
#define TEXT_NAMES_MAX 4096 /* distinct event names remembered */

struct text_glob {
	char *sys, *name; /* sys NULL: any system */
	char *filter;
	int handler;
	char where[128];
};

struct ltap_textmode {
	struct tep_handle *tep;     /* no formats: the catalog of a text replay */
	struct ltap_catalog *local; /* this machine's formats, NULL without tracefs */
	struct ltap_textsrc *src;   /* open from attach on */
	/* event name -> descriptor id (0: no probe wants it), open addressing */
	struct { char *name; int id; } *slots;
	unsigned cap, used;
	int next_id;
	struct text_glob *globs;
	int nglobs;
	/* the raw record of the current event, decoded once */
	struct ltap_evdesc *dec_desc;
	long dec_line;
	struct ltap_rec dec;
	uint64_t present;
	char *buf;
};

static const char *text_no_comm(void *ud, int tid)
{
	(void)ud;
	(void)tid;
	return NULL; /* a text trace names its tasks itself, line by line */
}

int ltap_text_open(struct ltap_ctx *ctx)
{
	struct ltap_textmode *tm = calloc(1, sizeof *tm);

	ctx->tm = tm;
	ctx->text_mode = 1;
	if (!tm)
		return -1;
	tm->tep = tep_alloc();
	tm->cap = 64;
	tm->slots = calloc(tm->cap, sizeof *tm->slots);
	tm->buf = malloc(TEXT_RECORD_MAX);
	ctx->cat = tm->tep ? ltap_catalog_from_tep(tm->tep) : NULL;
	if (!ctx->cat || !tm->slots || !tm->buf)
		return -1;
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

static unsigned text_hash(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* the slot of name: its entry, or the empty one where it goes */
static unsigned text_slot(struct ltap_textmode *tm, const char *name)
{
	unsigned i = text_hash(name) & (tm->cap - 1);
	while (tm->slots[i].name && strcmp(tm->slots[i].name, name) != 0)
		i = (i + 1) & (tm->cap - 1);
	return i;
}

static int text_remember(struct ltap_textmode *tm, const char *name, int id)
{
	unsigned i;

	if ((tm->used + 1) * 2 > tm->cap) {
		unsigned old = tm->cap;
		__typeof__(tm->slots) os = tm->slots;
		tm->slots = calloc(old * 2, sizeof *tm->slots);
		if (!tm->slots) {
			tm->slots = os;
			return -1;
		}
		tm->cap = old * 2;
		for (unsigned j = 0; j < old; j++)
			if (os[j].name)
				tm->slots[text_slot(tm, os[j].name)] = os[j];
		free(os);
	}
	i = text_slot(tm, name);
	if (!tm->slots[i].name) {
		if (!(tm->slots[i].name = strdup(name)))
			return -1;
		tm->used++;
	}
	tm->slots[i].id = id;
	return 0;
}

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

/* A descriptor for text event name; its fields from ev when there is one. */
static struct ltap_evdesc *text_desc(lua_State *L, struct ltap_ctx *ctx, const char *name, struct tep_event *ev,
				     const char *shown)
{
	static struct tep_format_field text_pid = {.name = "common_pid", .offset = 4, .size = 4};
	struct ltap_textmode *tm = ctx->tm;
	struct ltap_evdesc *d;
	int id = ++tm->next_id;

	if (id > 65535 || text_remember(tm, name, id))
		return NULL;
	d = ltap_desc_new(L, ctx, id);
	d->text = 1;
	if (ev) {
		ltap_desc_set_event(L, d, ev);
		d->textdec = ltap_textdec_new(ev);
	} else {
		d->fields = calloc(1, sizeof *d->fields);
		ltap_event_fields_tables(L, d);
		lua_pushstring(L, shown);
		d->name_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	}
	/* the line's tid is where the raw record has common_pid */
	d->common_pid = &text_pid;
	return d;
}

static int text_id(struct ltap_textmode *tm, const char *name)
{
	unsigned i = text_slot(tm, name);
	return tm->slots[i].name ? tm->slots[i].id : -1;
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
void ltap_text_probe(lua_State *L, struct ltap_ctx *ctx, const char *spec, const char *filter, int fn)
{
	struct ltap_textmode *tm = ctx->tm;
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
	id = text_id(tm, name);
	d = id > 0 ? ctx->by_id[id] : text_desc(L, ctx, name, ev, spec);
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
	struct ltap_textmode *tm = ctx->tm;

	for (int i = 0; i < tm->nglobs; i++) {
		struct text_glob *g = &tm->globs[i];
		if (!text_glob_match(tm, g, name, &ev))
			continue;
		if (g->filter && !d->textdec) {
			ltap_warn("%sprobe %s: no local format for %s: its filter cannot apply, the events are skipped",
				  g->where, g->name, name);
			continue;
		}
		struct ltap_probe *p = ltap_probe_on(ctx, d, g->handler, g->filter, g->where);
		if (!p)
			return -1;
		if (g->filter && ltap_probe_user_filters(ctx, d, NULL))
			return -1;
	}
	return 0;
}

/* The id of a line's event; names first seen are matched against the globs. */
static int text_event_id(void *ud, const char *event)
{
	struct ltap_ctx *ctx = ud;
	struct ltap_textmode *tm = ctx->tm;
	struct tep_event *ev = NULL;
	struct ltap_evdesc *d;
	int id = text_id(tm, event), wanted = 0;

	if (id >= 0)
		return id;
	for (int i = 0; i < tm->nglobs && !wanted; i++)
		wanted = text_glob_match(tm, &tm->globs[i], event, &ev);
	if (!wanted) {
		if (tm->used < TEXT_NAMES_MAX)
			text_remember(tm, event, 0);
		return 0;
	}
	if (!ev)
		ev = text_local_event(tm, NULL, event);
	d = text_desc(ctx->L, ctx, event, ev, event);
	if (!d || text_add_globs(ctx, d, event, ev)) {
		ltap_err("replay: cannot follow event %s", event);
		ltap_loop_halt(ctx->loop);
		ctx->failed = 1;
		return 0;
	}
	return d->id;
}

/* a read of standard input (trace_pipe) interrupted by SIGINT */
/* A read was interrupted, or an overlong line is being skipped: whether a
 * SIGINT (SIGTERM, SIGHUP) says to stop reading. */
static int text_signal(void *ud)
{
	struct ltap_ctx *ctx = ud;
	if (!ctx->sigints && !ctx->interrupts_pending)
		return 0;
	if (!ctx->on_interrupt)
		return 1;
	return ltap_interrupt_dispatch(ctx);
}

int ltap_text_attach(struct ltap_ctx *ctx)
{
	struct ltap_textmode *tm = ctx->tm;

	for (int id = 1; id <= tm->next_id; id++) {
		struct ltap_evdesc *d = ctx->by_id[id];
		unsigned i;
		if (!d)
			continue;
		for (i = 0; i < tm->cap && !(tm->slots[i].name && tm->slots[i].id == id); i++)
			;
		if (i < tm->cap && text_add_globs(ctx, d, tm->slots[i].name, d->ev))
			return -1;
		if (d->textdec && ltap_probe_user_filters(ctx, d, NULL))
			return -1;
	}
	tm->src = ltap_textsrc_open(ctx->opt.input, text_event_id, ctx);
	if (!tm->src) {
		ltap_err("replay: cannot read %s: %s", ctx->opt.input, strerror(errno));
		return -1;
	}
	ltap_textsrc_on_signal(tm->src, text_signal, ctx);
	ltap_textsrc_start(tm->src);
	if (ltap_loop_add_stream(ctx->loop, ltap_textsrc_stream(tm->src)))
		return -1;
	ctx->start_time = ltap_textsrc_first_ts(tm->src);
	ctx->trace_now = ctx->start_time;
	return 0;
}

/* The line names its task: the comm and tgid it shows win. */
void ltap_text_event(struct ltap_ctx *ctx, const struct ltap_rec *r)
{
	const struct ltap_textrec *t = r->data;
	if (strncmp(ltap_proc_comm(ctx->proc, t->tid), t->comm, 15) != 0 || t->tgid >= 0) {
		ltap_proc_update(ctx->proc, t->tid, t->tgid, t->comm);
		ltap_event_forget_comm(ctx, t->tid);
	}
}

const struct ltap_rec *ltap_text_record(struct ltap_ctx *ctx, struct ltap_evdesc *d, const struct ltap_rec *r,
					uint64_t *present)
{
	struct ltap_textmode *tm = ctx->tm;
	struct ltap_textrec *t = (struct ltap_textrec *)r->data; /* the source's own, parsed lazily */

	if (!d->textdec) {
		if (present)
			*present = 0;
		return r;
	}
	if (tm->dec_desc != d || tm->dec_line != t->line) {
		int size = ltap_textdec_record(d->textdec, t, t->tid, tm->buf, TEXT_RECORD_MAX, &tm->present);
		tm->dec = *r;
		tm->dec.data = tm->buf;
		tm->dec.size = size < 0 ? 0 : size;
		tm->dec_desc = d;
		tm->dec_line = t->line;
	}
	if (present)
		*present = tm->present;
	return &tm->dec;
}

int ltap_text_read_error(struct ltap_ctx *ctx)
{
	return ctx->tm && ctx->tm->src ? ltap_textsrc_error(ctx->tm->src) : 0;
}

void ltap_text_report(struct ltap_ctx *ctx)
{
	long first, bad;

	if (!ctx->tm || !ctx->tm->src)
		return;
	bad = ltap_textsrc_malformed(ctx->tm->src, &first);
	if (bad)
		ltap_warn("replay: %ld line%s of %s %s not an event (the first: line %ld)", bad, bad == 1 ? "" : "s",
			  ctx->opt.input, bad == 1 ? "is" : "are", first);
}

void ltap_text_close(struct ltap_ctx *ctx)
{
	struct ltap_textmode *tm = ctx->tm;

	if (!tm)
		return;
	ltap_textsrc_close(tm->src);
	for (unsigned i = 0; tm->slots && i < tm->cap; i++)
		free(tm->slots[i].name);
	free(tm->slots);
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
	ctx->tm = NULL;
}
