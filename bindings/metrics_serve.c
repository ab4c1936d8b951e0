/* metrics_serve.c: --serve. Scrapes are answered between batches of the
 * loop (serve.c), so a metric is read as a timer would read it: never in
 * the middle of a handler. While serving, a script error in a handler is
 * counted (ltap_handler_errors_total) and shown, not fatal: a service goes
 * on; without --serve it ends the run as always. */
#include "metrics_serve.h"

#include "ctx.h"
#include "event.h"
#include "log.h"
#include "metrics_export.h"
#include "metrics_render.h"
#include "metrics_set.h"
#include "serve.h"

#include <string.h>

#define ERRORS_SHOWN 10               /* handler errors shown in full while serving */
#define ERROR_SUMMARY 60000000000ull  /* then one summary line a minute */

/* the server's callback: a scrape, between batches */
static char *metrics_scrape(void *ud, int om, size_t *len)
{
	struct ltap_ctx *ctx = ud;
	ltap_event_clear(ctx);
	return ltap_metrics_render(ctx, om, 1, 1, len);
}

int ltap_metrics_bind(struct ltap_ctx *ctx)
{
	struct ltap_metrics *ms = ctx->metrics;

	if (ctx->opt.export_all && ltap_metrics_export_all(ctx))
		return -1;
	if (!ctx->opt.serve)
		return 0;
	ms->server = ltap_server_open(ctx->opt.serve, metrics_scrape, ctx);
	return ms->server ? 0 : -1;
}

/* ctx->forgive while serving: a script error is counted and shown, not
 * fatal; 1 when forgiven */
static int metrics_forgive(struct ltap_ctx *ctx, const char *msg)
{
	struct ltap_metrics *ms = ctx->metrics;
	uint64_t now;

	if (!ms || !ms->server || !ctx->run.in_loop || ctx->interrupted || ctx->sigints > 1)
		return 0;
	ms->handler_errors++;
	if (ms->errors_shown < ERRORS_SHOWN) {
		ltap_err("%s", msg);
		if (++ms->errors_shown == ERRORS_SHOWN)
			ltap_warn("serving: more handler errors are counted (ltap_handler_errors_total) and summed up once a minute");
		ms->last_summary = ltap_now();
		return 1;
	}
	ms->suppressed++;
	now = ltap_now();
	if (now - ms->last_summary >= ERROR_SUMMARY) {
		ltap_warn("serving: %llu more handler errors; the last: %.*s", (unsigned long long)ms->suppressed,
			  (int)strcspn(msg, "\n"), msg);
		ms->suppressed = 0;
		ms->last_summary = now;
	}
	return 1;
}

int ltap_metrics_serve(struct ltap_ctx *ctx, uint64_t attach_ns)
{
	struct ltap_metrics *ms = ctx->metrics;

	ms->attach_ns = attach_ns;
	if (!ms->server)
		return 0;
	if (ltap_server_attach(ms->server, ctx->loop))
		return -1;
	ctx->forgive = metrics_forgive;
	ltap_info("serving on %s (GET /metrics)", ltap_server_address(ms->server));
	return 0;
}

