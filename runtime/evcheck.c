/* evcheck.c: a saved trace's formats and records, checked before use. */
#include "evcheck.h"

#include <ctype.h>
#include <event-parse.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* __data_loc offsets and lengths are 16 bits: no field of a record starts
 * or ends beyond 64 KB. */
#define FIELD_END_MAX 65536
/* deeper print arguments than any kernel writes: the format is noise */
#define ARG_DEPTH_MAX 32

struct evfmt {
	struct tep_event *ev;
	int min_size; /* every fixed field inside */
	int ndyn;
	struct tep_format_field **dyn; /* __data_loc / __rel_loc fields */
	int spans; /* __print_hex / __print_array with lengths from the record */
};

struct ltap_evcheck {
	struct evfmt *fmts;
	int n;
	struct evfmt **by_id; /* 65536 entries: a record's id is 16 bits */
};

/* The bytes of a __data_loc / __rel_loc field, as libtraceevent finds them. */
static void dyn_span(const struct tep_format_field *f, const char *data, unsigned *off, unsigned *len)
{
	uint32_t loc;

	memcpy(&loc, data + f->offset, sizeof loc);
	*off = loc & 0xffff;
	*len = loc >> 16;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		*off += (unsigned)(f->offset + f->size);
}

static int check_field(struct evfmt *e, struct tep_format_field *f, char *why, size_t len)
{
	long long end = (long long)f->offset + f->size;

	if (f->offset < 0 || f->size < 0 || end > FIELD_END_MAX) {
		snprintf(why, len, "field '%s' at offset %d of size %d", f->name, f->offset, f->size);
		return -1;
	}
	if ((f->flags & TEP_FIELD_IS_DYNAMIC) && f->size != 4) {
		snprintf(why, len, "__data_loc field '%s' of %d bytes", f->name, f->size);
		return -1;
	}
	if ((f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) == TEP_FIELD_IS_ARRAY && f->arraylen &&
	    (!f->elementsize || (unsigned long long)f->arraylen * f->elementsize > (unsigned long long)f->size)) {
		snprintf(why, len, "array field '%s' of %u x %u bytes in %d", f->name, f->arraylen, f->elementsize, f->size);
		return -1;
	}
	if (end > e->min_size)
		e->min_size = (int)end;
	return 0;
}

static struct tep_format_field *arg_field(struct tep_event *ev, const struct tep_print_arg *a)
{
	return a->field.field ? a->field.field : tep_find_any_field(ev, a->field.name);
}

/* Whether an argument is a number other than 0 written in the format. */
static int arg_nonzero_constant(const struct tep_print_arg *a)
{
	char *end;
	return a && a->type == TEP_PRINT_ATOM && strtoull(a->atom.atom, &end, 0) != 0 && !*end;
}

/* Whether a field that a print argument takes for a __data_loc (its own,
 * or the one named) is one: 4 bytes. libtraceevent reads it with the
 * field's size, and of 2 bytes takes the rest of the record for its
 * length, which underflows (a malloc of 3 GB, found by fuzz_format). An
 * absent field is fine where libtraceevent then prints nothing. */
static int loc_ok(struct tep_event *ev, const struct tep_format_field *f, const char *name, int absent_ok)
{
	if (!f && name)
		f = tep_find_any_field(ev, name);
	return f ? f->size == 4 : absent_ok;
}

/* The print arguments libtraceevent reads with a length from the record.
 * Returns the deepest level seen (> ARG_DEPTH_MAX: give up), and sets
 * *spans when there is one, *misread when libtraceevent would take some
 * other argument for a field (__print_hex(1 + 2, 4)) and read through a
 * wild pointer, use a field that is not there (__get_cpumask(nosuch)), or
 * divide by a value of the record. */
