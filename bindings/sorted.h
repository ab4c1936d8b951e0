/* sorted.h: sorted(): a table's keys in order (sorted.c) */
#ifndef LTAP_B_SORTED_H
#define LTAP_B_SORTED_H

#include <lua.h>

/* the Lua functions api.c lists */
int sorted_table(lua_State *L);

#endif
