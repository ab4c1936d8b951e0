/* probe.c: probe(), begin(), finish(), exit(), and the per-event dispatch.
 *
 * Load phase: probe() resolves the event and its fields once and keeps the
 * handler in the handlers table; nothing touches the kernel yet, so an unknown
 * event fails before anything is enabled. Run phase: the per-event path is an
 * array index by event id, a rawgeti of the handler, and ltap_call. */
#include "ctx.h"

#include "catalog.h"
#include "filter.h"
#include "instance.h"
#include "log.h"
#include "proc.h"
#include "text_decode.h"

#include <ctype.h>
#include <errno.h>
#include <event-parse.h>
#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ltap_evdesc *ltap_desc_new(lua_State *L, struct ltap_ctx *ctx, int id)
{
	struct ltap_evdesc *d;

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
	ctx->by_id[id] = d;
	return d;
}

void ltap_desc_set_event(lua_State *L, struct ltap_evdesc *d, struct tep_event *ev)
{
	struct tep_format_field *f;

	d->ev = ev;
	for (f = ev->format.fields; f; f = f->next)
		d->nfields++;
	d->fields = calloc((size_t)d->nfields + 1, sizeof *d->fields);
	if (!d->fields)
		luaL_error(L, "out of memory");
	d->nfields = 0;
	for (f = ev->format.fields; f; f = f->next)
		d->fields[d->nfields++] = f;
	d->common_pid = tep_find_common_field(ev, "common_pid");
	ltap_event_fields_tables(L, d);
	lua_pushfstring(L, "%s:%s", ev->system, ev->name);
	d->name_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

static struct ltap_evdesc *probe_desc(lua_State *L, struct ltap_ctx *ctx, struct tep_event *ev)
{
	struct ltap_evdesc *d;

	if (ev->id < 0 || ev->id > 65535)
		luaL_error(L, "event %s:%s has a bad id %d", ev->system, ev->name, ev->id);
	if (ev->id < ctx->nids && ctx->by_id[ev->id])
		return ctx->by_id[ev->id];
	d = ltap_desc_new(L, ctx, ev->id);
	ltap_desc_set_event(L, d, ev);
	return d;
}

static struct tep_event *probe_event(lua_State *L, struct ltap_ctx *ctx, const char *spec)
{
	struct tep_event *ev;
	char near[512];

	if (ltap_is_uprobe_spec(spec))
		return ltap_uprobe_event(L, ctx, spec);
	spec = ltap_catalog_strip_prefix(spec);
	ev = ltap_catalog_event(ctx->cat, spec);
	if (ev)
		return ev;
	ltap_catalog_suggest(ctx->cat, spec, near, sizeof near);
	if (near[0])
		luaL_error(L, "unknown event '%s' (did you mean %s?)", spec, near);
	luaL_error(L, "unknown event '%s' (see: ltap list)", spec);
	return NULL;
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

/* probe("kmem:*", ...): one probe per matching event, one handler */
struct probe_glob {
	lua_State *L;
	struct ltap_ctx *ctx;
	const char *filter, *where;
	int handler, stack;
};

static int probe_glob_one(void *ud, const char *spec)
{
	struct probe_glob *g = ud;
	struct tep_event *ev = ltap_catalog_event(g->ctx->cat, spec);
	struct ltap_evdesc *d;
	struct ltap_probe *p;

	if (!ev)
		return 0; /* listed but without a readable format */
	d = probe_desc(g->L, g->ctx, ev);
	p = ltap_probe_on(g->ctx, d, g->handler, g->filter, g->where);
	if (!p)
		luaL_error(g->L, "out of memory");
	p->stack = g->stack;
	if (g->stack)
		d->perf = 1;
	return 0;
}

static void probe_glob(lua_State *L, struct ltap_ctx *ctx, const char *spec, const char *filter, int fn, int stack)
{
	struct probe_glob g = {L, ctx, filter, NULL, 0, stack};
	int n;

	spec = ltap_catalog_strip_prefix(spec);
	luaL_where(L, 1);
	g.where = lua_tostring(L, -1);
	g.handler = ltap_handler_add(L, ctx, fn);
	n = ltap_catalog_glob(ctx->cat, spec, probe_glob_one, &g);
	if (n < 0)
		luaL_error(L, "probe %s: cannot list the events: %s", spec, strerror(-n));
	if (n == 0)
		luaL_error(L, "no event matches '%s' (see: ltap list)", spec);
	if (n > 100 && !ctx->opt.input)
		ltap_warn("%sprobe %s: %d events enabled: every one of them costs the traced system", g.where, spec, n);
	lua_pop(L, 1);
}

/* probe(EVENT, [FILTER | {filter=, stack=}], HANDLER): raises on an unknown
 * event. stack=true serves the event from the perf ring, with call chains. */
static int probe_probe(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	const char *spec = luaL_checkstring(L, 1);
	const char *filter = NULL;
	int fn = 2, stack = 0;
	struct ltap_evdesc *d;

	if (lua_type(L, 2) == LUA_TSTRING || (lua_isnil(L, 2) && lua_gettop(L) >= 3)) {
		filter = lua_tostring(L, 2); /* nil: no filter, for wrappers passing one on */
		fn = 3;
	} else if (lua_type(L, 2) == LUA_TTABLE) {
		static const struct ltap_optspec opts[] = {{"filter", "string"}, {"stack", "boolean"}, {NULL, NULL}};
		ltap_check_options(L, 2, "probe", opts);
		lua_getfield(L, 2, "filter");
		filter = lua_tostring(L, -1);
		lua_getfield(L, 2, "stack");
		stack = lua_toboolean(L, -1);
		lua_pop(L, 1); /* the filter string stays on the stack while used */
		fn = 3;
	}
	luaL_checktype(L, fn, LUA_TFUNCTION);
	if (ctx->running)
		return luaL_error(L, "probe: probes are declared when the script loads, not in handlers");
	if (ctx->text_mode) {
		ltap_text_probe(L, ctx, spec, filter, fn);
		return 0;
	}
	if (!ltap_is_uprobe_spec(spec) && ltap_catalog_is_glob(spec)) {
		probe_glob(L, ctx, spec, filter, fn, stack);
		return 0;
	}
	d = probe_desc(L, ctx, probe_event(L, ctx, spec));
	ltap_probe_add(L, ctx, d, fn, filter)->stack = stack;
	if (stack)
		d->perf = 1;
	return 0;
}

static int probe_hook(lua_State *L, const char *name)
{
	luaL_checktype(L, 1, LUA_TFUNCTION);
	lua_getfield(L, LUA_REGISTRYINDEX, name);
	lua_pushvalue(L, 1);
	lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
	return 0;
}

/* begin(FN): runs FN once the probes are attached. */
static int probe_begin(lua_State *L)
{
	return probe_hook(L, "ltap.begin");
}

/* finish(FN): runs FN at the end of the run (end, SIGINT, -d, command exit). */
static int probe_finish(lua_State *L)
{
	return probe_hook(L, "ltap.finish");
}

/* exit([CODE]): stops the run after this handler; finish hooks still run. */
static int probe_exit(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	lua_Integer code = luaL_optinteger(L, 1, -1);

	/* an exit status is one byte: exit(256) would be 0 */
	if (!lua_isnoneornil(L, 1) && (code < 0 || code > 255))
		return luaL_error(L, "exit: bad status %I (0 to 255)", code);
	ctx->exit_called = 1;
	ctx->exit_code = (int)code;
	if (ctx->loop)
		ltap_loop_halt(ctx->loop);
	return 0;
}

/* ltap.lost(): total lost events and a table of them per CPU. */
static int probe_lost(lua_State *L);

/* ltap.mark(TEXT): writes TEXT into the trace (an ftrace:print event in
 * ltap's instance), in order with the events: a marker of the script's own */
static int probe_mark(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	const char *text = luaL_checkstring(L, 1);
	int e;

	if (!ctx->inst)
		return luaL_error(L, "mark: only during a live run with probes (there is no trace to write into)");
	if ((e = ltap_instance_marker(ctx->inst, text)) != 0)
		return luaL_error(L, "mark: cannot write the marker: %s", strerror(-e));
	return 0;
}

static int probe_on_interrupt(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	luaL_checktype(L, 1, LUA_TFUNCTION);
	lua_pushvalue(L, 1);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.on_interrupt");
	ctx->on_interrupt = 1;
	return 0;
}

static const luaL_Reg probe_funcs[] = {
	{"probe", probe_probe},
	{"begin", probe_begin},
	{"finish", probe_finish},
	{"exit", probe_exit},
	{NULL, NULL},
};

void ltap_open_probe(lua_State *L)
{
	lua_pushglobaltable(L);
	luaL_setfuncs(L, probe_funcs, 0);
	lua_pop(L, 1);
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.handlers");
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.begin");
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.finish");
	lua_getglobal(L, "ltap");
	lua_pushcfunction(L, probe_lost);
	lua_setfield(L, -2, "lost");
	lua_pushcfunction(L, probe_mark);
	lua_setfield(L, -2, "mark");
	lua_pushcfunction(L, probe_on_interrupt);
	lua_setfield(L, -2, "on_interrupt");
	lua_pop(L, 1);
}

#include "src_sampler.h"
#include "src_tracepoint.h"

static int probe_lost(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	struct ltap_stream **ss;
	lua_Integer total = 0;
	int n = ctx->src ? ltap_tpsrc_streams(ctx->src, &ss) : 0;

	lua_newtable(L);
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < n; i++) {
			lua_rawgeti(L, -1, ss[i]->cpu);
			lua_pushinteger(L, lua_tointeger(L, -1) + (lua_Integer)ss[i]->lost);
			lua_rawseti(L, -3, ss[i]->cpu);
			lua_pop(L, 1);
			total += (lua_Integer)ss[i]->lost;
		}
		/* then the perf rings, counted in the same per-CPU slots */
		n = ctx->sampler ? ltap_sampler_streams(ctx->sampler, &ss) : 0;
	}
	lua_pushinteger(L, total);
	lua_insert(L, -2);
	return 2;
}

