/* leaf.h: e:leaf(), the leaf frame (leaf.c) */
#ifndef LTAP_B_LEAF_H
#define LTAP_B_LEAF_H

#include <lua.h>

struct ltap_ctx;
struct ltap_rec;

int ltap_stack_leaf(lua_State *L, struct ltap_ctx *ctx, const struct ltap_rec *r);

#endif
