/* lcounter.h: counter(), ltap.measure: counting-mode perf events (counter.c) */
#ifndef LTAP_B_LCOUNTER_H
#define LTAP_B_LCOUNTER_H

#include <lua.h>

struct ltap_ctx;

void ltap_open_counter(lua_State *L, struct ltap_ctx *ctx);
int ltap_counters_attach(struct ltap_ctx *ctx);
void ltap_counters_detach(struct ltap_ctx *ctx);
/* the Lua functions api.c lists */
int counter_new(lua_State *L);
int counter_measure(lua_State *L);

#endif