int ltap_run_hooks(struct ltap_ctx *ctx, const char *name)
{
	lua_State *L = ctx->L;
	lua_Integer n;

	ltap_event_clear(ctx);
	lua_getfield(L, LUA_REGISTRYINDEX, name);
	n = (lua_Integer)lua_rawlen(L, -1);
	for (lua_Integer i = 1; i <= n && !ctx->failed; i++) {
		lua_rawgeti(L, -1, i);
		if (ltap_call(ctx, 0, 0) != 0)
			break;
		ltap_report_flush(ctx);
		if (ctx->exit_called && strcmp(name, "ltap.begin") == 0)
			break;
	}
	lua_pop(L, 1);
	fflush(stdout);
	return ctx->failed ? -1 : 0;
}

/* Keeps comm and tgid right at each event's time. */
static void probe_task_event(struct ltap_ctx *ctx, struct ltap_evdesc *d, const struct ltap_rec *r)
{
	const char *data = r->data;
	int32_t cur, pid;
	char comm[16];

	memcpy(&cur, data + d->common_pid->offset, sizeof cur);
	pid = cur;
	if (d->task_pid)
		memcpy(&pid, data + d->task_pid->offset, sizeof pid);
	switch (d->task_kind) {
	case TASK_EXIT:
		return;
	case TASK_NEWTASK: {
		unsigned long long flags = tep_read_number(d->ev->tep, data + d->task_flags->offset,
							   d->task_flags->size);
		snprintf(comm, sizeof comm, "%.*s", d->task_comm->size, data + d->task_comm->offset);
		/* CLONE_THREAD: the new task joins its parent's process */
		ltap_proc_update(ctx->proc, pid, flags & 0x10000 ? ltap_proc_tgid(ctx->proc, cur) : pid, comm);
		break;
	}
	case TASK_RENAME:
		snprintf(comm, sizeof comm, "%.*s", d->task_comm->size, data + d->task_comm->offset);
		ltap_proc_update(ctx->proc, pid, -1, comm);
		break;
	case TASK_EXEC: {
		uint32_t loc;
		unsigned off, len;
		const char *base;
		memcpy(&loc, data + d->task_comm->offset, sizeof loc);
		off = loc & 0xffff;
		len = loc >> 16;
		if (off + len > (unsigned)r->size)
			return;
		base = data + off;
		for (const char *c = data + off; c < data + off + len && *c; c++)
			if (*c == '/')
				base = c + 1;
		/* the kernel names the task after the file's base name, cut to 15 */
		snprintf(comm, sizeof comm, "%.*s", (int)strnlen(base, (size_t)(data + off + len - base)), base);
		ltap_proc_update(ctx->proc, pid, pid, comm);
		break;
	}
	}
	ltap_event_forget_comm(ctx, pid);
}

