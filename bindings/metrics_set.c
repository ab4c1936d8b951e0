/* metrics_set.c: the set of declared metrics (metrics_set.h): made when
 * scripts get the metrics table, grown by each declaration, freed with the
 * server at the end of the run. */
#include "metrics_set.h"

#include "ctx.h"
#include "log.h"
#include "serve.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct ltap_metrics *ltap_metrics_new(void)
{
	struct ltap_metrics *ms = calloc(1, sizeof *ms);
	struct timespec ts;

	if (!ms)
		return NULL;
	clock_gettime(CLOCK_REALTIME, &ts);
	ms->start_unix = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	return ms;
}

static void metric_free(struct metric *m)
{
	free(m->name);
	free(m->help);
	for (int j = 0; j < m->nlabels; j++)
		free(m->labels[j]);
}

struct metric *ltap_metric_add(lua_State *L, struct ltap_metrics *ms)
{
	if (ms->n == ms->cap) {
		int cap = ms->cap ? ms->cap * 2 : 16;
		struct metric *m = realloc(ms->m, (size_t)cap * sizeof *m);
		if (!m)
			luaL_error(L, "metrics: out of memory");
		ms->m = m;
		ms->cap = cap;
	}
	memset(&ms->m[ms->n], 0, sizeof ms->m[ms->n]);
	ms->m[ms->n].lo_mark = ms->m[ms->n].hi_mark = -1;
	ms->m[ms->n].scale = 1;
	ms->m[ms->n].source = LUA_NOREF;
	return &ms->m[ms->n++];
}

void ltap_metric_drop_last(struct ltap_metrics *ms)
{
	metric_free(&ms->m[--ms->n]);
}

void ltap_metrics_free(struct ltap_ctx *ctx)
{
	struct ltap_metrics *ms = ctx->metrics;

	if (!ms)
		return;
	if (ms->handler_errors)
		ltap_warn("serving: %llu handler errors in all", (unsigned long long)ms->handler_errors);
	ltap_server_close(ms->server);
	for (int i = 0; i < ms->n; i++)
		metric_free(&ms->m[i]);
	free(ms->m);
	ltap_expo_free(&ms->x);
	free(ms);
	ctx->metrics = NULL;
}
