/* api.c: the whole Lua face in one place, as luv.c and linit.c list
 * theirs: every C function a script calls, under the name it calls it by,
 * with its home file; then the parts with state of their own (types with
 * metatables, registry tables, modules), opened in this order.
 *
 * Where they go: a host of its own state (the ltap command, ltap.h) puts
 * them in the globals, as scripts know them (probe, every, ltap.now,
 * os.exit); under require "ltap" the Lua program's globals are its own, so
 * they go into an environment table of ltap's (reading through to the
 * globals), which stdlib modules see as their globals, and into the
 * module table: ltap.probe, ltap.every, ltap.now. os.exit stays Lua's. */
#include "api.h"

#include "ctx.h"
#include "desc.h"
#include "embedded.h"
#include "event.h"
#include "feed.h"
#include "lcounter.h"
#include "ldisasm.h"
#include "lflame.h"
#include "lperfdata.h"
#include "lstackcount.h"
#include "lterm.h"
#include "luprobe.h"
#include "metrics.h"
#include "names.h"
#include "offcpu.h"
#include "options.h"
#include "probe.h"
#include "probestats.h"
#include "profile.h"
#include "run.h"
#include "signals.h"
#include "sorted.h"
#include "stack.h"
#include "stats.h"
#include "statsrows.h"
#include "timer.h"
#include "version.h"

#include <lauxlib.h>
#include <string.h>

static const struct api_func {
	const char *table; /* "_G" for a global, "ltap", "os" */
	const char *name;
	lua_CFunction fn;
} api_funcs[] = {
	/* probe.c: what a script handles */
	{"_G", "probe", probe_probe},
	/* profile.c */
	{"_G", "profile", profile_profile},
	/* timer.c: timers on the trace clock */
	{"_G", "every", timer_every},
	{"_G", "after", timer_after},
	{"_G", "cancel", timer_cancel},
	{"ltap", "now", timer_now},
	{"ltap", "start_time", timer_start_time},
	{"ltap", "parse_duration", timer_parse_duration},
	/* run.c: run control */
	{"_G", "begin", run_begin},
	{"_G", "finish", run_finish},
	{"_G", "exit", run_exit},
	{"os", "exit", run_os_exit},
	{"ltap", "drain", run_drain},
	{"ltap", "options", run_options},
	{"ltap", "lost", run_lost},
	{"ltap", "mark", run_mark},
	/* signals.c */
	{"ltap", "on_interrupt", signals_on_interrupt},
	/* counter.c: counting-mode perf events */
	{"_G", "counter", counter_new},
	{"ltap", "measure", counter_measure},
	/* stats.c: the aggregate */
	{"_G", "stats", stats_new},
	/* sorted.c: sorted() of a plain table */
	{"ltap", "sort_table", sorted_table},
	/* stack.c: symbols */
	{"_G", "sym", stack_sym},
	{"ltap", "folded_name", stack_folded_name},
	/* stackcount.c: samples counted per distinct stack */
	{"ltap", "stackcount", stackcount_new},
	/* offcpu.c: off-CPU time per blocked stack, counted in C */
	{"ltap", "offcpu", offcpu_offcpu},
	/* flame.c: flame graphs' frames, folded and perf script text, in C */
	{"ltap", "flame_layout", flame_layout},
	{"ltap", "flame_sort", flame_sort},
	{"ltap", "flame_merge", flame_merge},
	{"ltap", "folded_parse", flame_folded_parse},
	{"ltap", "perfscript_fold", flame_perfscript_fold},
	/* uprobe.c */
	{"ltap", "functions", uprobe_functions},
	/* probestats.c: what the probes cost */
	{"ltap", "probe_hits", probestats_hits},
	/* names.c */
	{"ltap", "syscall_name", names_syscall},
	/* options.c */
	{"ltap", "check_options", options_lua},
	{"ltap", "usage_error", options_usage_error},
	{"ltap", "parse_size", options_parse_size},
	/* disasm.c: ltap annotate's instructions and source lines */
	{"ltap", "disasm", disasm_disasm},
	{"ltap", "source", disasm_source},
	/* perfdata.c: ltap annotate -i */
	{"ltap", "perfdata", perfdata_read},
};

