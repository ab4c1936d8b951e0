/* probestats.h: each probe's hits and rate (probestats.c) */
#ifndef LTAP_B_PROBESTATS_H
#define LTAP_B_PROBESTATS_H

#include <lua.h>
#include <stdint.h>

struct ltap_ctx;

/* the check of the interval ending at `at` (LTAP_TIMER_PROBES) */
void ltap_probes_check(struct ltap_ctx *ctx, uint64_t at);
/* at the end of a run: every probe's hits and rate, on stderr with -v or
 * when the run has uprobes or kprobes */
void ltap_probes_report(struct ltap_ctx *ctx);
/* the Lua functions api.c lists */
int probestats_hits(lua_State *L);

#endif
