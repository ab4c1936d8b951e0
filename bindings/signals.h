/* signals.h: the host's signals and ltap.on_interrupt (signals.c) */
#ifndef LTAP_B_SIGNALS_H
#define LTAP_B_SIGNALS_H

#include <lua.h>

struct ltap_ctx;

/* runs the script's SIGINT handler for the signals that came; 1 when the run ends */
int ltap_interrupt_dispatch(struct ltap_ctx *ctx);
/* the Lua functions api.c lists */
int signals_on_interrupt(lua_State *L);

#endif
