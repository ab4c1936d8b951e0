/* text_decode.c: text fields back into binary ones, typed by the format. */
#include "text_decode.h"

#include "stream.h"
#include "text_parse.h"

#include <ctype.h>
#include <errno.h>
#include <event-parse.h>
#include <stdlib.h>
#include <string.h>

struct dec_field {
	struct tep_format_field *f;
	/* __print_flags / __print_symbolic of this field, when the print
	 * format has one: the names map back to values */
	const struct tep_print_flag_sym *syms;
	const char *delim; /* flags: "|"; NULL for symbols */
	const char *zero;  /* what "(x) ? __print_flags(x...) : \"none\"" prints for 0 */
};

/* A print format without key=value ("NR %ld (%lx, %lx, ...)", "0x%lx"),
 * split into literals and conversions: the line is matched against it, and
 * each conversion whose argument is a field (REC->id, REC->args[2], a cast
 * or flags of one) gives that field its value. */
#define DEC_SEGS 64
struct dec_conv {
	int field;   /* index in fields[], -1: printed but not a field */
	int index;   /* element of an array field, -1 for a scalar */
	char kind;   /* 'd' decimal, 'x' hex, 'o' octal, 's' string */
};

struct dec_pos {
	int nseg;
	struct {
		char *lit;   /* NULL: a conversion */
		struct dec_conv conv;
	} seg[DEC_SEGS];
};

struct ltap_textdec {
	struct tep_event *ev;
	struct dec_pos *pos;
	int nfields;
	int fixed; /* the record's size without dynamic data */
	struct tep_format_field *type, *pid;
	struct dec_field fields[];
};

/* the field a flags/symbol argument prints: REC->x, (cast)REC->x, REC->x & mask */
static struct tep_print_arg *arg_field(struct tep_print_arg *a)
{
	while (a) {
		if (a->type == TEP_PRINT_FIELD)
			return a;
		if (a->type == TEP_PRINT_TYPE)
			a = a->typecast.item;
		else if (a->type == TEP_PRINT_OP && a->op.op && strchr("&|", a->op.op[0]))
			a = a->op.left;
		else
			return NULL;
	}
	return NULL;
}

static void dec_table(struct ltap_textdec *d, struct tep_print_arg *fa, const struct tep_print_flag_sym *syms,
		      const char *delim, const char *zero)
{
	if (!fa)
		return;
	for (int i = 0; i < d->nfields; i++)
		if (strcmp(d->fields[i].f->name, fa->field.name) == 0 && !d->fields[i].syms) {
			d->fields[i].syms = syms;
			d->fields[i].delim = delim;
			d->fields[i].zero = zero;
		}
}

static void dec_scan(struct ltap_textdec *d, struct tep_print_arg *a, const char *zero)
{
	for (; a; a = a->next) {
		switch (a->type) {
		case TEP_PRINT_FLAGS:
			dec_table(d, arg_field(a->flags.field), a->flags.flags, a->flags.delim ? a->flags.delim : "|", zero);
			break;
		case TEP_PRINT_SYMBOL:
			dec_table(d, arg_field(a->symbol.field), a->symbol.symbols, NULL, zero);
			break;
		case TEP_PRINT_TYPE:
			dec_scan(d, a->typecast.item, zero);
			break;
		case TEP_PRINT_OP: {
			struct tep_print_arg *l = a->op.left, *r = a->op.right;
			if (a->op.op && strcmp(a->op.op, "?") == 0 && r && r->type == TEP_PRINT_OP &&
			    r->op.op && strcmp(r->op.op, ":") == 0) {
				/* cond ? __print_flags(...) : "none" */
				const char *z = r->op.right && r->op.right->type == TEP_PRINT_ATOM ? r->op.right->atom.atom : NULL;
				struct tep_print_arg one = *r->op.left;
				one.next = NULL;
				dec_scan(d, &one, z);
				break;
			}
			if (l) {
				struct tep_print_arg one = *l;
				one.next = NULL;
				dec_scan(d, &one, zero);
			}
			if (r) {
				struct tep_print_arg one = *r;
				one.next = NULL;
				dec_scan(d, &one, zero);
			}
			break;
		}
		case TEP_PRINT_FUNC:
			dec_scan(d, a->func.args, zero);
			break;
		default:
			break;
		}
	}
}

