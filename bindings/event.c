/* event.c: the event object handed to handlers.
 *
 * It is one Lua table, reused for every event. The common fields (name, pid,
 * tid, comm, cpu, time) are stored in it before each handler runs, and only
 * when they change (time always; the others when the task, CPU or event type
 * differs from the previous event): reading e.comm is then a plain table
 * read, not a metamethod call, which halved the cost of a counting handler.
 * The time is stored only once a handler has read it (through __index, the
 * first time): storing it costs ~15 ns per event, a tenth of a counting
 * handler's whole cost, and most counting handlers never read it.
 * The format fields are not stored: __index reads them from the raw bytes in
 * the ring (zero copy) through tep_format_field pointers resolved once per
 * event type. Before timers and hooks run the table is emptied, so an event
 * kept beyond its handler refuses to be read instead of showing stale data.
 *
 * One rule for names: the common ones (name pid tid comm cpu time) mean the
 * same on every event, as bpftrace's builtins; every format field is
 * e.args.FIELD (bpftrace's args.FIELD), and also e.FIELD unless a common
 * name, args or a method (ltap_catalog_is_reserved) has that name: the pid
 * argument of getpgid is e.args.pid, e.pid the caller's. e.args is one
 * proxy, stored in the table once: reading it is a plain table read, and
 * its fields come through its own __index, under the same handler guard. */
#include "event.h"

#include "catalog.h"
#include "ctx.h"
#include "evdesc.h"
#include "eventud.h"
#include "leaf.h"
#include "proc.h"
#include "scripttext.h"
#include "stack.h"
#include "symbolic.h"

#include <event-parse.h>
#include <lauxlib.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define EVENT_MT "ltap.event"
#define EVENT_ARGS_MT "ltap.event.args"

enum {
	F_NAME = -1, F_PID = -2, F_TID = -3, F_COMM = -4, F_CPU = -5, F_TIME = -6,
	F_COPY = -7, F_STACK = -8, F_KSTACK = -9, F_USTACK = -10, F_FOLDED = -11, F_FRAME = -12, F_LEAF = -13, F_SCRIPT = -14,
};
#define NCOMMON 6 /* the stored ones: F_NAME .. F_TIME */

static const struct { const char *name; int code; } event_common[] = {
	{"name", F_NAME}, {"pid", F_PID}, {"tid", F_TID}, {"comm", F_COMM},
	{"cpu", F_CPU}, {"time", F_TIME}, {"copy", F_COPY},
	{"stack", F_STACK}, {"kstack", F_KSTACK}, {"ustack", F_USTACK},
	{"folded", F_FOLDED}, {"frame", F_FRAME}, {"leaf", F_LEAF}, {"script", F_SCRIPT},
};

static struct ltap_event_ud *event_state(lua_State *L)
{
	return lua_touserdata(L, lua_upvalueindex(1));
}


/* name -> code of one event type: its own fields, then the common names
 * and methods; with all, every field (e.args), else those no reserved
 * name shadows (e.FIELD) */
static int event_names(lua_State *L, struct ltap_evdesc *d, int all)
{
	lua_createtable(L, 0, (int)(sizeof event_common / sizeof event_common[0]) + d->nfields);
	for (int i = 0; i < d->nfields; i++) {
		if (!all && ltap_catalog_is_reserved(d->fields[i]->name))
			continue;
		lua_pushinteger(L, i + 1);
		lua_setfield(L, -2, d->fields[i]->name);
	}
	for (size_t i = 0; !all && i < sizeof event_common / sizeof event_common[0]; i++) {
		lua_pushinteger(L, event_common[i].code);
		lua_setfield(L, -2, event_common[i].name);
	}
	return luaL_ref(L, LUA_REGISTRYINDEX);
}

void ltap_event_fields_tables(lua_State *L, struct ltap_evdesc *d)
{
	d->fields_ref = event_names(L, d, 0);
	d->args_ref = event_names(L, d, 1);
}

static int event_tid(const struct ltap_event_ud *e)
{
	return ltap_rec_tid(e->desc, e->rec);
}

/* comms (a stack index) caches tid -> comm string, so a Lua string is made
 * once per task, not once per event */
static void event_push_comm(lua_State *L, struct ltap_event_ud *e, int tid, int comms)
{
	if (lua_rawgeti(L, comms, tid) != LUA_TNIL)
		return;
	lua_pop(L, 1);
	lua_pushstring(L, ltap_proc_comm(e->ctx->proc, tid));
	lua_pushvalue(L, -1);
	lua_rawseti(L, comms, tid);
	e->comms_cached = 1;
}

