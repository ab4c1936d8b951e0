/* dispatch.h: the per-event path: the loop's event hooks (dispatch.c) */
#ifndef LTAP_B_DISPATCH_H
#define LTAP_B_DISPATCH_H

#include <lua.h>

struct ltap_ctx;
struct ltap_rec;

/* pushes the fixed slots the per-event path reaches without lookups, on
 * an empty stack (the main one, or a thread for a nested drain) */
void ltap_dispatch_slots(lua_State *L, struct ltap_ctx *ctx);
int ltap_dispatch_event(void *ud, const struct ltap_rec *r);
/* The gate's rule for the loop's order: while a command waits at its
 * start gate, events merge in order (its exec's task_rename before what
 * follows it); then the run's own order (-u). */
void ltap_dispatch_gate_order(struct ltap_ctx *ctx);
/* The hook of a run with events counted in C alone (dispatch_fed.c): the
 * fed ones in line, the rest through ltap_dispatch_event. _plan sets
 * each descriptor's fed_count where it applies and says how many. */
int ltap_dispatch_fed(void *ud, const struct ltap_rec *r);
int ltap_dispatch_fed_plan(struct ltap_ctx *ctx);
/* whether a handler would have taken r (loop.h's skip hook) */
int ltap_skip_event(void *ud, const struct ltap_rec *r);

#endif
