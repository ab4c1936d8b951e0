/* metrics.h: the "metrics" table of scripts (metrics.c): metrics.counter,
 * metrics.gauge, metrics.histogram and metrics.render, and ltap.serving. */
#ifndef LTAP_BINDINGS_METRICS_H
#define LTAP_BINDINGS_METRICS_H

#include <lua.h>

struct ltap_ctx;

/* metrics.* and ltap.serving in the script's environment; the set
 * (metrics_set.h) in ctx->metrics */
void ltap_open_metrics(lua_State *L, struct ltap_ctx *ctx);

#endif
