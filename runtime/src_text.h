/* src_text.h: the text source: what the kernel prints in trace / trace_pipe, as one
 * stream: each line parsed into its common columns (task, tgid, CPU, time,
 * event) at once, its fields only when a handler or a filter asks.
 * Lines are cut by text_parse.c; this is the reader and the source. */
#ifndef LTAP_SRC_TEXT_H
#define LTAP_SRC_TEXT_H

#include "source.h"

#include <stdint.h>

/* A longer line is not an event: it is counted as malformed and skipped to
 * its newline without being kept (so /dev/zero, one endless line, takes no
 * memory). The longest event line of a kernel is about 4 KB. */
#define LTAP_TEXT_LINE_MAX (64 * 1024)

struct ltap_textsrc;

/* How the front end names a text's events. */
struct ltap_textsrc_names {
	/* A name first seen in the text: whether a probe (a glob) wants it.
	 * Called as lines are read: plain C, no Lua. */
	int (*wanted)(void *ud, const char *event);
	/* Between batches (outside any read): the descriptor id of a name
	 * wanted() took; 0 skips its lines. */
	int (*declare)(void *ud, const char *event);
	void *ud;
};

/* The text source (source.h) over path ("-": standard input, a file, a
 * pipe, a FIFO); nothing is read before its attach, which reads up to the
 * first event. A signal during a read, or each 64 MB of an overlong line
 * skipped, pauses the stream (stream.h) for the front end's turn. NULL
 * when out of memory. */
struct ltap_textsrc *ltap_textsrc_new(const char *path, const struct ltap_textsrc_names *names);
struct ltap_source *ltap_textsrc_source(struct ltap_textsrc *t);
void ltap_textsrc_close(struct ltap_textsrc *t);
/* Opens the input and reads up to the first event (the attach). 0 or -errno. */
int ltap_textsrc_read(struct ltap_textsrc *t);
/* Names declared at load time: lines of event get descriptor id (0: skip).
 * 0 or -ENOMEM. */
int ltap_textsrc_set_id(struct ltap_textsrc *t, const char *event, int id);
/* The id given to event, 0 for a name skipped, -1 for one not seen yet. */
int ltap_textsrc_id(struct ltap_textsrc *t, const char *event);
struct ltap_stream *ltap_textsrc_stream(struct ltap_textsrc *t);
/* lines that are not events, and the first such line's number */
long ltap_textsrc_malformed(struct ltap_textsrc *t, long *first);

/* What a record of the text source says; its layout is the source's own
 * (text_parse.h), read through these. */
struct ltap_textline {
	const char *comm, *event, *info; /* info: the line after the event's name */
	int tid;
	int tgid;        /* -1 when the line has no tgid column */
	long line;       /* its number in the text */
	/* lines of one run number have the same task and CPU columns, byte
	 * for byte (a run of one task's lines); a new run may have them too */
	unsigned long run;
};
void ltap_textsrc_line(const struct ltap_rec *r, struct ltap_textline *out);
/* The record's key=value fields, cut out of its line on first use: their
 * number, then field i's key (its value in *value). */
int ltap_textsrc_nfields(const struct ltap_rec *r);
const char *ltap_textsrc_field_at(const struct ltap_rec *r, int i, const char **value);
/* A field of a record, NULL when the line has none by that name. */
const char *ltap_textsrc_field(const struct ltap_rec *r, const char *key);

#endif
