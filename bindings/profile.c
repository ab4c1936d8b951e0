/* profile.c: profile() (cpu-clock samples with call chains), ltap.options()
 * (the target options of a script's own command line), and the opening of the perf
 * rings for a run: probes that asked for stacks and profiles. */
#include "ctx.h"

#include "log.h"
#include "parse.h"
#include "src_sampler.h"
#include "target.h"
#include "targetopt.h"

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

/* ltap.options{pid=, command=, duration=, all=, record=}: the target options
 * (-p, -c, -d, -a, --record) from a script's own command line; bundled
 * scripts declare `targets` and ltap.getopt hands them here. Each value is
 * checked as ltap's command line checks it (targetopt.c), and a bad one, or
 * one given there too, is a usage error with the same message ("-p: bad pid
 * '0' (1 to 2147483647)"): one line, exit 2. The command is a string (as -c)
 * or an argument vector run as it is. Only while the script loads. */
static int profile_options(lua_State *L)
{
	static const struct ltap_optspec opts[] = {{"pid", "integer|string"}, {"command", "string|table"},
		{"duration", "string|number"}, {"all", "boolean"}, {"record", "string"}, {NULL, NULL}};
	static const char *const keys[] = {"pid", "duration", "all", "record", NULL};
	static const char letters[] = "pdaR";
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	char why[4200];

	luaL_checktype(L, 1, LUA_TTABLE);
	ltap_check_options(L, 1, "ltap.options", opts);
	if (ctx->running)
		return luaL_error(L, "ltap.options: only while the script loads");
	for (int i = 0; keys[i]; i++) {
		const char *value;
		int t = lua_getfield(L, 1, keys[i]), integral;
		lua_Integer n = lua_tointegerx(L, -1, &integral);

		if (t == LUA_TNIL || (t == LUA_TBOOLEAN && !lua_toboolean(L, -1))) {
			lua_pop(L, 1);
			continue;
		}
		if (t == LUA_TNUMBER && integral)
			value = lua_pushfstring(L, "%I", n); /* pid 5.0 is 5 */
		else
			value = luaL_tolstring(L, -1, NULL);
		if (ltap_targetopt_set(&ctx->opt, letters[i], value, why, sizeof why))
			return ltap_usage_error(L, "%s", why);
		if (letters[i] == 'R')
			lua_setfield(L, LUA_REGISTRYINDEX, "ltap.record"); /* keeps the file name alive */
		else
			lua_pop(L, 1); /* the text */
		lua_pop(L, 1); /* the value */
	}
	if (lua_getfield(L, 1, "command") != LUA_TNIL) {
		struct ltap_cmd cmd;
		if (lua_type(L, -1) == LUA_TTABLE)
			ltap_check_command(L, -1, &cmd, "ltap.options");
		else if (ltap_targetopt_command(lua_tostring(L, -1), &cmd, why, sizeof why))
			return ltap_usage_error(L, "%s", why);
		if (ltap_targetopt_set(&ctx->opt, 'c', cmd.text, why, sizeof why)) {
			ltap_cmd_free(&cmd);
			return ltap_usage_error(L, "%s", why);
		}
		ctx->command = cmd; /* ctx->opt.command is its text */
	}
	if (ltap_targetopt_check(&ctx->opt, why, sizeof why))
		return ltap_usage_error(L, "%s", why);
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
