/* scripttext.c: e:script([PERIOD]), a sample with its call chain as the text
 * `perf script` prints, built in C like e:folded():
 *
 *   hot 4242/4242 [001] 3135.412398: 1001001 cpu-clock:
 *   	    55d0c1a2b1c9 hot_spin+0x29 (/usr/local/bin/hot)
 *   	    55d0c1a2b2f0 main+0x50 (/usr/local/bin/hot)
 *   (a blank line)
 *
 * the header (command, pid/tid, [cpu], seconds, PERIOD (default 1), the
 * event: "cpu-clock" for a profile), then the frames leaf first, each its
 * address, symbol+offset ("[unknown]" for none) and module, then a blank
 * line. This is what `ltap profile --save` keeps: with symbols and offsets
 * resolved while the processes live, it can be annotated (ltap annotate
 * -i), folded (ltap flamegraph, stackcollapse-perf.pl) or read by people. */
#include "scripttext.h"

#include "ctx.h"
#include "evdesc.h"
#include "eventud.h"
#include "stack.h"
#include "symbols.h"

#include <event-parse.h>
#include <inttypes.h>
#include <lauxlib.h>
#include <string.h>

int ltap_stack_script(lua_State *L, struct ltap_ctx *ctx, const struct ltap_rec *r, int comm_idx)
{
	struct ltap_frame frames[LTAP_STACK_MAX_FRAMES];
	uint64_t addrs[LTAP_STACK_MAX_FRAMES];
	int n = ltap_stack_frames(ctx, r, frames, addrs);
	lua_Integer period = luaL_optinteger(L, 2, 1);
	const char *comm = lua_tostring(L, comm_idx);
	int32_t tid = 0;
	struct ltap_evdesc *d = ctx->event->desc;
	luaL_Buffer b;

	if (r->size >= 8)
		memcpy(&tid, (const char *)r->data + 4, sizeof tid);
	luaL_buffinit(L, &b);
	for (const char *c = comm ? comm : ""; *c; c++) /* perf writes a comm's blanks as they are */
		luaL_addchar(&b, *c == '\n' ? ' ' : *c);
	{
		char t[128];
		snprintf(t, sizeof t, " %d/%d [%03d] %" PRIu64 ".%06" PRIu64 ": %lld %s%s%s:\n", r->pid, (int)tid,
			 r->cpu, r->ts / 1000000000u, (r->ts % 1000000000u) / 1000u, (long long)period,
			 d && d->ev ? d->ev->system : "", d && d->ev ? ":" : "", d && d->ev ? d->ev->name : "cpu-clock");
		luaL_addstring(&b, t);
	}
	for (int i = 0; i < n; i++) {
		struct ltap_sym sym;
		char line[64];
		if (ltap_symbols_frame_sym(ctx->syms, &frames[i], 0, &sym) != 0)
			sym.name = sym.module = NULL;
		snprintf(line, sizeof line, "\t%16" PRIx64 " ", addrs[i]);
		luaL_addstring(&b, line);
		if (sym.name) {
			luaL_addstring(&b, sym.name);
			snprintf(line, sizeof line, "+0x%" PRIx64, sym.off);
			luaL_addstring(&b, line);
		} else {
			luaL_addstring(&b, "[unknown]");
		}
		luaL_addstring(&b, " (");
		luaL_addstring(&b, sym.module ? sym.module : "[unknown]");
		luaL_addstring(&b, ")\n");
	}
	luaL_addchar(&b, '\n');
	luaL_pushresult(&b);
	return 1;
}
