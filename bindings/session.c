/* session.c: the ends of a run that are files, not the kernel:
 *   --input FILE   replays a saved trace through the same probes, timers and hooks
 *   --record FILE  saves the sub-buffers a live run reads as a trace.dat
 * A recording carries two ftrace:print marks, "ltap-record start=NS" and
 * "end=NS", so a replay runs its timers from the live run's start to its end
 * and prints what the live run printed. */
#include "ctx.h"

#include "catalog.h"
#include "instance.h"
#include "log.h"
#include "proc.h"
#include "record.h"
#include "src_replay.h"
#include "src_text.h"
#include "src_tracepoint.h"

#include <errno.h>
#include <event-parse.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *session_comm(void *ud, int tid)
{
	return ltap_replay_comm(ud, tid);
}

static const char *session_no_comm(void *ud, int tid)
{
	(void)ud;
	(void)tid;
	return NULL; /* a text trace names its tasks itself, line by line */
}

static int session_text_id(void *ud, const char *event)
{
	struct ltap_ctx *ctx = ud;
	for (int i = 1; i <= ctx->ntext; i++)
		if (strcmp(ctx->text_names[i], event) == 0)
			return i;
	return 0;
}

int ltap_session_replay_open(struct ltap_ctx *ctx)
{
	if (strcmp(ctx->opt.input, "-") != 0 && access(ctx->opt.input, R_OK) < 0) {
		ltap_err("replay: cannot read %s: %s", ctx->opt.input, strerror(errno));
		return -1;
	}
	/* anything that is not a trace.dat is taken for text */
	if (strcmp(ctx->opt.input, "-") == 0 || !ltap_replay_is_tracedat(ctx->opt.input)) {
		/* text: opened at attach, once the probes say which events matter */
		ctx->text_tep = tep_alloc();
		ctx->cat = ctx->text_tep ? ltap_catalog_from_tep(ctx->text_tep) : NULL;
		ctx->text_names = calloc(1, sizeof *ctx->text_names);
		ltap_proc_set_lookup(ctx->proc, session_no_comm, NULL);
		ctx->text_mode = 1;
		return ctx->cat && ctx->text_names ? 0 : -1;
	}
	ctx->replay = ltap_replay_open(ctx->opt.input);
	if (!ctx->replay)
		return -1;
	ctx->cat = ltap_catalog_from_tep(ltap_replay_tep(ctx->replay));
	if (!ctx->cat)
		return -1;
	ltap_proc_set_lookup(ctx->proc, session_comm, ctx->replay);
	return 0;
}

/* The descriptor of a text trace's event: matched by name (the text has
 * no system), fields from the line. */
struct ltap_evdesc *ltap_session_text_desc(lua_State *L, struct ltap_ctx *ctx, const char *spec, const char *filter)
{
	static struct tep_format_field text_pid = {.name = "common_pid", .offset = 4, .size = 4};
	const char *name = strrchr(spec, ':') ? strrchr(spec, ':') + 1 : spec;
	struct ltap_evdesc *d;
	char **names;
	int id;

	if (filter && *filter)
		luaL_error(L, "probe %s: filters over a text trace are not supported (test the fields in the handler)", spec);
	if (ltap_is_uprobe_spec(spec) || !*name)
		luaL_error(L, "probe %s: a text trace holds only what the kernel printed", spec);
	if ((id = session_text_id(ctx, name)) != 0)
		return ctx->by_id[id];
	names = realloc(ctx->text_names, (size_t)(ctx->ntext + 2) * sizeof *names);
	if (!names)
		luaL_error(L, "out of memory");
	ctx->text_names = names;
	names[++ctx->ntext] = strdup(name);
	d = ltap_desc_new(L, ctx, ctx->ntext);
	d->text = 1;
	d->common_pid = &text_pid;
	d->fields = calloc(1, sizeof *d->fields);
	if (!names[ctx->ntext] || !d->fields)
		luaL_error(L, "out of memory");
	d->fields_ref = ltap_event_fields_table(L, d);
	lua_pushstring(L, spec);
	d->name_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	return d;
}

/* The line names its task: the comm and tgid it shows win. */
void ltap_session_text_event(struct ltap_ctx *ctx, const struct ltap_rec *r)
{
	const struct ltap_textrec *t = r->data;
	if (strncmp(ltap_proc_comm(ctx->proc, t->tid), t->comm, 15) != 0 || t->tgid >= 0) {
		ltap_proc_update(ctx->proc, t->tid, t->tgid, t->comm);
		ltap_event_forget_comm(ctx, t->tid);
	}
}

/* a read of standard input (trace_pipe) interrupted by SIGINT */
static int session_text_signal(void *ud)
{
	struct ltap_ctx *ctx = ud;
	if (!ctx->on_interrupt)
		return 1;
	return ltap_interrupt_dispatch(ctx);
}

static int session_text_attach(struct ltap_ctx *ctx)
{
	ctx->text = ltap_textsrc_open(ctx->opt.input, session_text_id, ctx);
	if (!ctx->text) {
		ltap_err("replay: cannot read %s: %s", ctx->opt.input, strerror(errno));
		return -1;
	}
	ltap_textsrc_on_signal(ctx->text, session_text_signal, ctx);
	if (ltap_loop_add_stream(ctx->loop, ltap_textsrc_stream(ctx->text)))
		return -1;
	ctx->start_time = ltap_textsrc_first_ts(ctx->text);
	ctx->trace_now = ctx->start_time;
	return 0;
}

