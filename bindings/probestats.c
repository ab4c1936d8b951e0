/* probestats.c: what each probe costs, said: its hits and their rate, at
 * the end of a run and (-v) every second, and a warning, once per probe,
 * when one fires so often that it dominates the program it traces.
 *
 * The per-event path only counts (p->hits++ in dispatch.c: no lookup, no
 * allocation); the rest runs once a second on the loop's clock, as a timer
 * of the merge (LTAP_TIMER_PROBES, timer.c), and at the end.
 *
 * Why a warning: a uprobe traps the traced thread at every hit (a
 * breakpoint, then a single step out of line): ~11 us here
 * (bench/README.md, uprobe.sh), 1-3 us on bare metal. A probe on a function
 * called per byte of a copy made that copy 31 times slower (issue 25) and
 * nothing said so. The trap's cost caps the rate a probed thread can reach
 * (1 / cost: ~90,000 a second here, even when the thread does nothing but
 * hit the probe), so the bar is a rate, not a share of the thread's time
 * that ltap cannot measure: at PROBE_UPROBE_RATE hits a second a uprobe
 * costs its threads a fifth of a CPU or more here, a fiftieth on bare
 * metal, and is likely the larger part of what they do. A tracepoint costs
 * the kernel a ring write (~0.1-0.3 us), so its bar is
 * PROBE_TRACEPOINT_RATE. */
#include "probestats.h"

#include "ctx.h"
#include "evdesc.h"
#include "log.h"

#include <lauxlib.h>
#include <stdio.h>
#include <string.h>

#define PROBE_UPROBE_RATE 20000.0        /* hits a second */
#define PROBE_TRACEPOINT_RATE 3000000.0
#define PROBE_CHECK_NS 1000000000ull

/* "file:line" of a probe's declaration (where[] ends in ": ") */
static int probes_where_len(const struct ltap_probe *p)
{
	int n = (int)strlen(p->where);
	while (n > 0 && (p->where[n - 1] == ' ' || p->where[n - 1] == ':'))
		n--;
	return n;
}

static double probes_seconds(const struct ltap_ctx *ctx, uint64_t at)
{
	return at > ctx->start_time ? (double)(at - ctx->start_time) / 1e9 : 0;
}

/* 1234567 -> "1,234,567" */
static const char *probes_thousands(uint64_t n, char *buf, size_t len)
{
	char digits[32];
	int k = snprintf(digits, sizeof digits, "%llu", (unsigned long long)n), o = 0;

	for (int i = 0; i < k && o + 2 < (int)len; i++) {
		if (i && (k - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = 0;
	return buf;
}

void ltap_probes_check(struct ltap_ctx *ctx, uint64_t at)
{
	char line[1024], n[32];
	int used = 0;

	for (struct ltap_probe *p = ctx->probes; p; p = p->next) {
		uint64_t delta = p->hits - p->hits_checked;
		double rate = (double)delta / ((double)PROBE_CHECK_NS / 1e9);
		p->hits_checked = p->hits;
		if (!p->warned && rate >= (p->costly ? PROBE_UPROBE_RATE : PROBE_TRACEPOINT_RATE)) {
			p->warned = 1;
			if (p->costly)
				ltap_warn("probe %s (%.*s) fired %s times in a second: a uprobe traps the traced thread at "
					  "every hit (~11 us on a VM, 1-3 us on bare metal): at this rate the probe is likely "
					  "most of what the probed threads do, and the times measured are mostly its own",
					  p->spec, probes_where_len(p), p->where, probes_thousands(delta, n, sizeof n));
			else
				ltap_warn("probe %s (%.*s) fired %s times in a second: writing each into the ring is a "
					  "large share of the kernel's work for the traced program",
					  p->spec, probes_where_len(p), p->where, probes_thousands(delta, n, sizeof n));
		}
		if (ctx->opt.verbose && delta && used < (int)sizeof line - 200)
			used += snprintf(line + used, sizeof line - (size_t)used, "%s%s %s/s", used ? ", " : "", p->spec,
					 probes_thousands(delta, n, sizeof n));
	}
	if (used)
		ltap_info("probes at %.0f s: %s", probes_seconds(ctx, at), line);
}

void ltap_probes_report(struct ltap_ctx *ctx)
{
	int costly = 0;
	double secs = probes_seconds(ctx, ctx->trace_now);
	char n[32], r[32];

	for (struct ltap_probe *p = ctx->probes; p; p = p->next)
		costly |= p->costly;
	if (!ctx->probes || !ltap_ctx_live(ctx) || !(costly || ctx->opt.verbose))
		return;
	for (struct ltap_probe *p = ctx->probes; p; p = p->next)
		ltap_info("probe %s (%.*s): %s hits, %s/s over %.1f s", p->spec, probes_where_len(p), p->where,
			  probes_thousands(p->hits, n, sizeof n),
			  probes_thousands(secs > 0 ? (uint64_t)((double)p->hits / secs + 0.5) : 0, r, sizeof r), secs);
}

/* ltap.probe_hits() -> {{spec=, where=, hits=, costly=, in_c=}, ...}:
 * every probe declared, in declaration order, with its hits so far; in_c
 * when its events are handled in C (s:by, a handler run in C, ltap.offcpu,
 * a profile's counts) */
int probestats_hits(lua_State *L)
{
	struct ltap_ctx *ctx = ltap_ctx_get(L);
	int i = 0;

	lua_newtable(L);
	for (struct ltap_probe *p = ctx->probes; p; p = p->next) {
		lua_createtable(L, 0, 5);
		lua_pushstring(L, p->spec);
		lua_setfield(L, -2, "spec");
		lua_pushstring(L, p->where);
		lua_setfield(L, -2, "where");
		lua_pushinteger(L, (lua_Integer)p->hits);
		lua_setfield(L, -2, "hits");
		lua_pushboolean(L, p->costly);
		lua_setfield(L, -2, "costly");
		lua_pushboolean(L, p->cfn || p->count);
		lua_setfield(L, -2, "in_c");
		lua_rawseti(L, -2, ++i);
	}
	return 1;
}
