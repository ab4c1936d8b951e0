/* filter.c: ftrace filter expressions, compiled once, matched per record as
 * the kernel matches them (see filter.h for why not libtraceevent's). */
#include "filter.h"

#include "catalog.h"

#include <ctype.h>
#include <errno.h>
#include <event-parse.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILTER_STR_MAX 256 /* the kernel's MAX_FILTER_STR_VAL */
#define FILTER_NUM_MAX 24  /* its num_buf: "0xfeedfacedeadbeef" and a sign */
#define FILTER_DEPTH_MAX 64
#define FILTER_COMM_LEN 16 /* TASK_COMM_LEN */
#define FILTER_NODES_MAX 16384

enum { N_AND, N_OR, N_NOT, N_PRED };
/* the kernel's order: "<=" is tried before "<" */
enum { OP_GLOB, OP_NE, OP_EQ, OP_LE, OP_LT, OP_GE, OP_GT, OP_BAND, OP_NONE };
static const char *const filter_ops[] = {"~", "!=", "==", "<=", "<", ">=", ">", "&"};
/* what a predicate reads: a number of the record, the CPU, the task's
 * name, or a char[N] / __data_loc / __rel_loc string of the record */
enum { P_NUM, P_CPU, P_COMM, P_STR, P_DYNSTR, P_RELSTR, P_PTRSTR, P_OTHER };
enum { M_FULL, M_FRONT, M_MIDDLE, M_END, M_GLOB };

struct filter_node {
	int kind;
	int left, right;
	/* N_PRED */
	int what, op, not, match;
	int offset, size, is_signed;
	unsigned long long val;
	int plen;
	char pat[FILTER_STR_MAX];
};

struct ltap_filter {
	struct filter_node *nodes;
	int n, cap, root;
	int pid_offset; /* common_pid: the task, for COMM */
	ltap_filter_comm_fn comm;
	void *ud;
};

struct filter_parser {
	struct ltap_filter *f;
	struct tep_event *ev;
	const char *p;
	char *why;
	size_t whylen;
	int failed, depth;
};

static int filter_fail(struct filter_parser *ps, const char *fmt, ...)
{
	va_list ap;

	if (!ps->failed) {
		va_start(ap, fmt);
		vsnprintf(ps->why, ps->whylen, fmt, ap);
		va_end(ap);
		ps->failed = 1;
	}
	return -1;
}

static int filter_node(struct filter_parser *ps, int kind, int left, int right)
{
	struct ltap_filter *f = ps->f;

	if (f->n == FILTER_NODES_MAX)
		return filter_fail(ps, "more than %d terms", FILTER_NODES_MAX / 2);
	if (f->n == f->cap) {
		int cap = f->cap ? f->cap * 2 : 8;
		struct filter_node *nb = realloc(f->nodes, (size_t)cap * sizeof *nb);
		if (!nb)
			return filter_fail(ps, "out of memory");
		f->nodes = nb;
		f->cap = cap;
	}
	memset(&f->nodes[f->n], 0, sizeof f->nodes[0]);
	f->nodes[f->n].kind = kind;
	f->nodes[f->n].left = left;
	f->nodes[f->n].right = right;
	return f->n++;
}

