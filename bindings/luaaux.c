/* luaaux.c: what every binding does the same way, as lauxlib is Lua's own:
 * liolib's createmeta, and numbers that are integers kept integers. */
#include "luaaux.h"

#include <math.h>

void ltap_newmeta(lua_State *L, const char *name, const luaL_Reg *metameth, const luaL_Reg *meth)
{
	luaL_newmetatable(L, name);
	luaL_setfuncs(L, metameth, 0);
	lua_newtable(L);
	luaL_setfuncs(L, meth, 0);
	lua_setfield(L, -2, "__index");
}

void ltap_push_exact(lua_State *L, double v)
{
	if (v == floor(v) && fabs(v) < 9e15)
		lua_pushinteger(L, (lua_Integer)v);
	else
		lua_pushnumber(L, v);
}
