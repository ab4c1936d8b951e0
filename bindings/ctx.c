/* ctx.c: a run from start to end: the Lua state, the load phase, then the
 * sources attached, the loop, the final drain, end hooks and a clean kernel
 * on every path. Live or replay, a run does the same to each of its sources
 * (runtime/source.h); only which sources it opens differs: the tracefs
 * instance and the perf rings, or the file named by --input. */
#include "ctx.h"

#include "catalog.h"
#include "guardian.h"
#include "log.h"
#include "proc.h"
#include "progress.h"
#include "source.h"
#include "src_replay.h"
#include "src_sampler.h"
#include "src_tracepoint.h"
#include "symbols.h"
#include "targetopt.h"
#include "uprobe.h"

#include <errno.h>
#include <lauxlib.h>
#include <lualib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int ctx_add_source(struct ltap_ctx *ctx, struct ltap_source *s)
{
	if (!s)
		return -1;
	ctx->sources[ctx->nsources++] = s;
	return 0;
}

/* --input FILE: a trace.dat, or anything else as text; the formats its
 * probes resolve against come with it */
static int ctx_open_input(struct ltap_ctx *ctx)
{
	const char *path = ctx->opt.input;
	struct ltap_replay *r;
	struct stat st;

	if (strcmp(path, "-") != 0 && (access(path, R_OK) < 0 || stat(path, &st) < 0)) {
		ltap_err("replay: cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (strcmp(path, "-") != 0 && S_ISDIR(st.st_mode)) {
		ltap_err("replay: cannot read %s: %s", path, strerror(EISDIR));
		return -1;
	}
	if (ctx->opt.progress) {
		const char *base = strrchr(path, '/');
		char what[80];
		snprintf(what, sizeof what, "replay %.60s", strcmp(path, "-") == 0 ? "standard input" : base ? base + 1 : path);
		ctx->progress = ltap_progress_new(what);
	}
	/* anything that is not a trace.dat is taken for text; a FIFO or a
	 * device is read once, as text (a trace.dat needs seeks) */
	if (strcmp(path, "-") == 0 || !S_ISREG(st.st_mode) || !ltap_replay_is_tracedat(path))
		return ltap_text_open(ctx);
	/* the reader learns the trace's end only for a progress line */
	if (!(r = ltap_replay_open(path, ctx->progress ? LTAP_REPLAY_LAST : 0)))
		return -1;
	ctx_add_source(ctx, ltap_replay_source(r));
	ltap_replay_set_gate(r, &ctx->gate);
	ctx->cat = ltap_catalog_from_tep(ltap_replay_tep(r));
	return ctx->cat ? 0 : -1;
}

/* a live run: this machine's formats, its tracefs instance and perf rings */
static int ctx_open_live(struct ltap_ctx *ctx)
{
	ctx->cat = ltap_catalog_open();
	if (!ctx->cat || ctx_add_source(ctx, ltap_tpsrc_new()) || ctx_add_source(ctx, ltap_sampler_new(ctx->syms)))
		return -1;
	return 0;
}

struct ltap_ctx *ltap_ctx_new(const struct ltap_options *opt)
{
	struct ltap_ctx *ctx = calloc(1, sizeof *ctx);
	lua_State *L;

	if (!ctx)
		return NULL;
	ctx->opt = *opt;
	ctx->probes_tail = &ctx->probes;
	ctx->child.gate_fd = ctx->child.err_fd = -1;
	ltap_gate_init(&ctx->gate);
	if (opt->command) {
		char why[4200];
		if (ltap_targetopt_command(opt->command, &ctx->command, why, sizeof why)) {
			ltap_err("%s", why);
			free(ctx);
			return NULL;
		}
	}
	/* the guardian starts with the first change listed with it (a command's
	 * cgroup, the instance, a uprobe group), not before: runs that change
	 * nothing fork nothing */
	if (!opt->input)
		ltap_guardian_reap_first();
	ctx->proc = ltap_proc_new();
	ctx->syms = ltap_symbols_new();
	if (!ctx->proc || !ctx->syms || (opt->input ? ctx_open_input(ctx) : ctx_open_live(ctx)) ||
	    !(ctx->L = L = ltap_memory_state(ctx))) {
		ltap_ctx_free(ctx);
		return NULL;
	}
	*(struct ltap_ctx **)lua_getextraspace(L) = ctx;
	luaL_openlibs(L);
	ltap_open_api(L, ctx);

	lua_settop(L, 0);
	ltap_dispatch_slots(L, ctx);
	ltap_signals_install(ctx);

	lua_getglobal(L, "require");
	lua_pushliteral(L, "ltap.prelude");
	if (ltap_call(ctx, 1, 0) != 0) {
		ltap_ctx_free(ctx);
		return NULL;
	}
	return ctx;
}

/* Closes every source: kernel state first, as early as the run ends. */
static void ctx_close_sources(struct ltap_ctx *ctx)
{
	for (int i = 0; i < ctx->nsources; i++)
		ctx->sources[i]->ops->close(ctx->sources[i]);
	ctx->nsources = 0;
}

void ltap_ctx_free(struct ltap_ctx *ctx)
{
	if (!ctx)
		return;
	ltap_signals_restore();
	ltap_progress_free(ctx->progress);
	if (ctx->L) {
		lua_sethook(ctx->L, NULL, 0, 0);
		lua_close(ctx->L);
	}
	ltap_descs_free(ctx);
	ltap_catalog_close(ctx->cat); /* a trace's catalog borrows its source's formats */
	ctx_close_sources(ctx);
	if (ctx->face && ctx->face->close)
		ctx->face->close(ctx);
	ltap_uprobes_free(ctx->uprobes); /* after the instance: enabled events cannot go */
	ltap_symbols_free(ctx->syms);
	ltap_metrics_free(ctx); /* before the loop it watches */
	ltap_loop_free(ctx->loop);
	ltap_proc_free(ctx->proc);
	ltap_cmd_free(&ctx->command);
	free(ctx);
}

/* ltap.script_header: the script's leading comment lines, as written (the
 * header ltap scripts lists: name, summary, usage, example), for its -h
 * (ltap.getopt); nil when it starts with code. */
static void ctx_header(lua_State *L, const char *code, size_t len)
{
	const char *end = code, *stop = code + len, *nl;

	while (stop - end >= 2 && end[0] == '-' && end[1] == '-')
		end = (nl = memchr(end, '\n', (size_t)(stop - end))) ? nl + 1 : stop;
	lua_getglobal(L, "ltap");
	if (end > code)
		lua_pushlstring(L, code, (size_t)(end - code));
	else
		lua_pushnil(L);
	lua_setfield(L, -2, "script_header");
	lua_pop(L, 1); /* ltap */
}

int ltap_ctx_load(struct ltap_ctx *ctx, const struct ltap_chunk *c, const char *chunkname,
		  int argc, char **argv, const char *arg0)
{
	lua_State *L = ctx->L;

	/* arg as lua.c makes it: arg[0] the script, arg[1..] its arguments */
	lua_createtable(L, argc, 1);
	lua_pushstring(L, arg0);
	lua_rawseti(L, -2, 0);
	for (int i = 0; i < argc; i++) {
		lua_pushstring(L, argv[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setglobal(L, "arg");
	/* the name usage errors are reported under (ltap_usage_report) */
	lua_pushstring(L, arg0);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.script");
	ctx_header(L, c->src, c->len);
	if (ltap_chunk_load(L, c, chunkname) != LUA_OK) {
		if (!c->code && c->len && c->src[0] == LUA_SIGNATURE[0])
			ltap_err("%s: a precompiled Lua chunk: ltap loads scripts as source only", arg0);
		else
			ltap_err("%s", lua_tostring(L, -1));
		lua_pop(L, 1);
		return -1;
	}
	for (int i = 0; i < argc; i++)
		lua_pushstring(L, argv[i]);
	return ltap_call(ctx, argc, 0);
}

static void ctx_child(void *ud)
{
	struct ltap_ctx *ctx = ud;
	if (ctx->have_child && ltap_target_reap(&ctx->child))
		ltap_loop_stop(ctx->loop);
}

/* Between batches, outside any handler: the script's SIGINT handler, then
 * what paused streams wait for. 0 when the run ends. */
static int ctx_between(struct ltap_ctx *ctx)
{
	int ends = ctx->interrupts_pending && ltap_interrupt_dispatch(ctx);

	ends |= ctx->sigints || ctx->failed || ctx->exit_called || ctx->quit;
	for (int i = 0; i < ctx->nsources && !ends; i++)
		if (ctx->sources[i]->ops->between)
			ctx->sources[i]->ops->between(ctx->sources[i]);
	return !ends;
}

/* how far the replay is: its source's progress, on the line */
static void ctx_progress(struct ltap_ctx *ctx)
{
	uint64_t done, total;
	int unit;

	for (int i = 0; i < ctx->nsources; i++)
		if (ctx->sources[i]->ops->progress &&
		    (unit = ctx->sources[i]->ops->progress(ctx->sources[i], &done, &total)) >= 0)
			ltap_progress_show(ctx->progress, done, total, (enum ltap_progress_unit)unit);
}

static void ctx_batch(void *ud)
{
	struct ltap_ctx *ctx = ud;

	if (ltap_progress_due(ctx->progress))
		ctx_progress(ctx);
	ctx_between(ctx);
}

/* -p's threads, or the -c command started and held at its start gate */
static int ctx_targets(struct ltap_ctx *ctx, pid_t **pids, int *npids)
{
	int e;

	*pids = NULL;
	*npids = 0;
	if (ctx->opt.pid) {
		e = ltap_target_threads(ctx->opt.pid, pids, npids);
		if (e) {
			ltap_err("target: -p %d: %s", (int)ctx->opt.pid,
				 e == -ESRCH ? "no such process" : strerror(-e));
			return -1;
		}
	}
	if (ctx->command.argv) {
		e = ltap_target_spawn(&ctx->command, &ctx->child);
		if (e) {
			ltap_err("target: cannot start '%s': %s", ctx->command.text, strerror(-e));
			return -1;
		}
		ctx->have_child = 1;
		/* its events count from its exec, in order until then (gate.h) */
		ltap_gate_hold(&ctx->gate, ctx->child.pid);
		if (!(*pids = malloc(sizeof **pids)))
			return -1;
		(*pids)[0] = ctx->child.pid;
		*npids = 1;
	}
	return 0;
}

/* A task's name changed by a perf ring's record (profiles only): what
 * the task events' kind does (kinds.c, dispatch.c) for the event object's
 * cached name and a held command's exec. */
static void ctx_task_changed(void *ud, int tid, int exec)
{
	struct ltap_ctx *ctx = ud;

	ltap_event_forget_comm(ctx, tid);
	if (!exec || !ctx->gate.active)
		return;
	ltap_gate_drop(&ctx->gate, tid, LTAP_GATE_EXEC); /* opens its gate */
	if (!ctx->gate.nwait)
		ltap_loop_set_ordered(ctx->loop, ctx->opt.ordered);
}

/* The targets, then every source attached to what the script declared
 * (and the task events followed: the exit too while a command is held),
 * its streams in the loop; the filters the kernel does not apply as they
 * are go to user space. */
static int ctx_attach_sources(struct ltap_ctx *ctx)
{
	struct ltap_source_env env = {
		.buffer_kb = ctx->opt.buffer_kb, .record = ctx->opt.record, .verbose = ctx->opt.verbose,
		.cat = ctx->cat, .proc = ctx->proc, .gate = &ctx->gate,
	};
	pid_t *pids;
	int rc = -1;

	if (ctx_targets(ctx, &pids, &env.npids))
		goto out;
	if (ltap_desc_profiles_only(ctx)) {
		env.task_changed = ctx_task_changed;
		env.task_ud = ctx;
	} else if (ltap_desc_follow_tasks(ctx)) {
		goto out;
	}
	env.pids = pids;
	env.command = ctx->have_child ? ctx->child.pid : 0;
	if ((env.nevents = ltap_desc_plan(ctx, &env.events)) < 0)
		goto out;
	for (int i = 0; i < ctx->nsources; i++)
		if (ctx->sources[i]->ops->attach(ctx->sources[i], &env))
			goto out;
	if (ltap_desc_plan_filters(ctx, env.events, env.nevents))
		goto out;
	for (int i = 0; i < ctx->nsources; i++) {
		struct ltap_stream **ss;
		int n = ctx->sources[i]->ops->streams(ctx->sources[i], &ss);
		for (int k = 0; k < n; k++)
			if (ltap_loop_add_stream(ctx->loop, ss[k]))
				goto out;
	}
	rc = 0;
out:
	ltap_desc_plan_free(env.events, env.nevents);
	free(pids);
	return rc;
}

/* A stream that paused before its first record (a text's first event
 * wants a descriptor, a signal came during the first read) gets the front
 * end's turns before the run starts, whose start may be that record's. */
static void ctx_settle(struct ltap_ctx *ctx)
{
	for (int i = 0; i < ctx->nsources; i++) {
		struct ltap_stream **ss;
		int n = ctx->sources[i]->ops->streams(ctx->sources[i], &ss);
		for (int k = 0; k < n; k++)
			while (ss[k]->paused && ctx_between(ctx))
				ss[k]->ops->fill(ss[k]);
	}
}

/* The run's start (and a recording's end, else 0) on the trace clock: a
 * saved trace's own, or now. */
static uint64_t ctx_span(struct ltap_ctx *ctx, uint64_t *end)
{
	uint64_t start = 0;
	int known = 0;

	*end = 0;
	for (int i = 0; i < ctx->nsources; i++)
		if (ctx->sources[i]->ops->span) {
			ctx->sources[i]->ops->span(ctx->sources[i], &start, end);
			known = 1;
		}
	return known ? start : ltap_now();
}

static int ctx_attach(struct ltap_ctx *ctx)
{
	static const struct ltap_loop_hooks hooks = {
		.event = ltap_dispatch_event,
		.timer = ltap_dispatch_timer,
		.child = ctx_child,
		.batch = ctx_batch,
		.skip = ltap_skip_event,
	};
	struct ltap_loop_hooks h = hooks;
	uint64_t end;

	h.ud = ctx;
	if (ctx->opt.pid && kill(ctx->opt.pid, 0) < 0 && errno == ESRCH) {
		ltap_err("target: -p %d: no such process", (int)ctx->opt.pid);
		return -1;
	}
	ctx->loop = ltap_loop_new(&h);
	if (!ctx->loop)
		return -1;
	ltap_loop_set_ordered(ctx->loop, ctx->opt.ordered);
	if (ltap_metrics_bind(ctx)) /* a port in use fails before the kernel is touched */
		return -1;
	if (ctx->sigints) /* SIGINT while the script loaded */
		ltap_loop_stop(ctx->loop);
	if (ctx->opt.input && ctx->counters) {
		ltap_err("replay: counters count a live run, not a saved trace");
		return -1;
	}
	if (ctx->opt.input && (ctx->opt.pid || ctx->command.argv)) {
		ltap_err("replay: -p and -c need a live run, not --input");
		return -1;
	}
	if (ctx->opt.input)
		ltap_loop_set_replay(ctx->loop);
	else
		ltap_loop_set_realtime(ctx->loop, ctx->opt.max_drain);
	if (ctx->progress) /* a replay's: its line redrawn at turns */
		ltap_loop_set_turns(ctx->loop, LTAP_PROGRESS_EVERY);
	if ((ctx->face && ctx->face->attach(ctx)) || ctx_attach_sources(ctx) || ltap_counters_attach(ctx))
		return -1;
	if (ctx->gate.active)
		ltap_loop_set_ordered(ctx->loop, 1); /* a held command's events in order until its exec */
	ctx_settle(ctx);
	ctx->start_time = ctx_span(ctx, &end);
	ctx->trace_now = ctx->start_time;
	if (ltap_timers_attach(ctx))
		return -1;
	for (int i = 0; i < ctx->nsources; i++)
		if (ctx->sources[i]->ops->enable && ctx->sources[i]->ops->enable(ctx->sources[i], 1, ctx->start_time))
			return -1;
	ctx->running = 1;
	lua_getglobal(ctx->L, "ltap");
	lua_pushinteger(ctx->L, ctx->have_child ? ctx->child.pid : ctx->opt.pid);
	lua_setfield(ctx->L, -2, "target");
	lua_pop(ctx->L, 1);
	return 0;
}

struct ctx_lost {
	uint64_t total;
	char per[1024];
};

static void ctx_lost_one(void *ud, const struct ltap_source *s, const struct ltap_stream *st,
			 const struct ltap_source_counts *c)
{
	struct ctx_lost *l = ud;
	uint64_t d = c->lost - st->skipped; /* the kernel's: the drain's are told apart */
	size_t used = strlen(l->per);

	if (!d)
		return;
	snprintf(l->per + used, sizeof l->per - used, "%scpu%d %llu%s%s%s", l->total ? ", " : "", st->cpu,
		 (unsigned long long)d, s->ops->loss_note ? " (" : "", s->ops->loss_note ? s->ops->loss_note : "",
		 s->ops->loss_note ? ")" : "");
	l->total += d;
}

/* What the kernel dropped, per CPU of each source, and what the final
 * drain left (source.h's one reader of both). */
static void ctx_report_lost(struct ltap_ctx *ctx, uint64_t skipped)
{
	struct ctx_lost l = {0, ""};

	ltap_sources_counts(ctx->sources, ctx->nsources, ctx_lost_one, &l);
	if (l.total)
		ltap_warn("lost %llu events (%s): the ring was full; try a larger -b", (unsigned long long)l.total, l.per);
	if (skipped)
		ltap_warn("lost %llu events: the final drain stopped after %.1f s and left them undispatched; "
			  "--max-drain DURATION sets another bound",
			  (unsigned long long)skipped, (double)ctx->opt.max_drain / 1e9);
}

/* The command's exit status as ltap's own (a shell's 128 + N for a
 * signal N), when it ended on its own before the run did; -1 otherwise. */
static int ctx_command_status(struct ltap_ctx *ctx)
{
	int st = ctx->child.status;

	if (!ctx->have_child || ctx->child.gate_fd >= 0 || !ltap_target_reap(&ctx->child))
		return -1;
	if (WIFEXITED(st))
		ltap_info("command exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		ltap_info("command killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
	return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}

/* Whatever the command left running (it may have ended itself; -d, SIGINT
 * or exit() end the run first) ends with the run: its whole tree. */
static void ctx_end_child(struct ltap_ctx *ctx)
{
	if (ctx->have_child)
		ltap_target_end(&ctx->child, ctx->sigints >= 2 ? 0 : 1000);
}

int ltap_ctx_run(struct ltap_ctx *ctx)
{
	uint64_t t0 = ltap_now(), skipped = 0, until, end;
	int code = 0, status = -1;

	if (ctx_attach(ctx)) {
		code = 1;
		goto out;
	}
	if (ctx->opt.verbose)
		ltap_info("attached in %.1f ms", (double)(ltap_now() - t0) / 1e6);
	if (ltap_metrics_serve(ctx, ltap_now() - t0)) {
		code = 1;
		goto out;
	}
	if (ctx->have_child) {
		int e = ltap_target_release(&ctx->child);
		if (e) {
			ltap_err("target: cannot run '%s': %s", ctx->command.argv[0], strerror(-e));
			code = 127;
			goto out;
		}
	}
	ltap_run_hooks(ctx, "ltap.begin");
	ctx_child(ctx); /* a command that already ended */
	ctx->in_loop = 1;
	if (!ctx->failed && !ctx->exit_called && ltap_loop_run(ctx->loop) < 0)
		ctx->failed = 1;
	ltap_progress_free(ctx->progress); /* erased before the end's reports */
	ctx->progress = NULL;
	/* the end: a recording's, -d's, the last event of a replay, or now */
	ctx_span(ctx, &end);
	until = end ? end : ctx->stop_at ? ctx->stop_at : ctx->opt.input ? ctx->trace_now : ltap_now();
	for (int i = 0; i < ctx->nsources; i++)
		if (ctx->sources[i]->ops->enable)
			ctx->sources[i]->ops->enable(ctx->sources[i], 0, until);
	if (!ctx->failed && ctx->sigints < 2 && !ctx->exit_called)
		skipped = ltap_loop_finish(ctx->loop, until);
	/* finish hooks run at the end of the run: ltap.now() is its end */
	if (ctx->trace_now < until)
		ctx->trace_now = until;
	for (int i = 0; i < ctx->nsources; i++)
		if (ctx->sources[i]->ops->finish && ctx->sources[i]->ops->finish(ctx->sources[i]))
			ctx->failed = 1;
	status = ctx_command_status(ctx);
	ctx_report_lost(ctx, skipped);
	ltap_timers_report(ctx);
	if (!ctx->failed && ctx->sigints < 2 && !ctx->quit)
		ltap_run_hooks(ctx, "ltap.finish");
	fflush(stdout);
	/* a second signal, then the script's failure, then its exit(CODE), then
	 * the status of a command that ended on its own (docs/cli.md: exit status) */
	if (ctx->sigints >= 2)
		code = 128 + ctx->end_signal;
	else if (ctx->failed || ctx->was_interrupted)
		code = ctx->usage ? 2 : 1;
	else if (ctx->exit_called && ctx->exit_code >= 0)
		code = ctx->exit_code;
	else if (status >= 0)
		code = status;
out:
	ctx->running = 0;
	ltap_counters_detach(ctx);
	ctx_end_child(ctx);
	ctx_close_sources(ctx); /* kernel state first */
	return code;
}
