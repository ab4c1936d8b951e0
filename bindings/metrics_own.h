/* metrics_own.h: ltap's own metrics, after the script's in every scrape:
 * events read and lost per CPU, handler errors, scrapes and rejected
 * requests, the attach time, each metric's drops, the process's figures. */
#ifndef LTAP_BINDINGS_METRICS_OWN_H
#define LTAP_BINDINGS_METRICS_OWN_H

#include <lua.h>

struct ltap_ctx;
struct ltap_metrics;
struct ltap_expo;

/* appends the families to x */
void ltap_metrics_own(lua_State *L, struct ltap_ctx *ctx, struct ltap_metrics *ms, struct ltap_expo *x);

#endif
