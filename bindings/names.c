/* names.c: numbers the kernel reports, as names: ltap.syscall_name(nr). */
#include "names.h"

#include "syscall_names.h"

#include <lauxlib.h>

/* ltap.syscall_name(NR) -> "read", or nil for a number with no syscall */
int names_syscall(lua_State *L)
{
	lua_Integer nr = luaL_checkinteger(L, 1);
	if (nr < 0 || nr >= ltap_nsyscall_names || !ltap_syscall_names[nr])
		return 0;
	lua_pushstring(L, ltap_syscall_names[nr]);
	return 1;
}