int ltap_session_replay_attach(struct ltap_ctx *ctx)
{
	struct ltap_stream **ss;
	int n;

	if (ctx->opt.pid || ctx->opt.command) {
		ltap_err("replay: -p and -c need a live run, not --input");
		return -1;
	}
	if (ctx->text_mode)
		return session_text_attach(ctx);
	n = ltap_replay_streams(ctx->replay, &ss);
	if (ctx->nprobes && ltap_probes_attach(ctx))
		return -1;
	for (int i = 0; i < n; i++)
		if (ltap_loop_add_stream(ctx->loop, ss[i]))
			return -1;
	ctx->start_time = ltap_replay_start(ctx->replay);
	ctx->trace_now = ctx->start_time;
	return 0;
}

void ltap_session_replay_run(struct ltap_ctx *ctx)
{
	uint64_t end;

	ltap_loop_replay(ctx->loop);
	end = ctx->replay ? ltap_replay_end(ctx->replay) : 0;
	if (!ctx->failed && !ctx->exit_called)
		ltap_loop_finish(ctx->loop, end ? end : ctx->trace_now);
	if (ctx->text) {
		long first, bad = ltap_textsrc_malformed(ctx->text, &first);
		if (bad)
			ltap_warn("replay: %ld line%s of %s %s not an event (the first: line %ld)", bad,
				  bad == 1 ? "" : "s", ctx->opt.input, bad == 1 ? "is" : "are", first);
	}
}

int ltap_session_record_start(struct ltap_ctx *ctx, int64_t offset)
{
	struct ltap_stream **ss;
	int n = ltap_tpsrc_streams(ctx->src, &ss), ncpu = 0;

	if (!ctx->opt.record)
		return 0;
	for (int i = 0; i < n; i++)
		if (ss[i]->cpu + 1 > ncpu)
			ncpu = ss[i]->cpu + 1;
	ctx->recorder = ltap_recorder_open(ctx->opt.record, ncpu, ltap_tpsrc_subbuf_size(ctx->src));
	if (!ctx->recorder)
		return -1;
	ctx->record_offset = offset;
	ltap_tpsrc_record(ctx->src, ctx->recorder);
	return ltap_catalog_event(ctx->cat, "ftrace:print") ? 0 : -1;
}

void ltap_session_record_mark(struct ltap_ctx *ctx, const char *what, uint64_t ns)
{
	char text[64];
	if (!ctx->recorder)
		return;
	snprintf(text, sizeof text, "ltap-record %s=%llu", what, (unsigned long long)ns);
	if (ltap_instance_marker(ctx->inst, text))
		ltap_warn("record: cannot mark the %s of the run in the trace", what);
}

int ltap_session_record_finish(struct ltap_ctx *ctx)
{
	const char **events;
	char *cmdlines, (*names)[300];
	int n = 0, rc;

	if (!ctx->recorder)
		return 0;
	ltap_tpsrc_record(ctx->src, NULL);
	events = calloc((size_t)ctx->nids + 2, sizeof *events);
	cmdlines = ltap_proc_cmdlines(ctx->proc);
	names = calloc((size_t)ctx->nids + 2, sizeof *names);
	if (!events || !cmdlines || !names) {
		free(events);
		free(cmdlines);
		free(names);
		ltap_recorder_abort(ctx->recorder);
		ctx->recorder = NULL;
		return -1;
	}
	for (int id = 0; id < ctx->nids; id++)
		if (ctx->by_id[id] && strcmp(ctx->by_id[id]->ev->system, "ftrace") != 0) {
			snprintf(names[n], sizeof names[n], "%s/%s", ctx->by_id[id]->ev->system, ctx->by_id[id]->ev->name);
			events[n] = names[n];
			n++;
		}
	snprintf(names[n], sizeof names[n], "ftrace/print");
	events[n] = names[n];
	n++;
	rc = ltap_recorder_close(ctx->recorder, events, n, cmdlines, ctx->record_offset);
	ctx->recorder = NULL;
	if (rc == 0 && ctx->opt.verbose)
		ltap_info("recorded the run in %s", ctx->opt.record);
	free(events);
	free(cmdlines);
	free(names);
	return rc;
}

void ltap_session_close(struct ltap_ctx *ctx)
{
	if (ctx->recorder) {
		ltap_recorder_abort(ctx->recorder);
		ctx->recorder = NULL;
	}
	ltap_replay_close(ctx->replay);
	ctx->replay = NULL;
	if (ctx->text)
		ltap_textsrc_close(ctx->text);
	ctx->text = NULL;
	for (int i = 1; ctx->text_names && i <= ctx->ntext; i++)
		free(ctx->text_names[i]);
	free(ctx->text_names);
	ctx->text_names = NULL;
	if (ctx->text_tep)
		tep_free(ctx->text_tep);
	ctx->text_tep = NULL;
}
