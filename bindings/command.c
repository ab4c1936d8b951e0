/* command.c: a command given from Lua (ltap.measure, ltap.options{command=}):
 * a string, split into words as sh splits them (/bin/sh -c only for real
 * shell syntax), or an argument vector {"prog", "arg", ...} executed as it
 * is. */
#include "lcommand.h"

#include "command.h"

#include <errno.h>
#include <lauxlib.h>
#include <string.h>

void ltap_check_command(lua_State *L, int idx, struct ltap_cmd *c, const char *fname)
{
	const char *why;
	int e;

	idx = lua_absindex(L, idx);
	if (lua_type(L, idx) == LUA_TSTRING) {
		e = ltap_cmd_parse(lua_tostring(L, idx), c, &why);
		if (e == -EINVAL)
			luaL_error(L, "%s: bad command '%s': %s", fname, lua_tostring(L, idx), why);
	} else if (lua_type(L, idx) == LUA_TTABLE) {
		lua_Integer n = luaL_len(L, idx);
		const char **argv;

		if (n < 1)
			luaL_error(L, "%s: the command's argument vector is empty", fname);
		argv = lua_newuserdatauv(L, (size_t)n * sizeof *argv, 0); /* freed by the GC */
		for (lua_Integer i = 1; i <= n; i++) {
			if (lua_rawgeti(L, idx, i) != LUA_TSTRING)
				luaL_error(L, "%s: argument %d of the command is a %s, not a string", fname, (int)i,
					   luaL_typename(L, -1));
			argv[i - 1] = lua_tostring(L, -1);
			lua_pop(L, 1); /* the table keeps the string alive */
		}
		e = ltap_cmd_from_argv((int)n, argv, c);
		lua_pop(L, 1);
	} else {
		luaL_error(L, "%s: the command must be a string or a table of arguments, not a %s", fname,
			   luaL_typename(L, idx));
		return;
	}
	if (e)
		luaL_error(L, "%s: %s", fname, strerror(-e));
}
