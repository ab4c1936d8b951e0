/* names.c: numbers the kernel reports, as names: ltap.syscall_name(nr). */
#include "ctx.h"

#include "syscall_names.h"

#include <lauxlib.h>

/* ltap.syscall_name(NR) -> "read", or nil for a number with no syscall */
static int names_syscall(lua_State *L)
{
	lua_Integer nr = luaL_checkinteger(L, 1);
	if (nr < 0 || nr >= ltap_nsyscall_names || !ltap_syscall_names[nr])
		return 0;
	lua_pushstring(L, ltap_syscall_names[nr]);
	return 1;
}

static const luaL_Reg names_funcs[] = {
	{"syscall_name", names_syscall},
	{NULL, NULL},
};

void ltap_open_names(lua_State *L)
{
	lua_getglobal(L, "ltap");
	luaL_setfuncs(L, names_funcs, 0);
	lua_pop(L, 1);
}
