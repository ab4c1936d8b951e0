/* call.h: every handler, timer and hook goes through ltap_call (call.c) */
#ifndef LTAP_B_CALL_H
#define LTAP_B_CALL_H

#include <lua.h>

struct ltap_ctx;

int ltap_call(struct ltap_ctx *ctx, int nargs, int nres);
/* ends the run from inside a call (os.exit, the memory limit): the script
 * raises at its next instruction, through any pcall, and runs no more */
void ltap_call_end(struct ltap_ctx *ctx, lua_State *L, unsigned why);
/* async-signal-safe: the running call is interrupted within count
 * instructions if it is still running after the grace period */
void ltap_call_interrupt(struct ltap_ctx *ctx, int count);
/* pushes the traceback message handler; returns its stack index */
int ltap_push_msghandler(lua_State *L);
void ltap_report_flush(struct ltap_ctx *ctx);

#endif
