/* symbolic.h: e.sym, the print formats' names of field values (symbolic.c) */
#ifndef LTAP_B_SYMBOLIC_H
#define LTAP_B_SYMBOLIC_H

#include <lua.h>

struct ltap_event_ud;

/* pushes the e.sym proxy of the event whose state is e */
void ltap_sym_proxy(lua_State *L, struct ltap_event_ud *e);
/* pushes a table of every symbolic field's text of the event (e:copy()) */
void ltap_sym_copy(lua_State *L, struct ltap_event_ud *e);

#endif
