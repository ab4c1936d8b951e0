/* metrics_set.h: the metrics a script declared, the set the metrics files
 * share: metrics.c declares into it (metrics.counter/gauge/histogram),
 * metrics_export.c too (--export-all); metrics_render.c renders it,
 * metrics_own.c adds ltap's own figures, metrics_serve.c answers scrapes
 * with it. */
#ifndef LTAP_BINDINGS_METRICS_SET_H
#define LTAP_BINDINGS_METRICS_SET_H

#include "expo.h"

#include <lua.h>
#include <stdint.h>

struct ltap_ctx;
struct ltap_server;

#define METRICS_MAX_LABELS 16

/* what a counter or gauge over an aggregate shows */
enum { METRIC_SUM, METRIC_COUNT };


struct metric {
	char *name;         /* the family's name (a counter's without _total) */
	char *help;
	enum ltap_expo_type type;
	char *labels[METRICS_MAX_LABELS];
	int nlabels;
	int auto_labels;    /* --export-all: key, or key1..keyN, as the aggregate's keys come */
	int value;          /* VALUE_*: what a counter or gauge of an aggregate shows */
	double scale;       /* values (and bucket bounds) are multiplied by it */
	int source;         /* registry ref */
	int max_series;     /* a table's or function's series shown at most */
	int lo_mark, hi_mark; /* histogram: the buckets shown so far (-1: none) */
	int64_t skipped;    /* a table's series over max_series at the last scrape */
	int warned;
};

struct ltap_metrics {
	struct metric *m;
	int n, cap;
	struct ltap_server *server;
	uint64_t attach_ns;
	double start_unix;
	uint64_t handler_errors, suppressed, last_summary;
	int errors_shown;
	struct ltap_expo x;  /* the rendering in progress */
};

/* An empty set, its start time now (process_start_time_seconds); NULL
 * when out of memory. */
struct ltap_metrics *ltap_metrics_new(void);
/* The set and its server, at the end of the run (ctx->metrics). */
void ltap_metrics_free(struct ltap_ctx *ctx);
/* A new metric at the end of ms's list, zeroed but for its defaults (no
 * source, no histogram marks, scale 1); raises when out of memory. */
struct metric *ltap_metric_add(lua_State *L, struct ltap_metrics *ms);
/* Takes back the metric ltap_metric_add gave last (a declaration that
 * could not be finished). */
void ltap_metric_drop_last(struct ltap_metrics *ms);

#endif
