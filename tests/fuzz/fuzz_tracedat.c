/* fuzz_tracedat.c: libFuzzer harness for the trace.dat replay.
 *
 * The input is a trace.dat file: it goes to a memfd and is opened with
 * ltap_replay_open("/proc/self/fd/N") as ltap --input opens a file, so the
 * reader process (libtracecmd) reads it and this process gets its frames,
 * builds its formats and checks every record (src_replay.c, evcheck.c).
 * Each record is then used as ltap uses it, copied into a heap buffer of
 * its exact size and a 0: every field read by its format, rendered by
 * libtraceevent (tostring), matched by a user-space filter. The reader may
 * die on any input (that is what it is for); this process must not, nor
 * make a sanitizer report. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fuzz_file.h"
#include "log.h"
#include "src_replay.h"

#include <event-parse.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* the reads of bindings/event.c event_push_field, by the field's flags */
static size_t read_field(struct tep_handle *tep, const char *data, int size, const struct tep_format_field *f)
{
	size_t sink = 0;

	if (f->offset + f->size > size)
		return 0;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;
		unsigned off, len;
		memcpy(&loc, data + f->offset, sizeof loc);
		off = loc & 0xffff;
		len = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += (unsigned)(f->offset + f->size);
		if (off + len > (unsigned)size)
			len = off < (unsigned)size ? (unsigned)size - off : 0;
		return strnlen(data + off, len);
	}
	if (f->flags & TEP_FIELD_IS_ARRAY) {
		unsigned es = f->elementsize ? f->elementsize : 1;
		unsigned n = f->arraylen ? f->arraylen : (unsigned)f->size / es;
		if (!f->size)
			return strnlen(data + f->offset, (size_t)(size - f->offset));
		for (unsigned i = 0; i < n; i++)
			sink += tep_read_number(tep, data + f->offset + i * es, (int)es);
		return sink;
	}
	return tep_read_number(tep, data + f->offset, f->size);
}

static void visit(struct tep_handle *tep, struct tep_event_filter *filter, const struct ltap_rec *cur)
{
	volatile size_t sink = 0;
	char *copy = malloc((size_t)cur->size + 1);
	struct tep_record rec = {.ts = cur->ts, .cpu = cur->cpu, .size = cur->size};
	struct tep_event *ev;
	struct trace_seq s;

	if (!copy)
		abort();
	memcpy(copy, cur->data, (size_t)cur->size + 1);
	rec.data = copy;
	ev = tep_find_event_by_record(tep, &rec);
	if (ev) {
		struct tep_format_field *lists[2] = {ev->format.common_fields, ev->format.fields};
		for (int l = 0; l < 2; l++)
			for (struct tep_format_field *f = lists[l]; f; f = f->next)
				sink += read_field(tep, copy, cur->size, f);
		trace_seq_init(&s);
		tep_print_event(tep, &s, &rec, "%s %d %s", TEP_PRINT_NAME, TEP_PRINT_PID, TEP_PRINT_INFO);
		trace_seq_terminate(&s);
		sink += strlen(s.buffer);
		trace_seq_destroy(&s);
		sink += (size_t)tep_filter_match(filter, &rec);
	}
	free(copy);
	(void)sink;
}

/* "common_pid >= 0" on every event, as a probe's filter is applied in a replay */
static struct tep_event_filter *filter_all(struct tep_handle *tep)
{
	struct tep_event_filter *filter = tep_filter_alloc(tep);
	struct tep_event **evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	char spec[600];

	if (!filter)
		abort();
	for (int i = 0; evs && evs[i]; i++) {
		snprintf(spec, sizeof spec, "%s/%s:common_pid >= 0", evs[i]->system, evs[i]->name);
		tep_filter_add_filter_str(filter, spec);
	}
	return filter;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ltap_replay *r;
	struct ltap_stream **ss;
	char path[64];
	int32_t tid;
	int fd;

	ltap_log_set_verbosity(LTAP_LOG_NONE);
	fd = fuzz_file("fuzz_tracedat", data, size, path, sizeof path);
	r = ltap_replay_open(path, 0);
	if (r) {
		struct tep_handle *tep = ltap_replay_tep(r);
		struct tep_event_filter *filter = filter_all(tep);
		if (ltap_replay_streams(r, &ss) != 1)
			abort();
		while (ss[0]->has) {
			visit(tep, filter, &ss[0]->cur);
			memcpy(&tid, (const char *)ss[0]->cur.data + 4, sizeof tid);
			(void)ltap_replay_comm(r, tid);
			ss[0]->ops->advance(ss[0]);
		}
		(void)ltap_replay_error(r);
		(void)ltap_replay_start(r);
		(void)ltap_replay_end(r);
		tep_filter_free(filter);
		ltap_replay_close(r);
	}
	close(fd);
	return 0;
}