static int dec_field_index(const struct ltap_textdec *d, const char *name)
{
	for (int i = 0; i < d->nfields; i++)
		if (strcmp(d->fields[i].f->name, name) == 0)
			return i;
	return -1;
}

/* which field (and element) an argument prints, if any */
static void dec_target(const struct ltap_textdec *d, struct tep_print_arg *a, struct dec_conv *c)
{
	c->field = -1;
	c->index = -1;
	while (a) {
		switch (a->type) {
		case TEP_PRINT_FIELD:
			c->field = dec_field_index(d, a->field.name);
			return;
		case TEP_PRINT_TYPE:
			a = a->typecast.item;
			continue;
		case TEP_PRINT_FLAGS:
		case TEP_PRINT_SYMBOL: {
			struct tep_print_arg *fa = arg_field(a->type == TEP_PRINT_FLAGS ? a->flags.field : a->symbol.field);
			if (fa)
				c->field = dec_field_index(d, fa->field.name);
			return;
		}
		case TEP_PRINT_STRING:
			c->field = a->string.string ? dec_field_index(d, a->string.string) : -1;
			return;
		case TEP_PRINT_OP:
			if (a->op.op && strcmp(a->op.op, "[") == 0 && a->op.left && a->op.left->type == TEP_PRINT_FIELD &&
			    a->op.right && a->op.right->type == TEP_PRINT_ATOM) {
				c->field = dec_field_index(d, a->op.left->field.name);
				c->index = atoi(a->op.right->atom.atom);
				return;
			}
			if (a->op.op && strcmp(a->op.op, "?") == 0 && a->op.right && a->op.right->type == TEP_PRINT_OP) {
				a = a->op.right->op.left; /* cond ? shown : other */
				continue;
			}
			return;
		default:
			return;
		}
	}
}

static struct dec_pos *dec_positional(const struct ltap_textdec *d, struct tep_event *ev)
{
	const char *f = ev->print_fmt.format;
	struct tep_print_arg *arg = ev->print_fmt.args;
	struct dec_pos *p;
	char lit[256];
	size_t nl = 0;
	int useful = 0;

	if (!f || strstr(f, "=%"))
		return NULL; /* key=value formats are read by name */
	p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	while (*f && p->nseg < DEC_SEGS - 1) {
		if (*f != '%' || f[1] == '%') {
			if (nl < sizeof lit - 1)
				lit[nl++] = *f;
			f += *f == '%' ? 2 : 1;
			continue;
		}
		if (nl) {
			lit[nl] = 0;
			p->seg[p->nseg++].lit = strdup(lit);
			nl = 0;
		}
		f++;
		while (*f && strchr("-+ #0", *f))
			f++;
		if (*f == '*') {
			arg = arg ? arg->next : NULL; /* the width is an argument too */
			f++;
		}
		while (isdigit((unsigned char)*f) || *f == '.')
			f++;
		while (*f && strchr("hlLqjzt", *f))
			f++;
		struct dec_conv *c = &p->seg[p->nseg++].conv;
		c->kind = *f == 'x' || *f == 'X' ? 'x' : *f == 'o' ? 'o' : *f == 's' ? 's' : *f == 'c' || *f == 'p' ? 0 : 'd';
		if (*f == 'p')
			while (isalnum((unsigned char)f[1]))
				f++; /* %pS, %pK ... */
		if (*f)
			f++;
		dec_target(d, arg, c);
		if (!c->kind)
			c->field = -1;
		useful |= c->field >= 0;
		arg = arg ? arg->next : NULL;
	}
	if (nl && p->nseg < DEC_SEGS) {
		lit[nl] = 0;
		p->seg[p->nseg++].lit = strdup(lit);
	}
	if (!useful) {
		for (int i = 0; i < p->nseg; i++)
			free(p->seg[i].lit);
		free(p);
		return NULL;
	}
	return p;
}

/* Matches info against the segments; val[i] is conversion i's text (hex
 * with its 0x), cut into buf. 0, or -1 when the line is another shape. */
