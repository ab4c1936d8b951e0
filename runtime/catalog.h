/* catalog.h: the event catalog: formats parsed with libtraceevent on demand. */
#ifndef LTAP_CATALOG_H
#define LTAP_CATALOG_H

#include <stdio.h>

struct tep_handle;
struct tep_event;
struct ltap_catalog;

/* Opens a catalog over the local tracefs. NULL with a logged reason. */
struct ltap_catalog *ltap_catalog_open(void);
/* A catalog over the formats of a saved trace (the tep stays the caller's). */
struct ltap_catalog *ltap_catalog_from_tep(struct tep_handle *tep);
void ltap_catalog_close(struct ltap_catalog *cat);
struct tep_handle *ltap_catalog_tep(struct ltap_catalog *cat);

/* Finds "sys:name" (or "sys/name"), parsing its format the first time.
 * NULL with errno ENOENT for an unknown event. */
struct tep_event *ltap_catalog_event(struct ltap_catalog *cat, const char *spec);

/* Up to n names closest to spec, written "a, b, c" into out. */
void ltap_catalog_suggest(struct ltap_catalog *cat, const char *spec, char *out, size_t outlen);

/* Calls fn with each "sys:name" matching glob ("kmem:*", "*:sys_enter_open*";
 * "kmem" alone is the whole system); stops when fn returns non-zero.
 * Returns the number of matches, or -errno. */
int ltap_catalog_glob(struct ltap_catalog *cat, const char *glob, int (*fn)(void *ud, const char *spec), void *ud);
/* Whether spec is a glob rather than one event's name. */
int ltap_catalog_is_glob(const char *spec);
/* spec past a "tracepoint:" or "t:" prefix (bpftrace's): the "sys:name" or
 * glob the catalog knows. */
const char *ltap_catalog_strip_prefix(const char *spec);
/* The event called name in any system ("mm_page_alloc"), or NULL. */
struct tep_event *ltap_catalog_by_name(struct ltap_catalog *cat, const char *name);

/* Prints matching events, one per line; verbose adds each field and type.
 * Returns the number printed, or -errno. */
int ltap_catalog_list(struct ltap_catalog *cat, const char *glob, int verbose, FILE *out);

/* Whether name is one the Lua event object keeps for itself (bindings/event.c):
 * name pid tid comm cpu time args, and the methods copy stack kstack ustack
 * folded frame. A format field so named is read as e.args.NAME only. */
int ltap_catalog_is_reserved(const char *name);

/* "field, field, ..." of an event's own (non-common) fields. */
void ltap_catalog_field_names(struct tep_event *ev, char *out, size_t outlen);

#endif
