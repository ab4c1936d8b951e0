/* ldisasm.h: ltap.disasm, ltap.source: a function's instructions and lines (disasm.c) */
#ifndef LTAP_B_LDISASM_H
#define LTAP_B_LDISASM_H

#include <lua.h>

/* the Lua functions api.c lists */
int disasm_disasm(lua_State *L);
int disasm_source(lua_State *L);

#endif
