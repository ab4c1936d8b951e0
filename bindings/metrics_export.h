/* metrics_export.h: --export-all: every aggregate the script made while
 * it loaded becomes a metric, named by the variable that holds it. */
#ifndef LTAP_BINDINGS_METRICS_EXPORT_H
#define LTAP_BINDINGS_METRICS_EXPORT_H

#include <lua.h>

struct ltap_ctx;

/* Starts the list of aggregates made while loading (stats.c appends to
 * the registry's "ltap.export_all"); at open, with --export-all. */
void ltap_metrics_export_track(lua_State *L);
/* Declares a metric for each listed aggregate that is no metric's source
 * yet, after the load; 0, or -1 with the error said. */
int ltap_metrics_export_all(struct ltap_ctx *ctx);

#endif