static void filter_skip_space(struct filter_parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

/* kstrtoull(s, 0): 0x hex, 0 octal, else decimal; all of s */
static int filter_strtoull(const char *s, unsigned long long *out)
{
	unsigned long long v = 0;
	unsigned base = 10;
	int any = 0;

	if (s[0] == '0') {
		if ((s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
			base = 16;
			s += 2;
		} else {
			base = 8;
		}
	}
	for (; *s; s++, any = 1) {
		unsigned digit;
		if (isdigit((unsigned char)*s))
			digit = (unsigned)(*s - '0');
		else if (isxdigit((unsigned char)*s))
			digit = (unsigned)(tolower((unsigned char)*s) - 'a') + 10;
		else
			break;
		if (digit >= base)
			break;
		if (v > (ULLONG_MAX - digit) / base)
			return -ERANGE;
		v = v * base + digit;
	}
	if (!any || *s)
		return -EINVAL;
	*out = v;
	return 0;
}

/* kstrtoll(s, 0) */
static int filter_strtoll(const char *s, unsigned long long *out)
{
	unsigned long long v;
	int e = filter_strtoull(s[0] == '-' ? s + 1 : s, &v);

	if (e)
		return e;
	if (s[0] == '-') {
		if (v > (unsigned long long)LLONG_MAX + 1)
			return -ERANGE;
		*out = 0ull - v;
	} else {
		if (v > (unsigned long long)LLONG_MAX)
			return -ERANGE;
		*out = v;
	}
	return 0;
}

/* The kernel's filter_assign_type, on the type the format prints. */
static int filter_field_kind(const struct tep_format_field *fl)
{
	const char *t = fl->type;

	if (strstr(t, "__data_loc") && strstr(t, "char"))
		return P_DYNSTR;
	if (strstr(t, "__rel_loc") && strstr(t, "char"))
		return P_RELSTR;
	if (strchr(t, '[') && strstr(t, "char") && !(fl->flags & TEP_FIELD_IS_DYNAMIC))
		return P_STR;
	if (strcmp(t, "char *") == 0 || strcmp(t, "const char *") == 0)
		return P_PTRSTR;
	if ((fl->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) ||
	    (fl->size != 1 && fl->size != 2 && fl->size != 4 && fl->size != 8))
		return P_OTHER;
	return P_NUM;
}

/* The kernel's trace_find_event_field: the event's own fields, then the
 * generic CPU and COMM, then the common fields. */
static int filter_field(struct filter_parser *ps, struct filter_node *n, const char *name)
{
	struct tep_format_field *fl = tep_find_field(ps->ev, name);

	if (!fl) {
		if (!strcmp(name, "CPU") || !strcmp(name, "cpu") || !strcmp(name, "common_cpu")) {
			n->what = P_CPU; /* an int, as the kernel declares it */
			n->size = 4;
			n->is_signed = 1;
			return 0;
		}
		if (!strcmp(name, "COMM") || !strcmp(name, "comm")) {
			n->what = P_COMM;
			return 0;
		}
		fl = tep_find_common_field(ps->ev, name);
	}
	if (!fl) {
		char fields[1024];
		ltap_catalog_field_names(ps->ev, fields, sizeof fields);
		return filter_fail(ps, "no field '%s' (fields: %s%scommon_pid, COMM, CPU)", name, fields,
				   fields[0] ? ", " : "");
	}
	n->what = filter_field_kind(fl);
	n->offset = fl->offset;
	n->size = fl->size;
	n->is_signed = (fl->flags & TEP_FIELD_IS_SIGNED) != 0;
	return 0;
}

/* The kernel's filter_parse_regex and filter_build_regex. */
static void filter_pattern(struct filter_node *n)
{
	char *s = n->pat;
	int len = n->plen;

	n->match = M_FULL;
	if (n->op != OP_GLOB)
		return;
	n->not = s[0] == '!';
	if (n->not)
		memmove(s, s + 1, (size_t)len--);
	n->plen = len;
	if (isdigit((unsigned char)s[0]))
		return; /* the kernel's MATCH_INDEX, matched in full */
	for (int i = 0; i < len; i++) {
		if (s[i] == '*') {
			if (i == 0) {
				n->match = M_END;
			} else if (i == len - 1) {
				n->match = n->match == M_END ? M_MIDDLE : M_FRONT;
				s[i] = 0;
				break;
			} else {
				n->match = M_GLOB;
				break;
			}
		} else if (strchr("[?\\", s[i])) {
			n->match = M_GLOB;
			break;
		}
	}
	if (n->match != M_GLOB && s[0] == '*')
		memmove(s, s + 1, strlen(s));
	n->plen = (int)strlen(s);
}

static int filter_string_value(struct filter_parser *ps, struct filter_node *n, const char *name)
{
	char q = *ps->p;
	const char *end = strchr(ps->p + 1, q);

	if (n->op != OP_EQ && n->op != OP_NE && n->op != OP_GLOB)
		return filter_fail(ps, "'%s' does not compare strings (==, != and ~ do)", filter_ops[n->op]);
	if (n->what == P_NUM || n->what == P_CPU || n->what == P_OTHER)
		return filter_fail(ps, "'%s' is a number: compare it with a number", name);
	if (!end)
		return filter_fail(ps, "missing closing quote");
	if (end - ps->p - 1 >= FILTER_STR_MAX)
		return filter_fail(ps, "string of %d characters or more", FILTER_STR_MAX);
	n->plen = (int)(end - ps->p - 1);
	memcpy(n->pat, ps->p + 1, (size_t)n->plen);
	n->pat[n->plen] = 0;
	n->not = n->op == OP_NE;
	filter_pattern(n);
	ps->p = end + 1;
	return 0;
}

static int filter_number_value(struct filter_parser *ps, struct filter_node *n, const char *name)
{
	const char *s = ps->p;
	char num[FILTER_NUM_MAX];
	size_t len;

	if (n->what != P_NUM && n->what != P_CPU && n->what != P_OTHER)
		return filter_fail(ps, "'%s' is a string: quote the value", name);
	if (n->op == OP_GLOB)
		return filter_fail(ps, "'~' matches strings, and '%s' is a number", name);
	if (*s == '-')
		s++;
	while (isalnum((unsigned char)*s))
		s++;
	len = (size_t)(s - ps->p);
	if (len >= sizeof num)
		return filter_fail(ps, "number '%.*s' too long", (int)len, ps->p);
	memcpy(num, ps->p, len);
	num[len] = 0;
	if ((n->is_signed ? filter_strtoll(num, &n->val) : filter_strtoull(num, &n->val)) != 0)
		return filter_fail(ps, "bad number '%s' for %s field '%s'", num, n->is_signed ? "a signed" : "an unsigned",
				   name);
	if (n->what == P_OTHER)
		return filter_fail(ps, "'%s' (an array, or of size %d) is compared by the kernel only", name, n->size);
	n->not = n->op == OP_NE && n->what == P_NUM;
	ps->p = s;
	return 0;
}

static int filter_pred(struct filter_parser *ps)
{
	const char *start = ps->p;
	char name[128];
	struct filter_node pred;
	int op, i;

	while (isalnum((unsigned char)*ps->p) || *ps->p == '_')
		ps->p++;
	if (ps->p == start)
		return filter_fail(ps, *start ? "expected a field name at '%.20s'" : "incomplete expression", start);
	if (ps->p - start >= (long)sizeof name)
		return filter_fail(ps, "field name '%.20s...' too long", start);
	memcpy(name, start, (size_t)(ps->p - start));
	name[ps->p - start] = 0;
	memset(&pred, 0, sizeof pred);
	pred.kind = N_PRED;
	if (filter_field(ps, &pred, name))
		return -1;
	if (*ps->p == '.') {
		const char *s = ps->p + 1;
		while (isalnum((unsigned char)*s) || *s == '_')
			s++;
		return filter_fail(ps, "'%s%.*s' is applied by the kernel only", name, (int)(s - ps->p), ps->p);
	}
	filter_skip_space(ps);
	for (op = 0; op < OP_NONE; op++)
		if (strncmp(ps->p, filter_ops[op], strlen(filter_ops[op])) == 0)
			break;
	if (op == OP_NONE)
		return filter_fail(ps, "expected an operator (== != < <= > >= & ~) after '%s'", name);
	pred.op = op;
	ps->p += strlen(filter_ops[op]);
	filter_skip_space(ps);
	if (strncmp(ps->p, "CPUS{", 5) == 0)
		return filter_fail(ps, "CPUS{...} is applied by the kernel only");
	if (*ps->p == '"' || *ps->p == '\'') {
		if (filter_string_value(ps, &pred, name))
			return -1;
		if (pred.what == P_PTRSTR)
			return filter_fail(ps, "'%s' is a pointer whose string only the kernel can read", name);
	} else if (isdigit((unsigned char)*ps->p) || *ps->p == '-') {
		if (filter_number_value(ps, &pred, name))
			return -1;
	} else {
		return filter_fail(ps, "'%s %s' needs a number or a quoted string", name, filter_ops[op]);
	}
	if ((i = filter_node(ps, N_PRED, -1, -1)) < 0)
		return -1;
	ps->f->nodes[i] = pred;
	return i;
}

static int filter_or(struct filter_parser *ps);

static int filter_unary(struct filter_parser *ps)
{
	int n;

	filter_skip_space(ps);
	if (ps->depth >= FILTER_DEPTH_MAX)
		return filter_fail(ps, "more than %d nested '(' or '!'", FILTER_DEPTH_MAX);
	if (ps->p[0] == '!' && ps->p[1] != '=' && ps->p[1] != '~') {
		ps->p++;
		ps->depth++;
		n = filter_unary(ps);
		ps->depth--;
		return n < 0 ? -1 : filter_node(ps, N_NOT, n, -1);
	}
	if (ps->p[0] == '(') {
		ps->p++;
		ps->depth++;
		n = filter_or(ps);
		ps->depth--;
		if (n < 0)
			return -1;
		filter_skip_space(ps);
		if (*ps->p != ')')
			return filter_fail(ps, "missing ')'");
		ps->p++;
		return n;
	}
	return filter_pred(ps);
}

/* "a OP b OP c", left to right: kind N_AND (&&) over unary terms, N_OR
 * (||) over && chains, so && binds tighter, as the kernel parses them */
static int filter_binary(struct filter_parser *ps, int kind)
{
	const char *op = kind == N_AND ? "&&" : "||";
	int l = kind == N_AND ? filter_unary(ps) : filter_binary(ps, N_AND);

	while (l >= 0) {
		int r;
		filter_skip_space(ps);
		if (ps->p[0] != op[0] || ps->p[1] != op[1])
			break;
		ps->p += 2;
		if ((r = kind == N_AND ? filter_unary(ps) : filter_binary(ps, N_AND)) < 0)
			return -1;
		l = filter_node(ps, kind, l, r);
	}
	return l;
}

static int filter_or(struct filter_parser *ps)
{
	return filter_binary(ps, N_OR);
}

struct ltap_filter *ltap_filter_new(struct tep_event *ev, const char *text, ltap_filter_comm_fn comm, void *ud,
				    char *why, size_t whylen)
{
	struct ltap_filter *f = calloc(1, sizeof *f);
	struct filter_parser ps = {.f = f, .ev = ev, .p = text, .why = why, .whylen = whylen};
	struct tep_format_field *pid = tep_find_common_field(ev, "common_pid");

	if (!f) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	f->comm = comm;
	f->ud = ud;
	f->pid_offset = pid ? pid->offset : -1;
	f->root = filter_or(&ps);
	if (f->root >= 0) {
		filter_skip_space(&ps);
		if (*ps.p == ')')
			filter_fail(&ps, "too many ')'");
		else if (*ps.p)
			filter_fail(&ps, "expected && or || before '%.20s'", ps.p);
	}
	if (ps.failed) {
		ltap_filter_free(f);
		return NULL;
	}
	return f;
}

void ltap_filter_free(struct ltap_filter *f)
{
	if (!f)
		return;
	free(f->nodes);
	free(f);
}

/* The kernel's glob_match (lib/glob.c): '*', '?', "[a-z]", "[!a]", "\x";
 * the string ends at its NUL or at end. */
static int filter_glob(const char *pat, const char *str, const char *end)
{
	const char *back_pat = NULL, *back_str = NULL;

	for (;;) {
		unsigned char c = str < end ? (unsigned char)*str : 0;
		unsigned char d = (unsigned char)*pat++;

		str++;
		switch (d) {
		case '?':
			if (!c)
				return 0;
			continue;
		case '*':
			if (!*pat)
				return 1;
			back_pat = pat;
			back_str = --str;
			continue;
		case '[': {
			int match = 0, inverted = *pat == '!';
			const char *cls = pat + inverted;
			unsigned char a = (unsigned char)*cls++;
			do {
				unsigned char b = a;
				if (!a)
					goto literal;
				if (cls[0] == '-' && cls[1] != ']') {
					b = (unsigned char)cls[1];
					if (!b)
						goto literal;
					cls += 2;
				}
				match |= a <= c && c <= b;
			} while ((a = (unsigned char)*cls++) != ']');
			if (match == inverted)
				goto backtrack;
			pat = cls;
			continue;
		}
		case '\\':
			d = (unsigned char)*pat++;
			break;
		}
	literal:
		if (c == d) {
			if (!d)
				return 1;
			continue;
		}
	backtrack:
		if (!c || !back_pat)
			return 0;
		pat = back_pat;
		str = ++back_str;
	}
}

/* The kernel's regex_match_*: len is the field's size (char[N]), the
 * string's with its NUL (__data_loc), or 0 for a NUL-terminated one. */
static int filter_string_match(const struct filter_node *n, const char *s, int len)
{
	int m = 0;

	switch (n->match) {
	case M_FULL:
		m = strncmp(s, n->pat, (size_t)(len ? len : FILTER_STR_MAX)) == 0;
		break;
	case M_FRONT:
		m = !(len && len < n->plen) && strncmp(s, n->pat, (size_t)n->plen) == 0;
		break;
	case M_MIDDLE:
		m = n->plen == 0;
		for (int i = 0; !m && len - i >= n->plen; i++)
			m = memcmp(s + i, n->pat, (size_t)n->plen) == 0;
		break;
	case M_END:
		m = len - 1 >= n->plen && memcmp(s + len - 1 - n->plen, n->pat, (size_t)n->plen) == 0;
		break;
	case M_GLOB:
		m = filter_glob(n->pat, s, s + len);
		break;
	}
	return m ^ n->not;
}

static unsigned long long filter_read(const char *at, int size)
{
	switch (size) {
	case 1: { uint8_t v; memcpy(&v, at, 1); return v; }
	case 2: { uint16_t v; memcpy(&v, at, 2); return v; }
	case 4: { uint32_t v; memcpy(&v, at, 4); return v; }
	default: { uint64_t v; memcpy(&v, at, 8); return v; }
	}
}

/* v cut to size bytes, sign-extended when is_signed (the kernel's (s32)val) */
static long long filter_signed(unsigned long long v, int size)
{
	switch (size) {
	case 1: return (int8_t)v;
	case 2: return (int16_t)v;
	case 4: return (int32_t)v;
	default: return (long long)v;
	}
}

static int filter_number_match(const struct filter_node *n, unsigned long long a)
{
	unsigned long long mask = n->size == 8 ? ~0ull : (1ull << (8 * n->size)) - 1, v = n->val & mask;

	a &= mask;
	switch (n->op) {
	case OP_EQ:
	case OP_NE:
		return (a == v) ^ n->not;
	case OP_BAND:
		return (a & v) != 0;
	}
	if (n->is_signed) {
		long long sa = filter_signed(a, n->size), sv = filter_signed(v, n->size);
		switch (n->op) {
		case OP_LT: return sa < sv;
		case OP_LE: return sa <= sv;
		case OP_GT: return sa > sv;
		default: return sa >= sv;
		}
	}
	switch (n->op) {
	case OP_LT: return a < v;
	case OP_LE: return a <= v;
	case OP_GT: return a > v;
	default: return a >= v;
	}
}

static int filter_cpu_match(const struct filter_node *n, int cpu)
{
	int v = (int)n->val;

	switch (n->op) {
	case OP_EQ: return cpu == v;
	case OP_NE: return cpu != v;
	case OP_LT: return cpu < v;
	case OP_LE: return cpu <= v;
	case OP_GT: return cpu > v;
	case OP_GE: return cpu >= v;
	default: return 0; /* the kernel's filter_pred_cpu: "CPU & 1" is never true */
	}
}

static int filter_pred_match(const struct ltap_filter *f, const struct filter_node *n, const char *data, int size,
			     int cpu)
{
	switch (n->what) {
	case P_CPU:
		return filter_cpu_match(n, cpu);
	case P_COMM: {
		char comm[FILTER_COMM_LEN] = {0}; /* the kernel's task->comm: padded with NULs */
		int32_t tid = 0;
		const char *c = NULL;
		if (f->pid_offset >= 0 && f->pid_offset + 4 <= size)
			memcpy(&tid, data + f->pid_offset, sizeof tid);
		if (f->comm)
			c = f->comm(f->ud, tid);
		if (c)
			strncpy(comm, c, sizeof comm - 1);
		return filter_string_match(n, comm, FILTER_COMM_LEN);
	}
	case P_STR:
		if (n->offset + n->size > size)
			return filter_string_match(n, "", 1);
		return filter_string_match(n, data + n->offset, n->size);
	case P_DYNSTR:
	case P_RELSTR: {
		uint32_t loc;
		unsigned off, len;
		if (n->offset + 4 > size)
			return filter_string_match(n, "", 1);
		memcpy(&loc, data + n->offset, sizeof loc);
		off = (loc & 0xffff) + (n->what == P_RELSTR ? (unsigned)n->offset + 4 : 0);
		len = loc >> 16;
		if (off + len > (unsigned)size || len == 0)
			return filter_string_match(n, "", 1);
		return filter_string_match(n, data + off, (int)len);
	}
	default:
		if (n->offset + n->size > size)
			return 0;
		return filter_number_match(n, filter_read(data + n->offset, n->size));
	}
}

static int filter_eval(const struct ltap_filter *f, int i, const char *data, int size, int cpu)
{
	const struct filter_node *n = &f->nodes[i];

	switch (n->kind) {
	case N_AND:
		return filter_eval(f, n->left, data, size, cpu) && filter_eval(f, n->right, data, size, cpu);
	case N_OR:
		return filter_eval(f, n->left, data, size, cpu) || filter_eval(f, n->right, data, size, cpu);
	case N_NOT:
		return !filter_eval(f, n->left, data, size, cpu);
	default:
		return filter_pred_match(f, n, data, size, cpu);
	}
}

int ltap_filter_match(const struct ltap_filter *f, const void *data, int size, int cpu)
{
	return filter_eval(f, f->root, data, size, cpu);
}