static const struct api_part {
	const char *what;
	void (*open)(lua_State *L, struct ltap_ctx *ctx);
} api_parts[] = {
	{"the handlers table (desc.c)", ltap_open_desc},
	{"begin and finish hooks (run.c)", ltap_open_run},
	{"the timers table (timer.c)", ltap_open_timer},
	{"ltap.stats (stats.c)", ltap_open_stats},
	{"s:sorted, s:write (statsrows.c)", ltap_open_statsrows},
	{"ltap.feed, s:by's aggregates fed in C (feed.c)", ltap_open_feed},
	{"ltap.counter (counter.c)", ltap_open_counter},
	{"ltap.stackcount (stackcount.c)", ltap_open_stackcount},
	{"ltap.offcpu's state (offcpu.c)", ltap_open_offcpu},
	{"ltap.flame, a laid-out flame graph (flame.c)", ltap_open_flame},
	{"ltap.event, the reused event object (event.c)", ltap_open_event},
	{"metrics.* and ltap.serving (metrics.c)", ltap_open_metrics},
	{"ltap.term, the terminal of ltap top (term.c)", ltap_open_term},
	{"the usage error type (options.c)", ltap_open_options},
	{"the stdlib in package.preload (embedded.c)", ltap_open_embedded},
};

/* pushes the environment: the globals, or under require "ltap" a table of
 * ltap's own whose misses read the globals */
static void api_push_env(lua_State *L, struct ltap_ctx *ctx)
{
	if (!ctx->module) {
		lua_pushglobaltable(L);
		return;
	}
	lua_newtable(L);
	lua_createtable(L, 0, 1);
	lua_pushglobaltable(L);
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, -2);
}

void ltap_open_api(lua_State *L, struct ltap_ctx *ctx)
{
	api_push_env(L, ctx);
	lua_newtable(L); /* ltap: its values, then its functions */
	lua_pushboolean(L, ltap_ctx_live(ctx));
	lua_setfield(L, -2, "live");
	lua_pushstring(L, ctx->opt.input); /* nil when live */
	lua_setfield(L, -2, "input");
	lua_pushstring(L, ltap_version_number());
	lua_setfield(L, -2, "version");
	if (*ltap_version_commit()) {
		lua_pushstring(L, ltap_version_commit());
		lua_setfield(L, -2, "commit");
	}
	lua_pushstring(L, ctx->opt.json ? "json" : "text");
	lua_setfield(L, -2, "format");
	lua_setfield(L, -2, "ltap");
	ctx->env_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	for (size_t i = 0; i < sizeof api_funcs / sizeof api_funcs[0]; i++) {
		const char *t = api_funcs[i].table;
		if (ctx->module && strcmp(t, "os") == 0)
			continue; /* the Lua program's os.exit stays its own */
		if (strcmp(t, "os") == 0)
			lua_getglobal(L, "os");
		else if (strcmp(t, "ltap") == 0)
			ltap_push_ltap(L, ctx);
		else
			lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->env_ref);
		lua_pushcfunction(L, api_funcs[i].fn);
		if (ctx->module && strcmp(t, "_G") == 0) {
			/* under require, the module table has them all */
			ltap_push_ltap(L, ctx);
			lua_pushvalue(L, -2);
			lua_setfield(L, -2, api_funcs[i].name);
			lua_pop(L, 1);
		}
		lua_setfield(L, -2, api_funcs[i].name);
		lua_pop(L, 1);
	}
	for (size_t i = 0; i < sizeof api_parts / sizeof api_parts[0]; i++)
		api_parts[i].open(L, ctx);
}
