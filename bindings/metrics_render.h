/* metrics_render.h: the declared metrics (metrics.h) in Prometheus's text
 * format or OpenMetrics, as a scrape gets them, and metrics.render(). */
#ifndef LTAP_BINDINGS_METRICS_RENDER_H
#define LTAP_BINDINGS_METRICS_RENDER_H

#include <lua.h>
#include <stddef.h>

struct ltap_ctx;

/* The body of a scrape, malloc'd (*len bytes); NULL on failure (said).
 * om: OpenMetrics; own: with ltap's own metrics; serving: a failing metric
 * function is counted as a handler error and skipped, not raised. Runs
 * protected: no Lua error escapes. */
char *ltap_metrics_render(struct ltap_ctx *ctx, int om, int own, int serving, size_t *len);
/* metrics.render(["text" | "openmetrics"], [{ltap = false}]) */
int ltap_metrics_render_lua(lua_State *L);

#endif
