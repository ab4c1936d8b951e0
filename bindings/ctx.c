/* ctx.c: the context's own functions, which every binding may call: the
 * registry key it is found by, the one way to end a run, the host's
 * output, the script environment's ltap table. Nothing here calls another
 * binding. */
#include "ctx.h"

#include "loop.h"
#include "progress.h"

#include <stdio.h>

const char ltap_ctx_key; /* its address keys the context in the registry */

void ltap_run_end(struct ltap_ctx *ctx, unsigned why)
{
	ctx->run.end |= why;
	if (!ctx->loop)
		return;
	if (why & ~LTAP_END_STOP)
		ltap_loop_halt(ctx->loop); /* nothing more is dispatched */
	else
		ltap_loop_stop(ctx->loop); /* after this batch; then the final drain */
}

void ltap_host_flush(struct ltap_ctx *ctx)
{
	if (ctx->io.progress)
		ltap_progress_flush(ctx->io.progress); /* never into a progress line */
	else if (ctx->io.out)
		fflush(ctx->io.out);
	else
		fflush(stdout); /* require "ltap": the Lua program's own stdout */
}

void ltap_push_ltap(lua_State *L, struct ltap_ctx *ctx)
{
	lua_rawgeti(L, LUA_REGISTRYINDEX, ctx->env_ref);
	lua_getfield(L, -1, "ltap");
	lua_remove(L, -2);
}