/* Whether the event is a command's own (gate.h): what its process did
 * before its exec is ltap's. Perf-ring events start at the exec by
 * enable_on_exec. */
static int probe_gated(struct ltap_ctx *ctx, struct ltap_evdesc *d, const struct ltap_rec *r)
{
	int kind = d->task_kind == TASK_RENAME ? LTAP_GATE_EXEC : d->task_kind == TASK_EXIT ? LTAP_GATE_EXIT
											    : LTAP_GATE_EVENT;
	int32_t tid;
	int drop;

	if (!d->common_pid)
		return 0;
	memcpy(&tid, (const char *)r->data + d->common_pid->offset, sizeof tid);
	if (d->task_kind == TASK_NEWTASK) {
		int32_t pid;
		memcpy(&pid, (const char *)r->data + d->task_pid->offset, sizeof pid);
		ltap_gate_newtask(&ctx->gate, pid);
	}
	drop = ltap_gate_drop(&ctx->gate, tid, kind);
	if (kind == LTAP_GATE_EXEC && !ctx->gate.nwait && ctx->loop)
		ltap_loop_set_ordered(ctx->loop, ctx->opt.ordered); /* held in order until the exec */
	return drop && !d->perf;
}

int ltap_dispatch_event(void *ud, const struct ltap_rec *r)
{
	struct ltap_ctx *ctx = ud;
	lua_State *L = ctx->L;
	uint16_t id;
	struct ltap_evdesc *d;
	struct ltap_probe *p;

	if (!ctx->in_loop && (ctx->interrupts_pending || ctx->sigints)) {
		/* a replay reads on without batches: SIGINTs are seen here */
		if (ctx->sigints || ltap_interrupt_dispatch(ctx))
			return 1;
	}
	memcpy(&id, r->data, sizeof id);
	if (id >= ctx->nids || !(d = ctx->by_id[id]))
		return 0;
	if (ctx->gate.active && probe_gated(ctx, d, r))
		return 0;
	if (d->task_kind)
		probe_task_event(ctx, d, r);
	if (d->text)
		ltap_text_event(ctx, r);
	ctx->trace_now = r->ts;
	ltap_event_fill(ctx, d, r);
	for (p = d->probes; p; p = p->next_same) {
		if (p->ufilter) {
			/* a text trace's line is matched as the record it stands for */
			const struct ltap_rec *fr = d->text ? ltap_text_record(ctx, d, r, NULL) : r;
			if (!ltap_filter_match(p->ufilter, fr->data, (int)fr->size, r->cpu))
				continue;
		}
		lua_rawgeti(L, ctx->handlers_slot, p->handler);
		lua_pushvalue(L, ctx->event_slot);
		if (ltap_call(ctx, 1, 0) != 0 || ctx->exit_called)
			break;
	}
	ctx->event->rec = NULL;
	return ctx->failed || ctx->exit_called;
}