static int arg_walk(struct tep_event *ev, const struct tep_print_arg *a, int depth, int *spans, int *misread)
{
	int deepest = depth;

	for (; a; a = a->next) {
		const struct tep_print_arg *kids[4] = {0};
		if (depth > ARG_DEPTH_MAX)
			return depth;
		switch (a->type) {
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
		case TEP_PRINT_INT_ARRAY: {
			const struct tep_print_arg *target = a->type == TEP_PRINT_INT_ARRAY ? a->int_array.field : a->hex.field;
			*spans = 1;
			if (!target || (target->type != TEP_PRINT_FIELD && target->type != TEP_PRINT_DYNAMIC_ARRAY) ||
			    (target->type == TEP_PRINT_DYNAMIC_ARRAY && !loc_ok(ev, target->dynarray.field, NULL, 0)))
				*misread = 1;
			kids[0] = a->type == TEP_PRINT_INT_ARRAY ? a->int_array.count : a->hex.size;
			kids[1] = a->type == TEP_PRINT_INT_ARRAY ? a->int_array.el_size : NULL;
			break;
		}
		case TEP_PRINT_STRING:
			if (!loc_ok(ev, a->string.field, a->string.string, 1))
				*misread = 1;
			break;
		case TEP_PRINT_BITMASK:
		case TEP_PRINT_CPUMASK:
			/* libtraceevent looks a cpumask's field up by name and uses it
			 * unchecked */
			if (!loc_ok(ev, a->bitmask.field, a->bitmask.bitmask, a->type == TEP_PRINT_BITMASK))
				*misread = 1;
			/* and sizes its text for an empty cpumask as for 2^32 CPUs */
			if (a->type == TEP_PRINT_CPUMASK)
				*spans = 1;
			break;
		case TEP_PRINT_DYNAMIC_ARRAY_LEN:
			if (!loc_ok(ev, a->dynarray.field, NULL, 0))
				*misread = 1;
			break;
		case TEP_PRINT_FLAGS: kids[0] = a->flags.field; break;
		case TEP_PRINT_SYMBOL: kids[0] = a->symbol.field; break;
		case TEP_PRINT_TYPE: kids[0] = a->typecast.item; break;
		case TEP_PRINT_FUNC: kids[0] = a->func.args; break;
		case TEP_PRINT_OP:
			/* libtraceevent divides by what the record holds: 0 is SIGFPE */
			if ((a->op.op[0] == '/' || a->op.op[0] == '%') && !arg_nonzero_constant(a->op.right))
				*misread = 1;
			/* and takes the right of "?" for the ":" it must be */
			if (a->op.op[0] == '?' && (!a->op.right || a->op.right->type != TEP_PRINT_OP))
				*misread = 1;
			kids[0] = a->op.left;
			kids[1] = a->op.right;
			break;
		case TEP_PRINT_DYNAMIC_ARRAY:
			if (!loc_ok(ev, a->dynarray.field, NULL, 0))
				*misread = 1;
			kids[0] = a->dynarray.index;
			break;
		default: break;
		}
		for (int i = 0; i < 4; i++) {
			int d = kids[i] ? arg_walk(ev, kids[i], depth + 1, spans, misread) : depth;
			if (d > deepest)
				deepest = d;
		}
	}
	return deepest;
}

/* A length argument's value for this record, computed as libtraceevent's
 * eval_num_arg does (unsigned 64-bit), into *v: 0, or -1 when it is not a
 * plain expression of numbers and fields (then the record cannot be shown
 * to hold the array, and is refused). */
static int arg_value(struct tep_event *ev, const struct tep_print_arg *a, const char *data, int size, int depth,
		     unsigned long long *v)
{
	unsigned long long l, r;
	const struct tep_format_field *f;
	char *end;
	unsigned off, len;

	if (!a || depth > ARG_DEPTH_MAX)
		return -1;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		*v = strtoull(a->atom.atom, &end, 0);
		return *end ? -1 : 0;
	case TEP_PRINT_FIELD:
		f = arg_field(ev, a);
		if (!f)
			return -1;
		/* libtraceevent reads 0 for a field beyond the record */
		*v = f->offset + f->size > size ? 0 : tep_read_number(ev->tep, data + f->offset, f->size);
		return 0;
	case TEP_PRINT_DYNAMIC_ARRAY_LEN:
		if (!a->dynarray.field)
			return -1;
		dyn_span(a->dynarray.field, data, &off, &len);
		*v = len;
		return 0;
	case TEP_PRINT_TYPE:
		return arg_value(ev, a->typecast.item, data, size, depth + 1, v);
	case TEP_PRINT_OP:
		if (a->op.op[0] == '?' && !a->op.op[1]) {
			if (!a->op.right || a->op.right->type != TEP_PRINT_OP ||
			    arg_value(ev, a->op.left, data, size, depth + 1, &l))
				return -1;
			return arg_value(ev, l ? a->op.right->op.left : a->op.right->op.right, data, size, depth + 1, v);
		}
		if (arg_value(ev, a->op.left, data, size, depth + 1, &l) ||
		    arg_value(ev, a->op.right, data, size, depth + 1, &r))
			return -1;
		if (!strcmp(a->op.op, "+"))
			*v = l + r;
		else if (!strcmp(a->op.op, "-"))
			*v = l - r;
		else if (!strcmp(a->op.op, "*"))
			*v = l * r;
		else if (!strcmp(a->op.op, "/") && r)
			*v = l / r;
		else if (!strcmp(a->op.op, "<<") && r < 64)
			*v = l << r;
		else if (!strcmp(a->op.op, ">>") && r < 64)
			*v = l >> r;
		else if (!strcmp(a->op.op, "&"))
			*v = l & r;
		else
			return -1;
		return 0;
	default:
		return -1;
	}
}

