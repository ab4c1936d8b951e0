/* sources.h: a run's sources, made by one factory (sources.c), and what
 * they can do. */
#ifndef LTAP_BINDINGS_SOURCES_H
#define LTAP_BINDINGS_SOURCES_H

#include "source.h" /* LTAP_SOURCE_* */

#include <lua.h>

struct ltap_ctx;
struct ltap_catalog;

/* Opens the sources and their catalog of formats, once: the live kernel's
 * (tracefs: needs root) or the input's. 0, or -1 (said; again -1 later). */
int ltap_ctx_sources(struct ltap_ctx *ctx);
/* At a host's making: opens the sources now when they bring the formats
 * the scripts' probes resolve against (a saved trace); 0 or -1. */
int ltap_ctx_sources_early(struct ltap_ctx *ctx);
/* The catalog probes resolve against, opened on first need; raises the
 * reason when it cannot be read */
struct ltap_catalog *ltap_ctx_catalog(lua_State *L, struct ltap_ctx *ctx);
/* What the run's sources can do (LTAP_SOURCE_*), opened or still to open. */
unsigned ltap_ctx_caps(const struct ltap_ctx *ctx);
/* A run on this machine's kernel as it runs (LTAP_SOURCE_LIVE). */
static inline int ltap_ctx_live(const struct ltap_ctx *ctx)
{
	return (ltap_ctx_caps(ctx) & LTAP_SOURCE_LIVE) != 0;
}
/* Closes every source: kernel state first, as early as the run ends. */
void ltap_ctx_sources_close(struct ltap_ctx *ctx);

#endif