int ltap_skip_event(void *ud, const struct ltap_rec *r)
{
	struct ltap_ctx *ctx = ud;
	struct ltap_evdesc *d;
	uint16_t id;

	memcpy(&id, r->data, sizeof id);
	if (id >= ctx->nids || !(d = ctx->by_id[id]))
		return 0;
	if (ctx->gate.active && probe_gated(ctx, d, r))
		return 0;
	for (struct ltap_probe *p = d->probes; p; p = p->next_same)
		if (!p->ufilter || ltap_filter_match(p->ufilter, r->data, (int)r->size, r->cpu))
			return 1;
	return 0;
}

static struct ltap_evdesc *probe_internal(struct ltap_ctx *ctx, const char *spec, int kind,
					  const char *pidf, const char *commf, const char *flagsf)
{
	struct tep_event *ev = ltap_catalog_event(ctx->cat, spec);
	struct ltap_evdesc *d;

	if (!ev)
		return NULL;
	d = probe_desc(ctx->L, ctx, ev);
	d->task_kind = kind;
	d->task_pid = pidf ? tep_find_field(ev, pidf) : NULL;
	d->task_comm = tep_find_field(ev, commf);
	d->task_flags = flagsf ? tep_find_field(ev, flagsf) : NULL;
	if (!d->task_comm || (flagsf && !d->task_flags) || (kind == TASK_NEWTASK && !d->task_pid)) {
		d->task_kind = TASK_NONE;
		return NULL;
	}
	return d;
}

