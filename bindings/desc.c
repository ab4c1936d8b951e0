/* desc.c: the registry of a run's declarations: event descriptors (by
 * event id, the per-event array), the probes on them and their handlers.
 * Every declaration goes through here, whatever names the event: probe()
 * and its globs, profile(), a text trace's names (text.c), the task events
 * ltap follows. At attach the registry says what the sources are to do
 * (ltap_desc_plan) and which filters are left to user space. */
#include "ctx.h"

#include "catalog.h"
#include "filter.h"
#include "log.h"
#include "proc.h"
#include "source.h"
#include "symfield.h"
#include "tasks.h"

#include <errno.h>
#include <event-parse.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>

struct ltap_evdesc *ltap_desc_new(lua_State *L, struct ltap_ctx *ctx, int id, const struct ltap_desc_ops *ops)
{
	struct ltap_evdesc *d;

	if (id < 0 || id > 65535)
		luaL_error(L, "event id %d out of range", id);
	if (id >= ctx->nids) {
		int n = id + 64;
		struct ltap_evdesc **nb = realloc(ctx->by_id, (size_t)n * sizeof *nb);
		if (!nb)
			luaL_error(L, "out of memory");
		memset(nb + ctx->nids, 0, (size_t)(n - ctx->nids) * sizeof *nb);
		ctx->by_id = nb;
		ctx->nids = n;
	}
	d = calloc(1, sizeof *d);
	if (!d)
		luaL_error(L, "out of memory");
	d->id = id;
	d->ops = ops;
	d->tid_off = LTAP_REC_TID_OFFSET;
	ctx->by_id[id] = d;
	return d;
}

/* d's name table, field tables and name string: fields (nfields of them)
 * are d's own, name its e.name */
