/* host.c: a host (ltap.h) from start to end: its Lua state, the load
 * phase, then the sources attached, the loop stepped, the final drain, end
 * hooks and a clean kernel on every path, as one state machine:
 *
 *     LOADING -> ATTACHED -> RUNNING -> DRAINING -> ENDED
 *
 * Bindings never change the state: they ask the run to end
 * (ltap_run_end, with why) and the host makes the transitions when it
 * next gets control. Live or replay, a run does the same to each of its
 * sources (runtime/source.h) and asks what they can do (their caps), never
 * which they are: sources.c, their one factory, opens them when the first
 * probe needs their formats, so a script that traces nothing (a flame
 * graph of a file, -h) touches no tracefs and needs no root. Every public
 * entry point makes the host's log target this thread's (log.h), so what
 * the runtime says reaches this host's callback. */
#include "host.h"

#include "api.h"
#include "call.h"
#include "catalog.h"
#include "ctx.h"
#include "desc.h"
#include "dispatch.h"
#include "embedded.h"
#include "event.h"
#include "guardian.h"
#include "lcounter.h"
#include "log.h"
#include "loop.h"
#include "lower.h"
#include "memory.h"
#include "metrics_serve.h"
#include "metrics_set.h"
#include "owner.h"
#include "proc.h"
#include "progress.h"
#include "readfile.h"
#include "run.h"
#include "signals.h"
#include "source.h"
#include "sources.h"
#include "symbols.h"
#include "targetopt.h"
#include "timer.h"
#include "undo.h"
#include "uprobe.h"

#include <errno.h>
#include <lauxlib.h>
#include <lualib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void ctx_detach(struct ltap_ctx *ctx);

/* --- the host's output and messages --------------------------------- */

/* Every message of the host's calls: errors kept for ltap_host_error,
 * everything passed on to the host's own callback. */
static void host_log(void *ud, enum ltap_log_level level, const char *msg)
{
	struct ltap_ctx *ctx = ud;

	if (level == LTAP_LOG_ERROR)
		snprintf(ctx->io.error, sizeof ctx->io.error, "%s", msg);
	ltap_progress_erase(ctx->io.progress); /* a message is never drawn into the line */
	if (ctx->io.user_log)
		ctx->io.user_log(ctx->io.user_ud, level, msg);
}

static ssize_t host_discard(void *c, const char *buf, size_t size)
{
	(void)c;
	(void)buf;
	return (ssize_t)size;
}

/* io.stderr of a host that names no error output: each line a message of
 * its log at WARN level */
static ssize_t host_err_write(void *c, const char *buf, size_t size)
{
	struct ltap_ctx *ctx = c;
	struct ltap_host_io *io = &ctx->io;

	for (size_t i = 0; i < size; i++) {
		if (buf[i] != '\n' && io->errlen < sizeof io->errline - 1) {
			io->errline[io->errlen++] = buf[i];
			continue;
		}
		if (buf[i] != '\n')
			continue; /* a longer line is cut */
		io->errline[io->errlen] = 0;
		host_log(ctx, LTAP_LOG_WARN, io->errline);
		io->errlen = 0;
	}
	return (ssize_t)size;
}

static int host_noclose(lua_State *L)
{
	luaL_Stream *p = luaL_checkudata(L, 1, LUA_FILEHANDLE);
	p->closef = &host_noclose; /* keep it open */
	luaL_pushfail(L);
	lua_pushliteral(L, "cannot close standard file");
	return 2;
}

/* pushes a Lua file handle over f, which Lua never closes */
static void host_push_file(lua_State *L, FILE *f)
{
	luaL_Stream *p = lua_newuserdatauv(L, sizeof *p, 0);
	p->closef = NULL; /* not yet a file */
	luaL_setmetatable(L, LUA_FILEHANDLE);
	p->f = f;
	p->closef = &host_noclose;
}

/* print(...) as Lua's, onto the host's output */
static int host_print(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	int n = lua_gettop(L);

	for (int i = 1; i <= n; i++) {
		size_t len;
		const char *s = luaL_tolstring(L, i, &len);
		if (i > 1)
			fputc('\t', ctx->io.out);
		fwrite(s, 1, len, ctx->io.out);
		lua_pop(L, 1);
	}
	fputc('\n', ctx->io.out);
	return 0;
}

