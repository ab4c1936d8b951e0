/* api.h: the C functions of the Lua face, by home file. api.c lists them
 * in one table with the names scripts call them by. */
#ifndef LTAP_API_H
#define LTAP_API_H

#include <lua.h>

/* probe.c */
int probe_probe(lua_State *L);
/* profile.c */
int profile_profile(lua_State *L);
/* timer.c */
int timer_every(lua_State *L);
int timer_after(lua_State *L);
int timer_cancel(lua_State *L);
int timer_now(lua_State *L);
int timer_start_time(lua_State *L);
int timer_parse_duration(lua_State *L);
/* run.c */
int run_begin(lua_State *L);
int run_finish(lua_State *L);
int run_exit(lua_State *L);
int run_os_exit(lua_State *L);
int run_drain(lua_State *L);
int run_options(lua_State *L);
int run_lost(lua_State *L);
int run_mark(lua_State *L);
/* signals.c */
int signals_on_interrupt(lua_State *L);
/* counter.c */
int counter_new(lua_State *L);
int counter_measure(lua_State *L);
/* stats.c */
int stats_new(lua_State *L);
/* sorted.c */
int sorted_table(lua_State *L);
/* stack.c */
int stack_sym(lua_State *L);
int stack_folded_name(lua_State *L);
/* stackcount.c */
int stackcount_new(lua_State *L);
/* flame.c */
int flame_layout(lua_State *L);
int flame_sort(lua_State *L);
int flame_merge(lua_State *L);
int flame_folded_parse(lua_State *L);
int flame_perfscript_fold(lua_State *L);
/* uprobe.c */
int uprobe_functions(lua_State *L);
/* probestats.c */
int probestats_hits(lua_State *L);
/* names.c */
int names_syscall(lua_State *L);
/* options.c */
int options_lua(lua_State *L);
int options_usage_error(lua_State *L);
int options_parse_size(lua_State *L);
/* disasm.c */
int disasm_disasm(lua_State *L);
int disasm_source(lua_State *L);
/* perfdata.c */
int perfdata_read(lua_State *L);

#endif
