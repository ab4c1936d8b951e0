/* luprobe.h: u:, ur:, usdt: specs made into kernel uprobes (uprobe.c) */
#ifndef LTAP_B_LUPROBE_H
#define LTAP_B_LUPROBE_H

#include <lua.h>

struct ltap_ctx;
struct tep_event;

int ltap_is_uprobe_spec(const char *spec);
struct tep_event *ltap_uprobe_event(lua_State *L, struct ltap_ctx *ctx, const char *spec);
/* the Lua functions api.c lists */
int uprobe_functions(lua_State *L);

#endif