/* Every __print_hex / __print_array of the format stays inside the record,
 * and no __get_cpumask is empty. */
static int spans_fit(struct tep_event *ev, const struct tep_print_arg *a, const char *data, int size, int depth)
{
	for (; a; a = a->next) {
		const struct tep_print_arg *kids[3] = {0};
		switch (a->type) {
		case TEP_PRINT_HEX:
		case TEP_PRINT_HEX_STR:
		case TEP_PRINT_INT_ARRAY: {
			int ia = a->type == TEP_PRINT_INT_ARRAY;
			const struct tep_print_arg *target = ia ? a->int_array.field : a->hex.field;
			unsigned long long n, el = 1, start;
			unsigned off, len;
			if (target->type == TEP_PRINT_DYNAMIC_ARRAY) {
				dyn_span(target->dynarray.field, data, &off, &len);
				start = off;
			} else {
				const struct tep_format_field *f = arg_field(ev, target);
				if (!f)
					break; /* libtraceevent prints a warning, reads nothing */
				start = (unsigned long long)f->offset;
			}
			if (arg_value(ev, ia ? a->int_array.count : a->hex.size, data, size, depth + 1, &n) ||
			    (ia && arg_value(ev, a->int_array.el_size, data, size, depth + 1, &el)))
				return 0;
			/* as libtraceevent: an unsigned int count of an int element
			 * size, one byte for a size other than 2, 4 or 8 */
			n = (unsigned)n;
			el = (int)el == 2 || (int)el == 4 || (int)el == 8 ? (unsigned)(int)el : 1;
			if (start + n * el > (unsigned long long)size)
				return 0;
			break;
		}
		case TEP_PRINT_CPUMASK: {
			const struct tep_format_field *f = a->bitmask.field;
			unsigned off, len;
			if (!f)
				f = tep_find_any_field(ev, a->bitmask.bitmask);
			dyn_span(f, data, &off, &len);
			if (!len)
				return 0;
			break;
		}
		case TEP_PRINT_FLAGS: kids[0] = a->flags.field; break;
		case TEP_PRINT_SYMBOL: kids[0] = a->symbol.field; break;
		case TEP_PRINT_TYPE: kids[0] = a->typecast.item; break;
		case TEP_PRINT_FUNC: kids[0] = a->func.args; break;
		case TEP_PRINT_OP: kids[0] = a->op.left; kids[1] = a->op.right; break;
		default: break;
		}
		for (int i = 0; i < 3; i++)
			if (kids[i] && !spans_fit(ev, kids[i], data, size, depth + 1))
				return 0;
	}
	return 1;
}

static int check_event(struct evfmt *e, struct tep_event *ev, char *why, size_t len)
{
	struct tep_format_field *type = tep_find_common_field(ev, "common_type");
	struct tep_format_field *pid = tep_find_common_field(ev, "common_pid");
	struct tep_format_field *lists[2] = {ev->format.common_fields, ev->format.fields};
	char what[200];
	int misread = 0;

	e->ev = ev;
	/* ltap reads a record's id from its first 2 bytes, its tid from common_pid */
	if (!type || type->offset != 0 || type->size != 2) {
		snprintf(why, len, "the format of %s:%s has no 2-byte common_type first", ev->system, ev->name);
		return -1;
	}
	if (!pid || pid->size != 4) {
		snprintf(why, len, "the format of %s:%s has no 4-byte common_pid", ev->system, ev->name);
		return -1;
	}
	for (int l = 0; l < 2; l++)
		for (struct tep_format_field *f = lists[l]; f; f = f->next) {
			if (check_field(e, f, what, sizeof what)) {
				snprintf(why, len, "the format of %s:%s has a %s", ev->system, ev->name, what);
				return -1;
			}
			if (f->flags & TEP_FIELD_IS_DYNAMIC) {
				struct tep_format_field **d = realloc(e->dyn, (size_t)(e->ndyn + 1) * sizeof *d);
				if (!d) {
					snprintf(why, len, "out of memory");
					return -1;
				}
				e->dyn = d;
				d[e->ndyn++] = f;
			}
		}
	if (arg_walk(ev, ev->print_fmt.args, 0, &e->spans, &misread) > ARG_DEPTH_MAX || misread) {
		/* libtraceevent would misread it: tostring shows the fields instead */
		ev->flags |= TEP_EVENT_FL_PRINTRAW;
		e->spans = 0;
	}
	return 0;
}

