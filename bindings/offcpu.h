/* offcpu.h: ltap.offcpu(COUNTS, OPTS), off-CPU time counted in C (offcpu.c) */
#ifndef LTAP_B_OFFCPU_H
#define LTAP_B_OFFCPU_H

#include <lua.h>

struct ltap_ctx;

void ltap_open_offcpu(lua_State *L, struct ltap_ctx *ctx);
/* the Lua functions api.c lists */
int offcpu_offcpu(lua_State *L);

#endif
