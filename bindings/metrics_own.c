/* metrics_own.c: ltap's own metrics (ltap_* and process_*), names the
 * script cannot declare. Read from the sources' counts, the server's
 * counts and the process, at the scrape. */
#include "metrics_own.h"

#include "ctx.h"
#include "expo.h"
#include "metrics_set.h"
#include "serve.h"
#include "source.h"
#include "stats.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static void own_sample(struct ltap_expo *x, const char *name, const char *label, const char *lv, const char *val)
{
	ltap_expo_labels_reset(x);
	if (label)
		ltap_expo_labels_add(x, label, lv, strlen(lv));
	ltap_expo_sample(x, name, "", NULL, val);
}

static void own_counter(struct ltap_expo *x, const char *name, const char *help, uint64_t v)
{
	char val[32];
	char total[96];
	ltap_expo_family(x, name, LTAP_EXPO_COUNTER, help);
	ltap_expo_int(val, (int64_t)v);
	snprintf(total, sizeof total, "%s_total", name);
	own_sample(x, total, NULL, NULL, val);
}

static void own_gauge(struct ltap_expo *x, const char *name, const char *help, double v)
{
	char val[32];
	ltap_expo_family(x, name, LTAP_EXPO_GAUGE, help);
	ltap_expo_double(val, v);
	own_sample(x, name, NULL, NULL, val);
}

enum { OWN_CPUS = 1024 };

struct own_counts {
	uint64_t read[OWN_CPUS], lost[OWN_CPUS];
	unsigned char seen[OWN_CPUS], reads[OWN_CPUS];
};

static void own_count(void *ud, const struct ltap_source *s, const struct ltap_stream *st,
		      const struct ltap_source_counts *c)
{
	struct own_counts *o = ud;

	(void)s;
	if (st->cpu < 0 || st->cpu >= OWN_CPUS)
		return;
	o->seen[st->cpu] = 1;
	o->reads[st->cpu] |= (unsigned char)c->counts_read;
	o->read[st->cpu] += c->read;
	o->lost[st->cpu] += c->lost;
}

/* a counter family of a sample per CPU that has one (has[cpu]) */
static void own_percpu(struct ltap_expo *x, const char *name, const char *help, const uint64_t *v,
		       const unsigned char *has)
{
	char total[96], cpu[16], val[32];

	ltap_expo_family(x, name, LTAP_EXPO_COUNTER, help);
	snprintf(total, sizeof total, "%s_total", name);
	for (int i = 0; i < OWN_CPUS; i++) {
		if (!has[i])
			continue;
		snprintf(cpu, sizeof cpu, "%d", i);
		ltap_expo_int(val, (int64_t)v[i]);
		own_sample(x, total, "cpu", cpu, val);
	}
}

/* events read and lost per CPU, by the sources' own counts (source.h's
 * one reader: the ring stats, free per event); a run of perf rings alone
 * (profiles, stacks) has only its losses */
static void own_events(struct ltap_ctx *ctx, struct ltap_expo *x)
{
	struct own_counts o;

	memset(&o, 0, sizeof o);
	ltap_sources_counts(ctx->sources, ctx->nsources, own_count, &o);
	own_percpu(x, "ltap_events_read", "Events ltap read from the kernel's ftrace ring, per CPU (the ring's own count)",
		   o.read, o.reads);
	own_percpu(x, "ltap_events_lost", "Events the kernel dropped because a ring was full, per CPU", o.lost, o.seen);
}

static void own_per_metric(struct ltap_metrics *ms, struct ltap_expo *x, lua_State *L)
{
	char val[32];

	ltap_expo_family(x, "ltap_metric_dropped", LTAP_EXPO_COUNTER,
			 "Values not counted because their aggregate was at its max_keys (new keys are dropped)");
	for (int i = 0; i < ms->n; i++) {
		struct stats *s;
		struct ltap_stats_shape sh;
		lua_rawgeti(L, LUA_REGISTRYINDEX, ms->m[i].source);
		s = ltap_stats_test(L, -1);
		lua_pop(L, 1);
		if (!s)
			continue;
		ltap_stats_shape(s, &sh);
		ltap_expo_int(val, sh.dropped);
		own_sample(x, "ltap_metric_dropped_total", "metric", ms->m[i].name, val);
	}
	ltap_expo_family(x, "ltap_metric_series_skipped", LTAP_EXPO_GAUGE,
			 "Series of a table or function metric over its max_keys, not exported at the last scrape");
	for (int i = 0; i < ms->n; i++) {
		lua_rawgeti(L, LUA_REGISTRYINDEX, ms->m[i].source);
		if (!ltap_stats_test(L, -1)) {
			ltap_expo_int(val, ms->m[i].skipped);
			own_sample(x, "ltap_metric_series_skipped", "metric", ms->m[i].name, val);
		}
		lua_pop(L, 1);
	}
}

static void own_process(struct ltap_expo *x, double start)
{
	struct rusage ru;
	long rss = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%*d %ld", &rss) != 1)
			rss = 0;
		fclose(f);
	}
	getrusage(RUSAGE_SELF, &ru);
	own_gauge(x, "process_resident_memory_bytes", "Resident memory of ltap in bytes",
		  (double)rss * (double)sysconf(_SC_PAGESIZE));
	ltap_expo_family(x, "process_cpu_seconds", LTAP_EXPO_COUNTER, "CPU time of ltap (user and system) in seconds");
	{
		char val[32];
		ltap_expo_double(val, (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
					      (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
		own_sample(x, "process_cpu_seconds_total", NULL, NULL, val);
	}
	own_gauge(x, "process_start_time_seconds", "When ltap started, in seconds since the epoch", start);
}

void ltap_metrics_own(lua_State *L, struct ltap_ctx *ctx, struct ltap_metrics *ms, struct ltap_expo *x)
{
	const struct ltap_server_counts *c = ms->server ? ltap_server_counts(ms->server) : NULL;
	static const struct ltap_server_counts none;
	char val[32];

	if (!c)
		c = &none;
	own_events(ctx, x);
	own_counter(x, "ltap_handler_errors", "Script errors in handlers, timers and metric functions while serving",
		    ms->handler_errors);
	ltap_expo_family(x, "ltap_scrapes", LTAP_EXPO_COUNTER, "Scrapes of /metrics answered (this one included), by format");
	ltap_expo_int(val, (int64_t)(c->scrapes - c->scrapes_om));
	own_sample(x, "ltap_scrapes_total", "format", "text", val);
	ltap_expo_int(val, (int64_t)c->scrapes_om);
	own_sample(x, "ltap_scrapes_total", "format", "openmetrics", val);
	ltap_expo_family(x, "ltap_http_rejected", LTAP_EXPO_COUNTER,
			 "HTTP requests answered with an error, and connections closed at their deadline or to free a slot, by reason");
	{
		static const char *const reasons[] = {"not_found", "bad_method", "render_failed", "timeout", "evicted"};
		uint64_t v[] = {c->not_found, c->bad_method, c->failed, c->timeouts, c->evicted};
		for (int i = 0; i < 5; i++) {
			ltap_expo_int(val, (int64_t)v[i]);
			own_sample(x, "ltap_http_rejected_total", "reason", reasons[i], val);
		}
	}
	own_gauge(x, "ltap_attach_seconds", "Time from the start of the run to the probes attached, in seconds",
		  (double)ms->attach_ns / 1e9);
	own_per_metric(ms, x, L);
	own_process(x, ms->start_unix);
}