/* whether a probe of d before p has p's filter */
static int probe_filter_seen(struct ltap_evdesc *d, struct ltap_probe *p)
{
	for (struct ltap_probe *q = d->probes; q != p; q = q->next_same)
		if (strcmp(q->filter, p->filter) == 0)
			return 1;
	return 0;
}

/* The kernel's filter of an event: the union of its probes' filters (each
 * once), or none when one of them takes every event, or ltap does (the task
 * events it follows names with). NULL in *out for none; returns the number
 * of distinct filters, or -ENOMEM. */
static int probe_kernel_filter(struct ltap_evdesc *d, char **out)
{
	size_t len = 1;
	int n = 0;

	*out = NULL;
	if (d->task_kind)
		return 0;
	for (struct ltap_probe *p = d->probes; p; p = p->next_same)
		if (!p->filter)
			return 0;
	for (struct ltap_probe *p = d->probes; p; p = p->next_same) {
		if (probe_filter_seen(d, p))
			continue;
		len += strlen(p->filter) + 8;
		n++;
	}
	if (!n)
		return 0;
	*out = calloc(1, len);
	if (!*out)
		return -ENOMEM;
	for (struct ltap_probe *p = d->probes; p; p = p->next_same) {
		if (probe_filter_seen(d, p))
			continue;
		if (n > 1)
			strcat(strcat(strcat(*out, **out ? " || (" : "("), p->filter), ")");
		else
			strcat(*out, p->filter);
	}
	return n;
}

/* COMM in a user-space filter: the task's name as ltap follows it */
static const char *probe_comm(void *ud, int tid)
{
	struct ltap_ctx *ctx = ud;
	return ltap_proc_comm(ctx->proc, tid);
}

int ltap_probe_user_filters(struct ltap_ctx *ctx, struct ltap_evdesc *d, const char *kernel)
{
	for (struct ltap_probe *p = d->probes; p; p = p->next_same) {
		char why[1400];
		if (!p->filter || p->ufilter || (kernel && strcmp(kernel, p->filter) == 0))
			continue;
		p->ufilter = ltap_filter_new(d->ev, p->filter, probe_comm, ctx, why, sizeof why);
		if (!p->ufilter) {
			ltap_err("%sprobe %s:%s: bad filter '%s': %s%s", p->where, d->ev->system, d->ev->name, p->filter,
				 why, ctx->inst && strstr(why, "kernel only") ?
				 " (another probe shares the event, so each filter is applied again in user space)" : "");
			return -1;
		}
	}
	return 0;
}

/* System-wide, ltap leaves out its own events, as trace-cmd does: each read
 * of a ring is a syscall, and tracing them would feed the rings with events
 * of the reader itself (~9000 reads/s of nearly empty pages here). */
static char *probe_without_self(char *kf)
{
	char *out;
	int n = kf ? asprintf(&out, "(%s) && common_pid != %d", kf, (int)getpid())
		   : asprintf(&out, "common_pid != %d", (int)getpid());
	free(kf);
	return n < 0 ? NULL : out;
}

