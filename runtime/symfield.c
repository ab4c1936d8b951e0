/* symfield.c: the names a print format gives a field's values (symfield.h).
 *
 * Evaluation follows libtraceevent 1.7 (event-parse.c: eval_num_arg,
 * print_str_arg, eval_flag, eval_type_str), since what a script reads must
 * be what trace-cmd report prints: numbers are unsigned 64-bit, a field is
 * read unsigned at its size, casts to 8/16/32-bit types mask, a symbol
 * table without the value prints 0x%llx, a flags table prints the names
 * of the bits it knows joined by its delimiter and the rest as 0x%llx.
 * libtraceevent divides by zero and shifts by 64 or more as the CPU does;
 * here a division by zero is 0 and a shift count is taken mod 64 (x86). */
#include "symfield.h"

#include <ctype.h>
#include <errno.h>
#include <event-parse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEPTH_MAX 32 /* deeper than any kernel's format: not compiled */

enum node_kind {
	N_NUM,   /* a constant (num) */
	N_FIELD, /* a field of the record (off, size) */
	N_CAST,  /* a[0] masked to `mask` */
	N_OP,    /* a[0] op a[1]; unary ops use a[1] */
	N_COND,  /* a[0] ? a[1] : a[2] (numbers, or text on the string side) */
	N_TEXT,  /* a string constant (text) */
	N_EMPTY, /* prints nothing (a cast on the string side) */
	N_SYMBOL,
	N_FLAGS,
};

enum { OP_NOT = 1, OP_NE, OP_INV, OP_OR, OP_LOR, OP_AND, OP_LAND, OP_LT, OP_SHL, OP_LE, OP_GT, OP_SHR, OP_GE,
       OP_EQ, OP_SUB, OP_ADD, OP_DIV, OP_MOD, OP_MUL };

struct sym {
	long long value; /* as eval_flag reads the table's value */
	const char *name;
};

struct node {
	enum node_kind kind;
	int op;
	unsigned long long num, mask;
	int off, size;
	const char *text;
	struct node *a[3];
	struct sym *syms; /* N_SYMBOL, N_FLAGS: the table, in the format's order */
	int nsyms;
	const char *delim;
};

struct symfield {
	const char *name;
	struct node *root;
};

struct ltap_symfields {
	struct symfield *f;
	int n;
};

static void node_free(struct node *n)
{
	if (!n)
		return;
	for (int i = 0; i < 3; i++)
		node_free(n->a[i]);
	free(n->syms);
	free(n);
}

/* eval_flag: a table value that does not start with a digit is a name
 * libtraceevent knows (older kernels wrote softirq and hrtimer names), or -1 */
static long long flag_value(const char *v)
{
	static const struct { const char *name; long long value; } known[] = {
		{"HI_SOFTIRQ", 0}, {"TIMER_SOFTIRQ", 1}, {"NET_TX_SOFTIRQ", 2}, {"NET_RX_SOFTIRQ", 3},
		{"BLOCK_SOFTIRQ", 4}, {"IRQ_POLL_SOFTIRQ", 5}, {"TASKLET_SOFTIRQ", 6}, {"SCHED_SOFTIRQ", 7},
		{"HRTIMER_SOFTIRQ", 8}, {"RCU_SOFTIRQ", 9}, {"HRTIMER_NORESTART", 0}, {"HRTIMER_RESTART", 1},
	};

	if (isdigit((unsigned char)v[0]))
		return (long long)strtoull(v, NULL, 0);
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(known[i].name, v) == 0)
			return known[i].value;
	return -1;
}

/* eval_type_str's effect: casts to 8, 16 and 32-bit integer types keep
 * that many low bits (signed ones too: libtraceevent masks after the sign
 * extension); anything else (64-bit, long, pointers, structs) is as is */
static unsigned long long cast_mask(const char *type)
{
	static const struct { const char *type; unsigned long long mask; } masks[] = {
		{"u8", 0xff}, {"s8", 0xff}, {"char", 0xff}, {"unsigned char", 0xff},
		{"u16", 0xffff}, {"s16", 0xffff}, {"short", 0xffff}, {"unsigned short", 0xffff},
		{"u32", 0xffffffff}, {"s32", 0xffffffff}, {"int", 0xffffffff}, {"unsigned int", 0xffffffff},
	};

	for (size_t i = 0; i < sizeof masks / sizeof masks[0]; i++)
		if (strcmp(type, masks[i].type) == 0)
			return masks[i].mask;
	return ~0ull;
}

