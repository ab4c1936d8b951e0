/* logscope.h: a host's messages routed for the rest of a C function
 * (logscope.c) */
#ifndef LTAP_B_LOGSCOPE_H
#define LTAP_B_LOGSCOPE_H

#include <lua.h>

struct ltap_ctx;

/* Under require "ltap", the host's messages go to its log target until
 * the calling C function returns or raises (a to-be-closed slot pushed on
 * L's stack): a declaration (probe, profile) runs straight from the
 * program's Lua, where no host call entered the target. Nothing
 * otherwise: a host's own calls enter it (host.c). */
void ltap_ctx_log_scope(lua_State *L, struct ltap_ctx *ctx);

#endif
