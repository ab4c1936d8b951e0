/* lterm.h: ltap.term, the terminal of a full-screen script (term.c) */
#ifndef LTAP_B_LTERM_H
#define LTAP_B_LTERM_H

#include <lua.h>

struct ltap_ctx;

void ltap_open_term(lua_State *L, struct ltap_ctx *ctx);

#endif