static int op_code(const char *op)
{
	static const struct { const char *op; int code; } ops[] = {
		{"!", OP_NOT}, {"!=", OP_NE}, {"~", OP_INV}, {"|", OP_OR}, {"||", OP_LOR}, {"&", OP_AND},
		{"&&", OP_LAND}, {"<", OP_LT}, {"<<", OP_SHL}, {"<=", OP_LE}, {">", OP_GT}, {">>", OP_SHR},
		{">=", OP_GE}, {"==", OP_EQ}, {"-", OP_SUB}, {"+", OP_ADD}, {"/", OP_DIV}, {"%", OP_MOD},
		{"*", OP_MUL},
	};

	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (strcmp(op, ops[i].op) == 0)
			return ops[i].code;
	return 0;
}

static struct node *node_new(enum node_kind kind)
{
	struct node *n = calloc(1, sizeof *n);
	if (n)
		n->kind = kind;
	return n;
}

static struct node *compile_num(struct tep_event *ev, struct tep_print_arg *a, int depth, const char **field);

static struct node *compile_table(struct tep_event *ev, struct tep_print_arg *a, int depth, const char **field)
{
	int flags = a->type == TEP_PRINT_FLAGS;
	struct tep_print_flag_sym *t = flags ? a->flags.flags : a->symbol.symbols;
	struct node *n = node_new(flags ? N_FLAGS : N_SYMBOL);
	int k = 0;

	if (!n)
		return NULL;
	for (struct tep_print_flag_sym *s = t; s; s = s->next)
		n->nsyms++;
	n->syms = calloc((size_t)n->nsyms + 1, sizeof *n->syms);
	n->a[0] = compile_num(ev, flags ? a->flags.field : a->symbol.field, depth + 1, field);
	if (!n->syms || !n->a[0]) {
		node_free(n);
		return NULL;
	}
	for (struct tep_print_flag_sym *s = t; s; s = s->next, k++) {
		n->syms[k].value = flag_value(s->value);
		n->syms[k].name = s->str;
	}
	n->delim = flags ? a->flags.delim : NULL;
	return n;
}

/* A print argument as a number; *field gets the first field it reads. */
static struct node *compile_num(struct tep_event *ev, struct tep_print_arg *a, int depth, const char **field)
{
	struct node *n = NULL;
	char *end;