int ltap_probes_attach(struct ltap_ctx *ctx)
{
	char reason[512];

	/* follow task names, in order with the events */
	probe_internal(ctx, "task:task_newtask", TASK_NEWTASK, "pid", "comm", "clone_flags");
	struct tep_event *rename = ltap_catalog_event(ctx->cat, "task:task_rename");
	/* newer kernels dropped the pid field: the renamed task is the current one */
	probe_internal(ctx, "task:task_rename", TASK_RENAME,
		       rename && tep_find_field(rename, "pid") ? "pid" : NULL, "newcomm", NULL);
	probe_internal(ctx, "sched:sched_process_exec", TASK_EXEC, "pid", "filename", NULL);
	/* a command that never execs: its gate goes with it (gate.h) */
	if (ctx->gate.active)
		probe_internal(ctx, "sched:sched_process_exit", TASK_EXIT, "pid", "comm", NULL);

	for (int id = 0; id < ctx->nids; id++) {
		struct ltap_evdesc *d = ctx->by_id[id];
		char *kf, *applied;

		if (!d || !d->ev)
			continue;
		if (probe_kernel_filter(d, &kf) < 0)
			return -1;
		if (!ctx->inst || strcmp(d->ev->system, "ftrace") == 0) {
			/* replay, and ftrace's own events (which have no filter file, and
			 * whose markers may be ltap's own): filters apply in user space */
			free(kf);
			if (ltap_probe_user_filters(ctx, d, NULL))
				return -1;
			continue;
		}
		/* each probe whose filter is not the kernel's whole filter (a union,
		 * or none) is filtered again in user space, on every ring */
		if (ltap_probe_user_filters(ctx, d, kf)) {
			free(kf);
			return -1;
		}
		applied = kf;
		if (!ctx->opt.pid && !ctx->command.argv && (applied = probe_without_self(kf)) == NULL)
			return -1;
		if (applied && d->perf) {
			d->perf_filter = applied; /* PERF_EVENT_IOC_SET_FILTER, in profile.c */
		} else if (applied) {
			int e = ltap_instance_filter(ctx->inst, d->ev->system, d->ev->name, applied, reason, sizeof reason);
			free(applied);
			if (e) {
				for (struct ltap_probe *p = d->probes; p; p = p->next_same) {
					char one[512];
					/* find the probe whose filter the kernel refuses */
					if (p->filter && ltap_instance_filter(ctx->inst, d->ev->system, d->ev->name, p->filter,
									      one, sizeof one)) {
						ltap_err("%sprobe %s:%s: bad filter '%s': %s", p->where, d->ev->system,
							 d->ev->name, p->filter, one);
						return -1;
					}
				}
				ltap_err("probe %s:%s: bad filter: %s", d->ev->system, d->ev->name, reason);
				return -1;
			}
		}
	}
	for (int id = 0; ctx->inst && id < ctx->nids; id++) {
		struct ltap_evdesc *d = ctx->by_id[id];
		/* a probe on ftrace:print sees the markers programs write too */
		if (d && d->ev && !d->perf && strcmp(d->ev->system, "ftrace") == 0 && strcmp(d->ev->name, "print") == 0 &&
		    ltap_instance_copy_markers(ctx->inst))
			ltap_warn("probe ftrace:print: this kernel cannot copy trace_marker writes into ltap's "
				  "instance (no options/copy_trace_marker): only ltap.mark() reaches it");
		/* ftrace's own events (print, for markers) are always on: no enable file */
		if (d && d->ev && !d->perf && strcmp(d->ev->system, "ftrace") != 0 &&
		    ltap_instance_enable(ctx->inst, d->ev->system, d->ev->name) != 0)
			return -1;
	}
	return 0;
}

void ltap_probes_free(struct ltap_ctx *ctx)
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
		if (ctx->by_id[id]) {
			free(ctx->by_id[id]->fields);
			ltap_textdec_free(ctx->by_id[id]->textdec);
			free(ctx->by_id[id]->perf_filter);
			free(ctx->by_id[id]);
		}
	}
	free(ctx->by_id);
	ctx->by_id = NULL;
	ctx->nids = 0;
}
