/* timer.h: every(), after(), the run's clock (timer.c) */
#ifndef LTAP_B_TIMER_H
#define LTAP_B_TIMER_H

#include <lua.h>
#include <stdint.h>

struct ltap_ctx;

#define LTAP_TIMER_DURATION (-1)
#define LTAP_TIMER_PROBES (-2) /* probestats.c's check of the probes' rates, once a second */

void ltap_open_timer(lua_State *L, struct ltap_ctx *ctx);
int ltap_dispatch_timer(void *ud, int id, uint64_t at);
int ltap_timers_attach(struct ltap_ctx *ctx);
/* warns of every() timers that missed ticks (the loop fell behind) */
void ltap_timers_report(struct ltap_ctx *ctx);
/* the Lua functions api.c lists */
int timer_every(lua_State *L);
int timer_after(lua_State *L);
int timer_cancel(lua_State *L);
int timer_now(lua_State *L);
int timer_start_time(lua_State *L);
int timer_parse_duration(lua_State *L);

#endif