static void event_push_code(lua_State *L, struct ltap_event_ud *e, int code)
{
	switch (code) {
	case F_NAME: lua_rawgeti(L, LUA_REGISTRYINDEX, e->desc->name_ref); break;
	case F_PID: lua_pushinteger(L, ltap_proc_tgid(e->ctx->proc, event_tid(e))); break;
	case F_TID: lua_pushinteger(L, event_tid(e)); break;
	case F_COMM: event_push_comm(L, e, event_tid(e), lua_upvalueindex(2)); break;
	case F_CPU: lua_pushinteger(L, e->rec->cpu); break;
	case F_TIME: lua_pushinteger(L, (lua_Integer)e->rec->ts); break;
	case F_COPY: lua_pushvalue(L, lua_upvalueindex(3)); break;
	case F_STACK: case F_KSTACK: case F_USTACK: case F_FOLDED: case F_FRAME: case F_LEAF: case F_SCRIPT:
		lua_pushvalue(L, lua_upvalueindex(4 + F_STACK - code));
		break;
	default: e->desc->ops->field(L, e, code - 1); break;
	}
}

/* Raises "EV has no field 'KEY' (fields: ...)" at the script's line; the
 * fields as the script can read them: e.X, or e.args.X (args: all as X) */
static int event_no_field(lua_State *L, struct ltap_event_ud *e, int args)
{
	luaL_Buffer b;
	const char *key = luaL_tolstring(L, 2, NULL);

	luaL_where(L, 1); /* the script line that asked */
	luaL_buffinit(L, &b);
	for (int i = 0; i < e->desc->nfields; i++) {
		const char *f = e->desc->fields[i]->name;
		if (i)
			luaL_addstring(&b, ", ");
		if (!args && ltap_catalog_is_reserved(f))
			luaL_addstring(&b, "e.args.");
		luaL_addstring(&b, f);
	}
	if (!e->desc->nfields)
		luaL_addstring(&b, args ? "none" : "none but the common ones");
	luaL_pushresult(&b);
	lua_rawgeti(L, LUA_REGISTRYINDEX, e->desc->name_ref);
	lua_pushfstring(L, "%s has no field '%s' (fields: %s)", lua_tostring(L, -1), key, lua_tostring(L, -2));
	lua_replace(L, -3);
	lua_pop(L, 1);
	lua_concat(L, 2);
	return lua_error(L);
}

/* A field by its code in ref's table: nil (key not a field) stays on the stack. */
static int event_code(lua_State *L, int ref)
{
	lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
	lua_pushvalue(L, 2);
	return lua_rawget(L, -2) == LUA_TNUMBER ? (int)lua_tointeger(L, -1) : 0;
}

/* A key that is none of the format's fields: the kind's own (a text
 * line's key=value), or the error listing the fields. */
static int event_other(lua_State *L, struct ltap_event_ud *e, int args)
{
	if (e->desc->ops->pairs)
		return e->desc->ops->pairs(L, e, luaL_tolstring(L, 2, NULL));
	return event_no_field(L, e, args);
}

/* Only keys absent from the table get here: format fields and methods. */
static int event_index(lua_State *L)
{
	struct ltap_event_ud *e = ltap_event_check(L);
	int code = event_code(L, e->desc->fields_ref);

	if (!code)
		return event_other(L, e, 0);
	if (code == F_TIME)
		e->time_read = 1;
	event_push_code(L, e, code);
	return 1;
}

/* e.args.FIELD: every format field, reserved names included. */
static int event_args_index(lua_State *L)
{
	struct ltap_event_ud *e = ltap_event_check(L);
	int code = event_code(L, e->desc->args_ref);

	if (!code)
		return event_other(L, e, 1);
	e->desc->ops->field(L, e, code - 1);
	return 1;
}

/* e:stack([LINES]), e:kstack(), e:ustack(), e:folded(), e:frame(N) (stack.c),
 * e:leaf() (leaf.c), e:script([PERIOD]) (scripttext.c): the call chain of
 * a sample, of whatever kind its descriptor is. */
