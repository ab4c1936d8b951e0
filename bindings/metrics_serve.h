/* metrics_serve.h: --serve: the declared metrics answered to Prometheus
 * from the loop, between batches (serve.c is the HTTP side). */
#ifndef LTAP_BINDINGS_METRICS_SERVE_H
#define LTAP_BINDINGS_METRICS_SERVE_H

#include <stdint.h>

struct ltap_ctx;

/* Runs --export-all's declarations and binds the --serve address (before
 * anything is attached); 0 or -1 */
int ltap_metrics_bind(struct ltap_ctx *ctx);
/* Starts answering scrapes from the loop, tracing being on; from then on a
 * script error in a handler is counted and shown, not fatal. 0 or -1 */
int ltap_metrics_serve(struct ltap_ctx *ctx, uint64_t attach_ns);

#endif
