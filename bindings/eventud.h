/* eventud.h: the event object's state (event.c's reused table, read by its
 * parts: symbolic.c, the kinds' ops) */
#ifndef LTAP_B_EVENTUD_H
#define LTAP_B_EVENTUD_H

#include <lauxlib.h>
#include <lua.h>

struct ltap_ctx;
struct ltap_evdesc;
struct ltap_rec;

/* What the event object (a reused Lua table, event.c) shows. */
struct ltap_event_ud {
	struct ltap_ctx *ctx;
	struct ltap_evdesc *desc;
	const struct ltap_rec *rec; /* NULL outside a handler */
	/* what the table holds now, so unchanged fields are not stored again */
	struct ltap_evdesc *last_desc; /* NULL: the table is empty */
	int last_tid, last_cpu;
	int comms_cached; /* a comm string was cached: renames must forget it */
	int time_read;    /* a handler read e.time: stored in the table from then on */
};

/* the event object's state in a handler (its functions' first upvalue;
 * raises outside one) */
static inline struct ltap_event_ud *ltap_event_check(lua_State *L)
{
	struct ltap_event_ud *e = (struct ltap_event_ud *)lua_touserdata(L, lua_upvalueindex(1));
	if (!e->rec)
		luaL_error(L, "attempt to use an event outside its handler (use e:copy() to keep one)");
	return e;
}

#endif
