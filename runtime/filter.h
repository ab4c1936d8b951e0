/* filter.h: ftrace filter expressions ("pid == 3 && COMM ~ \"getp*\"")
 * evaluated in user space exactly as the kernel evaluates them.
 *
 * When several probes share one event, the kernel gets the union of their
 * filters and each probe's own filter runs again here; replays have no kernel
 * at all. Either way a filter must select what the kernel would have
 * selected: libtraceevent's filters do not (numbers compare unsigned, so
 * "ret < 0" never matches; "~" is a bitwise not instead of a glob; COMM comes
 * from its own cmdline table), hence this one, following
 * kernel/trace/trace_events_filter.c: the same grammar, field lookup
 * (the event's fields, then CPU/cpu/common_cpu and COMM/comm, then common_*),
 * values cast to the field's size and sign, and string matches (==, !=, ~
 * with "abc*", "*abc", "*abc*", globs and a leading '!') with the kernel's
 * own quirks, such as "*abc" comparing the end of a char[16] buffer. */
#ifndef LTAP_FILTER_H
#define LTAP_FILTER_H

#include <stddef.h>

struct tep_event;
struct ltap_filter;

/* The name of task tid at the time of its event (COMM). */
typedef const char *(*ltap_filter_comm_fn)(void *ud, int tid);

/* Compiles text against ev's format. NULL when the text is not a filter
 * the kernel would take (or one only the kernel can apply: .function,
 * .ustring, CPUS{}, char * strings), with the reason in why. */
struct ltap_filter *ltap_filter_new(struct tep_event *ev, const char *text, ltap_filter_comm_fn comm, void *ud,
				    char *why, size_t whylen);
void ltap_filter_free(struct ltap_filter *f);
/* 1 when the record (raw event data of size bytes, seen on cpu) matches. */
int ltap_filter_match(const struct ltap_filter *f, const void *data, int size, int cpu);

#endif