/* A state of the host's own: io.stdout, io.write and print write to the
 * host's output, io.stderr to its error output or log. */
static int host_open_io(struct ltap_ctx *ctx, FILE *out, FILE *err)
{
	static const cookie_io_functions_t discard = {.write = host_discard};
	static const cookie_io_functions_t to_log = {.write = host_err_write};
	lua_State *L = ctx->main_L;

	ctx->io.out = out;
	if (!out && !(ctx->io.out = ctx->io.own_out = fopencookie(ctx, "w", discard)))
		return -errno;
	ctx->io.err = err;
	if (!err) {
		if (!(ctx->io.err = ctx->io.own_err = fopencookie(ctx, "w", to_log)))
			return -errno;
		setvbuf(ctx->io.err, NULL, _IONBF, 0);
	}
	lua_getglobal(L, "io");
	host_push_file(L, ctx->io.out);
	lua_pushvalue(L, -1);
	lua_setfield(L, LUA_REGISTRYINDEX, LUA_FILEHANDLE "_IO_output"); /* io.write's file */
	lua_setfield(L, -2, "stdout");
	host_push_file(L, ctx->io.err);
	lua_setfield(L, -2, "stderr");
	lua_pop(L, 1);
	lua_pushcfunction(L, host_print);
	lua_setglobal(L, "print");
	return 0;
}

/* --- making a host ----------------------------------------------------- */

/* The parts every host has, whoever owns its Lua state. */
static int host_init(struct ltap_ctx *ctx, const struct ltap_options *opt)
{
	ctx->opt = *opt;
	ctx->probes_tail = &ctx->probes;
	ctx->child.gate_fd = ctx->child.err_fd = -1;
	ctx->run.state = LTAP_HOST_LOADING;
	ctx->run.exit_code = -1;
	ctx->run.command_status = -1;
	ctx->env_ref = LUA_NOREF;
	ctx->thread_ref = LUA_NOREF;
	ltap_gate_init(&ctx->gate);
	ltap_ctx_sources_plan(ctx);
	if (opt->command) {
		char why[4200];
		if (ltap_targetopt_command(opt->command, &ctx->command, why, sizeof why)) {
			ltap_err("%s", why);
			return -EINVAL;
		}
	}
	if ((ctx->serial = ltap_owner_take()) < 0) {
		ltap_err("cannot make a host: %d hosts live in this process already", LTAP_OWNER_MAX);
		return -EMFILE;
	}
	ltap_guardian_hold(ltap_undo_table);
	ctx->proc = ltap_proc_new();
	ctx->syms = ltap_symbols_new();
	ctx->loop = ltap_loop_new(&(struct ltap_loop_hooks){0});
	if (!ctx->proc || !ctx->syms || !ctx->loop)
		return -ENOMEM;
	return 0;
}

/* The Lua side: ltap's functions into the script environment, the stdlib,
 * the thread whose stack holds the per-event path's fixed slots (ctx->L:
 * every handler, timer and hook runs on it), then the prelude. */
static int host_init_lua(struct ltap_ctx *ctx, lua_State *L)
{
	lua_pushlightuserdata(L, ctx);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &ltap_ctx_key);
	ctx->L = L;
	ltap_open_api(L, ctx);
	ctx->L = lua_newthread(L);
	ctx->thread_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	ltap_dispatch_slots(ctx->L, ctx);
	lua_getfield(ctx->L, LUA_REGISTRYINDEX, "ltap.own_env"); /* ltap's own require (embedded.c) */
	lua_getfield(ctx->L, -1, "require");
	lua_remove(ctx->L, -2);
	lua_pushliteral(ctx->L, "ltap.prelude");
	return ltap_call(ctx, 1, 0) ? -EINVAL : 0;
}

struct ltap_ctx *ltap_ctx_new_module(lua_State *L, const struct ltap_options *opt)
{
	struct ltap_ctx *ctx = calloc(1, sizeof *ctx);

	if (!ctx)
		return NULL;
	ctx->module = 1;
	/* a Lua program's messages: on its stderr until it says otherwise */
	ctx->io.user_log = ltap_log_to_file;
	ctx->io.user_ud = stderr;
	ctx->io.log = (struct ltap_log_target){host_log, ctx, opt->verbose ? LTAP_LOG_DEBUG : LTAP_LOG_INFO};
	if (host_init(ctx, opt) || host_init_lua(ctx, L)) {
		ltap_ctx_free(ctx);
		return NULL;
	}
	return ctx;
}

