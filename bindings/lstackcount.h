/* lstackcount.h: the ltap.stackcount type: samples counted per call chain (stackcount.c) */
#ifndef LTAP_B_LSTACKCOUNT_H
#define LTAP_B_LSTACKCOUNT_H

#include <lua.h>
#include <stddef.h>
#include <stdint.h>

struct ltap_ctx;
struct ltap_rec;
struct ltap_stackcount;

void ltap_open_stackcount(lua_State *L, struct ltap_ctx *ctx);
/* the count of the ltap.stackcount at idx, or NULL when idx is none */
struct ltap_stackcount **ltap_stackcount_at(lua_State *L, int idx);
/* one sample of r counted into *count, in its task's name; -1 when out of
 * memory (said, and the run ends) */
int ltap_stackcount_sample(struct ltap_ctx *ctx, struct ltap_stackcount **count, const struct ltap_rec *r, int tid);
/* n samples of r's stack in comm into sc, or with n < 0 none (the stack
 * interned); the stack's key, or -ENOMEM after a full collection and a
 * second try */
long ltap_stackcount_stack(lua_State *L, struct ltap_stackcount *sc, struct ltap_ctx *ctx, const struct ltap_rec *r,
			   const char *comm, size_t len, int64_t n);
/* the Lua functions api.c lists */
int stackcount_new(lua_State *L);

#endif
