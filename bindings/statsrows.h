/* statsrows.h: an aggregate's keys in order (statsrows.c): s:sorted,
 * s:write, and the rule of how many rows are wanted. */
#ifndef LTAP_B_STATSROWS_H
#define LTAP_B_STATSROWS_H

#include <lua.h>
#include <stddef.h>

/* adds s:sorted and s:write to the ltap.stats metatable (after stats.c's) */
struct ltap_ctx;
void ltap_open_statsrows(lua_State *L, struct ltap_ctx *ctx);
/* how many of size rows the N at idx asks for: nil all, else at most N
 * (sorted()'s rule: below 1 none, a fraction cut) */
size_t ltap_rows_wanted(lua_State *L, int idx, size_t size);

#endif
