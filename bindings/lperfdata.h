/* lperfdata.h: ltap.perfdata(PATH), a perf.data's samples (perfdata.c) */
#ifndef LTAP_B_LPERFDATA_H
#define LTAP_B_LPERFDATA_H

#include <lua.h>

/* the Lua functions api.c lists */
int perfdata_read(lua_State *L);

#endif
