/* symrecords.c: a trace.dat of made-up records for every event of this
 * kernel whose print format names field values (__print_symbolic,
 * __print_flags), for tests/live/symbolic.test to read with ltap's e.sym
 * and with trace-cmd report.
 *
 *   symrecords OUT.dat      (root: the formats come from tracefs)
 *
 * For each such event and each field a table reads (runtime/symfield.c),
 * records with that field set to every value of its tables, to 0, to all
 * of a flags table at once, to a value no table has; each once with every
 * other plain number of the record 0 and once with them 1 (kvm_exit's
 * table depends on isa == 1). An event whose format libtraceevent cannot
 * parse gets one record (trace-cmd prints it "[FAILED TO PARSE]" and ltap
 * names no field of it). Prints one line "sys:name field" per symbolic
 * field, "UNPARSED sys:name" per such event, then "EVENTS n". */
#include "record.h"
#include "symfield.h"

#include <event-parse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>
#include <unistd.h>

#define PAGE 4096

static struct ltap_recorder *rec;
static char page[PAGE];
static unsigned used, nin; /* bytes and events in page */
static unsigned long long ts = 1000000; /* the page's first event's time */

static void flush_page(void)
{
	if (!used)
		return;
	memcpy(page, &ts, 8);
	{
		unsigned long long commit = used;
		memcpy(page + 8, &commit, 8);
	}
	if (ltap_recorder_page(rec, 0, page) != 0) {
		fprintf(stderr, "symrecords: cannot keep a page\n");
		exit(1);
	}
	memset(page, 0, sizeof page);
	ts += nin;
	used = nin = 0;
}

/* one event of len bytes (a multiple of 4), its header type_len 0 */
static void put_event(const void *data, unsigned len)
{
	uint32_t h = 1u << 5, l = len + 4; /* time delta 1 ns */

	if (16 + used + 8 + len > PAGE)
		flush_page();
	memcpy(page + 16 + used, &h, 4);
	memcpy(page + 16 + used + 4, &l, 4);
	memcpy(page + 16 + used + 8, data, len);
	used += 8 + len;
	nin++;
}

static void set_num(char *data, const struct tep_format_field *f, unsigned long long v)
{
	memcpy(data + f->offset, &v, (size_t)f->size); /* little-endian host */
}

static int plain_number(const struct tep_format_field *f)
{
	return !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)) &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

/* the values of every table of the event's print format (all of them: a
 * field may be read through a mask or a shift) */
static int table_values(const struct tep_print_arg *a, unsigned long long *v, int n, int max, unsigned long long *all)
{
	for (; a && n < max; a = a->next) {
		const struct tep_print_flag_sym *s = NULL;
		switch (a->type) {
		case TEP_PRINT_FLAGS: s = a->flags.flags; break;
		case TEP_PRINT_SYMBOL: s = a->symbol.symbols; break;
		case TEP_PRINT_OP:
			n = table_values(a->op.left, v, n, max, all);
			n = table_values(a->op.right, v, n, max, all);
			break;
		case TEP_PRINT_TYPE: n = table_values(a->typecast.item, v, n, max, all); break;
		default: break;
		}
		for (; s && n < max; s = s->next) {
			v[n] = strtoull(s->value, NULL, 0);
			if (a->type == TEP_PRINT_FLAGS)
				*all |= v[n];
			n++;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	struct tep_handle *tep;
	struct tep_event **evs;
	const char **names;
	int nnames = 0, nev = 0;
	static unsigned long long vals[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: symrecords OUT.dat\n");
		return 2;
	}
	tep = tracefs_local_events(NULL);
	if (!tep) {
		fprintf(stderr, "symrecords: cannot read the event formats\n");
		return 1;
	}
	rec = ltap_recorder_open(argv[1], 1, PAGE);
	if (!rec)
		return 1;
	nev = tep_get_events_count(tep);
	evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	names = calloc((size_t)nev, sizeof *names);
	for (int k = 0; evs && evs[k]; k++) {
		struct tep_event *ev = evs[k];
		struct ltap_symfields *s = ltap_symfields_new(ev);
		unsigned long long all = 0;
		int nv, size = 0;
		char *data;
		struct tep_format_field **fields;

		int failed = (ev->flags & TEP_EVENT_FL_FAILED) != 0;

		if (!s || (ltap_symfields_count(s) == 0 && !failed)) {
			ltap_symfields_free(s);
			continue;
		}
		nv = table_values(ev->print_fmt.args, vals, 0, 4000, &all);
		vals[nv++] = 0;
		vals[nv++] = all;
		vals[nv++] = 0x5a5a5a5aull; /* in no table of this kernel */
		for (struct tep_format_field *f = ev->format.common_fields; f; f = f->next)
			if (f->offset + f->size > size)
				size = f->offset + f->size;
		for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
			if (f->offset + f->size > size)
				size = f->offset + f->size;
		size = (size + 3) & ~3;
		if (size > PAGE / 2) { /* no such event here; said, so a test sees it */
			printf("TOO_BIG %s:%s %d\n", ev->system, ev->name, size);
			ltap_symfields_free(s);
			continue;
		}
		data = calloc(1, (size_t)size);
		fields = tep_event_fields(ev);
		if (failed) { /* libtraceevent cannot read its format: one record, which neither names */
			unsigned short id = (unsigned short)ev->id;
			memcpy(data, &id, 2);
			put_event(data, (unsigned)size);
			printf("UNPARSED %s:%s\n", ev->system, ev->name);
		}
		for (int i = 0; i < ltap_symfields_count(s); i++) {
			struct tep_format_field *sf = tep_find_any_field(ev, ltap_symfields_name(s, i));
			printf("%s:%s %s\n", ev->system, ev->name, ltap_symfields_name(s, i));
			for (int others = 0; others <= 1; others++)
				for (int j = 0; j < nv; j++) {
					memset(data, 0, (size_t)size);
					for (int m = 0; fields && fields[m]; m++)
						if (plain_number(fields[m]))
							set_num(data, fields[m], (unsigned long long)others);
					set_num(data, sf, vals[j]);
					{
						unsigned short id = (unsigned short)ev->id;
						memcpy(data, &id, 2);
					}
					put_event(data, (unsigned)size);
				}
		}
		free(fields);
		free(data);
		ltap_symfields_free(s);
		names[nnames] = malloc(strlen(ev->system) + strlen(ev->name) + 2);
		sprintf((char *)names[nnames++], "%s/%s", ev->system, ev->name);
	}
	flush_page();
	printf("EVENTS %d\n", nnames);
	if (ltap_recorder_close(rec, names, nnames, "", 0) != 0)
		return 1;
	for (int i = 0; i < nnames; i++)
		free((void *)names[i]);
	free(names);

	tep_free(tep);
	return 0;
}
