/* src_text.h: the text the kernel prints in trace / trace_pipe, as one
 * stream: each line parsed into its common columns (task, tgid, CPU, time,
 * event) at once, its fields only when a handler or a filter asks.
 * The variants: with or without the irq-flags column, with a (tgid) column,
 * comms with spaces, slashes and colons ("kworker/0:1", "rs:main Q:Reg"),
 * and the syscall tracer's own lines ("sys_openat(dfd: 0x3, ...)" for
 * syscalls:sys_enter_openat, "sys_openat -> 0x3" for sys_exit_openat),
 * and trace_marker writes ("tracing_mark_write: TEXT", ftrace:print). */
#ifndef LTAP_SRC_TEXT_H
#define LTAP_SRC_TEXT_H

#include "stream.h"

#include <stdint.h>

#define LTAP_TEXT_FIELDS 32
/* A longer line is not an event: it is counted as malformed and skipped to
 * its newline without being kept (so /dev/zero, one endless line, takes no
 * memory). The longest event line of a kernel is about 4 KB. */
#define LTAP_TEXT_LINE_MAX (64 * 1024)

enum { LTAP_TEXT_KV, LTAP_TEXT_SYS_ENTER, LTAP_TEXT_SYS_EXIT, LTAP_TEXT_MARKER };

/* What a text record's data points at: the id first, where the loop and the
 * dispatch read common_type, the tid where common_pid is. */
struct ltap_textrec {
	uint16_t id;
	uint16_t pad;
	int32_t tid;
	int tgid;        /* -1 when the line has no tgid column */
	const char *comm, *event, *info;
	long line;
	int form;        /* LTAP_TEXT_*: how the fields are written */
	/* the fields, cut out of a copy of info on first use (most handlers
	 * read none): nfields is -1 until then */
	int nfields;
	struct { const char *key, *value; } fields[LTAP_TEXT_FIELDS];
	char *scratch;
	char evname[96]; /* the event name of a syscall line */
};

struct ltap_textsrc;

/* path "-" is standard input (a file, a pipe, a FIFO). id_of maps an event name to a descriptor id,
 * 0 for events no probe wants (their lines are skipped). NULL with errno. */
struct ltap_textsrc *ltap_textsrc_open(const char *path, int (*id_of)(void *ud, const char *event), void *ud);
void ltap_textsrc_close(struct ltap_textsrc *t);
/* A read interrupted by a signal calls fn (a pipe from trace_pipe waits in
 * read); fn returns non-zero to end the input there. */
void ltap_textsrc_on_signal(struct ltap_textsrc *t, int (*fn)(void *ud), void *ud);
/* Reads up to the first event (a pipe may wait here: SIGINTs reach the
 * on_signal callback). */
void ltap_textsrc_start(struct ltap_textsrc *t);
struct ltap_stream *ltap_textsrc_stream(struct ltap_textsrc *t);
/* errno of a read that failed (the stream ended there), or 0 */
int ltap_textsrc_error(struct ltap_textsrc *t);
/* lines that are not events, and the first such line's number */
long ltap_textsrc_malformed(struct ltap_textsrc *t, long *first);
uint64_t ltap_textsrc_first_ts(struct ltap_textsrc *t);
/* Cuts the record's fields out of its line, once. */
void ltap_textrec_parse(struct ltap_textrec *r);
/* A field of a record, NULL when the line has none by that name. */
const char *ltap_textrec_field(struct ltap_textrec *r, const char *key);

#endif
