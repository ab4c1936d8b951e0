/* host.h: a host from start to end (host.c; ltap.h's ltap_host_* are its public face) */
#ifndef LTAP_B_HOST_H
#define LTAP_B_HOST_H

#include <lua.h>

struct ltap_ctx;
struct ltap_options;

/* A context hosted by require "ltap" in L, a Lua program's own state: its
 * functions in a module table (ltap_open_api), its thread anchored in L's
 * registry; NULL when it cannot be made (said). */
struct ltap_ctx *ltap_ctx_new_module(lua_State *L, const struct ltap_options *opt);
void ltap_ctx_free(struct ltap_ctx *ctx);
/* ltap_host_step of a context: 1 running, 0 ended, -errno */
int ltap_ctx_step(struct ltap_ctx *ctx, int timeout_ms);
/* ltap_host_start and ltap_host_status of a context */
int ltap_ctx_start(struct ltap_ctx *ctx);
int ltap_ctx_status(const struct ltap_ctx *ctx);

#endif
