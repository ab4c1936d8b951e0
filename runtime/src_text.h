/* src_text.h: the text the kernel prints in trace / trace_pipe, as one
 * stream: each line parsed into its common columns and key=value fields.
 * The variants: with or without the irq-flags column, with a (tgid) column,
 * comms with spaces, slashes and colons ("kworker/0:1", "rs:main Q:Reg"). */
#ifndef LTAP_SRC_TEXT_H
#define LTAP_SRC_TEXT_H

#include "stream.h"

#include <stdint.h>

#define LTAP_TEXT_FIELDS 32

/* What a text record's data points at: the id first, where the loop and the
 * dispatch read common_type, the tid where common_pid is. */
struct ltap_textrec {
	uint16_t id;
	uint16_t pad;
	int32_t tid;
	int tgid;        /* -1 when the line has no tgid column */
	const char *comm, *event, *info;
	int nfields;
	struct { const char *key, *value; } fields[LTAP_TEXT_FIELDS];
	long line;
};

struct ltap_textsrc;

/* path "-" is standard input. id_of maps an event name to a descriptor id,
 * 0 for events no probe wants (their lines are skipped). NULL with errno. */
struct ltap_textsrc *ltap_textsrc_open(const char *path, int (*id_of)(void *ud, const char *event), void *ud);
void ltap_textsrc_close(struct ltap_textsrc *t);
/* A read interrupted by a signal calls fn (a pipe from trace_pipe waits in
 * read); fn returns non-zero to end the input there. */
void ltap_textsrc_on_signal(struct ltap_textsrc *t, int (*fn)(void *ud), void *ud);
struct ltap_stream *ltap_textsrc_stream(struct ltap_textsrc *t);
/* lines that are not events, and the first such line's number */
long ltap_textsrc_malformed(struct ltap_textsrc *t, long *first);
uint64_t ltap_textsrc_first_ts(struct ltap_textsrc *t);
/* A field of a record, NULL when the line has none by that name. */
const char *ltap_textrec_field(const struct ltap_textrec *r, const char *key);

#endif
