/* scripttext.h: e:script(), a sample as perf script prints it (scripttext.c) */
#ifndef LTAP_B_SCRIPTTEXT_H
#define LTAP_B_SCRIPTTEXT_H

#include <lua.h>

struct ltap_ctx;
struct ltap_rec;

/* scripttext.c: e:script(PERIOD) (STACK_SCRIPT; arg: the stack index of
 * the comm, then PERIOD): the sample as perf script prints it */
int ltap_stack_script(lua_State *L, struct ltap_ctx *ctx, const struct ltap_rec *r, int comm_idx);

#endif
