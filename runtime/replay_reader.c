/* replay_reader.c: the trace.dat reader process (replay_reader.h).
 *
 * libtracecmd 1.3 keeps no copy of the formats it parses, and ltap needs
 * their text to build its own tep_handle. So while tracecmd_open runs, the
 * libtraceevent calls it makes (tep_parse_event and the other parsers of
 * the file's text sections) come here first: this file defines them, which
 * makes libltap export them (INTERPOSE; cmake/ltap.map lists them), so
 * libtracecmd's calls bind to these definitions before libtraceevent's (ELF
 * symbol interposition, as an LD_PRELOAD library does: libltap comes before
 * its dependency libtraceevent in the lookup order, also in a Lua module's
 * own scope). Each one sends its text to ltap when a capture
 * is on, then calls libtraceevent's own (dlsym RTLD_NEXT). ltap then parses
 * exactly the text libtracecmd parsed, in the same order, with no second
 * reader of trace.dat sections, and libtraceevent has already seen every
 * byte of it here, in the process that may crash. */
#include "replay_reader.h"

#include "evcheck.h"
#include "replay_wire.h"

#include <dlfcn.h>
#include <errno.h>
#include <event-parse.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <trace-cmd/trace-cmd.h>
#include <unistd.h>

/* In libtracecmd since 1.0 and used by trace-cmd itself, but not declared in
 * the public header of 1.3. */
int tracecmd_cpus(struct tracecmd_input *handle);
struct tep_record *tracecmd_read_cpu_last(struct tracecmd_input *handle, int cpu);
int tracecmd_page_size(struct tracecmd_input *handle);

/* a definition that stands in for libtraceevent's in the whole process */
#define INTERPOSE __attribute__((visibility("default")))

#define OUT_CAP (256 * 1024)
#define STREAMS_MAX 65536
#define RECORD_MARK "ltap-record "

struct out {
	int fd;
	int broken;   /* ltap has gone: stop */
	int too_big;  /* a text over LTAP_WIRE_MAX_TEXT */
	size_t len;
	char buf[OUT_CAP];
};

/* set while tracecmd_open parses the file */
static struct out *capture;

static void out_write(struct out *o, const void *p, size_t n)
{
	const char *c = p;

	while (n && !o->broken) {
		ssize_t w = write(o->fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			o->broken = 1;
			return;
		}
		c += w;
		n -= (size_t)w;
	}
}

static void out_flush(struct out *o)
{
	out_write(o, o->buf, o->len);
	o->len = 0;
}

