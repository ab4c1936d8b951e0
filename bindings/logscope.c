/* logscope.c: a host's log target entered for the rest of a C function,
 * left by a to-be-closed slot when it returns or raises. */
#include "logscope.h"

#include "ctx.h"
#include "log.h"

#include <lauxlib.h>

static int log_scope_close(lua_State *L)
{
	struct ltap_log_target **prev = lua_touserdata(L, 1);

	ltap_log_leave(*prev);
	return 0;
}

void ltap_ctx_log_scope(lua_State *L, struct ltap_ctx *ctx)
{
	struct ltap_log_target **prev;

	if (!ctx->module)
		return;
	prev = lua_newuserdatauv(L, sizeof *prev, 0);
	if (luaL_newmetatable(L, "ltap.log_scope")) {
		lua_pushcfunction(L, log_scope_close);
		lua_setfield(L, -2, "__close");
	}
	lua_setmetatable(L, -2);
	/* entered last: nothing above raises with the target entered and no
	 * slot to leave it */
	*prev = ltap_log_enter(&ctx->io.log);
	lua_toclose(L, -1);
}
