/* feed.h: aggregates fed in C (feed.c): s:by(KEYS, [VALUE]) given to
 * probe() in place of a handler. */
#ifndef LTAP_FEED_H
#define LTAP_FEED_H

#include <lua.h>
#include <stddef.h>

struct feed;
struct ltap_ctx;
struct ltap_probe;

/* the feed at idx, or NULL */
struct feed *ltap_feed_test(lua_State *L, int idx);
/* p (a probe of its descriptor's event) adds to f's aggregate in C from
 * now on: the names resolved for the event. 0, or -1 with why ("kmalloc
 * has no field 'bytes'"). */
int ltap_feed_bind(struct ltap_ctx *ctx, struct ltap_probe *p, const struct feed *f, char *why, size_t len);
/* the ltap.feed type, and s:by(KEYS, [VALUE]) added to ltap.stats (after
 * stats.c made its metatable) */
void ltap_open_feed(lua_State *L, struct ltap_ctx *ctx);

#endif
