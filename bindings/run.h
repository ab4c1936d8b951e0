/* run.h: run control: begin and finish hooks, exit, drain, options (run.c) */
#ifndef LTAP_B_RUN_H
#define LTAP_B_RUN_H

#include <lua.h>

struct ltap_ctx;

void ltap_open_run(lua_State *L, struct ltap_ctx *ctx);
/* runs the hooks registered under name ("ltap.begin" or "ltap.finish"); 0 or -1 */
int ltap_run_hooks(struct ltap_ctx *ctx, const char *name);
/* a command pid waits at a start gate from now on: the run's events of it
 * count from its exec (gate.h), and a recording says so */
void ltap_run_hold(struct ltap_ctx *ctx, int pid);
/* the Lua functions api.c lists */
int run_begin(lua_State *L);
int run_finish(lua_State *L);
int run_exit(lua_State *L);
int run_os_exit(lua_State *L);
int run_drain(lua_State *L);
int run_options(lua_State *L);
int run_lost(lua_State *L);
int run_mark(lua_State *L);

#endif
