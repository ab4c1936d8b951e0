/* text_parse.c: one line of the kernel's trace text cut into its columns
 * (task, tgid, CPU, time, event, info), in place, and a record's fields cut
 * out of its info on first use. No I/O, no state: src_text.c reads the
 * lines and keeps the names; tests/unit/test_text_parse.c checks the
 * parses alone. */
#include "text_parse.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* atoi without the locale machinery of strtol: this runs several times a line.
 * A pid, tgid or CPU is below about 2^30: a longer number (garbage such as
 * "bash-12214748364834") is no such column and gives -1, the line malformed;
 * without the bound v * 10 overflowed int (found by tests/fuzz), and a tid
 * near INT_MAX would overflow the tid + 1 keys of runtime/proc.c. */
#define TEXT_INT_MAX (1 << 30)

/* '0'..'9' without isdigit's locale table, a call and a load per byte */
static inline int text_digit(char c)
{
	return (unsigned char)(c - '0') < 10;
}

/* The leading digits of the 8 bytes at p, a word at a time (a time stamp's
 * seconds and fraction, a tid: two to eight digits each, a fifth of the
 * line's parse byte by byte): their number (0 to 8) and in *v their value;
 * -1 when p + 8 passes lim, the end of the line, or on a big-endian CPU. */
static inline int text_lead8(const char *p, const char *lim, uint32_t *v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w, nd;
	int k;

	if (lim - p < 8)
		return -1;
	memcpy(&w, p, 8);
	w -= 0x3030303030303030ull;
	/* a byte's top bit: below '0' (wrapped) or above '9' (+ 0x76 carries
	 * into it); what the first such byte carries or borrows reaches only
	 * the bytes after it */
	nd = (w | (w + 0x7676767676767676ull)) & 0x8080808080808080ull;
	k = nd ? __builtin_ctzll(nd) >> 3 : 8;
	if (k == 0) {
		*v = 0;
		return 0;
	}
	/* the digits to the top, zeros (leading) below; pairs, fours, eight */
	w <<= 8 * (8 - k);
	w = w * 10 + (w >> 8);
	w = ((w & 0x000000ff000000ffull) * (100 + (1000000ull << 32)) +
	     ((w >> 16) & 0x000000ff000000ffull) * (1 + (10000ull << 32))) >> 32;
	*v = (uint32_t)w;
	return k;
#else
	(void)p;
	(void)lim;
	(void)v;
	return -1;
#endif
}

/* the digits at s (one at least) before lim, bounded as above: the
 * position after them, or NULL past the bound */
