/* counter.c: the "ltap.counter" type and ltap.measure().
 *
 *   local faults = counter("page-faults")       -- declared at load time
 *   every("1s", function() local total, delta = faults:read() ... end)
 *   local run = ltap.measure("make -j2", {"task-clock", "kmem:mm_page_alloc"})
 *
 * A counter counts in the kernel for the run's target: the -c command and
 * its children (from its exec), the -p process, or the whole system; reading
 * it is one read() per CPU, nothing per event. A counter this machine lacks
 * reads as nil, "not supported" (perf stat's <not supported>). */
#include "lcounter.h"

#include "counter.h"
#include "ctx.h"
#include "lcommand.h"
#include "log.h"
#include "loop.h"
#include "luaaux.h"
#include "options.h"
#include "run.h"

#include <errno.h>
#include <lauxlib.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define COUNTER_MT "ltap.counter"

struct ltap_counter_ud {
	char name[128];
	uint32_t type;
	uint64_t config;
	struct ltap_counter *c;
	int unsupported;
	int system;    /* counter(NAME, {system = true}): every CPU even with -c/-p */
	char why[64];
	double last;
	struct ltap_counter_ud *next;
};

static struct ltap_counter_ud *counter_check(lua_State *L)
{
	return luaL_checkudata(L, 1, COUNTER_MT);
}

/* c:read() -> total, delta since the last read (scaled when multiplexed);
 * nil, "not supported" for a counter this machine lacks */
static int counter_read(lua_State *L)
{
	struct ltap_counter_ud *u = counter_check(L);
	struct ltap_counter_value v;

	if (u->unsupported || !u->c) {
		lua_pushnil(L);
		lua_pushstring(L, u->unsupported ? "not supported" : "not open yet (read it once the run starts)");
		return 2;
	}
	if (ltap_counter_read(u->c, &v))
		return luaL_error(L, "counter %s: read failed: %s", u->name, strerror(errno));
	ltap_push_exact(L, v.scaled);
	ltap_push_exact(L, v.scaled - u->last);
	u->last = v.scaled;
	return 2;
}

/* c:info() -> {name, supported, why, raw, enabled, running, scaled} */
static int counter_info(lua_State *L)
{
	struct ltap_counter_ud *u = counter_check(L);
	struct ltap_counter_value v = {0};

	if (u->c)
		ltap_counter_read(u->c, &v);
	lua_createtable(L, 0, 7);
	lua_pushstring(L, u->name);
	lua_setfield(L, -2, "name");
	lua_pushboolean(L, !u->unsupported);
	lua_setfield(L, -2, "supported");
	if (u->unsupported) {
		lua_pushstring(L, u->why);
		lua_setfield(L, -2, "why");
	}
	lua_pushinteger(L, (lua_Integer)v.raw);
	lua_setfield(L, -2, "raw");
	lua_pushinteger(L, (lua_Integer)v.enabled);
	lua_setfield(L, -2, "enabled");
	lua_pushinteger(L, (lua_Integer)v.running);
	lua_setfield(L, -2, "running");
	ltap_push_exact(L, v.scaled);
	lua_setfield(L, -2, "scaled");
	return 1;
}

static int counter_gc(lua_State *L)
{
	struct ltap_counter_ud *u = luaL_checkudata(L, 1, COUNTER_MT);
	ltap_counter_close(u->c);
	u->c = NULL;
	return 0;
}

static int counter_tostring(lua_State *L)
{
	lua_pushfstring(L, COUNTER_MT " %s", counter_check(L)->name);
	return 1;
}

/* counter(NAME, [{system = true}]): declared while the script loads, opened
 * when the run starts; system counts every CPU even when there is a target */