static int dec_match(const struct dec_pos *p, const char *info, char *buf, size_t cap, const char **val)
{
	const char *s = info;
	size_t used = 0;

	for (int i = 0; i < p->nseg; i++) {
		const char *lit = p->seg[i].lit, *end;
		val[i] = NULL;
		if (lit) {
			for (const char *l = lit; *l; l++) {
				if (*l == ' ' && *s == ' ') {
					while (s[1] == ' ')
						s++; /* padding */
					s++;
				} else if (*l == *s) {
					s++;
				} else {
					return -1;
				}
			}
			continue;
		}
		while (*s == ' ' && p->seg[i].conv.kind != 's')
			s++;
		if (p->seg[i].conv.kind == 's' && i + 1 < p->nseg && p->seg[i + 1].lit)
			end = strstr(s, p->seg[i + 1].lit);
		else if (p->seg[i].conv.kind == 's')
			end = s + strlen(s);
		else
			for (end = s; *end && (isxdigit((unsigned char)*end) || strchr("xX-+", *end)); end++)
				;
		if (!end || (end == s && p->seg[i].conv.kind != 's'))
			return -1;
		if (used + (size_t)(end - s) + 3 > cap)
			return -1;
		val[i] = buf + used;
		if (p->seg[i].conv.kind == 'x' && !(s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))) {
			memcpy(buf + used, "0x", 2);
			used += 2;
		}
		memcpy(buf + used, s, (size_t)(end - s));
		used += (size_t)(end - s);
		buf[used++] = 0;
		s = end;
	}
	return *s ? -1 : 0;
}

struct ltap_textdec *ltap_textdec_new(struct tep_event *ev)
{
	struct tep_format_field *f;
	struct ltap_textdec *d;
	int n = 0, fixed = 0;

	for (f = ev->format.fields; f; f = f->next)
		n++;
	d = calloc(1, sizeof *d + (size_t)n * sizeof d->fields[0]);
	if (!d)
		return NULL;
	d->ev = ev;
	for (f = ev->format.fields; f; f = f->next) {
		d->fields[d->nfields++].f = f;
		if (f->offset + f->size > fixed)
			fixed = f->offset + f->size;
	}
	for (f = ev->format.common_fields; f; f = f->next)
		if (f->offset + f->size > fixed)
			fixed = f->offset + f->size;
	d->fixed = fixed;
	d->type = tep_find_common_field(ev, "common_type");
	d->pid = tep_find_common_field(ev, "common_pid");
	dec_scan(d, ev->print_fmt.args, NULL);
	d->pos = dec_positional(d, ev);
	return d;
}

void ltap_textdec_free(struct ltap_textdec *d)
{
	if (d && d->pos) {
		for (int i = 0; i < d->pos->nseg; i++)
			free(d->pos->seg[i].lit);
		free(d->pos);
	}
	free(d);
}

static int dec_number(const char *s, unsigned long long *out)
{
	const char *p = s;
	char *end;
	int neg = 0;

	if (*p == '-') {
		neg = 1;
		p++;
	}
	errno = 0;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		*out = strtoull(p + 2, &end, 16);
	else
		*out = strtoull(p, &end, 10);
	if (end == p || (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && end == p + 2) || *end || errno)
		return -1;
	/* negated as unsigned, wrapping as the kernel's two's complement does:
	 * -(long long) of 9223372036854775808 ("ret=-9223372036854775808",
	 * LONG_MIN) overflowed (found by tests/fuzz) */
	if (neg)
		*out = 0ull - *out;
	return 0;
}

static int dec_symbol(const struct tep_print_flag_sym *s, const char *name, size_t len, unsigned long long *v)
{
	for (; s; s = s->next)
		if (s->str && strlen(s->str) == len && strncmp(s->str, name, len) == 0)
			return dec_number(s->value, v);
	return -1;
}

/* "GFP_KERNEL|__GFP_COMP|0x40": the flags ORed; "none" (zero) */
static int dec_flags(const struct dec_field *df, const char *v, unsigned long long *out)
{
	size_t dl = strlen(df->delim);
	unsigned long long acc = 0;

	while (*v) {
		const char *next = strstr(v, df->delim);
		size_t len = next ? (size_t)(next - v) : strlen(v);
		unsigned long long bit;
		char num[32];

		if (dec_symbol(df->syms, v, len, &bit) != 0) {
			if (len >= sizeof num)
				return -1;
			memcpy(num, v, len);
			num[len] = 0;
			if (dec_number(num, &bit) != 0)
				return -1;
		}
		acc |= bit;
		v += len + (next ? dl : 0);
	}
	*out = acc;
	return 0;
}

static int dec_scalar(const struct dec_field *df, const char *v, unsigned long long *out)
{
	if (df->zero && strcmp(v, df->zero) == 0) {
		*out = 0;
		return 0;
	}
	if (df->syms && df->delim)
		return dec_flags(df, v, out);
	if (df->syms && dec_symbol(df->syms, v, strlen(v), out) == 0)
		return 0;
	return dec_number(v, out);
}