static inline const char *text_digits(const char *s, const char *lim, int *out)
{
	uint32_t u;
	int v = 0, k = text_lead8(s, lim, &u);

	if (k >= 0) {
		v = (int)u; /* below 10^8: in bounds */
		s += k;
		if (k < 8) {
			*out = v;
			return s;
		}
	}
	for (; text_digit(*s); s++) {
		if (v > TEXT_INT_MAX / 10)
			return NULL;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return s;
}

/* spaces, a sign, the digits: the tgid column's " 42" or "-1" */
static int text_int(const char *s, int *out)
{
	int neg = 0;

	while (*s == ' ')
		s++;
	if (*s == '-') {
		neg = 1;
		s++;
	}
	if (!text_digits(s, s, out)) /* rare: byte by byte */
		return -1;
	if (neg)
		*out = -*out;
	return 0;
}

/* "12345.678901:" in ns, exactly (no double on the way); the position after
 * the digits, or NULL when s is not a time stamp */
static const char *text_stamp(const char *s, const char *lim, uint64_t *ns)
{
	static const uint32_t scale[10] = {1000000000, 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1};
	uint64_t sec = 0;
	uint32_t frac = 0, u;
	const char *p = s, *f;
	int k = text_lead8(p, lim, &u);

	if (k >= 0) {
		sec = u;
		p += k;
	}
	if (k < 0 || k == 8)
		while (text_digit(*p))
			sec = sec * 10 + (uint64_t)(*p++ - '0');
	if (p == s || *p != '.')
		return NULL;
	/* ns: 9 digits of the fraction at most, the rest cut */
	f = ++p;
	if ((k = text_lead8(p, lim, &u)) >= 0) {
		frac = u;
		p += k;
		if (k == 8 && text_digit(*p))
			frac = frac * 10 + (uint32_t)(*p++ - '0');
	} else {
		for (; text_digit(*p) && p - f < 9; p++)
			frac = frac * 10 + (uint32_t)(*p - '0');
	}
	*ns = sec * 1000000000ull + (uint64_t)frac * scale[p - f];
	while (text_digit(*p))
		p++;
	return p;
}

/* "[001]": the CPU column; returns the position after ']' or NULL, and
 * where the column began (the end of the task's) in *start */
static char *cpu_column(char *s, const char *lim, int *cpu, char **start)
{
	for (char *p = strchr(s, '['); p; p = strchr(p + 1, '[')) {
		const char *q;
		if (p == s || p[-1] != ' ' || !text_digit(p[1]))
			continue;
		q = text_digits(p + 1, lim, cpu);
		if (q && *q == ']') {
			*start = p;
			return (char *)q + 1;
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

/* "  comm-pid (tgid) " before the CPU column, which starts at end. The
 * comm's end is the one byte written, after the tid is read: its digits
 * are read a word at a time, and a word over a byte just written waits
 * for the store. */
static int task_column(char *s, char *end, const char *lim, struct ltap_textrec *r)
{
	char *dash;
	int tid;

	while (end > s && end[-1] == ' ')
		end--;
	r->tgid = -1;
	if (end > s && end[-1] == ')') {
		char *open = last_of(s, end, '(');
		if (!open)
			return -1;
		if (!(end - open == 9 && memcmp(open + 1, "-------)", 8) == 0) && text_int(open + 1, &r->tgid) != 0)
			return -1;
		end = open;
		while (end > s && end[-1] == ' ')
			end--;
	}
	while (s < end && *s == ' ')
		s++;
	dash = last_of(s, end, '-');
	if (!dash || dash == s || !text_digit(dash[1]))
		return -1;
	if (!text_digits(dash + 1, lim, &tid))
		return -1;
	*dash = 0;
	r->tid = tid;
	r->comm = s;
	return 0;
}

/* Keeps the task and CPU columns just cut, line up to rest, as they were
 * read (the comm's '-' put back) for the next line: they depend on those
 * bytes alone. */
static void last_columns(const char *line, const char *rest, struct ltap_textrec *r, int cpu)
{
	size_t n = (size_t)(rest - line);

	r->last.len = 0;
	if (n > sizeof r->last.bytes)
		return;
	memcpy(r->last.bytes, line, n);
	r->last.dash = (size_t)(r->comm + strlen(r->comm) - line);
	r->last.bytes[r->last.dash] = '-';
	r->last.comm = (size_t)(r->comm - line);
	r->last.tid = r->tid;
	r->last.tgid = r->tgid;
	r->last.cpu = cpu;
	r->last.len = n;
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
	size_t n = 0;
	char *end;

	/* strcspn(rest, ":( "), without its call and table for a short name */
	while (rest[n] && rest[n] != ':' && rest[n] != '(' && rest[n] != ' ')
		n++;
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

int ltap_text_parse_line(char *line, size_t len, struct ltap_textrec *r, uint64_t *ts, int *cpu, size_t *nlen)
{
	char *rest, *tok, *task_end;
	const char *lim = line + len; /* the bytes read a word at a time end there */

	if (len && line[len - 1] == '\n')
		line[len - 1] = 0;
	if (line[0] == '#')
		return 1; /* a header: not an event, not malformed */
	if (r->last.len && len > r->last.len && ltap_text_same(line, r->last.bytes, r->last.len)) {
		/* the columns of the last line: the same parse */
		r->tid = r->last.tid;
		r->tgid = r->last.tgid;
		*cpu = r->last.cpu;
		r->comm = line + r->last.comm;
		line[r->last.dash] = 0;
		rest = line + r->last.len;
	} else {
		r->last.run++;
		rest = cpu_column(line, lim, cpu, &task_end);
		if (!rest) /* an empty line is not malformed either */
			return line[strspn(line, " \t")] ? -1 : 1;
		if (task_column(line, task_end, lim, r))
			return -1;
		last_columns(line, rest, r, *cpu);
	}
	/* [irq flags] timestamp: a column is read as a time stamp first, the
	 * one it is on the old variant without flags, and skipped when not */
	for (int i = 0; i < 2; i++) {
		const char *end;
		while (*rest == ' ')
			rest++;
		tok = rest;
		end = text_stamp(tok, lim, ts);
		if (end && end[0] == ':' && end[1] == ' ') {
			rest = (char *)end + 2;
			break;
		}
		rest = strchr(tok, ' ');
		if (!rest || i == 1)
			return -1;
		rest++;
	}
	while (*rest == ' ')
		rest++;
	return event_column(rest, r, nlen) ? -1 : 0;
}
