/* probe.c: probe(EVENT, [FILTER | OPTIONS,] FN), the script's declaration
 * of what it handles.
 *
 * Load phase only: the event and its fields are resolved once (desc.c)
 * and the handler kept in the handlers table; nothing touches the kernel
 * yet, so an unknown event fails before anything is enabled. An input that
 * names events its own way (a text trace) resolves them itself
 * (ctx->face). */
#include "probe.h"

#include "catalog.h"
#include "ctx.h"
#include "desc.h"
#include "evdesc.h"
#include "feed.h"
#include "log.h"
#include "logscope.h"
#include "luprobe.h"
#include "options.h"
#include "sources.h"

#include <event-parse.h>
#include <lauxlib.h>
#include <string.h>

static struct tep_event *probe_event(lua_State *L, struct ltap_ctx *ctx, const char *spec)
{
	struct tep_event *ev;
	char near[512];

	if (ltap_is_uprobe_spec(spec))
		return ltap_uprobe_event(L, ctx, spec);
	spec = ltap_catalog_strip_prefix(spec);
	ev = ltap_catalog_event(ctx->cat, spec);
	if (ev)
		return ev;
	ltap_catalog_suggest(ctx->cat, spec, near, sizeof near);
	if (near[0])
		luaL_error(L, "unknown event '%s' (did you mean %s?)", spec, near);
	luaL_error(L, "unknown event '%s' (see: ltap list)", spec);
	return NULL;
}

/* a probe of d, served by the perf ring when it asked for call chains */
static void probe_stack(struct ltap_probe *p, int stack)
{
	p->stack = stack;
}

/* probe("kmem:*", ...): one probe per matching event, one handler */
struct probe_glob {
	lua_State *L;
	struct ltap_ctx *ctx;
	const char *filter, *where;
	int handler, stack;
};

static int probe_glob_one(void *ud, const char *spec)
{
	struct probe_glob *g = ud;
	struct tep_event *ev = ltap_catalog_event(g->ctx->cat, spec);
	struct ltap_probe *p;

	if (!ev)
		return 0; /* listed but without a readable format */
	p = ltap_probe_on(g->ctx, ltap_desc_of(g->L, g->ctx, ev), g->handler, g->filter, g->where);
	if (!p)
		ltap_probe_raise(g->L, g->ctx);
	probe_stack(p, g->stack);
	return 0;
}

static void probe_glob(lua_State *L, struct ltap_ctx *ctx, const char *spec, const char *filter, int fn, int stack)
{
	struct probe_glob g = {L, ctx, filter, NULL, 0, stack};
	int n;

	spec = ltap_catalog_strip_prefix(spec);
	luaL_where(L, 1);
	g.where = lua_tostring(L, -1);
	g.handler = ltap_handler_add(L, ctx, fn);
	n = ltap_catalog_glob(ctx->cat, spec, probe_glob_one, &g);
	if (n < 0)
		luaL_error(L, "probe %s: cannot list the events: %s", spec, strerror(-n));
	if (n == 0)
		luaL_error(L, "no event matches '%s' (see: ltap list)", spec);
	if (n > 100 && ltap_ctx_live(ctx))
		ltap_warn("%sprobe %s: %d events enabled: every one of them costs the traced system", g.where, spec, n);
	lua_pop(L, 1);
}

/* probe(EVENT, [FILTER | {filter=, stack=}], HANDLER): raises on an unknown
 * event. stack=true serves the event from the perf ring, with call chains. */
int probe_probe(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	const char *spec = luaL_checkstring(L, 1);
	const char *filter = NULL;
	int fn = 2, stack = 0;

	if (lua_type(L, 2) == LUA_TSTRING || (lua_isnil(L, 2) && lua_gettop(L) >= 3)) {
		filter = lua_tostring(L, 2); /* nil: no filter, for wrappers passing one on */
		fn = 3;
	} else if (lua_type(L, 2) == LUA_TTABLE) {
		static const struct ltap_optspec opts[] = {{"filter", "string"}, {"stack", "boolean"}, {NULL, NULL}};
		ltap_check_options(L, 2, "probe", opts);
		lua_getfield(L, 2, "filter");
		filter = lua_tostring(L, -1);
		lua_getfield(L, 2, "stack");
		stack = lua_toboolean(L, -1);
		lua_pop(L, 1); /* the filter string stays on the stack while used */
		fn = 3;
	}
	/* a handler, or a feed (s:by): the aggregate added to in C */
	luaL_argexpected(L, lua_type(L, fn) == LUA_TFUNCTION || ltap_feed_test(L, fn), fn, "function or ltap.feed");
	if (ltap_run_started(ctx))
		return luaL_error(L, "probe: probes are declared when the script loads, not in handlers");
	ltap_ctx_log_scope(L, ctx); /* a module's: what the declaration says */
	ltap_ctx_catalog(L, ctx); /* the first probe opens the sources: their formats */
	if (ctx->face) {
		ctx->face->probe(L, ctx, ctx->face, spec, filter, fn);
		return 0;
	}
	if (!ltap_is_uprobe_spec(spec) && ltap_catalog_is_glob(spec)) {
		probe_glob(L, ctx, spec, filter, fn, stack);
		return 0;
	}
	{
		struct ltap_probe *p = ltap_probe_add(L, ctx, ltap_desc_of(L, ctx, probe_event(L, ctx, spec)), fn, filter);
		probe_stack(p, stack);
		/* the script's own words in the probes' report */
		snprintf(p->spec, sizeof p->spec, "%s", spec);
		p->costly = ltap_is_uprobe_spec(spec);
	}
	return 0;
}