static void dec_store(char *at, int size, unsigned long long v)
{
	switch (size) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(at, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(at, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(at, &x, 4); break; }
	case 8: memcpy(at, &v, 8); break;
	}
}

int ltap_textdec_record(const struct ltap_textdec *d, const struct ltap_rec *rec, void *buf, int cap,
			uint64_t *present)
{
	struct ltap_textrec *r = (struct ltap_textrec *)rec->data; /* its fields are cut on first use */
	int tid = r->tid;
	char *out = buf;
	int size = d->fixed;

	*present = 0;
	if (cap < size)
		return -1;
	memset(out, 0, (size_t)size);
	if (d->type)
		dec_store(out + d->type->offset, d->type->size, (unsigned long long)d->ev->id);
	if (d->pid)
		dec_store(out + d->pid->offset, d->pid->size, (unsigned long long)(long long)tid);
	const char *val[DEC_SEGS];
	char pbuf[4096];
	int matched = 0;
	if (d->pos) {
		ltap_textrec_parse(r);
		/* a line written by this print format: its key=value parse found nothing */
		matched = r->nfields == 0 && dec_match(d->pos, r->info, pbuf, sizeof pbuf, val) == 0;
	}
	for (int i = 0; i < d->nfields; i++) {
		const struct dec_field *df = &d->fields[i];
		struct tep_format_field *f = df->f;
		const char *v = ltap_textrec_field(r, f->name);
		unsigned long long n;

		for (int k = 0; !v && matched && k < d->pos->nseg; k++)
			if (!d->pos->seg[k].lit && d->pos->seg[k].conv.field == i && d->pos->seg[k].conv.index < 0)
				v = val[k];
		if (!v)
			continue;
		if (f->flags & TEP_FIELD_IS_DYNAMIC) {
			size_t len = strlen(v) + 1;
			unsigned off = (unsigned)size;
			if (!(f->flags & TEP_FIELD_IS_STRING) && strncmp(f->type, "__data_loc char", 15) != 0)
				continue; /* binary dynamic arrays print as hex dumps */
			if (len > 0xffff || size + (int)len > cap)
				continue;
			memcpy(out + size, v, len);
			size += (int)len;
			if (f->flags & TEP_FIELD_IS_RELATIVE)
				off -= (unsigned)(f->offset + f->size);
			dec_store(out + f->offset, 4, ((unsigned long long)len << 16) | off);
		} else if (f->flags & TEP_FIELD_IS_ARRAY) {
			size_t len = strlen(v);
			if (!(f->flags & TEP_FIELD_IS_STRING) && strncmp(f->type, "char", 4) != 0)
				continue;
			if (f->size <= 0) {
				/* char buf[] at the end (ftrace:print): the record grows */
				if (f->offset + (int)len + 1 > cap)
					continue;
				memcpy(out + f->offset, v, len + 1);
				if (f->offset + (int)len + 1 > size)
					size = f->offset + (int)len + 1;
				if (i < 64)
					*present |= 1ull << i;
				continue;
			}
			/* the record was zeroed: the copy stays NUL-terminated */
			memcpy(out + f->offset, v, len < (size_t)f->size ? len : (size_t)f->size - 1);
		} else {
			if (dec_scalar(df, v, &n) != 0)
				continue;
			dec_store(out + f->offset, f->size, n);
		}
		if (i < 64)
			*present |= 1ull << i;
	}
	/* elements of number arrays, printed one by one ("REC->args[2]") */
	for (int k = 0; matched && k < d->pos->nseg; k++) {
		const struct dec_conv *c = &d->pos->seg[k].conv;
		struct tep_format_field *f;
		unsigned long long n;
		int es;
		if (d->pos->seg[k].lit || c->field < 0 || c->index < 0 || !val[k])
			continue;
		f = d->fields[c->field].f;
		es = f->elementsize ? (int)f->elementsize : f->arraylen ? f->size / (int)f->arraylen : 0;
		if (es <= 0 || (c->index + 1) * es > f->size || dec_number(val[k], &n) != 0)
			continue;
		dec_store(out + f->offset + c->index * es, es, n);
		if (c->field < 64)
			*present |= 1ull << c->field;
	}
	return size;
}
