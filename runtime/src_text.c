/* src_text.c: the text source: trace / trace_pipe text, line by line.
 *
 * A line names its event without a system; the front end gives the names
 * it declared their descriptor ids (ltap_textsrc_set_id), and says which
 * names first seen in the text its globs want. Such a name needs a
 * descriptor, made in Lua: the stream pauses at its line, and the front
 * end declares it between batches (the between op), never inside a read.
 * A read interrupted by a signal pauses the stream too, so the front end
 * sees the signal between batches and no Lua runs from inside read(). */
#include "src_text.h"

#include "log.h"
#include "progress.h"
#include "src_text_rec.h"
#include "stream.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LTAP_TEXT_SCRATCH 8192
/* read() a MB at a time: a syscall per 5,000 lines of a file */
#define TEXT_BUF (1u << 20)
/* how much of an overlong line is skipped between looks at signals */
#define TEXT_SKIP_CHECK (64u << 20)
#define TEXT_NAMES_MAX 4096 /* names of events no probe wants, remembered */

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
	uint64_t nread;       /* bytes read in all (a progress line's) */
	long lineno, malformed, first_bad;
	uint64_t first_ts;
	struct ltap_textsrc_names names;
	/* event name -> descriptor id (0: no probe wants it), open addressing */
	struct { char *name; int id; } *slots;
	unsigned cap, used, unwanted;
	/* the last line's name and its id: a run of one event's lines looks up
	 * no name (0 length: none; a name is set anew clears it) */
	char last_name[64];
	size_t last_len;
	int last_id;
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
	t->last_len = 0;
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

/* atoi without the locale machinery of strtol: this runs several times a line.
 * A pid, tgid or CPU is below about 2^30: a longer number (garbage such as
 * "bash-12214748364834") is no such column and gives -1, the line malformed;
 * without the bound v * 10 overflowed int (found by tests/fuzz), and a tid
 * near INT_MAX would overflow the tid + 1 keys of runtime/proc.c. */
#define TEXT_INT_MAX (1 << 30)
static int text_int(const char *s, int *out)
{
	int v = 0, neg = 0;

	while (*s == ' ')
		s++;
	if (*s == '-') {
		neg = 1;
		s++;
	}
	while (*s >= '0' && *s <= '9') {
		if (v > TEXT_INT_MAX / 10)
			return -1;
		v = v * 10 + (*s++ - '0');
	}
	*out = neg ? -v : v;
	return 0;
}

/* "12345.678901:" in ns, exactly (no double on the way); the position after
 * the digits, or NULL when s is not a time stamp */
static const char *text_stamp(const char *s, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	int digits = 0;
	const char *p = s;

	while (*p >= '0' && *p <= '9')
		sec = sec * 10 + (uint64_t)(*p++ - '0');
	if (p == s || *p != '.')
		return NULL;
	for (p++; *p >= '0' && *p <= '9'; p++)
		if (digits < 9) {
			frac = frac * 10 + (uint64_t)(*p - '0');
			digits++;
		}
	while (digits++ < 9)
		frac *= 10;
	*ns = sec * 1000000000ull + frac;
	return p;
}

/* "[001]": the CPU column; returns the position after ']' or NULL, and
 * where the column began (the end of the task's) in *start */
static char *cpu_column(char *s, int *cpu, char **start)
{
	for (char *p = strchr(s, '['); p; p = strchr(p + 1, '[')) {
		char *q = p + 1;
		if (!isdigit((unsigned char)*q) || p == s || p[-1] != ' ')
			continue;
		while (isdigit((unsigned char)*q))
			q++;
		if (*q == ']' && text_int(p + 1, cpu) == 0) {
			*p = 0;
			*start = p;
			return q + 1;
		}
	}
	return NULL;
}

/* the last c in [s, end), or NULL: strrchr from the end, which is near */
static char *last_of(char *s, char *end, char c)
{
	while (end > s)
		if (*--end == c)
			return end;
	return NULL;
}

