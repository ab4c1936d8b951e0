/* luaaux.h: what every Lua type of ltap is made with (luaaux.c) */
#ifndef LTAP_B_LUAAUX_H
#define LTAP_B_LUAAUX_H

#include <lua.h>
#include <lauxlib.h>

/* luaaux.c: liolib's createmeta: metatable name (pushed) with metameth,
 * and meth as its __index */
void ltap_newmeta(lua_State *L, const char *name, const luaL_Reg *metameth, const luaL_Reg *meth);
/* v as a Lua integer when it is one (counts print as 38, not 38.0) */
void ltap_push_exact(lua_State *L, double v);

#endif