int counter_new(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	const char *name = luaL_checkstring(L, 1);
	struct ltap_counter_ud *u;
	char err[256];
	uint32_t type;
	uint64_t config;

	lua_settop(L, 2); /* the options, or nil, stay at 2 */
	if (ltap_run_started(ctx))
		return luaL_error(L, "counter: counters are declared when the script loads (or use ltap.measure)");
	if (ltap_counter_resolve(name, &type, &config, err, sizeof err))
		return luaL_error(L, "counter: %s", err);
	u = lua_newuserdatauv(L, sizeof *u, 0);
	memset(u, 0, sizeof *u);
	snprintf(u->name, sizeof u->name, "%s", name);
	u->type = type;
	u->config = config;
	if (!lua_isnoneornil(L, 2)) {
		static const struct ltap_optspec opts[] = {{"system", "boolean"}, {NULL, NULL}};
		luaL_checktype(L, 2, LUA_TTABLE);
		ltap_check_options(L, 2, "counter", opts);
		lua_getfield(L, 2, "system");
		u->system = lua_toboolean(L, -1);
		lua_pop(L, 1);
	}
	luaL_setmetatable(L, COUNTER_MT);
	/* keep it alive for the run, and on the list ctx opens at attach */
	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.counters");
	lua_pushvalue(L, -2);
	lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
	lua_pop(L, 1);
	u->next = ctx->counters;
	ctx->counters = u;
	return 1;
}

static void counter_open_one(struct ltap_counter_ud *u, pid_t pid, int on_exec)
{
	u->c = ltap_counter_open(u->type, u->config, pid, on_exec);
	if (!u->c) {
		u->unsupported = 1;
		snprintf(u->why, sizeof u->why, "%s", strerror(errno));
	}
}

/* Opens the declared counters for the run's target; a counter the machine
 * lacks stays "not supported", anything else (no permission) fails the run. */
int ltap_counters_attach(struct ltap_ctx *ctx)
{
	pid_t pid = ctx->have_child ? ctx->child.pid : ctx->opt.pid ? ctx->opt.pid : -1;

	for (struct ltap_counter_ud *u = ctx->counters; u; u = u->next) {
		counter_open_one(u, u->system ? -1 : pid, u->system ? 0 : ctx->have_child);
		if (!u->c && !ltap_counter_unsupported(errno)) {
			ltap_err("counter %s: %s%s", u->name, u->why, errno == EACCES || errno == EPERM ? " (run ltap as root)" : "");
			return -1;
		}
	}
	return 0;
}

void ltap_counters_detach(struct ltap_ctx *ctx)
{
	for (struct ltap_counter_ud *u = ctx->counters; u; u = u->next) {
		ltap_counter_close(u->c);
		u->c = NULL;
	}
	ctx->counters = NULL;
}

/* ltap.measure(CMD, {NAME...}) -> {elapsed = ns, status = exit code or
 * "signal N" (then signal = N, signal_text = "Terminated"), counts = {NAME =
 * value or false}}: runs CMD (a string as -c
 * takes it, or an argument vector run as it is) once, each counter on it
 * and its children from its exec (held at a start gate), and waits for it;
 * then ends what it left running. Blocks the loop: meant for begin hooks
 * (ltap stat -r). The run's probes see the command from its exec too. */