void ltap_ctx_free(struct ltap_ctx *ctx)
{
	if (!ctx)
		return;
	ltap_progress_free(ctx->io.progress);
	if (ctx->run.state != LTAP_HOST_ENDED)
		ctx_detach(ctx); /* mid-run (no Lua runs): the kernel cleaned, the command ended */
	if (ctx->L) {
		lua_sethook(ctx->L, NULL, 0, 0);
		if (ctx->module) {
			/* the state is the Lua program's: leave it, take ours out */
			lua_State *L = ctx->L;
			luaL_unref(L, LUA_REGISTRYINDEX, ctx->thread_ref);
			luaL_unref(L, LUA_REGISTRYINDEX, ctx->env_ref);
			lua_pushnil(L);
			lua_rawsetp(L, LUA_REGISTRYINDEX, &ltap_ctx_key);
		}
	}
	if (ctx->main_L) {
		lua_sethook(ctx->main_L, NULL, 0, 0);
		lua_close(ctx->main_L);
	}
	ltap_descs_free(ctx);
	ltap_catalog_close(ctx->cat); /* a trace's catalog borrows its source's formats */
	ltap_ctx_sources_close(ctx);
	if (ctx->face)
		ctx->face->close(ctx->face);
	ltap_uprobes_free(ctx->uprobes); /* after the instance: enabled events cannot go */
	ltap_symbols_free(ctx->syms);
	ltap_metrics_free(ctx); /* before the loop it watches */
	ltap_loop_free(ctx->loop);
	ltap_proc_free(ctx->proc);
	ltap_cmd_free(&ctx->command);
	if (ctx->serial > 0) {
		ltap_owner_release(ctx->serial);
		ltap_guardian_release(); /* the last host: the guardian goes */
	}
	if (ctx->io.own_out)
		fclose(ctx->io.own_out);
	else if (ctx->io.out)
		fflush(ctx->io.out);
	if (ctx->io.own_err)
		fclose(ctx->io.own_err);
	free(ctx);
}

/* --- loading ----------------------------------------------------------- */

/* ltap.script_header: the script's leading comment lines, as written (the
 * header ltap scripts lists: name, summary, usage, example), for its -h
 * (ltap.getopt); nil when it starts with code. */
static void ctx_header(lua_State *L, struct ltap_ctx *ctx, const char *code, size_t len)
{
	const char *end = code, *stop = code + len, *nl;

	while (stop - end >= 2 && end[0] == '-' && end[1] == '-')
		end = (nl = memchr(end, '\n', (size_t)(stop - end))) ? nl + 1 : stop;
	ltap_push_ltap(L, ctx);
	if (end > code)
		lua_pushlstring(L, code, (size_t)(end - code));
	else
		lua_pushnil(L);
	lua_setfield(L, -2, "script_header");
	lua_pop(L, 1); /* ltap */
}

/* Loads a chunk and runs it (the load phase: it only declares); own is
 * ltap's own code (a bundled script): its require is ltap's (embedded.c).
 * 0, -EINVAL (a script error) or -ECANCELED (it ended the run). */
static int ctx_load(struct ltap_ctx *ctx, const struct ltap_chunk *c, const char *chunkname, int argc,
		    char *const *argv, const char *arg0, int own)
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
	ctx_header(L, ctx, c->src, c->len);
	if (ltap_chunk_load(L, c, chunkname) != LUA_OK) {
		if (!c->code && c->len && c->src[0] == LUA_SIGNATURE[0])
			ltap_err("%s: a precompiled Lua chunk: ltap loads scripts as source only", arg0);
		else
			ltap_err("%s", lua_tostring(L, -1));
		lua_pop(L, 1);
		ltap_run_end(ctx, LTAP_END_ERROR);
		return -EINVAL;
	}
	if (own)
		ltap_embedded_own_env(L, ctx);
	for (int i = 0; i < argc; i++)
		lua_pushstring(L, argv[i]);
	if (ltap_call(ctx, argc, 0) == 0)
		return 0;
	return ctx->run.end & LTAP_END_NOLUA ? -ECANCELED : -EINVAL;
}

