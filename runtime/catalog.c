/* catalog.c: loads only the formats a run needs, so start-up stays fast. */
#include "catalog.h"

#include "log.h"
#include "parse.h"
#include "symfield.h"
#include "tracefs_dir.h"

#include <errno.h>
#include <event-parse.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ltap_catalog {
	struct tep_handle *tep;
	char *available; /* available_events, read once on demand */
	int borrowed;    /* a saved trace's formats: not ours to free, nothing to read */
};

struct ltap_catalog *ltap_catalog_from_tep(struct tep_handle *tep)
{
	struct ltap_catalog *cat = calloc(1, sizeof *cat);
	if (cat) {
		cat->tep = tep;
		cat->borrowed = 1;
	}
	return cat;
}

struct ltap_catalog *ltap_catalog_open(void)
{
	struct ltap_catalog *cat;
	char *hp;
	size_t len;

	if (!ltap_tracefs_dir())
		return NULL;
	cat = calloc(1, sizeof *cat);
	if (!cat)
		return NULL;
	cat->tep = tep_alloc();
	if (!cat->tep)
		goto fail;
	tep_set_long_size(cat->tep, sizeof(long));
	tep_set_page_size(cat->tep, getpagesize());
	hp = ltap_tracefs_read("events/header_page", &len);
	if (!hp) {
		int e = errno;
		ltap_err("catalog: cannot read %s/events/header_page: %s%s", ltap_tracefs_dir(), strerror(e),
			 e == EACCES || e == EPERM ? " (run ltap as root)" : "");
		goto fail;
	}
	tep_parse_header_page(cat->tep, hp, len, sizeof(long));
	free(hp);
	return cat;
fail:
	ltap_catalog_close(cat);
	return NULL;
}

void ltap_catalog_close(struct ltap_catalog *cat)
{
	if (!cat)
		return;
	if (cat->tep && !cat->borrowed)
		tep_free(cat->tep);
	free(cat->available);
	free(cat);
}

struct tep_handle *ltap_catalog_tep(struct ltap_catalog *cat)
{
	return cat->tep;
}

static int catalog_split(const char *spec, char *sys, char *name, size_t len)
{
	const char *sep = strpbrk(spec, ":/");
	size_t n;

	if (!sep || sep == spec || !sep[1] || strpbrk(sep + 1, ":/"))
		return -EINVAL;
	n = (size_t)(sep - spec);
	if (n >= len || strlen(sep + 1) >= len)
		return -EINVAL;
	memcpy(sys, spec, n);
	sys[n] = 0;
	strcpy(name, sep + 1);
	/* a name with .. or glob characters can never be a real event */
	if (strstr(spec, "..") || strpbrk(spec, "*?[ "))
		return -EINVAL;
	return 0;
}

struct tep_event *ltap_catalog_event(struct ltap_catalog *cat, const char *spec)
{
	char sys[256], name[256], path[600];
	struct tep_event *ev;
	char *fmt;
	size_t len;

	if (catalog_split(spec, sys, name, sizeof sys) != 0) {
		errno = ENOENT;
		return NULL;
	}
	ev = tep_find_event_by_name(cat->tep, sys, name);
	if (ev || cat->borrowed) {
		errno = ev ? 0 : ENOENT;
		return ev;
	}
	snprintf(path, sizeof path, "events/%s/%s/format", sys, name);
	fmt = ltap_tracefs_read(path, &len);
	if (!fmt) {
		errno = ENOENT;
		return NULL;
	}
	if (tep_parse_event(cat->tep, fmt, len, sys) != 0) {
		free(fmt);
		ltap_err("catalog: cannot parse format of %s", spec);
		errno = EINVAL;
		return NULL;
	}
	free(fmt);
	return tep_find_event_by_name(cat->tep, sys, name);
}

/* "sys:name" lines: the kernel's available_events, or a saved trace's events */
static const char *catalog_available(struct ltap_catalog *cat)
{
	if (cat->available)
		return cat->available;
	if (!cat->borrowed) {
		cat->available = ltap_tracefs_read("available_events", NULL);
	} else {
		struct tep_event **evs = tep_list_events(cat->tep, TEP_EVENT_SORT_NAME);
		size_t len = 1;
		for (int i = 0; evs && evs[i]; i++)
			len += strlen(evs[i]->system) + strlen(evs[i]->name) + 2;
		cat->available = calloc(1, len);
		for (int i = 0; cat->available && evs && evs[i]; i++) {
			strcat(cat->available, evs[i]->system);
			strcat(cat->available, ":");
			strcat(cat->available, evs[i]->name);
			strcat(cat->available, "\n");
		}
	}
	return cat->available;
}