static int event_stack(lua_State *L)
{
	struct ltap_event_ud *e = ltap_event_check(L);
	int which = (int)lua_tointeger(L, lua_upvalueindex(2)), arg;

	if (!e->rec->callchain)
		return luaL_error(L, "%s has no call chain (declare the probe with {stack=true})",
				  e->desc->ev ? e->desc->ev->name : "this event");
	switch (which) {
	case STACK_FOLDED:
	case STACK_SCRIPT:
		luaL_checktype(L, 1, LUA_TTABLE);
		lua_pushliteral(L, "comm");
		lua_rawget(L, 1);
		arg = lua_gettop(L);
		break;
	case STACK_FRAME:
		arg = (int)luaL_checkinteger(L, 2);
		break;
	default:
		arg = lua_toboolean(L, 2);
	}
	if (which == STACK_LEAF)
		return ltap_stack_leaf(L, e->ctx, e->rec);
	if (which == STACK_SCRIPT)
		return ltap_stack_script(L, e->ctx, e->rec, arg);
	return ltap_stack_push(L, e->ctx, e->rec, which, arg);
}

/* e:copy(): a plain table of what e shows, to keep beyond the handler: the
 * common fields, the fields no reserved name shadows, and args with all. */
static int event_copy(lua_State *L)
{
	struct ltap_event_ud *e = ltap_event_check(L);

	lua_createtable(L, 0, e->desc->nfields + 7);
	for (int code = F_NAME; code >= F_TIME; code--) {
		event_push_code(L, e, code);
		lua_setfield(L, -2, event_common[-code - 1].name);
	}
	lua_createtable(L, 0, e->desc->nfields); /* copy args */
	/* the kind's own keys (a text line's key=value), then the format's fields */
	if (e->desc->ops->pairs)
		e->desc->ops->pairs(L, e, NULL);
	for (int i = 0; i < e->desc->nfields; i++) {
		e->desc->ops->field(L, e, i);
		lua_setfield(L, -2, e->desc->fields[i]->name);
	}
	/* the fields e.X reads too */
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		if (lua_type(L, -2) == LUA_TSTRING && !ltap_catalog_is_reserved(lua_tostring(L, -2))) {
			lua_pushvalue(L, -2);
			lua_insert(L, -2);
			lua_rawset(L, -5);
		} else {
			lua_pop(L, 1);
		}
	}
	lua_setfield(L, -2, "args");
	ltap_sym_copy(L, e);
	lua_setfield(L, -2, "sym");
	return 1;
}

static int event_newindex(lua_State *L)
{
	return luaL_error(L, "events are read-only (copy it with e:copy() to change it)");
}

/* tostring(e): the kernel's rendering, or what the kind has instead. */
static int event_tostring(lua_State *L)
{
	struct ltap_event_ud *e = event_state(L);

	if (!e->rec)
		lua_pushliteral(L, "ltap.event (outside its handler)");
	else
		e->desc->ops->tostring(L, e);
	return 1;
}

/* the metatable at the top (named mt by luaL_newmetatable): read-only
 * tables, and a metatable scripts cannot take */
static void event_seal(lua_State *L, const char *mt)
{
	lua_pushcfunction(L, event_newindex);
	lua_setfield(L, -2, "__newindex");
	lua_pushstring(L, mt);
	lua_setfield(L, -2, "__metatable");
}

void ltap_open_event(lua_State *L, struct ltap_ctx *ctx)
{
	struct ltap_event_ud *e = lua_newuserdatauv(L, sizeof *e, 0);

	memset(e, 0, sizeof *e);
	e->ctx = ctx;
	e->last_tid = INT_MIN;
	e->last_cpu = -1;
	ctx->event = e;
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.event_state");

	lua_newtable(L); /* the event */
	luaL_newmetatable(L, EVENT_MT);
	lua_newtable(L); /* tid -> comm cache */
	lua_pushvalue(L, -1);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.comms");
	/* upvalues of __index: state, comm cache, e:copy, then e:stack, e:kstack,
	 * e:ustack, e:folded, e:frame, e:leaf, e:script */
	lua_pushlightuserdata(L, e);
	lua_pushvalue(L, -2);
	lua_pushlightuserdata(L, e);
	lua_pushvalue(L, -4);
	lua_pushcclosure(L, event_copy, 2);     /* ev mt comms e comms copy */
	for (int which = STACK_ALL; which <= STACK_SCRIPT; which++) {
		lua_pushlightuserdata(L, e);
		lua_pushinteger(L, which);
		lua_pushcclosure(L, event_stack, 2);
	}
	lua_pushcclosure(L, event_index, 10);   /* ev mt comms index */
	lua_setfield(L, -3, "__index");
	lua_pushlightuserdata(L, e);
	lua_pushvalue(L, -2);
	lua_pushcclosure(L, event_tostring, 2);
	lua_setfield(L, -3, "__tostring");
	lua_pop(L, 1); /* comm cache */
	event_seal(L, EVENT_MT);
	lua_setmetatable(L, -2);
	/* e.args: one proxy for every event, kept in the table (ltap_event_clear
	 * leaves it): reading e.args is a table read, its fields are guarded */
	lua_pushliteral(L, "args");
	lua_newtable(L);
	luaL_newmetatable(L, EVENT_ARGS_MT);
	lua_pushlightuserdata(L, e);
	lua_pushcclosure(L, event_args_index, 1);
	lua_setfield(L, -2, "__index");
	event_seal(L, EVENT_ARGS_MT);
	lua_setmetatable(L, -2);
	lua_rawset(L, -3);
	/* e.sym: the same, for the names of field values (symbolic.c) */
	lua_pushliteral(L, "sym");
	ltap_sym_proxy(L, e);
	lua_rawset(L, -3);
	lua_setfield(L, LUA_REGISTRYINDEX, "ltap.the_event");
}