	if (!a || depth > DEPTH_MAX)
		return NULL;
	switch (a->type) {
	case TEP_PRINT_NULL: /* the missing left side of a unary op */
		n = node_new(N_NUM);
		break;
	case TEP_PRINT_ATOM:
		n = node_new(N_NUM);
		if (n)
			n->num = strtoull(a->atom.atom, &end, 0);
		break;
	case TEP_PRINT_FIELD: {
		struct tep_format_field *f = a->field.field ? a->field.field : tep_find_any_field(ev, a->field.name);
		if (!f || (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
			return NULL;
		if ((n = node_new(N_FIELD))) {
			n->off = f->offset;
			n->size = f->size;
			if (!*field)
				*field = f->name;
		}
		break;
	}
	case TEP_PRINT_TYPE:
		if ((n = node_new(N_CAST))) {
			n->mask = cast_mask(a->typecast.type);
			if (!(n->a[0] = compile_num(ev, a->typecast.item, depth + 1, field)))
				goto fail;
		}
		break;
	case TEP_PRINT_OP:
		if (strcmp(a->op.op, "?") == 0) {
			if (!a->op.right || a->op.right->type != TEP_PRINT_OP || (n = node_new(N_COND)) == NULL)
				return NULL;
			n->a[0] = compile_num(ev, a->op.left, depth + 1, field);
			n->a[1] = compile_num(ev, a->op.right->op.left, depth + 1, field);
			n->a[2] = compile_num(ev, a->op.right->op.right, depth + 1, field);
			if (!n->a[0] || !n->a[1] || !n->a[2])
				goto fail;
			break;
		}
		if (!op_code(a->op.op) || (n = node_new(N_OP)) == NULL)
			return NULL;
		n->op = op_code(a->op.op);
		/* libtraceevent evaluates both sides of every op, the unary ones'
		 * missing left side as 0 */
		n->a[0] = a->op.left ? compile_num(ev, a->op.left, depth + 1, field) : node_new(N_NUM);
		n->a[1] = compile_num(ev, a->op.right, depth + 1, field);
		if (!n->a[0] || !n->a[1])
			goto fail;
		break;
	default: /* arrays, strings, functions: not a plain number */
		return NULL;
	}
	return n;
fail:
	node_free(n);
	return NULL;
}

/* Whether a holds a symbol or flags table on its string side. */
static int has_table(const struct tep_print_arg *a, int depth)
{
	if (!a || depth > DEPTH_MAX)
		return 0;
	if (a->type == TEP_PRINT_SYMBOL || a->type == TEP_PRINT_FLAGS)
		return 1;
	if (a->type == TEP_PRINT_OP && strcmp(a->op.op, "?") == 0 && a->op.right && a->op.right->type == TEP_PRINT_OP)
		return has_table(a->op.right->op.left, depth + 1) || has_table(a->op.right->op.right, depth + 1);
	return 0;
}

/* A %s conversion's argument as text; *field gets the field its first table reads. */
static struct node *compile_text(struct tep_event *ev, struct tep_print_arg *a, int depth, const char **field)
{
	struct node *n = NULL;
	const char *cond_field = NULL;

	if (!a || depth > DEPTH_MAX)
		return NULL;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		if ((n = node_new(N_TEXT)))
			n->text = a->atom.atom;
		return n;
	case TEP_PRINT_TYPE:
		return node_new(N_EMPTY);
	case TEP_PRINT_SYMBOL:
	case TEP_PRINT_FLAGS:
		return compile_table(ev, a, depth, field);
	case TEP_PRINT_OP:
		if (strcmp(a->op.op, "?") != 0 || !a->op.right || a->op.right->type != TEP_PRINT_OP)
			return NULL;
		if (!(n = node_new(N_COND)))
			return NULL;
		/* the condition's fields do not name the conversion: its table's do */
		n->a[0] = compile_num(ev, a->op.left, depth + 1, &cond_field);
		n->a[1] = compile_text(ev, a->op.right->op.left, depth + 1, field);
		n->a[2] = compile_text(ev, a->op.right->op.right, depth + 1, field);
		if (!n->a[0] || !n->a[1] || !n->a[2]) {
			node_free(n);
			return NULL;
		}
		return n;
	default:
		return NULL;
	}
}

/* The conversion character of each argument of the format ('s' for %s),
 * into conv[0..n); returns how many it found. */
static int format_conversions(const char *fmt, char *conv, int n)
{
	int k = 0;

	for (const char *p = fmt; p && *p && k < n; p++) {
		if (*p != '%')
			continue;
		if (*++p == '%')
			continue;
		while (*p && strchr("-+ #0", *p))
			p++;
		for (; *p && (isdigit((unsigned char)*p) || *p == '*' || *p == '.'); p++)
			if (*p == '*' && k < n)
				conv[k++] = '*'; /* a width taken from an argument */
		while (*p && strchr("hlLzZjtq", *p))
			p++;
		if (!*p || k >= n)
			break;
		conv[k++] = *p;
		if (*p == 'p')
			while (isalnum((unsigned char)p[1]))
				p++;
	}
	return k;
}

struct ltap_symfields *ltap_symfields_new(struct tep_event *ev)
{
	struct ltap_symfields *s = calloc(1, sizeof *s);
	int nargs = 0, nconv;
	char *conv;
	struct tep_print_arg *a;

	if (!s)
		return NULL;
	if (ev->flags & TEP_EVENT_FL_FAILED) /* libtraceevent could not read the format */
		return s;
	for (a = ev->print_fmt.args; a; a = a->next)
		nargs++;
	if (!nargs)
		return s;
	conv = calloc((size_t)nargs, 1);
	s->f = calloc((size_t)nargs, sizeof *s->f);
	if (!conv || !s->f) {
		free(conv);
		ltap_symfields_free(s);
		errno = ENOMEM;
		return NULL;
	}
	nconv = format_conversions(ev->print_fmt.format, conv, nargs);
	a = ev->print_fmt.args;
	for (int i = 0; i < nconv && a; i++, a = a->next) {
		const char *field = NULL;
		struct node *root;
		if (conv[i] != 's' || !has_table(a, 0))
			continue;
		root = compile_text(ev, a, 0, &field);
		if (!root || !field || ltap_symfields_find(s, field) >= 0) {
			node_free(root);
			continue;
		}
		s->f[s->n].name = field;
		s->f[s->n++].root = root;
	}
	free(conv);
	return s;
}

void ltap_symfields_free(struct ltap_symfields *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->n; i++)
		node_free(s->f[i].root);
	free(s->f);
	free(s);
}

