/* probe.h: probe() (probe.c) */
#ifndef LTAP_B_PROBE_H
#define LTAP_B_PROBE_H

#include <lua.h>

/* the Lua functions api.c lists */
int probe_probe(lua_State *L);

#endif