int ltap_event_push_slots(lua_State *L, struct ltap_ctx *ctx)
{
	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.the_event");
	ctx->event_slot = lua_gettop(L);
	lua_getfield(L, LUA_REGISTRYINDEX, "ltap.comms");
	ctx->comms_slot = lua_gettop(L);
	ctx->keys_slot = ctx->comms_slot + 1;
	for (int i = 0; i < NCOMMON; i++)
		lua_pushstring(L, event_common[i].name);
	return ctx->event_slot;
}

static void event_key(lua_State *L, struct ltap_ctx *ctx, int code)
{
	lua_pushvalue(L, ctx->keys_slot + (-code - 1));
}

/* Stores the common fields of r in the event table before its handlers run. */
void ltap_event_fill(struct ltap_ctx *ctx, struct ltap_evdesc *d, const struct ltap_rec *r)
{
	lua_State *L = ctx->L;
	struct ltap_event_ud *e = ctx->event;
	int tid;

	e->desc = d;
	e->rec = r;
	tid = event_tid(e);
	if (d != e->last_desc) {
		event_key(L, ctx, F_NAME);
		lua_rawgeti(L, LUA_REGISTRYINDEX, d->name_ref);
		lua_rawset(L, ctx->event_slot);
		e->last_desc = d;
	}
	if (tid != e->last_tid) {
		event_key(L, ctx, F_TID);
		lua_pushinteger(L, tid);
		lua_rawset(L, ctx->event_slot);
		event_key(L, ctx, F_PID);
		lua_pushinteger(L, ltap_proc_tgid(ctx->proc, tid));
		lua_rawset(L, ctx->event_slot);
		event_key(L, ctx, F_COMM);
		event_push_comm(L, e, tid, ctx->comms_slot);
		lua_rawset(L, ctx->event_slot);
		e->last_tid = tid;
	}
	if (r->cpu != e->last_cpu) {
		event_key(L, ctx, F_CPU);
		lua_pushinteger(L, r->cpu);
		lua_rawset(L, ctx->event_slot);
		e->last_cpu = r->cpu;
	}
	if (e->time_read) {
		event_key(L, ctx, F_TIME);
		lua_pushinteger(L, (lua_Integer)r->ts);
		lua_rawset(L, ctx->event_slot);
	}
}

/* Empties the event table: what runs next is not an event's handler. */
void ltap_event_clear(struct ltap_ctx *ctx)
{
	struct ltap_event_ud *e = ctx->event;

	e->rec = NULL;
	if (!e->last_desc)
		return;
	for (int i = 0; i < NCOMMON; i++) {
		lua_pushvalue(ctx->L, ctx->keys_slot + i);
		lua_pushnil(ctx->L);
		lua_rawset(ctx->L, ctx->event_slot);
	}
	e->last_desc = NULL;
	e->last_tid = INT_MIN;
	e->last_cpu = -1;
}

/* Forgets the cached comm of tid after a rename or exec. */
void ltap_event_forget_comm(struct ltap_ctx *ctx, int tid)
{
	if (!ctx->event->comms_cached) /* a profile counted in C names none */
		return;
	lua_pushnil(ctx->L);
	lua_rawseti(ctx->L, ctx->comms_slot, tid);
	if (ctx->event->last_tid == tid)
		ctx->event->last_tid = INT_MIN;
}
