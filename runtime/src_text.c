/* src_text.c: the text source: trace / trace_pipe text, line by line.
 *
 * A line names its event without a system; the front end gives the names
 * it declared their descriptor ids (ltap_textsrc_set_id), and says which
 * names first seen in the text its globs want. Such a name needs a
 * descriptor, made in Lua: the stream pauses at its line, and the front
 * end declares it between batches (the between op), never inside a read.
 * A read interrupted by a signal pauses the stream too, so the front end
 * sees the signal between batches and no Lua runs from inside read().
 * A line is cut into its columns by text_parse.c. */
#include "src_text.h"

#include "log.h"
#include "progress.h"
#include "stream.h"
#include "text_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* read() a MB at a time: a syscall per 5,000 lines of a file */
#define TEXT_BUF (1u << 20)
/* how much of an overlong line is skipped between looks at signals */
#define TEXT_SKIP_CHECK (64u << 20)
#define TEXT_NAMES_MAX 4096 /* names of events no probe wants, remembered */
#define TEXT_RECENT 16      /* names looked up without their hash (a power of 2) */
#define TEXT_NAME_LEN 64    /* the longest name kept among them, and its 0 */

struct ltap_textsrc {
	struct ltap_source src; /* first: the run sees a struct ltap_source */
	struct ltap_stream s;
	struct ltap_stream *streams[1];
	char *path;
	int fd;
	int own;
	int eof;
	int error;            /* errno of a failed read: the input ends there */
	char *buf;            /* TEXT_BUF and a byte for the last line's 0 */
	size_t head, tail;    /* buf[head, tail): read, not yet cut into lines */
	/* buf[nul_from, nul) holds no NUL, and buf[nul] is one (or the tail):
	 * the buffer is searched for binary noise once, not line by line;
	 * nul_from SIZE_MAX when the buffer changed since */
	size_t nul_from, nul;
	uint64_t nread;       /* bytes read in all (a progress line's) */
	long lineno, malformed, first_bad;
	uint64_t first_ts;
	struct ltap_textsrc_names names;
	/* event name -> descriptor id (0: no probe wants it), open addressing */
	struct { char *name; int id; } *slots;
	unsigned cap, used, unwanted;
	/* the names of recent lines and their ids, by their length and last
	 * byte: the usual few names of a text are never hashed (0 length: none;
	 * a name set anew clears them all) */
	struct {
		size_t len;
		int id;
		char name[TEXT_NAME_LEN];
	} recent[TEXT_RECENT];
	int pending;          /* rec's event is a name to declare (s.paused) */
	int held;             /* rec waits for its name's id to be dispatched */
	int skipping;         /* in a line longer than LTAP_TEXT_LINE_MAX */
	size_t skipped;       /* of it since the last pause */
	struct ltap_textrec rec;
	char scratch[LTAP_TEXT_SCRATCH];
};

static struct ltap_textsrc *text_of_stream(struct ltap_stream *s)
{
	return (struct ltap_textsrc *)((char *)s - offsetof(struct ltap_textsrc, s));
}

