/* symbolic.c: e.sym.FIELD, the name the event's print format gives a
 * field's value, as trace-cmd report prints it: e.sym.exit_reason of
 * kvm:kvm_exit is "HLT", e.sym.gfp_flags of kmem:mm_page_alloc is
 * "GFP_KERNEL|__GFP_COMP", e.sym.prev_state of sched:sched_switch "S".
 *
 * The format's tables are compiled once per event type, at its first
 * e.sym (runtime/symfield.c), with a name -> index table like e.args';
 * reading e.sym.X is then a table read, the evaluation of the compiled
 * conversion over the record, and one string push. e.sym is one proxy kept
 * in the event table, as e.args is. */
#include "symbolic.h"

#include "evdesc.h"
#include "eventud.h"
#include "symfield.h"

#include <event-parse.h>
#include <lauxlib.h>
#include <string.h>

/* d's symbolic fields, compiled at the first e.sym of its type; raises
 * when out of memory */
static struct ltap_symfields *sym_fields(lua_State *L, struct ltap_evdesc *d)
{
	if (d->sym_ref)
		return d->sym;
	if (d->ev && !(d->sym = ltap_symfields_new(d->ev)))
		luaL_error(L, "e.sym: out of memory");
	lua_createtable(L, 0, ltap_symfields_count(d->sym));
	for (int i = 0; i < ltap_symfields_count(d->sym); i++) {
		lua_pushinteger(L, i + 1);
		lua_setfield(L, -2, ltap_symfields_name(d->sym, i));
	}
	d->sym_ref = luaL_ref(L, LUA_REGISTRYINDEX);
	return d->sym;
}

/* pushes symbolic field i's text of the event */
static void sym_push(lua_State *L, struct ltap_event_ud *e, int i)
{
	const struct ltap_rec *r = e->desc->ops->record(e->ctx, e->desc, e->rec);
	char buf[512];
	size_t n = ltap_symfields_text(e->desc->sym, i, r->data, r->size, buf, sizeof buf);

	if (n < sizeof buf) {
		lua_pushlstring(L, buf, n);
		return;
	}
	{ /* a long flags list: the whole text, in a buffer of its size */
		luaL_Buffer b;
		char *p = luaL_buffinitsize(L, &b, n + 1);
		ltap_symfields_text(e->desc->sym, i, r->data, r->size, p, n + 1);
		luaL_pushresultsize(&b, n);
	}
}

/* Raises "EV has no symbolic field 'KEY' (symbolic fields: ...)" at the script's line. */
static int sym_none(lua_State *L, struct ltap_event_ud *e)
{
	luaL_Buffer b;
	const char *key = luaL_tolstring(L, 2, NULL);
	int n = ltap_symfields_count(e->desc->sym);

	luaL_where(L, 1);
	lua_rawgeti(L, LUA_REGISTRYINDEX, e->desc->name_ref);
	lua_pushfstring(L, "%s has no symbolic field '%s' (", lua_tostring(L, -1), key);
	lua_remove(L, -2);
	luaL_buffinit(L, &b);
	if (!n)
		luaL_addstring(&b, "none: its print format names no field's values");
	else
		luaL_addstring(&b, "symbolic fields: ");
	for (int i = 0; i < n; i++) {
		if (i)
			luaL_addstring(&b, ", ");
		luaL_addstring(&b, ltap_symfields_name(e->desc->sym, i));
	}
	luaL_addchar(&b, ')');
	luaL_pushresult(&b);
	lua_concat(L, 3);
	return lua_error(L);
}

static int sym_index(lua_State *L)
{
	struct ltap_event_ud *e = ltap_event_check(L);
	int i;

	sym_fields(L, e->desc);
	lua_rawgeti(L, LUA_REGISTRYINDEX, e->desc->sym_ref);
	lua_pushvalue(L, 2);
	if (lua_rawget(L, -2) != LUA_TNUMBER)
		return sym_none(L, e);
	i = (int)lua_tointeger(L, -1) - 1;
	sym_push(L, e, i);
	return 1;
}

static int sym_newindex(lua_State *L)
{
	return luaL_error(L, "events are read-only (copy it with e:copy() to change it)");
}

void ltap_sym_proxy(lua_State *L, struct ltap_event_ud *e)
{
	lua_newtable(L);
	lua_createtable(L, 0, 3);
	lua_pushlightuserdata(L, e);
	lua_pushcclosure(L, sym_index, 1);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, sym_newindex);
	lua_setfield(L, -2, "__newindex");
	lua_pushliteral(L, "ltap.event.sym");
	lua_setfield(L, -2, "__metatable");
	lua_setmetatable(L, -2);
}

void ltap_sym_copy(lua_State *L, struct ltap_event_ud *e)
{
	struct ltap_symfields *s = sym_fields(L, e->desc);
	int n = ltap_symfields_count(s);

	lua_createtable(L, 0, n);
	for (int i = 0; i < n; i++) {
		sym_push(L, e, i);
		lua_setfield(L, -2, ltap_symfields_name(s, i));
	}
}