static void desc_names(lua_State *L, struct ltap_evdesc *d, const char *name)
{
	ltap_event_fields_tables(L, d);
	lua_pushstring(L, name);
	d->name_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

struct ltap_evdesc *ltap_desc_event(lua_State *L, struct ltap_ctx *ctx, int id, struct tep_event *ev,
				    const struct ltap_desc_ops *ops)
{
	struct ltap_evdesc *d = ltap_desc_new(L, ctx, id, ops);
	struct tep_format_field *f, *pid;
	char name[256];

	d->ev = ev;
	for (f = ev->format.fields; f; f = f->next)
		d->nfields++;
	d->fields = calloc((size_t)d->nfields + 1, sizeof *d->fields);
	if (!d->fields)
		luaL_error(L, "out of memory");
	d->nfields = 0;
	for (f = ev->format.fields; f; f = f->next)
		d->fields[d->nfields++] = f;
	if ((pid = tep_find_common_field(ev, "common_pid")) != NULL)
		d->tid_off = pid->offset;
	snprintf(name, sizeof name, "%s:%s", ev->system, ev->name);
	desc_names(L, d, name);
	return d;
}

struct ltap_evdesc *ltap_desc_synthetic(lua_State *L, struct ltap_ctx *ctx, int id, const char *name,
					const struct ltap_desc_ops *ops)
{
	struct ltap_evdesc *d = ltap_desc_new(L, ctx, id, ops);

	d->fields = calloc(1, sizeof *d->fields);
	if (!d->fields)
		luaL_error(L, "out of memory");
	desc_names(L, d, name);
	return d;
}

struct ltap_evdesc *ltap_desc_of(lua_State *L, struct ltap_ctx *ctx, struct tep_event *ev)
{
	if (ev->id < 0 || ev->id > 65535)
		luaL_error(L, "event %s:%s has a bad id %d", ev->system, ev->name, ev->id);
	if (ev->id < ctx->nids && ctx->by_id[ev->id])
		return ctx->by_id[ev->id];
	return ltap_desc_event(L, ctx, ev->id, ev, &ltap_kind_raw);
}

int ltap_handler_add(lua_State *L, struct ltap_ctx *ctx, int fn)
{
	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.handlers");
	lua_pushvalue(L, fn);
	lua_rawseti(L, -2, ++ctx->nprobes);
	lua_pop(L, 1);
	return ctx->nprobes;
}

struct ltap_probe *ltap_probe_on(struct ltap_ctx *ctx, struct ltap_evdesc *d, int handler, const char *filter,
				 const char *where)
{
	struct ltap_probe *p = calloc(1, sizeof *p), **pp;

	if (!p)
		return NULL;
	p->desc = d;
	p->filter = filter && *filter ? strdup(filter) : NULL;
	snprintf(p->where, sizeof p->where, "%s", where);
	if (d->ev)
		snprintf(p->spec, sizeof p->spec, "%s:%s", d->ev->system, d->ev->name);
	else
		snprintf(p->spec, sizeof p->spec, "profile");
	p->handler = handler;
	*ctx->probes_tail = p;
	ctx->probes_tail = &p->next;
	for (pp = &d->probes; *pp; pp = &(*pp)->next_same)
		;
	*pp = p;
	return p;
}

struct ltap_probe *ltap_probe_add(lua_State *L, struct ltap_ctx *ctx, struct ltap_evdesc *d, int fn,
				  const char *filter)
{
	struct ltap_probe *p;

	luaL_where(L, 1);
	p = ltap_probe_on(ctx, d, ltap_handler_add(L, ctx, fn), filter, lua_tostring(L, -1));
	lua_pop(L, 1);
	if (!p)
		luaL_error(L, "out of memory");
	return p;
}

/* the Lua work of ltap_desc_follow_tasks, under protection */
static int desc_follow_tasks(lua_State *L)
{
	struct ltap_ctx *ctx = lua_touserdata(L, 1);

	for (const struct ltap_task_spec *t = ltap_task_specs; t->event; t++) {
		struct tep_event *ev = ltap_catalog_event(ctx->cat, t->event);
		struct ltap_task_event te;
		struct ltap_evdesc *d;

		if (!ev || (t->gated && !ctx->gate.active) || ltap_task_event_init(&te, ev, t->kind))
			continue;
		d = ltap_desc_of(L, ctx, ev);
		if (!d->task && !(d->task = malloc(sizeof *d->task)))
			return luaL_error(L, "out of memory");
		*d->task = te;
		d->ops = &ltap_kind_task;
	}
	return 0;
}

int ltap_desc_follow_tasks(struct ltap_ctx *ctx)
{
	if (!ctx->nprobes)
		return 0;
	lua_pushcfunction(ctx->L, desc_follow_tasks);
	lua_pushlightuserdata(ctx->L, ctx);
	return ltap_call(ctx, 1, 0);
}

int ltap_desc_profiles_only(struct ltap_ctx *ctx)
{
	if (!ctx->nprobes || ctx->opt.input || ctx->opt.record)
		return 0;
	for (int id = 0; id < ctx->nids; id++)
		if (ctx->by_id[id] && ctx->by_id[id]->ev)
			return 0;
	return 1;
}

/* whether a probe of d before p has p's filter */
static int desc_filter_seen(struct ltap_evdesc *d, struct ltap_probe *p)
{
	for (struct ltap_probe *q = d->probes; q != p; q = q->next_same)
		if (strcmp(q->filter, p->filter) == 0)
			return 1;
	return 0;
}

/* The kernel's filter of an event: the union of its probes' filters (each
 * once, each also in parts), or none when one of them takes every event,
 * or ltap does (the task events it follows names with). 0, or -ENOMEM. */
static int desc_kernel_filter(struct ltap_evdesc *d, struct ltap_source_event *ev)
{
	struct ltap_source_filter *parts;
	size_t len = 1;
	int n = 0;
	char *out;

	if (d->task || !d->probes)
		return 0;
	for (struct ltap_probe *p = d->probes; p; p = p->next_same)
		if (!p->filter)
			return 0;
	for (struct ltap_probe *p = d->probes; p; p = p->next_same) {
		if (desc_filter_seen(d, p))
			continue;
		len += strlen(p->filter) + 8;
		n++;
	}
	out = calloc(1, len);
	parts = calloc((size_t)n, sizeof *parts);
	if (!out || !parts) {
		free(out);
		free(parts);
		return -ENOMEM;
	}
	n = 0;
	for (struct ltap_probe *p = d->probes; p; p = p->next_same) {
		if (desc_filter_seen(d, p))
			continue;
		parts[n++] = (struct ltap_source_filter){p->filter, p->where};
	}
	for (int i = 0; i < n; i++) {
		if (n > 1)
			strcat(strcat(strcat(out, *out ? " || (" : "("), parts[i].text), ")");
		else
			strcat(out, parts[i].text);
	}
	ev->filter = out;
	ev->parts = parts;
	ev->nparts = n;
	return 0;
}

int ltap_desc_plan(struct ltap_ctx *ctx, struct ltap_source_event **out)
{
	struct ltap_source_event *evs;
	int n = 0;

	*out = NULL;
	for (int id = 0; id < ctx->nids; id++)
		n += ctx->by_id[id] != NULL;
	if (!n)
		return 0;
	evs = calloc((size_t)n, sizeof *evs);
	if (!evs)
		return -ENOMEM;
	n = 0;
	for (int id = 0; id < ctx->nids; id++) {
		struct ltap_evdesc *d = ctx->by_id[id];
		struct ltap_source_event *ev = &evs[n];
		if (!d)
			continue;
		n++;
		ev->id = d->id;
		ev->perf = d->perf;
		ev->task_only = d->task && !d->probes;
		if (d->ev) {
			ev->sys = d->ev->system;
			ev->name = d->ev->name;
		} else if (d->probes) {
			ev->freq = d->probes->freq;
		}
		if (desc_kernel_filter(d, ev)) {
			ltap_desc_plan_free(evs, n);
			return -ENOMEM;
		}
	}
	*out = evs;
	return n;
}

void ltap_desc_plan_free(struct ltap_source_event *evs, int n)
{
	for (int i = 0; evs && i < n; i++) {
		free((char *)evs[i].filter);
		free((void *)evs[i].parts);
	}
	free(evs);
}

/* COMM in a user-space filter: the task's name as ltap follows it */
static const char *desc_comm(void *ud, int tid)
{
	struct ltap_ctx *ctx = ud;
	return ltap_proc_comm(ctx->proc, tid);
}

int ltap_desc_user_filters(struct ltap_ctx *ctx, struct ltap_evdesc *d, const char *kernel)
{
	for (struct ltap_probe *p = d->probes; p; p = p->next_same) {
		char why[1400];
		if (!p->filter || p->ufilter || (kernel && strcmp(kernel, p->filter) == 0))
			continue;
		p->ufilter = ltap_filter_new(d->ev, p->filter, desc_comm, ctx, why, sizeof why);
		if (!p->ufilter) {
			ltap_err("%sprobe %s:%s: bad filter '%s': %s%s", p->where, d->ev->system, d->ev->name, p->filter,
				 why, !ctx->opt.input && strstr(why, "kernel only") ?
				 " (another probe shares the event, so each filter is applied again in user space)" : "");
			return -1;
		}
	}
	return 0;
}

int ltap_desc_plan_filters(struct ltap_ctx *ctx, const struct ltap_source_event *evs, int n)
{
	for (int i = 0; i < n; i++) {
		struct ltap_evdesc *d = ctx->by_id[evs[i].id];
		if (d->ev && ltap_desc_user_filters(ctx, d, evs[i].in_kernel ? evs[i].filter : NULL))
			return -1;
	}
	return 0;
}

void ltap_descs_free(struct ltap_ctx *ctx)
{
	struct ltap_probe *p = ctx->probes, *next;

	for (; p; p = next) {
		next = p->next;
		if (p->ufilter)
			ltap_filter_free(p->ufilter);
		free(p->filter);
		free(p);
	}
	ctx->probes = NULL;
	ctx->probes_tail = &ctx->probes;
	for (int id = 0; id < ctx->nids; id++) {
		struct ltap_evdesc *d = ctx->by_id[id];
		if (!d)
			continue;
		if (d->ops->free)
			d->ops->free(d);
		ltap_symfields_free(d->sym);
		free(d->fields);
		free(d->task);
		free(d);
	}
	free(ctx->by_id);
	ctx->by_id = NULL;
	ctx->nids = 0;
}

void ltap_open_desc(lua_State *L, struct ltap_ctx *ctx)
{
	(void)ctx;
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.handlers");
}

struct ltap_evdesc *ltap_desc_at(struct ltap_ctx *ctx, int id)
{
	return id >= 0 && id < ctx->nids ? ctx->by_id[id] : NULL;
}