struct ltap_evcheck *ltap_evcheck_new(struct tep_handle *tep, char *why, size_t len)
{
	struct ltap_evcheck *c = calloc(1, sizeof *c);
	struct tep_event **evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	int n = tep_get_events_count(tep);

	if (!c || !evs || !(c->by_id = calloc(65536, sizeof *c->by_id)) ||
	    !(c->fmts = calloc((size_t)n + 1, sizeof *c->fmts))) {
		snprintf(why, len, "out of memory");
		ltap_evcheck_free(c);
		return NULL;
	}
	for (int i = 0; i < n && evs[i]; i++) {
		struct tep_event *ev = evs[i];
		struct evfmt *e = &c->fmts[c->n++];
		if (check_event(e, ev, why, len)) {
			ltap_evcheck_free(c);
			return NULL;
		}
		if (ev->id < 0 || ev->id > 65535 || c->by_id[ev->id]) {
			/* ltap finds an event by a record's id: one format each */
			snprintf(why, len, "the format of %s:%s has the id %d%s%s%s", ev->system, ev->name, ev->id,
				 ev->id >= 0 && ev->id <= 65535 ? " of " : "",
				 ev->id >= 0 && ev->id <= 65535 ? c->by_id[ev->id]->ev->system : "",
				 ev->id >= 0 && ev->id <= 65535 ? " too" : "");
			ltap_evcheck_free(c);
			return NULL;
		}
		c->by_id[ev->id] = e;
	}
	return c;
}

void ltap_evcheck_free(struct ltap_evcheck *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		free(c->fmts[i].dyn);
	free(c->fmts);
	free(c->by_id);
	free(c);
}

int ltap_evcheck_record(const struct ltap_evcheck *c, const void *data, int size, char *why, size_t len)
{
	const struct evfmt *e;
	uint16_t id;

	if (size < 8) {
		/* the common fields: common_type, flags, preempt_count, common_pid */
		snprintf(why, len, "a record of %d bytes", size);
		return -1;
	}
	memcpy(&id, data, sizeof id);
	e = c->by_id[id];
	if (!e)
		return 0;
	if (size < e->min_size) {
		snprintf(why, len, "a %s:%s record of %d bytes (its format has %d)", e->ev->system, e->ev->name, size,
			 e->min_size);
		return -1;
	}
	for (int i = 0; i < e->ndyn; i++) {
		unsigned off, n;
		dyn_span(e->dyn[i], data, &off, &n);
		if (off + n > (unsigned)size) {
			snprintf(why, len, "a %s:%s record whose field '%s' (%u bytes at %u) ends past its %d bytes",
				 e->ev->system, e->ev->name, e->dyn[i]->name, n, off, size);
			return -1;
		}
	}
	if (e->spans && !spans_fit(e->ev, e->ev->print_fmt.args, data, size, 0)) {
		snprintf(why, len, "a %s:%s record whose printed arrays do not fit its %d bytes", e->ev->system,
			 e->ev->name, size);
		return -1;
	}
	return 0;
}

/* `ADDR : "` then three characters at least (the format and its closing
 * quote: libtraceevent steps back two from the end), l[0..n) */
static int printk_line(const char *l, size_t n)
{
	size_t i = 0;

	if (n > 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X'))
		i = 2;
	if (i == n || !isxdigit((unsigned char)l[i]))
		return 0;
	while (i < n && isxdigit((unsigned char)l[i]))
		i++;
	return n - i >= 7 && memcmp(l + i, " : \"", 4) == 0;
}

size_t ltap_evcheck_printk(char *text)
{
	size_t in = 0, out = 0, len = strlen(text);

	while (in < len) {
		const char *nl = memchr(text + in, '\n', len - in);
		size_t n = nl ? (size_t)(nl - (text + in)) : len - in;
		if (printk_line(text + in, n)) {
			memmove(text + out, text + in, n);
			out += n;
			if (nl)
				text[out++] = '\n';
		}
		in += n + (nl != NULL);
	}
	text[out] = 0;
	return out;
}