/* "  comm-pid (tgid) " before the CPU column, which starts at end */
static int task_column(char *s, char *end, struct ltap_textrec *r)
{
	char *dash;
	int tid;

	while (end > s && end[-1] == ' ')
		*--end = 0;
	r->tgid = -1;
	if (end > s && end[-1] == ')') {
		char *open = last_of(s, end, '(');
		if (!open)
			return -1;
		if (strcmp(open + 1, "-------)") != 0 && text_int(open + 1, &r->tgid) != 0)
			return -1;
		*open = 0;
		end = open;
		while (end > s && end[-1] == ' ')
			*--end = 0;
	}
	while (*s == ' ')
		s++;
	dash = last_of(s, end, '-');
	if (!dash || dash == s || !isdigit((unsigned char)dash[1]))
		return -1;
	if (text_int(dash + 1, &tid) != 0)
		return -1;
	*dash = 0;
	r->tid = tid;
	r->comm = s;
	return 0;
}

/* "key=value key=value": a value runs to the next " key=" */
static void kv_fields(char *s, struct ltap_textrec *r)
{
	char *p = s;

	while (*p && r->nfields < LTAP_TEXT_FIELDS) {
		char *k = p, *eq, *next, *v;
		while (*k == ' ')
			k++;
		eq = k;
		while (isalnum((unsigned char)*eq) || *eq == '_')
			eq++;
		if (eq == k || *eq != '=') {
			/* not a field: skip a word */
			p = strchr(k, ' ');
			if (!p)
				break;
			continue;
		}
		*eq = 0;
		v = eq + 1;
		next = v;
		for (;;) {
			char *sp = strchr(next, ' '), *q;
			if (!sp) {
				next = NULL;
				break;
			}
			q = sp + 1;
			if (strncmp(q, "==> ", 4) == 0) {
				/* sched_switch: "prev_state=S ==> next_comm=..." */
				*sp = 0;
				next = q + 4;
				break;
			}
			while (isalnum((unsigned char)*q) || *q == '_')
				q++;
			if (q > sp + 1 && *q == '=') {
				*sp = 0;
				next = sp + 1;
				break;
			}
			next = sp + 1;
		}
		r->fields[r->nfields].key = k;
		r->fields[r->nfields].value = v;
		r->nfields++;
		if (!next)
			break;
		p = next;
	}
}

/* the syscall tracer's "dfd: 0xffffff9c, filename: 0x7ffd12, mode: 0" */
static void sys_fields(char *s, struct ltap_textrec *r)
{
	while (s && *s && r->nfields < LTAP_TEXT_FIELDS) {
		char *comma = strstr(s, ", "), *colon;
		if (comma)
			*comma = 0;
		colon = strstr(s, ": ");
		if (colon) {
			*colon = 0;
			r->fields[r->nfields].key = s;
			r->fields[r->nfields].value = colon + 2;
			r->nfields++;
		}
		s = comma ? comma + 2 : NULL;
	}
}

void ltap_textrec_parse(struct ltap_textrec *r)
{
	if (r->nfields >= 0)
		return;
	r->nfields = 0;
	/* the fields are cut out of a copy: tostring(e) shows the line as it was */
	snprintf(r->scratch, LTAP_TEXT_SCRATCH, "%s", r->info);
	switch (r->form) {
	case LTAP_TEXT_SYS_ENTER:
		sys_fields(r->scratch, r);
		break;
	case LTAP_TEXT_MARKER:
		r->fields[0].key = "buf";
		r->fields[0].value = r->scratch;
		r->nfields = 1;
		break;
	case LTAP_TEXT_SYS_EXIT:
		r->fields[0].key = "ret";
		r->fields[0].value = r->scratch;
		r->nfields = 1;
		break;
	default:
		kv_fields(r->scratch, r);
	}
}

