/* sources.h: a run's sources, made by one factory (sources.c), and what
 * they can do. */
#ifndef LTAP_BINDINGS_SOURCES_H
#define LTAP_BINDINGS_SOURCES_H

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
/* ctx->caps as the sources the options name will have, until they are
 * opened (at a host's making, and when ltap.setup names an input) */
void ltap_ctx_sources_plan(struct ltap_ctx *ctx);
/* Closes every source: kernel state first, as early as the run ends. */
void ltap_ctx_sources_close(struct ltap_ctx *ctx);

#endif
