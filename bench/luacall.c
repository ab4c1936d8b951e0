/* luacall.c: the least a Lua handler per event can cost on this machine,
 * with the Lua ltap links (Debian's liblua5.4, a shared library called
 * through its PLT, as libltap calls it). No ltap, no kernel: each row times
 * one way of running Lua once per "event" in a loop of N, CPU time
 * (CLOCK_PROCESS_CPUTIME_ID), best of ROUNDS.
 *
 *     luacall [N] [ROUNDS]
 *
 * The rows:
 *   pcall      push the handler (rawgeti) and the event table, lua_pcall an
 *              empty Lua function with a message handler: ltap's dispatch
 *              of one event (bindings/dispatch.c, call.c) with nothing filled
 *   call       the same with lua_call: no setjmp (an unprotected call, what
 *              running a batch of events under one pcall would leave)
 *   lua-lua    a Lua loop calling the empty function: no C boundary per
 *              event at all (what a loop in Lua over C-fed events pays)
 *   fill time  pcall + storing the event's time in the table (rawset by a
 *              string key: what ltap_event_fill did for every event until
 *              the time was stored only once a handler reads it)
 *   table      pcall + `n[e.comm] = (n[e.comm] or 0) + 1`
 *   udata nop  pcall + `u:nop(e.comm)`: a method of a userdata (its
 *              metatable's __index table) that is a C function doing nothing
 *              (stats():inc's lookup and call before it was bound)
 *   tbl nop    pcall + `t:nop(e.comm)`: the same C function as a field of a
 *              table: the method found in the object itself (as now)
 *   cfn nop    pcall + `nop(e.comm)`: the C function from an upvalue, no
 *              method lookup
 * Built and run by bench/luacall.sh; never part of ltap. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int msgh(lua_State *L)
{
	luaL_traceback(L, L, lua_tostring(L, 1), 1);
	return 1;
}

static int nop(lua_State *L)
{
	(void)L;
	return 0;
}

enum { PCALL, CALL, LUALUA, FILL, TABLE, UDATA, OBJ, CFN, NROWS };
static const char *const names[NROWS] = {
	"pcall (empty handler)", "call (no setjmp)", "lua-lua (a Lua loop)", "pcall + fill time",
	"pcall + table count", "pcall + u:nop(e.comm)", "pcall + t:nop(e.comm)", "pcall + nop(e.comm)",
};
static const char *const bodies[NROWS] = {
	"return function(e) end",
	"return function(e) end",
	"local f = function(e) end return function(e, n) for i = 1, n do f(e) end end",
	"return function(e) end",
	"local n = {} return function(e) n[e.comm] = (n[e.comm] or 0) + 1 end",
	"local u = ... return function(e) u:nop(e.comm) end",
	"local _, nop = ... local t = {nop = nop} return function(e) t:nop(e.comm) end",
	"local _, nop = ... return function(e) nop(e.comm) end",
};

static double run(lua_State *L, int row, long n)
{
	int base = lua_gettop(L), mh, hs, ev, time_key;
	double t0, t1;

	lua_pushcfunction(L, msgh);
	mh = lua_gettop(L);
	lua_newtable(L); /* handlers */
	hs = lua_gettop(L);
	lua_newtable(L); /* the event */
	ev = lua_gettop(L);
	lua_pushliteral(L, "comm");
	lua_pushliteral(L, "getppid_loop");
	lua_rawset(L, ev);
	lua_pushliteral(L, "time");
	time_key = lua_gettop(L);
	if (luaL_loadstring(L, bodies[row]) != LUA_OK) {
		fprintf(stderr, "luacall: %s\n", lua_tostring(L, -1));
		exit(1);
	}
	lua_pushvalue(L, 1); /* the userdata */
	lua_pushcfunction(L, nop);
	lua_call(L, 2, 1);
	lua_rawseti(L, hs, 1);

	t0 = cpu_ns();
	switch (row) {
	case CALL:
		for (long i = 0; i < n; i++) {
			lua_rawgeti(L, hs, 1);
			lua_pushvalue(L, ev);
			lua_call(L, 1, 0);
		}
		break;
	case LUALUA:
		lua_rawgeti(L, hs, 1);
		lua_pushvalue(L, ev);
		lua_pushinteger(L, n);
		lua_pcall(L, 2, 0, mh);
		break;
	default:
		for (long i = 0; i < n; i++) {
			if (row == FILL) {
				lua_pushvalue(L, time_key);
				lua_pushinteger(L, i);
				lua_rawset(L, ev);
			}
			lua_rawgeti(L, hs, 1);
			lua_pushvalue(L, ev);
			if (lua_pcall(L, 1, 0, mh) != LUA_OK) {
				fprintf(stderr, "luacall: %s\n", lua_tostring(L, -1));
				exit(1);
			}
		}
	}
	t1 = cpu_ns();
	lua_settop(L, base);
	return (t1 - t0) / n;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	lua_State *L = luaL_newstate();

	luaL_openlibs(L);
	lua_newuserdatauv(L, 16, 0); /* slot 1: u, its metatable's __index has nop */
	lua_newtable(L);
	lua_newtable(L);
	lua_pushcfunction(L, nop);
	lua_setfield(L, -2, "nop");
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, -2);
	printf("%-32s %8s\n", "per event", "ns");
	for (int row = 0; row < NROWS; row++) {
		double best = 1e18;
		for (int r = 0; r < rounds; r++) {
			double ns = run(L, row, n);
			if (ns < best)
				best = ns;
		}
		printf("%-32s %8.1f\n", names[row], best);
	}
	lua_close(L);
	return 0;
}
