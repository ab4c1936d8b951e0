/* metrics.h: metrics.counter/gauge/histogram, --serve, --export-all (metrics.c) */
#ifndef LTAP_B_METRICS_H
#define LTAP_B_METRICS_H

#include <lua.h>
#include <stdint.h>

struct ltap_ctx;

void ltap_open_metrics(lua_State *L, struct ltap_ctx *ctx);
/* binds the --serve address (before anything is attached); 0 or -1 */
int ltap_metrics_bind(struct ltap_ctx *ctx);
/* starts answering scrapes from the loop, tracing being on; 0 or -1 */
int ltap_metrics_serve(struct ltap_ctx *ctx, uint64_t attach_ns);
void ltap_metrics_free(struct ltap_ctx *ctx);

#endif
