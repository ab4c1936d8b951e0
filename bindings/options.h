/* options.h: options tables and usage errors (options.c) */
#ifndef LTAP_B_OPTIONS_H
#define LTAP_B_OPTIONS_H

#include <lua.h>

struct ltap_ctx;

/* an options table's keys and value types against spec (ended
 * by {NULL}); raises "what: unknown option 'x' (options: ...)" at the caller */
struct ltap_optspec {
	const char *name;
	const char *types; /* "string", "boolean", "integer", "string|table", "any" */
};
void ltap_check_options(lua_State *L, int idx, const char *what, const struct ltap_optspec *spec);
/* raises a usage error: one line under the script's name, no traceback, exit 2 */
int ltap_usage_error(lua_State *L, const char *fmt, ...);
/* the value at idx is a usage error: logs it, returns 1; else 0 */
int ltap_usage_report(lua_State *L, int idx);
void ltap_open_options(lua_State *L, struct ltap_ctx *ctx);
/* the Lua functions api.c lists */
int options_lua(lua_State *L);
int options_usage_error(lua_State *L);
int options_parse_size(lua_State *L);

#endif
