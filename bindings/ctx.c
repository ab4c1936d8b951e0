/* ctx.c: a run from start to end: the Lua state, the load phase, then attach,
 * loop, final drain, end hooks and a clean kernel on every path. */
#include "ctx.h"

#include "catalog.h"
#include "guardian.h"
#include "cgroup.h"
#include "instance.h"
#include "log.h"
#include "proc.h"
#include "src_sampler.h"
#include "src_tracepoint.h"
#include "symbols.h"
#include "targetopt.h"
#include "uprobe.h"

#include <errno.h>
#include <lauxlib.h>
#include <lualib.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define RING_WAKE_PERCENT 10 /* wake per batch: a tenth of a ring */
#define POOL_PAGES 1024      /* sub-buffers held per CPU in user space */

struct ltap_ctx *ltap_ctx_get(lua_State *L)
{
	struct ltap_ctx *ctx;
	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.ctx");
	ctx = lua_touserdata(L, -1);
	lua_pop(L, 1);
	return ctx;
}

/* The fixed slots the per-event path reaches without lookups, pushed on an
 * empty stack (the main one, or a thread for a nested drain). */
void ltap_ctx_push_slots(lua_State *L, struct ltap_ctx *ctx)
{
	ctx->msgh_slot = ltap_push_msghandler(L);
	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.handlers");
	ctx->handlers_slot = lua_gettop(L);
	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.timers");
	ctx->timers_slot = lua_gettop(L);
	ltap_event_push_slots(L, ctx);
}

/* os.exit([CODE]): ends the run at once, as Lua's does, but through ltap's
 * end: no handler or hook runs after it (finish hooks neither: exit() is the
 * end with them), the kernel is cleaned, ltap exits with CODE (true: 0,
 * false: 1). */
static int ctx_os_exit(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);

	if (lua_isboolean(L, 1))
		ctx->exit_code = lua_toboolean(L, 1) ? EXIT_SUCCESS : EXIT_FAILURE;
	else
		ctx->exit_code = (int)luaL_optinteger(L, 1, EXIT_SUCCESS);
	ltap_call_end(ctx, L, LTAP_END_EXIT);
	return luaL_error(L, "os.exit");
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
	if (!opt->input) {
		/* first, while the process is small: the fork copies little */
		int e = ltap_guardian_start();
		if (e) {
			ltap_err("guardian: cannot start the process that undoes ltap's kernel changes if it is killed: %s",
				 strerror(-e));
			free(ctx);
			return NULL;
		}
		ltap_guardian_reap_stale();
	}
	ctx->proc = ltap_proc_new();
	if (ctx->proc && opt->input) {
		if (ltap_session_replay_open(ctx)) {
			ltap_ctx_free(ctx);
			return NULL;
		}
	} else {
		ctx->cat = ltap_catalog_open();
	}
	ctx->syms = ltap_symbols_new();
	ctx->L = L = ltap_memory_state(ctx);
	if (!ctx->proc || !ctx->cat || !ctx->syms || !L) {
		ltap_ctx_free(ctx);
		return NULL;
	}
	luaL_openlibs(L);
	lua_pushlightuserdata(L, ctx);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.ctx");
	lua_getglobal(L, "os");
	lua_pushcfunction(L, ctx_os_exit);
	lua_setfield(L, -2, "exit");
	lua_pop(L, 1);
	lua_newtable(L);
	lua_pushboolean(L, !opt->input);
	lua_setfield(L, -2, "live");
	lua_pushliteral(L, "0.1");
	lua_setfield(L, -2, "version");
	lua_pushstring(L, opt->json ? "json" : "text");
	lua_setfield(L, -2, "format");
	lua_setglobal(L, "ltap");
	ltap_open_embedded(L);
	ltap_open_options(L);
	ltap_open_probe(L);
	ltap_open_timer(L);
	ltap_open_stats(L);
	ltap_open_names(L);
	ltap_open_uprobe(L);
	ltap_open_counter(L);
	ltap_open_profile(L);
	ltap_open_stack(L);
	ltap_open_event(L, ctx);
	ltap_open_metrics(L, ctx);

	lua_settop(L, 0);
	ltap_ctx_push_slots(L, ctx);
	ltap_signals_install(ctx);

	lua_getglobal(L, "require");
	lua_pushliteral(L, "ltap.prelude");
	if (ltap_call(ctx, 1, 0) != 0) {
		ltap_ctx_free(ctx);
		return NULL;
	}
	return ctx;
}

