/* profile.c: profile(FREQ, FN): cpu-clock samples with call chains, served
 * by the perf source (runtime/src_sampler.c). A sample is a synthetic event
 * (kinds.c): its record is the common header only. */
#include "profile.h"

#include "ctx.h"
#include "desc.h"
#include "evdesc.h"
#include "kinds.h"
#include "logscope.h"
#include "lstackcount.h"
#include "sources.h"

#include <lauxlib.h>
#include <stdint.h>
#include <stdlib.h>
#include <strings.h>

#define MAX_FREQ 100000

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
 * per CPU (system-wide, or the -p / -c target), with call chains.
 * profile(FREQ, COUNTS): each sample counted into COUNTS (an
 * ltap.stackcount) by the runtime, as counts:add(e) would, without a Lua
 * call per sample. */
int profile_profile(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	uint64_t hz = profile_freq(L, 1);
	struct ltap_evdesc *d;
	struct ltap_stackcount **count = ltap_stackcount_at(L, 2);
	struct ltap_probe *p;

	if (!count)
		luaL_argexpected(L, lua_type(L, 2) == LUA_TFUNCTION, 2, "function or ltap.stackcount");
	if (ltap_run_started(ctx))
		return luaL_error(L, "profile: profiles are declared when the script loads, not in handlers");
	ltap_ctx_log_scope(L, ctx); /* a module's: what the declaration says */
	ltap_ctx_catalog(L, ctx); /* the sources: the perf rings' */
	if (ctx->nprofiles == LTAP_MAX_SYNTHETIC)
		return luaL_error(L, "profile: at most %d profiles", LTAP_MAX_SYNTHETIC);
	d = ltap_desc_synthetic(L, ctx, LTAP_SYNTHETIC_ID_TOP - ctx->nprofiles++, "profile:cpu-clock",
				&ltap_kind_synthetic);
	p = ltap_probe_add(L, ctx, d, 2, NULL); /* the handlers table keeps COUNTS alive */
	p->freq = hz;
	p->count = count;
	return 0;
}