void ltap_catalog_suggest(struct ltap_catalog *cat, const char *spec, char *out, size_t outlen)
{
	enum { KEEP = 3 };
	const char *all = catalog_available(cat);
	char best[KEEP][256];
	int bestd[KEEP] = {1000, 1000, 1000};
	char want[256];
	const char *p;

	out[0] = 0;
	if (!all)
		return;
	snprintf(want, sizeof want, "%s", spec);
	for (char *c = want; *c; c++)
		if (*c == '/')
			*c = ':';
	for (p = all; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char cand[256];
		int d;

		if (n && n < sizeof cand) {
			memcpy(cand, p, n);
			cand[n] = 0;
			d = ltap_edit_distance(want, cand);
			/* the event name alone matching well counts too: "mm_page_alloc" */
			const char *colon = strchr(cand, ':');
			if (colon && !strchr(want, ':')) {
				int d2 = ltap_edit_distance(want, colon + 1);
				if (d2 < d)
					d = d2;
			}
			for (int i = 0; i < KEEP; i++) {
				if (d < bestd[i]) {
					for (int j = KEEP - 1; j > i; j--) {
						bestd[j] = bestd[j - 1];
						strcpy(best[j], best[j - 1]);
					}
					bestd[i] = d;
					strcpy(best[i], cand);
					break;
				}
			}
		}
		p += n + (nl ? 1 : 0);
	}
	for (int i = 0; i < KEEP; i++) {
		if (bestd[i] > (int)strlen(want) / 2 + 2)
			break;
		size_t used = strlen(out);
		snprintf(out + used, outlen - used, "%s%s", i ? ", " : "", best[i]);
	}
}

void ltap_catalog_field_names(struct tep_event *ev, char *out, size_t outlen)
{
	struct tep_format_field *f;
	size_t used = 0;

	out[0] = 0;
	for (f = ev->format.fields; f; f = f->next) {
		snprintf(out + used, outlen - used, "%s%s", used ? ", " : "", f->name);
		used = strlen(out);
	}
}

int ltap_catalog_is_reserved(const char *name)
{
	static const char *const reserved[] = {
		"name", "pid", "tid", "comm", "cpu", "time", "args", "sym",
		"copy", "stack", "kstack", "ustack", "folded", "frame",
	};

	for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++)
		if (strcmp(name, reserved[i]) == 0)
			return 1;
	return 0;
}

static void catalog_print_fields(struct tep_event *ev, FILE *out)
{
	struct tep_format_field *f;
	struct ltap_symfields *sym = ltap_symfields_new(ev); /* NULL: none said */

	for (f = ev->format.fields; f; f = f->next) {
		const char *type = f->type;
		char buf[300];
		/* the format writes arrays as "char comm[16]": show the type as C does */
		if (f->flags & TEP_FIELD_IS_ARRAY && !(f->flags & TEP_FIELD_IS_DYNAMIC) &&
		    strchr(type, '[')) {
			snprintf(buf, sizeof buf, "%.*s", (int)(strchr(type, '[') - type), type);
			fprintf(out, "    %s %s%s", buf, f->name, strchr(type, '['));
		} else {
			fprintf(out, "    %s %s", type, f->name);
		}
		if (ltap_catalog_is_reserved(f->name))
			fprintf(out, "  (read as e.args.%s)", f->name);
		if (ltap_symfields_find(sym, f->name) >= 0)
			fprintf(out, "  (named: e.sym.%s)", f->name);
		fputc('\n', out);
	}
	ltap_symfields_free(sym);
}

int ltap_catalog_is_glob(const char *spec)
{
	return strpbrk(spec, "*?[") != NULL;
}

const char *ltap_catalog_strip_prefix(const char *spec)
{
	if (strncmp(spec, "tracepoint:", 11) == 0)
		return spec + 11;
	if (strncmp(spec, "t:", 2) == 0)
		return spec + 2;
	return spec;
}

int ltap_catalog_glob(struct ltap_catalog *cat, const char *glob, int (*fn)(void *ud, const char *spec), void *ud)
{
	const char *all = catalog_available(cat);
	char pattern[256];
	int count = 0;

	if (!all)
		return -errno;
	snprintf(pattern, sizeof pattern, "%s", glob && *glob ? glob : "*");
	for (char *c = pattern; *c; c++)
		if (*c == '/')
			*c = ':';
	/* "kmem" alone means the whole system, as perf list accepts */
	if (!strpbrk(pattern, ":*?["))
		strncat(pattern, ":*", sizeof pattern - strlen(pattern) - 1);
	for (const char *p = all; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char cand[256];

		if (n && n < sizeof cand) {
			memcpy(cand, p, n);
			cand[n] = 0;
			if (fnmatch(pattern, cand, 0) == 0) {
				count++;
				if (fn(ud, cand))
					break;
			}
		}
		p += n + (nl ? 1 : 0);
	}
	return count;
}

struct tep_event *ltap_catalog_by_name(struct ltap_catalog *cat, const char *name)
{
	const char *all = catalog_available(cat);
	size_t nl = strlen(name);

	for (const char *p = all; p && *p;) {
		const char *end = strchr(p, '\n'), *colon;
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char spec[256];

		colon = memchr(p, ':', n);
		if (colon && (size_t)(p + n - colon - 1) == nl && strncmp(colon + 1, name, nl) == 0 && n < sizeof spec) {
			memcpy(spec, p, n);
			spec[n] = 0;
			return ltap_catalog_event(cat, spec);
		}
		p += n + (end ? 1 : 0);
	}
	return NULL;
}

struct catalog_print {
	struct ltap_catalog *cat;
	int verbose;
	FILE *out;
};

static int catalog_print_one(void *ud, const char *spec)
{
	struct catalog_print *cp = ud;

	fprintf(cp->out, "%s\n", spec);
	if (cp->verbose) {
		struct tep_event *ev = ltap_catalog_event(cp->cat, spec);
		if (ev)
			catalog_print_fields(ev, cp->out);
	}
	return 0;
}

int ltap_catalog_list(struct ltap_catalog *cat, const char *glob, int verbose, FILE *out)
{
	struct catalog_print cp = {cat, verbose, out};
	return ltap_catalog_glob(cat, glob, catalog_print_one, &cp);
}