void ltap_ctx_free(struct ltap_ctx *ctx)
{
	if (!ctx)
		return;
	ltap_signals_restore();
	if (ctx->L)
		lua_close(ctx->L);
	ltap_probes_free(ctx);
	ltap_sampler_close(ctx->sampler);
	ltap_symbols_free(ctx->syms);
	ltap_tpsrc_close(ctx->src);
	ltap_instance_close(ctx->inst);
	ltap_uprobes_free(ctx->uprobes); /* after the instance: enabled events cannot go */
	ltap_metrics_free(ctx); /* before the loop it watches */
	ltap_loop_free(ctx->loop);
	ltap_catalog_close(ctx->cat);
	ltap_session_close(ctx); /* after the catalog: it borrows the trace's formats */
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

int ltap_ctx_load(struct ltap_ctx *ctx, const char *code, size_t len, const char *chunkname,
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
	ctx_header(L, code, len);
	if (luaL_loadbuffer(L, code, len, chunkname) != LUA_OK) {
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

static void ctx_batch(void *ud)
{
	struct ltap_ctx *ctx = ud;
	if (ctx->interrupts_pending)
		ltap_interrupt_dispatch(ctx);
}

static int ctx_targets(struct ltap_ctx *ctx)
{
	pid_t *tids = NULL;
	int n = 0, e;

	if (ctx->opt.pid) {
		e = ltap_target_threads(ctx->opt.pid, &tids, &n);
		if (e) {
			ltap_err("target: -p %d: %s", (int)ctx->opt.pid,
				 e == -ESRCH ? "no such process" : strerror(-e));
			return -1;
		}
		e = ctx->inst ? ltap_instance_set_pids(ctx->inst, tids, n) : 0;
		free(tids);
		if (e)
			return -1;
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
		ltap_loop_set_ordered(ctx->loop, 1);
		if (ctx->inst && ltap_instance_set_pids(ctx->inst, &ctx->child.pid, 1))
			return -1;
	}
	return 0;
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
	struct ltap_stream **ss;
	int64_t offset;
	int n;

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
	if (!ctx->replay && !ctx->text_mode)
		ltap_loop_set_realtime(ctx->loop, ctx->opt.max_drain);
	if (ctx->replay || ctx->text_mode) {
		if (ctx->counters) {
			ltap_err("replay: counters count a live run, not a saved trace");
			return -1;
		}
		if (ltap_session_replay_attach(ctx) || ltap_timers_attach(ctx))
			return -1;
		ctx->running = 1;
		return 0;
	}
	/* a script of timers and hooks only needs no kernel tracing at all */
	if (ctx->nprobes) {
		ctx->inst = ltap_instance_open(ctx->opt.buffer_kb, RING_WAKE_PERCENT);
		if (!ctx->inst)
			return -1;
		if (ltap_instance_clock_sync(ctx->inst, ltap_catalog_tep(ctx->cat), &offset))
			return -1;
	}
	if (ctx_targets(ctx) || (ctx->inst && ltap_probes_attach(ctx)) || ltap_counters_attach(ctx) ||
	    ltap_sampler_attach(ctx))
		return -1;
	ltap_proc_seed(ctx->proc);
	if (ctx->inst) {
		ctx->src = ltap_tpsrc_open(ctx->inst, ltap_catalog_tep(ctx->cat), POOL_PAGES, offset);
		if (!ctx->src)
			return -1;
		n = ltap_tpsrc_streams(ctx->src, &ss);
		for (int i = 0; i < n; i++)
			if (ltap_loop_add_stream(ctx->loop, ss[i]))
				return -1;
		if (ltap_session_record_start(ctx, offset))
			return -1;
	} else if (ctx->opt.record) {
		ltap_err("record: the script declares no probes: nothing to record");
		return -1;
	}
	n = ctx->sampler ? ltap_sampler_streams(ctx->sampler, &ss) : 0;
	for (int i = 0; i < n; i++)
		if (ltap_loop_add_stream(ctx->loop, ss[i]))
			return -1;
	ctx->start_time = ltap_now();
	ctx->trace_now = ctx->start_time;
	if (ltap_timers_attach(ctx))
		return -1;
	if (ctx->inst && ltap_instance_tracing(ctx->inst, 1)) {
		ltap_err("instance: cannot turn tracing on in %s: %s", ltap_instance_name(ctx->inst),
			 strerror(errno));
		return -1;
	}
	if (ctx->sampler && ltap_sampler_enable(ctx->sampler, 1)) {
		ltap_err("sampler: cannot enable the perf events: %s", strerror(errno));
		return -1;
	}
	ltap_session_record_mark(ctx, "start", ctx->start_time);
	ctx->running = 1;
	lua_getglobal(ctx->L, "ltap");
	lua_pushinteger(ctx->L, ctx->have_child ? ctx->child.pid : ctx->opt.pid);
	lua_setfield(ctx->L, -2, "target");
	lua_pop(ctx->L, 1);
	return 0;
}

static void ctx_report_lost(struct ltap_ctx *ctx, uint64_t skipped)
{
	struct ltap_stream **ss;
	int n = ctx->src ? ltap_tpsrc_streams(ctx->src, &ss) : 0;
	uint64_t total = 0;
	char per[1024] = "";

	for (int i = 0; i < n; i++) {
		uint64_t d = ltap_tpsrc_dropped(ctx->src, i);
		ss[i]->lost = d;
		if (d) {
			size_t used = strlen(per);
			snprintf(per + used, sizeof per - used, "%scpu%d %llu", total ? ", " : "", ss[i]->cpu,
				 (unsigned long long)d);
		}
		total += d;
	}
	n = ctx->sampler ? ltap_sampler_streams(ctx->sampler, &ss) : 0;
	for (int i = 0; i < n; i++) {
		if (ss[i]->lost) {
			size_t used = strlen(per);
			snprintf(per + used, sizeof per - used, "%scpu%d %llu (perf ring)", total ? ", " : "",
				 ss[i]->cpu, (unsigned long long)ss[i]->lost);
		}
		total += ss[i]->lost;
	}
	if (total)
		ltap_warn("lost %llu events (%s): the ring was full; try a larger -b",
			  (unsigned long long)total, per);
	if (skipped) {
		/* counted as lost (ltap.lost()), once the kernel's own are known */
		for (int pass = 0; pass < 2; pass++) {
			n = pass == 0 ? (ctx->src ? ltap_tpsrc_streams(ctx->src, &ss) : 0)
				      : (ctx->sampler ? ltap_sampler_streams(ctx->sampler, &ss) : 0);
			for (int i = 0; i < n; i++)
				ss[i]->lost += ss[i]->skipped;
		}
		ltap_warn("lost %llu events: the final drain stopped after %.1f s and left them undispatched; "
			  "--max-drain DURATION sets another bound",
			  (unsigned long long)skipped, (double)ctx->opt.max_drain / 1e9);
	}
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
	uint64_t t0 = ltap_now(), skipped = 0;
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
	if (ctx->replay || ctx->text_mode) {
		if (!ctx->failed && !ctx->exit_called)
			ltap_session_replay_run(ctx);
	} else {
		uint64_t until;
		ctx->in_loop = 1;
		if (!ctx->failed && !ctx->exit_called && ltap_loop_run(ctx->loop) < 0)
			ctx->failed = 1;
		until = ctx->stop_at ? ctx->stop_at : ltap_now();
		ltap_session_record_mark(ctx, "end", until);
		if (ctx->inst)
			ltap_instance_tracing(ctx->inst, 0);
		if (ctx->sampler)
			ltap_sampler_enable(ctx->sampler, 0);
		if (!ctx->failed && ctx->sigints < 2)
			skipped = ltap_loop_finish(ctx->loop, until);
		/* finish hooks run at the end of the run: ltap.now() is its end */
		if (ctx->trace_now < until)
			ctx->trace_now = until;
		if (ltap_session_record_finish(ctx))
			ctx->failed = 1;
	}
	status = ctx_command_status(ctx);
	ctx_report_lost(ctx, skipped);
	ltap_timers_report(ctx);
	if (!ctx->failed && ctx->sigints < 2 && !ctx->quit)
		ltap_run_hooks(ctx, "ltap.finish");
	fflush(stdout);
	/* a second signal, then the script's failure, then its exit(CODE), then
	 * the status of a command that ended on its own (README: exit status) */
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
	/* kernel state first: fds on the instance, then the instance itself */
	ltap_tpsrc_close(ctx->src);
	ctx->src = NULL;
	ltap_sampler_close(ctx->sampler);
	ctx->sampler = NULL;
	ltap_instance_close(ctx->inst);
	ctx->inst = NULL;
	return code;
}