int counter_measure(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	int n, e, status = 0;
	struct ltap_child child = {.gate_fd = -1, .err_fd = -1};
	struct ltap_cmd cmd;
	struct { struct ltap_counter *c; uint32_t type; uint64_t config; } *cs;
	uint64_t t0, t1;

	luaL_checktype(L, 2, LUA_TTABLE);
	n = (int)lua_rawlen(L, 2);
	cs = lua_newuserdatauv(L, (size_t)(n + 1) * sizeof *cs, 0); /* freed by the GC */
	memset(cs, 0, (size_t)(n + 1) * sizeof *cs);
	/* every name resolved before the command starts */
	for (int i = 0; i < n; i++) {
		char err[256];
		lua_rawgeti(L, 2, i + 1);
		if (ltap_counter_resolve(luaL_checkstring(L, -1), &cs[i].type, &cs[i].config, err, sizeof err))
			return luaL_error(L, "measure: %s", err);
		lua_pop(L, 1);
	}
	ltap_check_command(L, 1, &cmd, "measure");
	e = ltap_target_spawn(&cmd, &child);
	if (e) {
		lua_pushfstring(L, "measure: cannot start '%s': %s", cmd.text, strerror(-e));
		ltap_cmd_free(&cmd);
		return lua_error(L);
	}
	for (int i = 0; i < n; i++) {
		cs[i].c = ltap_counter_open(cs[i].type, cs[i].config, child.pid, 1);
		if (!cs[i].c && !ltap_counter_unsupported(errno)) {
			e = errno;
			ltap_target_end(&child, 0);
			ltap_cmd_free(&cmd);
			for (int k = 0; k < i; k++)
				ltap_counter_close(cs[k].c);
			lua_rawgeti(L, 2, i + 1);
			return luaL_error(L, "measure: counter %s: %s", lua_tostring(L, -1), strerror(e));
		}
	}
	/* the run's probes see it from its exec, as the counters do */
	ltap_run_hold(ctx, child.pid);
	t0 = ltap_now();
	e = ltap_target_release(&child);
	while (!e && !child.exited) {
		pid_t r = waitpid(child.pid, &status, 0);
		if (r == child.pid) {
			child.exited = 1;
			child.status = status;
		} else if (r < 0 && errno == EINTR && ctx->sigints) {
			ltap_target_end(&child, 1000); /* ^C: the command goes, and the run */
		}
	}
	t1 = ltap_now();
	status = child.status;
	if (e) {
		ltap_target_end(&child, 0);
		for (int i = 0; i < n; i++)
			ltap_counter_close(cs[i].c);
		lua_pushfstring(L, "measure: cannot run '%s': %s", cmd.argv[0], strerror(-e));
		ltap_cmd_free(&cmd);
		return lua_error(L);
	}
	ltap_cmd_free(&cmd);
	/* read when the command ended, as perf stat does, before its leftovers go */
	lua_createtable(L, 0, 3);
	lua_pushinteger(L, (lua_Integer)(t1 - t0));
	lua_setfield(L, -2, "elapsed");
	if (WIFEXITED(status)) {
		lua_pushinteger(L, WEXITSTATUS(status));
	} else {
		lua_pushinteger(L, WTERMSIG(status));
		lua_setfield(L, -2, "signal");
		lua_pushstring(L, strsignal(WTERMSIG(status)));
		lua_setfield(L, -2, "signal_text");
		lua_pushfstring(L, "signal %d", WTERMSIG(status));
	}
	lua_setfield(L, -2, "status");
	lua_createtable(L, 0, n);
	for (int i = 0; i < n; i++) {
		struct ltap_counter_value v;
		lua_rawgeti(L, 2, i + 1);
		if (cs[i].c && ltap_counter_read(cs[i].c, &v) == 0)
			ltap_push_exact(L, v.scaled);
		else
			lua_pushboolean(L, 0);
		lua_rawset(L, -3);
		ltap_counter_close(cs[i].c);
		cs[i].c = NULL;
	}
	ltap_target_end(&child, 1000); /* what it left running */
	lua_setfield(L, -2, "counts");
	return 1;
}

/* c:percpu() -> {[cpu] = value} of a system-wide counter ({} for a process's) */
static int counter_percpu(lua_State *L)
{
	struct ltap_counter_ud *u = counter_check(L);
	struct ltap_counter_value v;
	int cpu;

	lua_newtable(L);
	for (int i = 0; u->c && ltap_counter_read_one(u->c, i, &cpu, &v) == 0; i++)
		if (cpu >= 0) {
			ltap_push_exact(L, v.scaled);
			lua_rawseti(L, -2, cpu);
		}
	return 1;
}

static const luaL_Reg counter_meth[] = {
	{"read", counter_read},
	{"percpu", counter_percpu},
	{"info", counter_info},
	{NULL, NULL},
};

static const luaL_Reg counter_metameth[] = {
	{"__index", NULL},
	{"__gc", counter_gc},
	{"__tostring", counter_tostring},
	{NULL, NULL},
};

void ltap_open_counter(lua_State *L, struct ltap_ctx *ctx)
{
	(void)ctx;
	ltap_newmeta(L, COUNTER_MT, counter_metameth, counter_meth);
	lua_pop(L, 1);
	lua_newtable(L);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.counters");
}
