/* names.h: ltap.syscall_name and friends (names.c) */
#ifndef LTAP_B_NAMES_H
#define LTAP_B_NAMES_H

#include <lua.h>

/* the Lua functions api.c lists */
int names_syscall(lua_State *L);

#endif
