/* api.h: the whole Lua face in one table (api.c), from the functions each
 * binding's own header offers. */
#ifndef LTAP_B_API_H
#define LTAP_B_API_H

#include <lua.h>

struct ltap_ctx;

/* ltap's functions and types into the script environment */
void ltap_open_api(lua_State *L, struct ltap_ctx *ctx);

#endif
