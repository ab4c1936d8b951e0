/* profile.h: profile(): cpu-clock samples as synthetic events (profile.c) */
#ifndef LTAP_B_PROFILE_H
#define LTAP_B_PROFILE_H

#include <lua.h>

/* the Lua functions api.c lists */
int profile_profile(lua_State *L);

#endif
