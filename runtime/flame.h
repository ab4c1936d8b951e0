/* flame.h: the frames of a flame graph and their SVG, the part of
 * stdlib/flamegraph.lua that runs per stack and per frame (the options, the
 * page around the frames and its script stay in Lua).
 *
 * Layout: stacks ("comm;f1;f2", root first) in drawing order, with their
 * counts (and, for a differential graph, the counts before); neighbouring
 * stacks that share a path share its frames, as flamegraph.pl merges them.
 * Frames narrower than minw samples are left out.
 *
 * SVG: one <g> line per frame, exactly as flamegraph.lua wrote them: name,
 * position and tooltip, a fill from the palette (flamegraph.pl's palettes)
 * or from the change of the frame (differential). */
#ifndef LTAP_FLAME_H
#define LTAP_FLAME_H

#include "strbuf.h"

#include <stddef.h>

struct ltap_flame_frame {
	const char *name; /* inside its stack's text, len bytes, not terminated */
	size_t len;
	int depth;        /* 0: the root, "all" */
	int h;            /* levels of frames above it */
	double x, w;      /* in samples */
	double delta;     /* the change of its own samples (differential) */
	double before;    /* its samples before (differential) */
};

struct ltap_flame {
	struct ltap_flame_frame *f; /* closing order: children before parents, the root last */
	size_t n, cap;
	double total, total_before, maxdelta;
	int dmax;
};

/* Lays out nkeys stacks (keys[i], lens[i] bytes) with counts cnt (and cnt0,
 * or NULL) into fl (zeroed, or laid out before: it is reused). Frame names
 * point into the keys. 0 or -ENOMEM. */
int ltap_flame_layout(struct ltap_flame *fl, const char *const *keys, const size_t *lens, const double *cnt,
		      const double *cnt0, size_t nkeys, double minw);
void ltap_flame_free(struct ltap_flame *fl);

enum ltap_flame_fill {
	LTAP_FLAME_PALETTE,        /* the palette, by name */
	LTAP_FLAME_DIFF_SELF,      /* the change of the frame's own samples */
	LTAP_FLAME_DIFF_INCLUSIVE, /* the change of its share of all samples */
};

struct ltap_flame_style {
	double xpad, wpt;   /* left margin, pixels per sample */
	double charw;       /* pixels per character of a label */
	double fh, base;    /* frame height, the baseline (y of depth 0) */
	double ty_off;      /* a label's y below its frame's top */
	int inverted;       /* icicle: depth grows downwards */
	int cap;            /* -1, or the deepest level drawn */
	enum ltap_flame_fill fill;
	const char *palette; /* hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, yellow, purple, orange */
	int hash;            /* colours by a vector hash of the name (flamegraph.pl --hash) */
	int negate;          /* differential: hues swapped */
	const char *countname;
};

/* Appends the frames' lines ("<g ...>...</g>", joined by newlines, none
 * after the last) to out. 0 or -ENOMEM. */
int ltap_flame_svg(const struct ltap_flame *fl, const struct ltap_flame_style *st, struct ltap_strbuf *out);

#endif