static unsigned text_hash(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* the slot of name: its entry, or the empty one where it goes */
static unsigned text_slot(struct ltap_textsrc *t, const char *name)
{
	unsigned i = text_hash(name) & (t->cap - 1);
	while (t->slots[i].name && strcmp(t->slots[i].name, name) != 0)
		i = (i + 1) & (t->cap - 1);
	return i;
}

int ltap_textsrc_set_id(struct ltap_textsrc *t, const char *event, int id)
{
	unsigned i;

	if ((t->used + 1) * 2 > t->cap) {
		unsigned old = t->cap;
		__typeof__(t->slots) os = t->slots;
		t->slots = calloc(old * 2, sizeof *t->slots);
		if (!t->slots) {
			t->slots = os;
			return -ENOMEM;
		}
		t->cap = old * 2;
		for (unsigned j = 0; j < old; j++)
			if (os[j].name)
				t->slots[text_slot(t, os[j].name)] = os[j];
		free(os);
	}
	for (unsigned j = 0; j < TEXT_RECENT; j++)
		t->recent[j].len = 0;
	i = text_slot(t, event);
	if (!t->slots[i].name) {
		if (!(t->slots[i].name = strdup(event)))
			return -ENOMEM;
		t->used++;
	}
	t->slots[i].id = id;
	return 0;
}

int ltap_textsrc_id(struct ltap_textsrc *t, const char *event)
{
	unsigned i = text_slot(t, event);
	return t->slots[i].name ? t->slots[i].id : -1;
}

/* 0: an event a probe wants; 1: not an event, or one no probe wants; 2:
 * an event of a name first seen that a glob wants (pending); -1: malformed */
static int text_parse(struct ltap_textsrc *t, char *line, size_t len)
{
	struct ltap_textrec *r = &t->rec;
	__typeof__(&t->recent[0]) recent;
	size_t nlen;
	uint64_t ts = 0;
	int cpu, id, e;

	if ((e = ltap_text_parse_line(line, len, r, &ts, &cpu, &nlen)) != 0)
		return e;
	recent = nlen ? &t->recent[(nlen * 7 + (unsigned char)r->event[nlen - 1]) & (TEXT_RECENT - 1)] : NULL;
	if (recent && recent->len == nlen && ltap_text_same(r->event, recent->name, nlen)) {
		id = recent->id;
	} else {
		id = ltap_textsrc_id(t, r->event);
		if (recent && nlen < TEXT_NAME_LEN) {
			memcpy(recent->name, r->event, nlen);
			recent->len = nlen;
			recent->id = id;
		}
	}
	if (id < 0 && !(t->names.wanted && t->names.wanted(t->names.ud, r->event))) {
		/* remembered up to a bound: a text of endless names takes no memory */
		if (t->unwanted < TEXT_NAMES_MAX && ltap_textsrc_set_id(t, r->event, 0) == 0)
			t->unwanted++;
		return 1;
	}
	if (id == 0)
		return 1;
	r->id = (uint16_t)(id > 0 ? id : 0);
	t->s.cur.ts = ts;
	t->s.cur.cpu = cpu;
	t->s.cur.data = r;
	t->s.cur.size = (int)sizeof *r;
	r->line = t->lineno;
	r->nfields = -1;
	return id < 0 ? 2 : 0;
}

/* Reads more input into buf: 1, 0 at the end (or a read error, kept), -1
 * when a signal interrupted the read (the stream pauses). */
static int text_read(struct ltap_textsrc *t)
{
	ssize_t n;

	t->nul_from = SIZE_MAX;
	if (t->head && t->head == t->tail)
		t->head = t->tail = 0;
	if (t->tail == TEXT_BUF) {
		memmove(t->buf, t->buf + t->head, t->tail - t->head);
		t->tail -= t->head;
		t->head = 0;
	}
	n = read(t->fd, t->buf + t->tail, TEXT_BUF - t->tail);
	if (n > 0) {
		t->tail += (size_t)n;
		t->nread += (uint64_t)n;
		return 1;
	}
	if (n < 0 && errno == EINTR)
		return -1;
	if (n < 0)
		t->error = errno;
	t->eof = 1;
	return 0;
}

/* Skips the rest of a line longer than LTAP_TEXT_LINE_MAX without keeping
 * it: 0 at its end, -1 to pause (a signal, or the next TEXT_SKIP_CHECK
 * bytes skipped: /dev/zero is one endless line, and ^C must still end the
 * run). */
static int text_skip_line(struct ltap_textsrc *t)
{
	for (;;) {
		char *nl = memchr(t->buf + t->head, '\n', t->tail - t->head);
		int r;
		if (nl) {
			t->head = (size_t)(nl + 1 - t->buf);
			t->skipping = 0;
			return 0;
		}
		t->skipped += t->tail - t->head;
		t->head = t->tail = 0;
		t->nul_from = SIZE_MAX;
		if (t->skipped >= TEXT_SKIP_CHECK) {
			t->skipped = 0;
			return -1;
		}
		if (t->eof || (r = text_read(t)) == 0) {
			t->skipping = 0;
			return 0;
		}
		if (r < 0)
			return -1;
	}
}

/* The next line, its newline included (not at the end of the input),
 * in *line; its length, 0 at the end, -1 to pause. A line longer than
 * LTAP_TEXT_LINE_MAX is skipped and counted as malformed here. */
static ssize_t text_line(struct ltap_textsrc *t, char **line)
{
	for (;;) {
		char *start = t->buf + t->head;
		size_t have = t->tail - t->head;
		char *nl;
		size_t len;

		if (t->skipping) {
			if (text_skip_line(t))
				return -1;
			continue;
		}
		nl = memchr(start, '\n', have);
		len = nl ? (size_t)(nl + 1 - start) : have;
		if (len > LTAP_TEXT_LINE_MAX) {
			t->lineno++;
			if (t->malformed++ == 0)
				t->first_bad = t->lineno;
			if (nl) {
				t->head += len;
			} else {
				t->head = t->tail;
				t->skipping = 1;
				t->skipped = 0;
			}
			continue;
		}
		if (nl || (t->eof && have)) {
			*line = start;
			t->head += len;
			return (ssize_t)len;
		}
		if (t->eof)
			return 0;
		if (text_read(t) < 0)
			return -1;
	}
}

/* whether the line at buf + off, n bytes, holds a NUL: binary noise */
static int text_has_nul(struct ltap_textsrc *t, size_t off, size_t n)
{
	if (off < t->nul_from || off > t->nul) {
		char *z = memchr(t->buf + off, 0, t->tail - off);
		t->nul_from = off;
		t->nul = z ? (size_t)(z - t->buf) : t->tail;
	}
	return off + n > t->nul;
}

/* rec is the stream's record */
static void text_take(struct ltap_textsrc *t)
{
	if (!t->first_ts)
		t->first_ts = t->s.cur.ts ? t->s.cur.ts : 1;
	t->s.has = 1;
}

static void text_advance(struct ltap_stream *s)
{
	struct ltap_textsrc *t = text_of_stream(s);
	ssize_t n;
	char *line;
	int r;

	s->has = 0;
	for (;;) {
		n = text_line(t, &line);
		if (n < 0) {
			s->paused = 1;
			return;
		}
		if (n == 0)
			return;
		t->lineno++;
		/* a 0 ends the line for the parser: the newline, or at the end of
		 * the input the byte after the buffer (there is one) */
		if (line[n - 1] != '\n')
			line[n] = 0;
		/* binary noise: a NUL inside the line */
		r = text_has_nul(t, (size_t)(line - t->buf), (size_t)n) ? -1 : text_parse(t, line, (size_t)n);
		if (r == 0) {
			text_take(t);
			return;
		}
		if (r == 2) {
			t->pending = t->held = 1;
			s->paused = 1;
			return;
		}
		if (r < 0 && t->malformed++ == 0)
			t->first_bad = t->lineno;
	}
}

/* Resumes a paused stream whose reason is gone: a declared name's line is
 * its record (or skipped, when nothing wants it after all); else reading
 * goes on. */
static int text_fill(struct ltap_stream *s)
{
	struct ltap_textsrc *t = text_of_stream(s);

	if (!s->paused || t->pending)
		return 0;
	s->paused = 0;
	if (t->held && t->rec.id) {
		t->held = 0;
		text_take(t);
	} else {
		t->held = 0;
		text_advance(s);
	}
	return 0;
}

static const struct ltap_stream_ops text_ops = {
	.fill = text_fill,
	.advance = text_advance,
};

int ltap_textsrc_read(struct ltap_textsrc *t)
{
	if (strcmp(t->path, "-") == 0) {
		t->fd = STDIN_FILENO;
	} else {
		t->fd = open(t->path, O_RDONLY | O_CLOEXEC);
		t->own = t->fd >= 0;
	}
	if (t->fd < 0)
		return -errno;
	text_advance(&t->s);
	return 0;
}

/* Between batches: the name the stream paused at gets its id. */
static void text_between(struct ltap_source *src)
{
	struct ltap_textsrc *t = (struct ltap_textsrc *)src;
	int id;

	if (!t->pending)
		return;
	t->pending = 0;
	id = t->names.declare ? t->names.declare(t->names.ud, t->rec.event) : 0;
	if (id < 0 || ltap_textsrc_set_id(t, t->rec.event, id > 0 ? id : 0))
		id = 0;
	t->rec.id = (uint16_t)id;
}

static int text_attach(struct ltap_source *src, struct ltap_source_env *env)
{
	struct ltap_textsrc *t = (struct ltap_textsrc *)src;
	int e;

	(void)env;
	if ((e = ltap_textsrc_read(t)) != 0) {
		ltap_err("replay: cannot read %s: %s", t->path, strerror(-e));
		return -1;
	}
	return 0;
}

static int text_streams(struct ltap_source *src, struct ltap_stream ***out)
{
	*out = ((struct ltap_textsrc *)src)->streams;
	return 1;
}

static void text_span(struct ltap_source *src, uint64_t *start, uint64_t *end)
{
	*start = ((struct ltap_textsrc *)src)->first_ts;
	*end = 0;
}

/* bytes cut into lines, of the file's size (a pipe's is not known) */
static int text_progress(struct ltap_source *src, uint64_t *done, uint64_t *total)
{
	struct ltap_textsrc *t = (struct ltap_textsrc *)src;
	struct stat st;

	if (t->fd < 0)
		return -1;
	*done = t->nread - (t->tail - t->head);
	*total = fstat(t->fd, &st) == 0 && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	return LTAP_PROGRESS_BYTES;
}

/* A read error ends the run; lines that were no events are told. */
static int text_finish(struct ltap_source *src)
{
	struct ltap_textsrc *t = (struct ltap_textsrc *)src;

	if (t->error) {
		ltap_err("replay: cannot read %s: %s", t->path, strerror(t->error));
		return -1;
	}
	if (t->malformed)
		ltap_warn("replay: %ld line%s of %s %s not an event (the first: line %ld)", t->malformed,
			  t->malformed == 1 ? "" : "s", t->path, t->malformed == 1 ? "is" : "are", t->first_bad);
	return 0;
}

static void text_close(struct ltap_source *src)
{
	ltap_textsrc_close((struct ltap_textsrc *)src);
}

static const struct ltap_source_ops text_source_ops = {
	.name = "text",
	.attach = text_attach,
	.streams = text_streams,
	.finish = text_finish,
	.close = text_close,
	.between = text_between,
	.span = text_span,
	.progress = text_progress,
};

struct ltap_textsrc *ltap_textsrc_new(const char *path, const struct ltap_textsrc_names *names)
{
	struct ltap_textsrc *t = calloc(1, sizeof *t);

	if (!t)
		return NULL;
	t->src.ops = &text_source_ops;
	t->s.ops = &text_ops;
	t->s.fd = -1;
	t->streams[0] = &t->s;
	t->fd = -1;
	t->cap = 64;
	t->nul_from = SIZE_MAX;
	t->rec.scratch = t->scratch;
	if (names)
		t->names = *names;
	t->path = strdup(path);
	t->buf = malloc(TEXT_BUF + 1);
	t->slots = calloc(t->cap, sizeof *t->slots);
	if (!t->path || !t->buf || !t->slots) {
		ltap_textsrc_close(t);
		return NULL;
	}
	return t;
}

struct ltap_source *ltap_textsrc_source(struct ltap_textsrc *t)
{
	return &t->src;
}

void ltap_textsrc_close(struct ltap_textsrc *t)
{
	if (!t)
		return;
	if (t->own)
		close(t->fd);
	for (unsigned i = 0; t->slots && i < t->cap; i++)
		free(t->slots[i].name);
	free(t->slots);
	free(t->path);
	free(t->buf);
	free(t);
}

struct ltap_stream *ltap_textsrc_stream(struct ltap_textsrc *t)
{
	return &t->s;
}

long ltap_textsrc_malformed(struct ltap_textsrc *t, long *first)
{
	*first = t->first_bad;
	return t->malformed;
}

/* --- a record, for the front end (src_text.h) ------------------------- */

static struct ltap_textrec *text_rec_of(const struct ltap_rec *r)
{
	return (struct ltap_textrec *)r->data; /* the source's own, parsed lazily */
}

void ltap_textsrc_line(const struct ltap_rec *r, struct ltap_textline *out)
{
	const struct ltap_textrec *t = text_rec_of(r);

	*out = (struct ltap_textline){t->comm, t->event, t->info, t->tid, t->tgid, t->line, t->last.run};
}

int ltap_textsrc_nfields(const struct ltap_rec *r)
{
	struct ltap_textrec *t = text_rec_of(r);

	ltap_textrec_parse(t);
	return t->nfields;
}

const char *ltap_textsrc_field_at(const struct ltap_rec *r, int i, const char **value)
{
	struct ltap_textrec *t = text_rec_of(r);

	*value = t->fields[i].value;
	return t->fields[i].key;
}

const char *ltap_textsrc_field(const struct ltap_rec *r, const char *key)
{
	return ltap_textrec_field(text_rec_of(r), key);
}
