/* profile.c: profile() (cpu-clock samples with call chains), ltap.options()
 * (targets set by a script's own command line), and the opening of the perf
 * rings for a run: probes that asked for stacks and profiles. */
#include "ctx.h"

#include "log.h"
#include "parse.h"
#include "src_sampler.h"
#include "target.h"

#include <errno.h>
#include <event-parse.h>
#include <lauxlib.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PROFILE_ID_TOP 65535 /* profiles take ids down from here: above any tracepoint's */
#define MAX_PROFILES 16
#define MAX_FREQ 100000

/* A profile sample's synthetic header keeps the tid where common_pid is. */
static struct tep_format_field profile_pid = {.name = "common_pid", .offset = 4, .size = 4};

static uint64_t profile_freq(lua_State *L, int arg)
{
	lua_Integer hz = 0;
	if (lua_type(L, arg) == LUA_TNUMBER) {
		hz = luaL_checkinteger(L, arg);
	} else {
		const char *s = luaL_checkstring(L, arg);
		char *end;
		hz = strtol(s, &end, 10);
		if (end == s || (*end && strcasecmp(end, "hz") != 0))
			hz = 0;
	}
	if (hz <= 0 || hz > MAX_FREQ)
		luaL_argerror(L, arg, lua_pushfstring(L, "bad frequency '%s' (try \"99hz\" or 999)",
						      luaL_tolstring(L, arg, NULL)));
	return (uint64_t)hz;
}

/* profile(FREQ, FN): FN(e) for every cpu-clock sample, FREQ times a second
 * per CPU (system-wide, or the -p / -c target), with call chains. */
static int profile_profile(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	uint64_t hz = profile_freq(L, 1);
	struct ltap_evdesc *d;

	luaL_checktype(L, 2, LUA_TFUNCTION);
	if (ctx->running)
		return luaL_error(L, "profile: profiles are declared when the script loads, not in handlers");
	if (ctx->nprofiles == MAX_PROFILES)
		return luaL_error(L, "profile: at most %d profiles", MAX_PROFILES);
	d = ltap_desc_new(L, ctx, PROFILE_ID_TOP - ctx->nprofiles++);
	d->perf = 1;
	d->fields = calloc(1, sizeof *d->fields);
	if (!d->fields)
		return luaL_error(L, "out of memory");
	d->common_pid = &profile_pid;
	ltap_event_fields_tables(L, d);
	lua_pushliteral(L, "profile:cpu-clock");
	d->name_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	ltap_probe_add(L, ctx, d, 2, NULL)->freq = hz;
	return 0;
}

/* ltap.options{pid=, command=, duration=, record=}: what -p, -c, -d and --record would set, for
 * scripts with a command line of their own; only while the script loads. The
 * command is a string (as -c) or an argument vector run as it is. */
static int profile_options(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);

	static const struct ltap_optspec opts[] = {{"pid", "integer"}, {"command", "string|table"},
		{"duration", "string|number"}, {"record", "string"}, {NULL, NULL}};

	luaL_checktype(L, 1, LUA_TTABLE);
	ltap_check_options(L, 1, "ltap.options", opts);
	if (ctx->running)
		return luaL_error(L, "ltap.options: only while the script loads");
	if (lua_getfield(L, 1, "pid") != LUA_TNIL) {
		lua_Integer pid = luaL_checkinteger(L, -1);
		if (pid <= 0 || pid > INT32_MAX)
			return luaL_error(L, "ltap.options: bad pid %I (1 to %d)", pid, INT32_MAX);
		ctx->opt.pid = (pid_t)pid;
	}
	if (lua_getfield(L, 1, "command") != LUA_TNIL) {
		struct ltap_cmd cmd;
		ltap_check_command(L, -1, &cmd, "ltap.options");
		ltap_cmd_free(&ctx->command);
		ctx->command = cmd;
	}
	if (lua_getfield(L, 1, "duration") != LUA_TNIL) {
		const char *s = luaL_tolstring(L, -1, NULL);
		if (ltap_parse_duration(s, &ctx->opt.duration) || !ctx->opt.duration)
			return luaL_error(L, "ltap.options: bad duration '%s' (try 10s, 500ms)", s);
	}
	if (lua_getfield(L, 1, "record") != LUA_TNIL) {
		if (ctx->opt.input)
			return luaL_error(L, "ltap.options: record needs a live run, not --input");
		luaL_checkstring(L, -1);
		lua_pushvalue(L, -1);
		lua_setfield(L, LUA_REGISTRYINDEX, "ltap.record"); /* keeps the string alive */
		ctx->opt.record = lua_tostring(L, -1);
	}
	if (ctx->opt.pid && ctx->command.argv)
		return luaL_error(L, "ltap.options: pid and command cannot be used together");
	return 0;
}

void ltap_open_profile(lua_State *L)
{
	lua_register(L, "profile", profile_profile);
	lua_getglobal(L, "ltap");
	lua_pushcfunction(L, profile_options);
	lua_setfield(L, -2, "options");
	lua_pop(L, 1);
}

static int profile_events(struct ltap_ctx *ctx, struct ltap_sampler_event **out, char (**names)[128])
{
	int n = 0;

	*out = NULL;
	*names = NULL;
	for (int id = 0; id < ctx->nids; id++)
		n += ctx->by_id[id] && ctx->by_id[id]->perf;
	if (!n)
		return 0;
	*out = calloc((size_t)n, sizeof **out);
	*names = calloc((size_t)n, sizeof **names);
	if (!*out || !*names)
		return -ENOMEM;
	n = 0;
	for (int id = 0; id < ctx->nids; id++) {
		struct ltap_evdesc *d = ctx->by_id[id];
		struct ltap_sampler_event *e = &(*out)[n];
		if (!d || !d->perf)
			continue;
		e->name = (*names)[n];
		if (d->ev) {
			snprintf((*names)[n], sizeof **names, "%s:%s", d->ev->system, d->ev->name);
			e->tp_id = d->id;
			e->filter = d->perf_filter;
		} else {
			snprintf((*names)[n], sizeof **names, "profile %lluhz", (unsigned long long)d->probes->freq);
			e->tp_id = -1;
			e->freq = d->probes->freq;
			e->rec_id = d->id;
		}
		n++;
	}
	return n;
}

int ltap_sampler_attach(struct ltap_ctx *ctx)
{
	struct ltap_sampler_event *evs;
	char (*names)[128];
	pid_t *pids = NULL;
	int n = profile_events(ctx, &evs, &names), npids = 0, rc = 0;

	if (n <= 0) {
		free(evs);
		free(names);
		return n;
	}
	if (ctx->have_child) {
		pids = malloc(sizeof *pids);
		if (pids) {
			pids[0] = ctx->child.pid;
			npids = 1;
		}
	} else if (ctx->opt.pid && ltap_target_threads(ctx->opt.pid, &pids, &npids)) {
		ltap_err("target: -p %d: no such process", (int)ctx->opt.pid);
		rc = -1;
	}
	if (!rc && (ctx->have_child || ctx->opt.pid) && !pids)
		rc = -1;
	if (!rc) {
		ctx->sampler = ltap_sampler_open(evs, n, pids, npids, ctx->have_child, ctx->opt.buffer_kb / 8, ctx->syms);
		if (!ctx->sampler)
			rc = -1;
	}
	free(pids);
	free(evs);
	free(names);
	return rc;
}