/* --- the run ----------------------------------------------------------- */

static void ctx_child(void *ud)
{
	struct ltap_ctx *ctx = ud;
	if (ctx->have_child && ltap_target_reap(&ctx->child))
		ltap_run_end(ctx, LTAP_END_STOP);
}

/* Between batches, outside any handler: the script's SIGINT handler, then
 * what paused streams wait for. 0 when the run ends. */
static int ctx_between(struct ltap_ctx *ctx)
{
	int ends = ctx->interrupts_pending && ltap_interrupt_dispatch(ctx);

	ends |= ctx->sigints || ctx->run.end;
	for (int i = 0; i < ctx->nsources && !ends; i++)
		if (ctx->sources[i]->ops->between)
			ctx->sources[i]->ops->between(ctx->sources[i]);
	return !ends;
}

/* whether a source tells how far it is (a saved trace's) */
static int ctx_progress_told(const struct ltap_ctx *ctx)
{
	for (int i = 0; i < ctx->nsources; i++)
		if (ctx->sources[i]->ops->progress)
			return 1;
	return 0;
}

/* how far a replay is: its source's progress, on the line */
static void ctx_progress(struct ltap_ctx *ctx)
{
	uint64_t done, total;
	int unit;

	for (int i = 0; i < ctx->nsources; i++)
		if (ctx->sources[i]->ops->progress &&
		    (unit = ctx->sources[i]->ops->progress(ctx->sources[i], &done, &total)) >= 0)
			ltap_progress_show(ctx->io.progress, done, total, (enum ltap_progress_unit)unit);
}

static void ctx_batch(void *ud)
{
	struct ltap_ctx *ctx = ud;

	if (ltap_progress_due(ctx->io.progress))
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
		if ((e = ltap_loop_child(ctx->loop, ctx->child.pid))) {
			ltap_err("target: cannot watch '%s': %s", ctx->command.text, strerror(-e));
			return -1;
		}
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
	ltap_dispatch_gate_order(ctx);
}

/* The targets, then every source attached to what the script declared
 * (and the task events followed: the exit too while a command is held),
 * its streams in the loop; the filters the kernel does not apply as they
 * are go to user space. */
