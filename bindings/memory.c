/* memory.c: the Lua state's allocator, with a limit.
 *
 * Every byte of the script's tables, strings and closures is counted. A
 * growth past the limit is refused; Lua then runs an emergency full GC and
 * asks once more with the same arguments, so only a second refusal of the
 * same request (or a refusal Lua could not retry) means the script really
 * is over. Then the run ends (ltap_call_end: no handler, timer or hook runs
 * again) and the memory past the limit, up to a reserve, is granted so the
 * way out (the error message, the traceback, the last calls) cannot itself
 * fail for lack of memory. Outside the script's calls (ltap's own
 * bookkeeping, such as filling the event table) nothing is refused: an
 * error there would have no pcall to end in; going over there ends the run
 * at the next call instead. */
#include "memory.h"

#include "call.h"
#include "ctx.h"
#include "log.h"
#include "memlimit.h"

#include <lauxlib.h>
#include <stdlib.h>

#define MEMORY_RESERVE (4u << 20)   /* bytes past the limit for the way out */
#define MEMORY_SHARE 4              /* by default a quarter of what the process may take */
#define MEMORY_MIN (16u << 20)      /* less cannot even load the stdlib */

static void memory_report(struct ltap_ctx *ctx);

/* The script is over its limit: said once, and the run ends. */
static void memory_over(struct ltap_ctx *ctx)
{
	ctx->mem.hit = 1;
	ctx->mem.pending = 0;
	memory_report(ctx);
	ltap_call_end(ctx, ctx->L, LTAP_END_ERROR); /* status 1, no finish hooks */
}

static void *memory_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct ltap_ctx *ctx = ud;
	struct ltap_memory *m = &ctx->mem;
	void *p;

	if (!ptr)
		osize = 0; /* then osize is the kind of object, not a size */
	if (nsize == 0) {
		free(ptr);
		m->used -= osize;
		return NULL;
	}
	if (nsize > osize) {
		int retry = m->pending && m->pend_ptr == ptr && m->pend_osize == osize && m->pend_nsize == nsize;
		if (m->pending && !retry && ctx->L)
			memory_over(ctx); /* the last refusal was not retried: it raised */
		if (m->used + (nsize - osize) > m->limit + (m->hit ? MEMORY_RESERVE : 0)) {
			if (!ctx->in_call) {
				if (!m->hit && ctx->L)
					memory_over(ctx);
				goto grant;
			}
			if (retry || m->hit || !ctx->L) {
				if (!m->hit && ctx->L)
					memory_over(ctx);
			} else {
				m->pending = 1;
				m->pend_ptr = ptr;
				m->pend_osize = osize;
				m->pend_nsize = nsize;
			}
			return NULL;
		}
		m->pending = 0;
	}
grant:
	p = realloc(ptr, nsize);
	if (!p)
		return NULL;
	m->used = m->used - osize + nsize;
	return p;
}

static int memory_panic(lua_State *L)
{
	ltap_err("lua: unprotected error: %s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "(not a string)");
	return 0; /* Lua aborts */
}

lua_State *ltap_memory_state(struct ltap_ctx *ctx)
{
	struct ltap_memory *m = &ctx->mem;
	lua_State *L;

	m->basis = NULL;
	m->limit = (size_t)ctx->opt.max_memory;
	if (!m->limit) {
		uint64_t avail = ltap_memlimit_available(&m->basis);
		m->limit = avail ? (size_t)(avail / MEMORY_SHARE) : SIZE_MAX / 2;
		if (m->limit < MEMORY_MIN)
			m->limit = MEMORY_MIN;
	}
	L = lua_newstate(memory_alloc, ctx);
	if (L)
		lua_atpanic(L, memory_panic);
	return L;
}

static void memory_report(struct ltap_ctx *ctx)
{
	char limit[32], why[96] = "";

	if (ctx->mem.reported++)
		return;
	ltap_memlimit_format(ctx->mem.limit, limit, sizeof limit);
	if (ctx->mem.basis)
		snprintf(why, sizeof why, " (a quarter of %s)", ctx->mem.basis);
	ltap_err("memory: the script's Lua memory reached its limit of %s%s; --max-memory SIZE sets another",
		 limit, why);
}
