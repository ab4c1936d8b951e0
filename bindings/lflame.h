/* lflame.h: the ltap.flame type, a laid-out flame graph, and folded text (flame.c) */
#ifndef LTAP_B_LFLAME_H
#define LTAP_B_LFLAME_H

#include <lua.h>

struct ltap_ctx;

void ltap_open_flame(lua_State *L, struct ltap_ctx *ctx);
/* the Lua functions api.c lists */
int flame_layout(lua_State *L);
int flame_sort(lua_State *L);
int flame_merge(lua_State *L);
int flame_folded_parse(lua_State *L);
int flame_perfscript_fold(lua_State *L);

#endif