int ltap_symfields_count(const struct ltap_symfields *s)
{
	return s ? s->n : 0;
}

const char *ltap_symfields_name(const struct ltap_symfields *s, int i)
{
	return i >= 0 && i < s->n ? s->f[i].name : NULL;
}

int ltap_symfields_find(const struct ltap_symfields *s, const char *name)
{
	for (int i = 0; s && i < s->n; i++)
		if (strcmp(s->f[i].name, name) == 0)
			return i;
	return -1;
}

struct rec {
	const unsigned char *data;
	int size;
};

static unsigned long long read_field(const struct rec *r, int off, int size)
{
	unsigned char b[8];
	unsigned long long v = 0;

	if (off < 0 || off + size > r->size)
		return 0;
	memcpy(b, r->data + off, (size_t)size);
	for (int i = size - 1; i >= 0; i--) /* little-endian, as this host writes it */
		v = v << 8 | b[i];
	return v;
}

static unsigned long long eval(const struct node *n, const struct rec *r)
{
	unsigned long long l, x;

	switch (n->kind) {
	case N_NUM: return n->num;
	case N_FIELD: return read_field(r, n->off, n->size);
	case N_CAST: return eval(n->a[0], r) & n->mask;
	case N_COND: return eval(n->a[0], r) ? eval(n->a[1], r) : eval(n->a[2], r);
	case N_OP: break;
	default: return 0;
	}
	l = eval(n->a[0], r);
	x = eval(n->a[1], r);
	switch (n->op) {
	case OP_NOT: return !x;
	case OP_NE: return l != x;
	case OP_INV: return ~x;
	case OP_OR: return l | x;
	case OP_LOR: return l || x;
	case OP_AND: return l & x;
	case OP_LAND: return l && x;
	case OP_LT: return l < x;
	case OP_SHL: return l << (x & 63);
	case OP_LE: return l <= x;
	case OP_GT: return l > x;
	case OP_SHR: return l >> (x & 63);
	case OP_GE: return l >= x;
	case OP_EQ: return l == x;
	case OP_SUB: return l - x;
	case OP_ADD: return l + x;
	case OP_DIV: return x ? l / x : 0;
	case OP_MOD: return x ? l % x : 0;
	case OP_MUL: return l * x;
	default: return 0;
	}
}

struct out {
	char *buf;
	size_t len, used;
};

static void put(struct out *o, const char *s)
{
	size_t n = strlen(s);

	if (o->used < o->len) {
		size_t room = o->len - o->used - 1, k = n < room ? n : room;
		memcpy(o->buf + o->used, s, k);
		o->buf[o->used + k] = 0;
	}
	o->used += n;
}

static void put_hex(struct out *o, unsigned long long v)
{
	char hex[24];
	snprintf(hex, sizeof hex, "0x%llx", v);
	put(o, hex);
}

static void text(const struct node *n, const struct rec *r, struct out *o)
{
	long long val;
	int printed = 0;

	switch (n->kind) {
	case N_TEXT: put(o, n->text); return;
	case N_COND: text(eval(n->a[0], r) ? n->a[1] : n->a[2], r, o); return;
	case N_SYMBOL:
		val = (long long)eval(n->a[0], r);
		for (int i = 0; i < n->nsyms; i++)
			if (n->syms[i].value == val) {
				put(o, n->syms[i].name);
				return;
			}
		put_hex(o, (unsigned long long)val);
		return;
	case N_FLAGS:
		val = (long long)eval(n->a[0], r);
		for (int i = 0; i < n->nsyms; i++) {
			long long f = n->syms[i].value;
			if (!val && f < 0) {
				put(o, n->syms[i].name);
				break;
			}
			if (f > 0 && (val & f) == f) {
				if (printed && n->delim)
					put(o, n->delim);
				put(o, n->syms[i].name);
				printed = 1;
				val &= ~f;
			}
		}
		if (val) {
			if (printed && n->delim)
				put(o, n->delim);
			put_hex(o, (unsigned long long)val);
		}
		return;
	default:
		return;
	}
}

size_t ltap_symfields_text(const struct ltap_symfields *s, int i, const void *data, int size, char *buf, size_t len)
{
	struct rec r = {data, size};
	struct out o = {buf, len, 0};

	if (len)
		buf[0] = 0;
	if (i < 0 || i >= s->n)
		return 0;
	text(s->f[i].root, &r, &o);
	return o.used;
}
