/* text_parse.h: the line parser of the kernel's trace text (trace,
 * trace_pipe): a line's common columns, and its fields on demand. The
 * variants: with or without the irq-flags column, with a (tgid) column,
 * comms with spaces, slashes and colons ("kworker/0:1", "rs:main Q:Reg"),
 * the syscall tracer's own lines ("sys_openat(dfd: 0x3, ...)" for
 * syscalls:sys_enter_openat, "sys_openat -> 0x3" for sys_exit_openat),
 * and trace_marker writes ("tracing_mark_write: TEXT", ftrace:print). */
#ifndef LTAP_TEXT_PARSE_H
#define LTAP_TEXT_PARSE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define LTAP_TEXT_FIELDS 32
/* the bytes of a record's scratch: its info is copied there to be cut */
#define LTAP_TEXT_SCRATCH 8192

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
	/* the last line's task and CPU columns as they were read, and their
	 * parse: a line that starts with the same bytes (a run of one task's
	 * lines on one CPU) takes it, not cut again. Zero before the first. */
	struct {
		char bytes[48];
		size_t len, comm, dash; /* the columns' length; offsets of the comm and its '-' */
		int tid, tgid, cpu;
		/* counts the lines whose columns were cut anew: lines of one
		 * count have the same task and CPU columns */
		unsigned long run;
	} last;
};

/* whether a and b, n bytes each, are the same: a word at a time and no
 * call, for the few bytes of a name or a line's first columns */
static inline int ltap_text_same(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	size_t i;

	if (n < 8) {
		for (i = 0; i < n; i++)
			if (a[i] != b[i])
				return 0;
		return 1;
	}
	for (i = 0; i + 8 < n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return 0;
	}
	memcpy(&x, a + n - 8, 8); /* the last 8 bytes, overlapping */
	memcpy(&y, b + n - 8, 8);
	return x == y;
}

/* Cuts line (NUL-terminated; a newline at line[len - 1] is dropped) in
 * place into r's comm, tid, tgid, event, info and form, and *ts (ns,
 * exactly), *cpu and *nlen (the length of r->event). 0: an event; 1: not
 * an event and not malformed (a '#' header, a blank line); -1: malformed
 * (r partly written). r's id, line, nfields and scratch are the caller's;
 * r->last is the parser's own. */
int ltap_text_parse_line(char *line, size_t len, struct ltap_textrec *r, uint64_t *ts, int *cpu, size_t *nlen);
/* Cuts the record's fields out of a copy of its info (into r->scratch,
 * LTAP_TEXT_SCRATCH bytes), once: nfields -1 means not yet. */
void ltap_textrec_parse(struct ltap_textrec *r);
/* A field of a record, NULL when the line has none by that name. */
const char *ltap_textrec_field(struct ltap_textrec *r, const char *key);

#endif