static void out_put(struct out *o, const void *p, size_t n)
{
	if (!n)
		return;
	if (o->len + n > sizeof o->buf)
		out_flush(o);
	if (n > sizeof o->buf) {
		out_write(o, p, n);
		return;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

/* One frame: a and b, then zeros 0 bytes, as its payload. */
static void out_frame(struct out *o, uint32_t type, const void *a, size_t alen, const void *b, size_t blen,
		      size_t zeros)
{
	static const char pad[16];
	size_t len = alen + blen + zeros;
	struct ltap_wire_frame f = {type, (uint32_t)len};

	out_put(o, &f, sizeof f);
	out_put(o, a, alen);
	out_put(o, b, blen);
	out_put(o, pad, zeros + (size_t)(ltap_wire_size((uint32_t)len) - sizeof f - len));
}

static void capture_text(uint32_t type, const void *pre, size_t prelen, const char *text, size_t len)
{
	if (!capture || !text)
		return;
	if (len > LTAP_WIRE_MAX_TEXT) {
		capture->too_big = 1;
		return;
	}
	out_frame(capture, type, pre, prelen, text, len, 0);
}

/* libtraceevent's own definition of name, for the wrappers below */
static void *real_fn(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (!f) {
		fprintf(stderr, "ltap: replay: cannot find %s in libtraceevent\n", name);
		abort();
	}
	return f;
}

INTERPOSE int tep_parse_header_page(struct tep_handle *tep, char *buf, unsigned long size, int long_size)
{
	static int (*real)(struct tep_handle *, char *, unsigned long, int);
	uint32_t pre[2] = {(uint32_t)long_size, 0};

	if (!real)
		*(void **)&real = real_fn("tep_parse_header_page");
	capture_text(WIRE_HEADER_PAGE, pre, sizeof pre, buf, size);
	return real(tep, buf, size, long_size);
}

INTERPOSE enum tep_errno tep_parse_event(struct tep_handle *tep, const char *buf, unsigned long size, const char *sys)
{
	static enum tep_errno (*real)(struct tep_handle *, const char *, unsigned long, const char *);

	if (!real)
		*(void **)&real = real_fn("tep_parse_event");
	capture_text(WIRE_FORMAT, sys, strlen(sys) + 1, buf, size);
	return real(tep, buf, size, sys);
}

INTERPOSE int tep_parse_kallsyms(struct tep_handle *tep, const char *kallsyms)
{
	static int (*real)(struct tep_handle *, const char *);

	if (!real)
		*(void **)&real = real_fn("tep_parse_kallsyms");
	capture_text(WIRE_KALLSYMS, NULL, 0, kallsyms, kallsyms ? strlen(kallsyms) : 0);
	return real(tep, kallsyms);
}

INTERPOSE int tep_parse_printk_formats(struct tep_handle *tep, const char *buf)
{
	static int (*real)(struct tep_handle *, const char *);

	if (!real)
		*(void **)&real = real_fn("tep_parse_printk_formats");
	/* the lines libtraceevent would read out of bounds go first (in a
	 * copy: the text is libtracecmd's) */
	if (capture && buf) {
		char *safe = strdup(buf);
		int rc;
		if (!safe)
			return -1;
		capture_text(WIRE_PRINTK, NULL, 0, safe, ltap_evcheck_printk(safe));
		rc = real(tep, safe);
		free(safe);
		return rc;
	}
	return real(tep, buf);
}

INTERPOSE int tep_parse_saved_cmdlines(struct tep_handle *tep, const char *buf)
{
	static int (*real)(struct tep_handle *, const char *);

	if (!real)
		*(void **)&real = real_fn("tep_parse_saved_cmdlines");
	capture_text(WIRE_CMDLINES, NULL, 0, buf, buf ? strlen(buf) : 0);
	return real(tep, buf);
}

struct rstream {
	struct tracecmd_input *h;
	int cpu;
	struct tep_record *rec;
};

struct reader {
	struct out *o;
	struct tep_event *print; /* ftrace:print, for ltap-record marks */
	struct tep_format_field *print_buf;
	uint64_t start, end;
	int command;
	int page_size; /* the file's (its sub-buffers'), 0 if unknown */
};

static int reader_fail(struct out *o, const char *why)
{
	out_frame(o, WIRE_ERROR, why, strlen(why), NULL, 0, 0);
	out_flush(o);
	return 2;
}

/* "ltap-record start=NS [command=PID]" / "end=NS" written by ltap --record */
static void reader_mark(struct reader *r, struct tep_record *rec)
{
	char text[64];
	unsigned long long v;
	uint16_t type;
	int off, n;

	if (!r->print_buf || rec->size < 2)
		return;
	memcpy(&type, rec->data, sizeof type);
	if (type != r->print->id)
		return;
	off = r->print_buf->offset;
	if (off < 0 || off >= rec->size)
		return;
	n = rec->size - off < (int)sizeof text - 1 ? rec->size - off : (int)sizeof text - 1;
	memcpy(text, (const char *)rec->data + off, (size_t)n);
	text[n] = 0;
	if (strncmp(text, RECORD_MARK, strlen(RECORD_MARK)) != 0)
		return;
	int pid, k = sscanf(text + strlen(RECORD_MARK), "start=%llu command=%d", &v, &pid);
	if (k >= 1) {
		r->start = v;
		if (k == 2 && pid > 0)
			r->command = pid;
	} else if (sscanf(text + strlen(RECORD_MARK), "end=%llu", &v) == 1) {
		r->end = v;
	}
}

/* The start mark is among the first records of a CPU, not always the very
 * first: up to 256 are looked at. */
static void reader_find_start(struct reader *r, struct rstream *s, int n)
{
	for (int i = 0; i < n && !r->start; i++) {
		struct tep_record *rec = tracecmd_read_cpu_first(s[i].h, s[i].cpu);
		for (int k = 0; rec && k < 256 && !r->start; k++) {
			reader_mark(r, rec);
			tracecmd_free_record(rec);
			rec = tracecmd_read_data(s[i].h, s[i].cpu);
		}
		if (rec)
			tracecmd_free_record(rec);
	}
}

/* Every CPU of every buffer (the top level, then the instances of
 * trace-cmd record -B), in that order: on equal times the first wins, as
 * ltap's own merge does. */
static struct rstream *reader_streams(struct tracecmd_input *h, int *n, char *why, size_t len)
{
	int ninst = tracecmd_buffer_instances(h), total = tracecmd_cpus(h);
	struct tracecmd_input **inst;
	struct rstream *s;

	if (ninst < 0)
		ninst = 0;
	if (total < 0 || total > STREAMS_MAX || ninst > STREAMS_MAX) {
		snprintf(why, len, "damaged trace.dat (%d CPUs, %d buffers)", total, ninst);
		return NULL;
	}
	inst = calloc((size_t)ninst + 1, sizeof *inst);
	if (!inst)
		return NULL;
	for (int i = 0; i < ninst; i++) {
		int c;
		inst[i] = tracecmd_buffer_instance_handle(h, i);
		c = inst[i] ? tracecmd_cpus(inst[i]) : 0;
		if (c < 0 || c > STREAMS_MAX - total) {
			snprintf(why, len, "damaged trace.dat (%d CPUs in buffer %d)", c, i + 1);
			free(inst);
			return NULL;
		}
		total += c;
	}
	s = calloc((size_t)total + 1, sizeof *s);
	if (!s) {
		free(inst);
		return NULL;
	}
	*n = 0;
	for (int b = -1; b < ninst; b++) {
		struct tracecmd_input *bh = b < 0 ? h : inst[b];
		int ncpu = bh ? tracecmd_cpus(bh) : 0;
		for (int cpu = 0; cpu < ncpu; cpu++)
			s[(*n)++] = (struct rstream){bh, cpu, NULL};
	}
	/* the handles stay open until the process ends */
	free(inst);
	return s;
}

static int reader_send(struct reader *r, struct tep_record *rec)
{
	struct ltap_wire_rec w = {.ts = rec->ts, .cpu = (uint32_t)rec->cpu, .size = (uint32_t)rec->size};

	if (rec->size < 0 || (unsigned)rec->size > LTAP_WIRE_MAX_RECORD || !rec->data || rec->cpu < 0)
		return -1;
	/* a record runs past its page on a damaged length, which libtracecmd
	 * does not check: its bytes would be read beyond its buffer */
	if (rec->size > rec->record_size ||
	    (r->page_size > 0 && rec->offset % (unsigned)r->page_size + (unsigned)rec->record_size > (unsigned)r->page_size))
		return -1;
	if (rec->missed_events > 0) {
		struct ltap_wire_missed m = {.cpu = (uint32_t)rec->cpu, .count = (uint64_t)rec->missed_events};
		out_frame(r->o, WIRE_MISSED, &m, sizeof m, NULL, 0, 0);
	}
	reader_mark(r, rec);
	out_frame(r->o, WIRE_RECORD, &w, sizeof w, rec->data, (size_t)rec->size, 1);
	return 0;
}

int ltap_replay_reader_run(const struct ltap_sandbox *sb, pid_t parent, int want_last)
{
	int in_fd = sb->in_fd, out_fd = sb->out_fd;
	struct ltap_wire_setup setup = {0};
	struct ltap_wire_end end = {0};
	struct reader r = {0};
	struct tracecmd_input *h;
	struct tep_handle *tep;
	struct rstream *s;
	char why[200] = "";
	uint64_t first = UINT64_MAX;
	int n = 0;

	r.o = malloc(sizeof *r.o);
	if (!r.o)
		return 1;
	r.o->fd = out_fd;
	r.o->broken = r.o->too_big = 0;
	r.o->len = 0;
	signal(SIGPIPE, SIG_IGN);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	if (ltap_sandbox_enter(sb, parent, why, sizeof why)) {
		char msg[300];
		snprintf(msg, sizeof msg, "cannot confine its reader (%s)", why);
		return reader_fail(r.o, msg);
	}
	capture = r.o;
	/* no plugins: they would be loaded from files (which the sandbox
	 * refuses), and ltap's own formats have them */
	h = tracecmd_open_fd(in_fd, TRACECMD_FL_LOAD_NO_PLUGINS);
	capture = NULL;
	if (!h)
		return reader_fail(r.o, "not a trace.dat file (or a damaged one)");
	if (r.o->too_big)
		return reader_fail(r.o, "damaged trace.dat (a text section over 256 MB)");
	tep = tracecmd_get_tep(h);
	r.page_size = tracecmd_page_size(h);
	r.print = tep_find_event_by_name(tep, "ftrace", "print");
	r.print_buf = r.print ? tep_find_field(r.print, "buf") : NULL;
	s = reader_streams(h, &n, why, sizeof why);
	if (!s)
		return reader_fail(r.o, why[0] ? why : "out of memory");
	reader_find_start(&r, s, n);
	for (int i = 0; i < n && want_last; i++) {
		struct tep_record *rec = tracecmd_read_cpu_last(s[i].h, s[i].cpu);
		if (rec && rec->ts > setup.last)
			setup.last = rec->ts;
		if (rec)
			tracecmd_free_record(rec);
	}
	for (int i = 0; i < n; i++) {
		s[i].rec = tracecmd_read_cpu_first(s[i].h, s[i].cpu);
		if (s[i].rec && s[i].rec->ts < first)
			first = s[i].rec->ts;
	}
	setup.file_bigendian = tep_is_file_bigendian(tep);
	setup.long_size = (uint8_t)tep_get_long_size(tep);
	setup.cpus = (uint32_t)tep_get_cpus(tep);
	setup.streams = (uint32_t)n;
	setup.start = r.start ? r.start : first == UINT64_MAX ? 0 : first;
	setup.command = r.command;
	out_frame(r.o, WIRE_SETUP, &setup, sizeof setup, NULL, 0, 0);
	while (!r.o->broken) {
		struct tep_record *next;
		int best = -1;
		for (int i = 0; i < n; i++)
			if (s[i].rec && (best < 0 || s[i].rec->ts < s[best].rec->ts))
				best = i;
		if (best < 0)
			break;
		if (reader_send(&r, s[best].rec)) {
			snprintf(why, sizeof why, "damaged trace.dat (a record of %d bytes on cpu %d)", s[best].rec->size,
				 s[best].cpu);
			return reader_fail(r.o, why);
		}
		end.records++;
		next = tracecmd_read_data(s[best].h, s[best].cpu);
		tracecmd_free_record(s[best].rec);
		s[best].rec = next;
	}
	end.end = r.end;
	out_frame(r.o, WIRE_END, &end, sizeof end, NULL, 0, 0);
	out_flush(r.o);
	/* no clean-up (libtracecmd's tracecmd_close is one of the places that
	 * crash on a damaged file): ltap ends this process when it is done */
	for (;;)
		sleep(3600);
}
