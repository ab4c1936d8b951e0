/* fuzz_text.c: libFuzzer harness for the text trace reader.
 *
 * The input is a trace / trace_pipe text file: it goes to a memfd, is opened
 * with ltap_textsrc_open("/proc/self/fd/N") as ltap --input opens a file, and
 * every line is an event somebody wants (every name is wanted, declared
 * with id 1 between batches). Each
 * record has its fields cut (ltap_textrec_parse / _field) and is turned back
 * into raw records through seven real event formats (kernel 6.18, formats.h),
 * into heap buffers of exactly the size given, so ASan sees any write past
 * the cap. Malformed input must be counted or skipped, never crash. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "src_text.h"
#include "text_parse.h"
#include "text_decode.h"

#include "formats.h"
#include "fuzz_file.h"

#include <event-parse.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define NFMT (sizeof fuzz_formats / sizeof fuzz_formats[0])

static struct tep_handle *tep;
static struct ltap_textdec *decs[NFMT];
static int ndecs;
/* bindings/text.c decodes into 64 KB; a small cap checks the bounds too */
static const int caps[] = {65536, 48};
static char *bufs[2];

static int wanted(void *ud, const char *event)
{
	(void)ud;
	(void)event;
	return 1;
}

static int declare(void *ud, const char *event)
{
	(void)ud;
	(void)event;
	return 1;
}

static void setup(void)
{
	tep = tep_alloc();
	if (!tep)
		abort();
	tep_set_long_size(tep, sizeof(long));
	tep_set_page_size(tep, getpagesize());
	/* as runtime/catalog.c does */
	tep_parse_header_page(tep, (char *)fuzz_header_page, sizeof fuzz_header_page - 1, sizeof(long));
	for (size_t i = 0; i < NFMT; i++) {
		const char *text = fuzz_formats[i].text;
		char name[64];
		struct tep_event *ev;
		if (tep_parse_event(tep, text, strlen(text), fuzz_formats[i].sys) != 0) {
			fprintf(stderr, "fuzz_text: cannot parse format %zu\n", i);
			abort();
		}
		if (sscanf(text, "name: %63s", name) != 1 || !(ev = tep_find_event_by_name(tep, fuzz_formats[i].sys, name)))
			abort();
		decs[ndecs] = ltap_textdec_new(ev);
		if (!decs[ndecs])
			abort();
		ndecs++;
	}
	for (int i = 0; i < 2; i++)
		if (!(bufs[i] = malloc((size_t)caps[i])))
			abort();
}

static void visit(const struct ltap_rec *rec)
{
	struct ltap_textrec *r = (struct ltap_textrec *)rec->data;
	static const char *const keys[] = {"order", "gfp_flags", "ret", "buf", "dfd", "prev_state", "filename", "x"};
	volatile size_t sink = 0;

	if (!r->comm || !r->event || !r->info)
		abort();
	sink += strlen(r->comm) + strlen(r->event) + strlen(r->info);
	ltap_textrec_parse(r);
	if (r->nfields < 0 || r->nfields > LTAP_TEXT_FIELDS)
		abort();
	for (int i = 0; i < r->nfields; i++)
		sink += strlen(r->fields[i].key) + strlen(r->fields[i].value);
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		const char *v = ltap_textrec_field(r, keys[k]);
		if (v)
			sink += strlen(v);
	}
	for (int d = 0; d < ndecs; d++)
		for (int c = 0; c < 2; c++) {
			uint64_t present;
			int size = ltap_textdec_record(decs[d], rec, bufs[c], caps[c], &present);
			if (size > caps[c])
				abort();
			/* the record as the loop sees it: read it all */
			for (int i = 0; i < size; i++)
				sink += (unsigned char)bufs[c][i];
		}
	(void)sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ltap_textsrc_names names = {wanted, declare, NULL};
	struct ltap_textsrc *t;
	struct ltap_source *src;
	struct ltap_stream *s;
	char path[64];
	long first;
	int fd;

	if (!tep)
		setup();
	fd = fuzz_file("fuzz_text", data, size, path, sizeof path);
	t = ltap_textsrc_new(path, &names);
	if (!t || ltap_textsrc_read(t))
		abort();
	src = ltap_textsrc_source(t);
	s = ltap_textsrc_stream(t);
	for (;;) {
		if (s->has) {
			if (s->cur.size != (int)sizeof(struct ltap_textrec))
				abort();
			visit(&s->cur);
			s->ops->advance(s);
			continue;
		}
		if (!s->paused)
			break;
		/* a name first seen: declared between batches, as ltap does */
		src->ops->between(src);
		s->ops->fill(s);
	}
	(void)ltap_textsrc_malformed(t, &first);
	ltap_textsrc_close(t);
	close(fd);
	return 0;
}
