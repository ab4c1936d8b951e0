/* src_text_rec.h: the layout of the text source's records, private to the
 * source (src_text.c), its decoder (text_decode.c) and their tests: the
 * front end reads a record through src_text.h. */
#ifndef LTAP_SRC_TEXT_REC_H
#define LTAP_SRC_TEXT_REC_H

#include <stdint.h>

#define LTAP_TEXT_FIELDS 32

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

/* Cuts the record's fields out of its line, once. */
void ltap_textrec_parse(struct ltap_textrec *r);
/* A field of a record, NULL when the line has none by that name. */
const char *ltap_textrec_field(struct ltap_textrec *r, const char *key);

#endif
