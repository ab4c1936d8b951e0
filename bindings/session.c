/* session.c: the ends of a run that are files, not the kernel:
 *   --input FILE   replays a saved trace through the same probes, timers and hooks
 *   --record FILE  saves the sub-buffers a live run reads as a trace.dat
 * A recording carries two ftrace:print marks, "ltap-record start=NS" and
 * "end=NS", so a replay runs its timers from the live run's start to its end
 * and prints what the live run printed; "command=PID" after the start and
 * "measure=PID" marks name the commands held at a start gate, so the replay
 * counts them from their exec as the live run did. */
#include "ctx.h"

#include "catalog.h"
#include "instance.h"
#include "log.h"
#include "proc.h"
#include "record.h"
#include "src_replay.h"
#include "src_tracepoint.h"

#include <errno.h>
#include <event-parse.h>
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *session_comm(void *ud, int tid)
{
	return ltap_replay_comm(ud, tid);
}

int ltap_session_replay_open(struct ltap_ctx *ctx)
{
	struct stat st;

	if (strcmp(ctx->opt.input, "-") != 0 && (access(ctx->opt.input, R_OK) < 0 || stat(ctx->opt.input, &st) < 0)) {
		ltap_err("replay: cannot read %s: %s", ctx->opt.input, strerror(errno));
		return -1;
	}
	if (strcmp(ctx->opt.input, "-") != 0 && S_ISDIR(st.st_mode)) {
		ltap_err("replay: cannot read %s: %s", ctx->opt.input, strerror(EISDIR));
		return -1;
	}
	/* anything that is not a trace.dat is taken for text; a FIFO or a
	 * device is read once, as text (a trace.dat needs seeks) */
	if (strcmp(ctx->opt.input, "-") == 0 || !S_ISREG(st.st_mode) || !ltap_replay_is_tracedat(ctx->opt.input))
		return ltap_text_open(ctx);
	ctx->replay = ltap_replay_open(ctx->opt.input);
	if (!ctx->replay)
		return -1;
	ctx->cat = ltap_catalog_from_tep(ltap_replay_tep(ctx->replay));
	if (!ctx->cat)
		return -1;
	ltap_proc_set_lookup(ctx->proc, session_comm, ctx->replay);
	ltap_replay_set_gate(ctx->replay, &ctx->gate);
	return 0;
}

int ltap_session_replay_attach(struct ltap_ctx *ctx)
{
	struct ltap_stream **ss;
	int n;

	if (ctx->opt.pid || ctx->command.argv) {
		ltap_err("replay: -p and -c need a live run, not --input");
		return -1;
	}
	if (ctx->text_mode)
		return ltap_text_attach(ctx);
	n = ltap_replay_streams(ctx->replay, &ss);
	if (ltap_replay_command(ctx->replay)) {
		ltap_gate_hold(&ctx->gate, ltap_replay_command(ctx->replay));
		ltap_loop_set_ordered(ctx->loop, 1);
	}
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
	/* the input ended early: what the script saw is not the file */
	if (ctx->replay && ltap_replay_error(ctx->replay) && !ctx->failed) {
		ltap_err("replay: cannot read %s: %s", ctx->opt.input, ltap_replay_error(ctx->replay));
		ctx->failed = 1;
	}
	if (ctx->text_mode && ltap_text_read_error(ctx) && !ctx->failed) {
		ltap_err("replay: cannot read %s: %s", ctx->opt.input, strerror(ltap_text_read_error(ctx)));
		ctx->failed = 1;
		return;
	}
	end = ctx->replay ? ltap_replay_end(ctx->replay) : 0;
	if (!ctx->failed && !ctx->exit_called)
		ltap_loop_finish(ctx->loop, end ? end : ctx->trace_now);
	if (ctx->trace_now < end)
		ctx->trace_now = end; /* finish hooks run at the recorded end */
	if (ctx->text_mode)
		ltap_text_report(ctx);
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
	char text[96];
	int n;
	if (!ctx->recorder)
		return;
	n = snprintf(text, sizeof text, "ltap-record %s=%llu", what, (unsigned long long)ns);
	/* the -c command, held at its gate now: a replay drops what it does
	 * before its exec, as the live run did (gate.h) */
	if (strcmp(what, "start") == 0 && ctx->have_child)
		snprintf(text + n, sizeof text - (size_t)n, " command=%d", (int)ctx->child.pid);
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
	ltap_text_close(ctx);
}
