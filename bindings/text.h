/* text.h: an input of the kernel's trace text (text.c): its source, its
 * catalog and its face (the way it names events). */
#ifndef LTAP_BINDINGS_TEXT_H
#define LTAP_BINDINGS_TEXT_H

struct ltap_ctx;
struct ltap_catalog;
struct ltap_face;
struct ltap_source;

/* What a text input gives the run; the caller owns each. */
struct ltap_text_input {
	struct ltap_source *source;
	struct ltap_catalog *cat;   /* no formats: a text's events have none of their own */
	struct ltap_face *face;     /* probe() of the text's names; its close frees it */
};

/* The input at path ("-": standard input) as text; 0, or -1 (said). */
int ltap_text_open(struct ltap_ctx *ctx, const char *path, struct ltap_text_input *out);

#endif
