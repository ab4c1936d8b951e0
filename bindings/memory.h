/* memory.h: the Lua state with its memory limit (memory.c) */
#ifndef LTAP_B_MEMORY_H
#define LTAP_B_MEMORY_H

#include <lua.h>

struct ltap_ctx;

lua_State *ltap_memory_state(struct ltap_ctx *ctx);

#endif