static int ctx_attach_sources(struct ltap_ctx *ctx)
{
	struct ltap_source_env env = {
		.buffer_kb = ctx->opt.buffer_kb, .buffer_exact = ctx->opt.buffer_exact, .serial = ctx->serial, .self = ctx->opt.exclude_self ? getpid() : 0,
		.record = ctx->opt.record, .verbose = ctx->opt.verbose,
		.cat = ctx->cat, .proc = ctx->proc,
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

/* LOADING -> ATTACHED: everything the scripts declared attached, timers
 * armed, tracing on. 0 or -1 (said). */
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
	int live = ltap_ctx_live(ctx), fed;

	h.ud = ctx;
	ltap_loop_set_hooks(ctx->loop, &h);
	if (ctx->opt.pid && kill(ctx->opt.pid, 0) < 0 && errno == ESRCH) {
		ltap_err("target: -p %d: no such process", (int)ctx->opt.pid);
		return -1;
	}
	/* a run that declared no probe opens no source (a flame graph of a
	 * file needs no tracefs, nor root), but for a recording */
	if (ctx->opt.record && ltap_ctx_sources(ctx))
		return -1;
	ltap_loop_set_ordered(ctx->loop, ctx->opt.ordered);
	if (ltap_metrics_bind(ctx)) /* a port in use fails before the kernel is touched */
		return -1;
	if (ctx->sigints) /* a signal while the script loaded */
		ltap_loop_stop(ctx->loop);
	if (!live && ctx->counters) {
		ltap_err("replay: counters count a live run, not a saved trace");
		return -1;
	}
	if (!live && (ctx->opt.pid || ctx->command.argv)) {
		ltap_err("replay: -p and -c need a live run, not --input");
		return -1;
	}
	if (live) {
		ltap_loop_set_realtime(ctx->loop, ctx->opt.max_drain);
		if (ctx->opt.record)
			ltap_loop_set_every_tick(ctx->loop); /* as the replay of the recording will run them */
		ltap_guardian_reap_first(); /* stale leftovers go before this run's first change */
	} else {
		ltap_loop_set_replay(ctx->loop);
	}
	if ((ctx->face && ctx->face->attach(ctx, ctx->face)) || ctx_attach_sources(ctx) || ltap_counters_attach(ctx))
		return -1;
	/* events counted in C alone: their own event hook (the filters and
	 * the gate are known now) */
	if ((fed = ltap_dispatch_fed_plan(ctx)) > 0) {
		h.event = ltap_dispatch_fed;
		ltap_loop_set_hooks(ctx->loop, &h);
		ltap_debug("probes: %d event%s counted in C from the ring (the fed path)", fed, fed == 1 ? "" : "s");
	}
	ltap_lower_report(ctx);
	ltap_dispatch_gate_order(ctx);
	ctx_settle(ctx);
	ctx->start_time = ctx_span(ctx, &end);
	ctx->trace_now = ctx->start_time;
	if (ltap_timers_attach(ctx))
		return -1;
	for (int i = 0; i < ctx->nsources; i++)
		if (ctx->sources[i]->ops->enable && ctx->sources[i]->ops->enable(ctx->sources[i], 1, ctx->start_time))
			return -1;
	ctx->run.state = LTAP_HOST_ATTACHED;
	ltap_push_ltap(ctx->L, ctx);
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

/* Kernel state off, the command's tree ended: the part of the end that
 * needs no Lua, done however the run ends (also when the host is freed
 * mid-run). */
static void ctx_detach(struct ltap_ctx *ctx)
{
	ltap_counters_detach(ctx);
	if (ctx->have_child)
		ltap_target_end(&ctx->child, ctx->sigints >= 2 ? 0 : 1000);
	ltap_ctx_sources_close(ctx); /* kernel state first */
}

/* RUNNING (or a failed start) -> DRAINING -> ENDED: tracing off, the final
 * drain, what was lost, finish hooks, then everything detached. */
static void ctx_end(struct ltap_ctx *ctx)
{
	unsigned end;
	uint64_t skipped = 0, until, stop;

	ctx->run.state = LTAP_HOST_DRAINING;
	ctx->run.in_loop = 0;
	ltap_progress_free(ctx->io.progress); /* erased before the end's reports */
	ctx->io.progress = NULL;
	/* the end: a recording's, -d's, the last event of a replay, or now */
	ctx_span(ctx, &stop);
	until = stop ? stop : ctx->run.stop_at ? ctx->run.stop_at : ltap_ctx_live(ctx) ? ltap_now() : ctx->trace_now;
	for (int i = 0; i < ctx->nsources; i++)
		if (ctx->sources[i]->ops->enable)
			ctx->sources[i]->ops->enable(ctx->sources[i], 0, until);
	end = ctx->run.end;
	if (ctx->attached && ctx->sigints < 2 && !(end & (LTAP_END_ERROR | LTAP_END_EXIT | LTAP_END_NOW | LTAP_END_NOLUA))) {
		ctx->run.in_loop = 1;
		skipped = ltap_loop_finish(ctx->loop, until);
		ctx->run.in_loop = 0;
	}
	/* finish hooks run at the end of the run: ltap.now() is its end */
	if (ctx->trace_now < until)
		ctx->trace_now = until;
	for (int i = 0; i < ctx->nsources; i++)
		if (ctx->sources[i]->ops->finish && ctx->sources[i]->ops->finish(ctx->sources[i]))
			ltap_run_end(ctx, LTAP_END_ERROR);
	ctx->run.command_status = ctx_command_status(ctx);
	ctx_report_lost(ctx, skipped);
	ltap_timers_report(ctx);
	end = ctx->run.end;
	if (ctx->attached && ctx->sigints < 2 && !(end & (LTAP_END_ERROR | LTAP_END_NOW | LTAP_END_NOLUA)))
		ltap_run_hooks(ctx, "ltap.finish");
	ltap_host_flush(ctx);
	ctx_detach(ctx);
	ctx->run.state = LTAP_HOST_ENDED;
}

/* LOADING -> ATTACHED -> RUNNING; on a failure, the end at once. 0 or -1. */
static int ctx_start(struct ltap_ctx *ctx)
{
	uint64_t t0 = ltap_now();

	if (ctx_attach(ctx))
		goto fail;
	ctx->attached = 1;
	ltap_debug("attached in %.1f ms", (double)(ltap_now() - t0) / 1e6);
	if (ltap_metrics_serve(ctx, ltap_now() - t0))
		goto fail;
	if (ctx->have_child) {
		int e = ltap_target_release(&ctx->child);
		if (e) {
			ltap_err("target: cannot run '%s': %s", ctx->command.argv[0], strerror(-e));
			ctx->run.exit_code = 127;
			ltap_run_end(ctx, LTAP_END_EXIT);
			ctx->attached = 0; /* no finish hooks for a run that never ran */
			ctx_end(ctx);
			return -1;
		}
	}
	if (ctx_progress_told(ctx) && ltap_progress_wanted(ctx->opt.progress)) {
		/* a replay's progress line (progress.h), redrawn at its steps' batches */
		const char *in = ctx->opt.input ? ctx->opt.input : "-", *base = strrchr(in, '/');
		char what[80];
		snprintf(what, sizeof what, "replay %s", strcmp(in, "-") == 0 ? "standard input" : base ? base + 1 : in);
		ctx->io.progress = ltap_progress_new(ctx->opt.progress, ctx->io.out, what);
	}
	ltap_run_hooks(ctx, "ltap.begin");
	ctx_child(ctx); /* a command that already ended */
	ctx->run.state = LTAP_HOST_RUNNING;
	ctx->run.in_loop = 1;
	if (ctx->run.end & ~LTAP_END_STOP)
		ltap_loop_halt(ctx->loop);
	return 0;
fail:
	ctx->attached = 0;
	ltap_run_end(ctx, LTAP_END_ERROR);
	ctx_end(ctx);
	return -1;
}

/* The exit status (docs/cli.md: exit status): a second signal, then the
 * script's failure, then its exit(CODE), then the status of a command
 * that ended on its own. */
int ltap_ctx_status(const struct ltap_ctx *ctx)
{
	unsigned end = ctx->run.end;

	if (ctx->sigints >= 2)
		return 128 + (ctx->last_signal ? ctx->last_signal : SIGTERM);
	if (end & LTAP_END_ERROR)
		return end & LTAP_END_USAGE ? 2 : 1;
	if (end & LTAP_END_INTERRUPTED)
		return 1;
	if ((end & LTAP_END_EXIT) && ctx->run.exit_code >= 0)
		return ctx->run.exit_code;
	if (ctx->run.command_status >= 0)
		return ctx->run.command_status;
	return 0;
}

/* --- the public API (ltap.h) -------------------------------------------- */

#define HOST(h) ((struct ltap_ctx *)(h))

/* every entry point: this host's messages go to its target meanwhile */
#define HOST_ENTER(ctx) struct ltap_log_target *host_prev_log = ltap_log_enter(&(ctx)->io.log)
#define HOST_LEAVE() ltap_log_leave(host_prev_log)

/* A CPU writes its ring at well under this many bytes a second (a
 * tracepoint's record of 20+ bytes costs 30 ns or more to write): a -d run
 * needs no ring larger than its duration at this rate, and allocating the
 * default 8 MiB a CPU is most of a short run's time (18 ms here). */
#define RING_MAX_WRITE_RATE (1ull << 30)
#define RING_MIN_KB 64

static size_t host_ring_kb(const struct ltap_host_opts *d)
{
	uint64_t kb;

	if (d->ring_kb)
		return d->ring_kb;
	if (d->duration_ns <= 0 || d->input)
		return 8192;
	kb = (uint64_t)d->duration_ns * (RING_MAX_WRITE_RATE / 1024) / 1000000000ull;
	return kb < RING_MIN_KB ? RING_MIN_KB : kb > 8192 ? 8192 : (size_t)kb;
}

/* The public options as the command line's (targetopt.c checks both). */
static int host_options(const struct ltap_host_opts *o, struct ltap_options *opt)
{
	struct ltap_host_opts d = {0};
	char why[4200];

	/* a caller built against an older ltap.h knows fewer fields */
	memcpy(&d, o, o->sz < sizeof d ? o->sz : sizeof d);
	*opt = (struct ltap_options){.ordered = !d.unordered, .buffer_kb = host_ring_kb(&d),
		.buffer_exact = d.ring_kb != 0,
		.max_drain = d.max_drain_ns < 0 ? 0 : d.max_drain_ns ? (uint64_t)d.max_drain_ns : LTAP_MAX_DRAIN,
		.pid = d.pid, .all = d.all, .command = d.command, .duration = d.duration_ns, .input = d.input,
		.record = d.record, .max_memory = d.max_memory, .serve = d.serve, .export_all = d.export_all,
		.json = d.json, .verbose = d.verbose, .exclude_self = d.exclude_self, .progress = d.progress};
	if (d.pid < 0) {
		ltap_err("-p: bad pid '%d' (1 to %d)", d.pid, INT32_MAX);
		return -EINVAL;
	}
	if (d.ring_kb && d.ring_kb < 4) {
		ltap_err("-b: bad size '%zuK' (at least 4K)", d.ring_kb);
		return -EINVAL;
	}
	if (ltap_targetopt_check(opt, why, sizeof why)) {
		ltap_err("%s", why);
		return -EINVAL;
	}
	if (d.serve && d.input) {
		ltap_err("--serve serves a live run, not a replay (--input)");
		return -EINVAL;
	}
	return 0;
}

int ltap_host_new(ltap_host **hp, const struct ltap_host_opts *o)
{
	struct ltap_ctx *ctx = calloc(1, sizeof *ctx);
	struct ltap_options opt;
	lua_State *L;
	int e;

	*hp = (ltap_host *)ctx;
	if (!ctx)
		return -ENOMEM;
	ctx->io.user_log = o->log;
	ctx->io.user_ud = o->log_ud;
	ctx->io.log = (struct ltap_log_target){host_log, ctx, o->verbose ? LTAP_LOG_DEBUG : LTAP_LOG_INFO};
	HOST_ENTER(ctx);
	if ((e = host_options(o, &opt)) || (e = host_init(ctx, &opt)))
		goto out;
	if (ltap_ctx_sources_early(ctx)) {
		e = -EIO;
		goto out;
	}
	e = -ENOMEM;
	if (!(ctx->main_L = L = ltap_memory_state(ctx)))
		goto out;
	luaL_openlibs(L);
	e = host_open_io(ctx, o->output, o->sz > offsetof(struct ltap_host_opts, error_output) ? o->error_output : NULL);
	if (e || (e = host_init_lua(ctx, L)))
		goto out;
out:
	if (e == -ENOMEM)
		ltap_err("cannot make a host: %s", strerror(ENOMEM));
	HOST_LEAVE();
	return e;
}

/* the loads: a host that is no longer loading takes no chunk */
static int host_load(struct ltap_ctx *ctx, const struct ltap_chunk *c, const char *chunkname, int argc,
		     char *const *argv, const char *arg0, int own)
{
	if (ctx->run.state != LTAP_HOST_LOADING) {
		ltap_err("%s: the host is not loading (scripts load before ltap_host_start)", arg0);
		return -EINVAL;
	}
	return ctx_load(ctx, c, chunkname, argc, argv, arg0, own);
}

int ltap_host_load_file(ltap_host *h, const char *path, int argc, char *const argv[])
{
	struct ltap_ctx *ctx = HOST(h);
	struct ltap_chunk c = {0};
	char chunk[4200];
	int e;
	HOST_ENTER(ctx);

	if (!(c.src = ltap_file_read(path, LTAP_SCRIPT_MAX, &c.len))) {
		e = -errno;
		ltap_err("cannot read script %s: %s", path, strerror(errno));
		HOST_LEAVE();
		return e;
	}
	c.owned = 1;
	snprintf(chunk, sizeof chunk, "@%s", path);
	e = host_load(ctx, &c, chunk, argc, argv, path, 0);
	ltap_chunk_free(&c);
	HOST_LEAVE();
	return e;
}

int ltap_host_load_string(ltap_host *h, const char *code, const char *name, int argc, char *const argv[])
{
	struct ltap_ctx *ctx = HOST(h);
	struct ltap_chunk c = {.src = code, .len = strlen(code)};
	char chunk[4200];
	int e;
	HOST_ENTER(ctx);

	snprintf(chunk, sizeof chunk, "=%s", name ? name : "-e");
	e = host_load(ctx, &c, chunk, argc, argv, name ? name : "-e", 0);
	HOST_LEAVE();
	return e;
}

int ltap_host_load_bundled(ltap_host *h, const char *name, int argc, char *const argv[])
{
	struct ltap_ctx *ctx = HOST(h);
	struct ltap_chunk c;
	char chunk[4200];
	int e;
	HOST_ENTER(ctx);

	if (ltap_embedded_get(LTAP_EMBED_SCRIPT, name, &c)) {
		ltap_err("no bundled script named '%s' (see: ltap scripts; a script file is named as a path: "
			 "ltap ./%s)", name, name);
		HOST_LEAVE();
		return -ENOENT;
	}
	snprintf(chunk, sizeof chunk, "@scripts/%s.lua", name);
	e = host_load(ctx, &c, chunk, argc, argv, name, 1);
	ltap_chunk_free(&c);
	HOST_LEAVE();
	return e;
}

int ltap_ctx_start(struct ltap_ctx *ctx)
{
	if (ctx->run.state != LTAP_HOST_LOADING) {
		ltap_err("start: the host is not loading (started already, or a load failed)");
		return -EINVAL;
	}
	if (ltap_run_halting(ctx)) {
		ctx_end(ctx); /* a load ended the run: nothing to attach */
		return -ECANCELED;
	}
	return ctx_start(ctx) ? -EIO : 0;
}

int ltap_host_start(ltap_host *h)
{
	struct ltap_ctx *ctx = HOST(h);
	int e;
	HOST_ENTER(ctx);

	e = ltap_ctx_start(ctx);
	HOST_LEAVE();
	return e;
}

int ltap_host_fd(const ltap_host *h)
{
	const struct ltap_ctx *ctx = (const struct ltap_ctx *)h;
	return ctx->loop ? ltap_loop_fd(ctx->loop) : -1;
}

int ltap_ctx_step(struct ltap_ctx *ctx, int timeout_ms)
{
	int r;

	if (ctx->run.state == LTAP_HOST_ENDED)
		return 0;
	if (ctx->run.state != LTAP_HOST_RUNNING) {
		ltap_err("step: the host is not running (ltap_host_start first)");
		return -EINVAL;
	}
	if (ctx->lower_armed)
		ltap_lower_disarm(ctx); /* the host's own Lua may have run since the last step */
	r = ltap_loop_step(ctx->loop, timeout_ms);
	if (r < 0)
		ltap_run_end(ctx, LTAP_END_ERROR);
	if (r > 0 && !(ctx->sigints || ctx->run.end))
		return 1;
	ctx_end(ctx);
	return 0;
}

int ltap_host_step(ltap_host *h, int timeout_ms)
{
	struct ltap_ctx *ctx = HOST(h);
	int r;
	HOST_ENTER(ctx);

	r = ltap_ctx_step(ctx, timeout_ms);
	HOST_LEAVE();
	return r;
}

int ltap_host_run(ltap_host *h)
{
	struct ltap_ctx *ctx = HOST(h);

	if (ctx->run.state == LTAP_HOST_LOADING)
		ltap_host_start(h);
	while (ltap_host_step(h, -1) > 0)
		;
	return ltap_host_status(h);
}

void ltap_host_stop(ltap_host *h)
{
	ltap_host_signal(h, 0);
}

enum ltap_host_state ltap_host_state(const ltap_host *h)
{
	return (enum ltap_host_state)((const struct ltap_ctx *)h)->run.state;
}

int ltap_host_status(const ltap_host *h)
{
	const struct ltap_ctx *ctx = (const struct ltap_ctx *)h;

	if (ctx->run.state != LTAP_HOST_ENDED && !ltap_run_halting(ctx))
		return -1;
	return ltap_ctx_status(ctx);
}

const char *ltap_host_error(const ltap_host *h)
{
	return h ? ((const struct ltap_ctx *)h)->io.error : "out of memory";
}

struct lua_State *ltap_host_lua(ltap_host *h)
{
	return HOST(h)->main_L;
}

void ltap_host_free(ltap_host *h)
{
	struct ltap_ctx *ctx = HOST(h);

	if (!ctx)
		return;
	HOST_ENTER(ctx);
	ltap_ctx_free(ctx);
	HOST_LEAVE();
}
