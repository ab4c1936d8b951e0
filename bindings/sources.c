/* sources.c: the one factory of a run's sources (runtime/source.h), and
 * the one place that knows which kinds there are: a live run opens the
 * tracefs instance and the perf rings with this machine's formats; an
 * input opens a trace.dat with the formats it brings, or anything else as
 * the kernel's trace text (text.c, whose events are named its own way).
 * What a run may do is asked of its sources' capabilities (ctx->caps,
 * ltap_ctx_live), never of which kind they are. */
#include "sources.h"

#include "catalog.h"
#include "ctx.h"
#include "log.h"
#include "progress.h"
#include "source.h"
#include "src_replay.h"
#include "src_sampler.h"
#include "src_tracepoint.h"
#include "text.h"

#include <errno.h>
#include <lauxlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int sources_add(struct ltap_ctx *ctx, struct ltap_source *s)
{
	if (!s || ctx->nsources >= LTAP_MAX_SOURCES) {
		if (s)
			s->ops->close(s);
		return -1;
	}
	ctx->sources[ctx->nsources++] = s;
	return 0;
}

/* input: a trace.dat, or anything else as text; the formats its probes
 * resolve against come with it */
static int sources_open_input(struct ltap_ctx *ctx)
{
	const char *path = ctx->opt.input;
	struct ltap_text_input text;
	struct ltap_replay *r;
	struct stat st;

	if (strcmp(path, "-") != 0 && (access(path, R_OK) < 0 || stat(path, &st) < 0)) {
		ltap_err("replay: cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (strcmp(path, "-") != 0 && S_ISDIR(st.st_mode)) {
		ltap_err("replay: cannot read %s: %s", path, strerror(EISDIR));
		return -1;
	}
	/* anything that is not a trace.dat is taken for text; a FIFO or a
	 * device is read once, as text (a trace.dat needs seeks) */
	if (strcmp(path, "-") == 0 || !S_ISREG(st.st_mode) || !ltap_replay_is_tracedat(path)) {
		if (ltap_text_open(ctx, path, &text))
			return -1;
		ctx->face = text.face;
		ctx->cat = text.cat;
		return sources_add(ctx, text.source);
	}
	/* the reader learns the trace's end only for a progress line */
	if (!(r = ltap_replay_open(path, ltap_progress_wanted(ctx->opt.progress) ? LTAP_REPLAY_LAST : 0)))
		return -1;
	if (sources_add(ctx, ltap_replay_source(r)))
		return -1;
	ltap_replay_set_gate(r, &ctx->gate);
	ctx->cat = ltap_catalog_from_tep(ltap_replay_tep(r));
	return ctx->cat ? 0 : -1;
}

/* a live run: this machine's formats, its tracefs instance and perf rings */
static int sources_open_live(struct ltap_ctx *ctx)
{
	if (sources_add(ctx, ltap_tpsrc_new()) || sources_add(ctx, ltap_sampler_new(ctx->syms)))
		return -1;
	ctx->cat = ltap_catalog_open();
	return ctx->cat ? 0 : -1;
}

int ltap_ctx_sources(struct ltap_ctx *ctx)
{
	if (ctx->sources_opened)
		return ctx->sources_opened > 0 ? 0 : -1;
	ctx->sources_opened = (ctx->opt.input ? sources_open_input(ctx) : sources_open_live(ctx)) ? -1 : 1;
	if (ctx->sources_opened > 0) {
		ctx->caps = 0;
		for (int i = 0; i < ctx->nsources; i++)
			ctx->caps |= ctx->sources[i]->ops->caps;
	}
	return ctx->sources_opened > 0 ? 0 : -1;
}

int ltap_ctx_sources_early(struct ltap_ctx *ctx)
{
	/* a saved trace brings the formats probes resolve against: opened
	 * before the first script loads; a live run's wait for a probe */
	return ctx->opt.input ? ltap_ctx_sources(ctx) : 0;
}

struct ltap_catalog *ltap_ctx_catalog(lua_State *L, struct ltap_ctx *ctx)
{
	if (ltap_ctx_sources(ctx))
		luaL_error(L, "%s", ctx->io.error[0] ? ctx->io.error : "cannot read the event formats");
	return ctx->cat;
}

void ltap_ctx_sources_plan(struct ltap_ctx *ctx)
{
	/* what the sources will be, until they are opened */
	ctx->caps = ctx->opt.input ? 0 : LTAP_SOURCE_LIVE;
}

void ltap_ctx_sources_close(struct ltap_ctx *ctx)
{
	for (int i = 0; i < ctx->nsources; i++)
		ctx->sources[i]->ops->close(ctx->sources[i]);
	ctx->nsources = 0;
}