const char *ltap_textrec_field(struct ltap_textrec *r, const char *key)
{
	ltap_textrec_parse(r);
	for (int i = 0; i < r->nfields; i++)
		if (strcmp(r->fields[i].key, key) == 0)
			return r->fields[i].value;
	return NULL;
}

/* "name: info", "sys_name(args)" or "sys_name -> ret": the event, its
 * name's length in *len, and its info */
static int event_column(char *rest, struct ltap_textrec *r, size_t *len)
{
	size_t n = strcspn(rest, ":( ");
	char *end;

	r->form = LTAP_TEXT_KV;
	if (n == 0 || !rest[n])
		return -1;
	if (rest[n] == ':') {
		rest[n] = 0;
		r->event = rest;
		r->info = rest + n + 1 + (rest[n + 1] == ' ');
		/* trace_marker writes print as tracing_mark_write: the event is
		 * ftrace:print, its text the field buf */
		*len = n;
		if (rest[0] == 't' && strcmp(rest, "tracing_mark_write") == 0) {
			r->form = LTAP_TEXT_MARKER;
			r->event = "print";
			*len = 5;
		}
		return 0;
	}
	if (strncmp(rest, "sys_", 4) != 0 || n - 4 + 10 >= sizeof r->evname)
		return -1;
	if (rest[n] == '(') {
		end = rest + strlen(rest);
		if (end[-1] != ')')
			return -1;
		end[-1] = 0;
		r->form = LTAP_TEXT_SYS_ENTER;
		snprintf(r->evname, sizeof r->evname, "sys_enter_%.*s", (int)(n - 4), rest + 4);
		r->info = rest + n + 1;
	} else if (strncmp(rest + n, " -> ", 4) == 0) {
		r->form = LTAP_TEXT_SYS_EXIT;
		snprintf(r->evname, sizeof r->evname, "sys_exit_%.*s", (int)(n - 4), rest + 4);
		r->info = rest + n + 4;
	} else {
		return -1;
	}
	r->event = r->evname;
	*len = strlen(r->evname);
	return 0;
}

/* 0: an event a probe wants; 1: not an event, or one no probe wants; 2:
 * an event of a name first seen that a glob wants (pending); -1: malformed */
static int text_parse(struct ltap_textsrc *t, char *line, size_t len)
{
	struct ltap_textrec *r = &t->rec;
	char *rest, *tok, *task_end;
	size_t nlen;
	uint64_t ts = 0;
	int cpu, id;

	if (len && line[len - 1] == '\n')
		line[len - 1] = 0;
	if (line[0] == '#')
		return 1; /* a header: not an event, not malformed */
	rest = cpu_column(line, &cpu, &task_end);
	if (!rest) /* an empty line is not malformed either */
		return line[strspn(line, " \t")] ? -1 : 1;
	if (task_column(line, task_end, r))
		return -1;
	/* [irq flags] timestamp: */
	for (int i = 0; i < 2; i++) {
		const char *end;
		while (*rest == ' ')
			rest++;
		tok = rest;
		rest = strchr(tok, ' ');
		if (!rest)
			return -1;
		*rest++ = 0;
		end = text_stamp(tok, &ts);
		if (end && *end == ':' && end[1] == 0)
			break;
		if (i == 1)
			return -1;
	}
	while (*rest == ' ')
		rest++;
	if (event_column(rest, r, &nlen))
		return -1;
	if (nlen && nlen == t->last_len && memcmp(r->event, t->last_name, nlen) == 0) {
		id = t->last_id;
	} else {
		id = ltap_textsrc_id(t, r->event);
		if (nlen < sizeof t->last_name) {
			memcpy(t->last_name, r->event, nlen);
			t->last_len = nlen;
			t->last_id = id;
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
		r = memchr(line, 0, (size_t)n) ? -1 : text_parse(t, line, (size_t)n);
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

	*out = (struct ltap_textline){t->comm, t->event, t->info, t->tid, t->tgid, t->line};
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
