/* expo.h: the Prometheus exposition formats, written into a growing buffer:
 * the text format 0.0.4 and OpenMetrics 1.0 (# EOF, counters as a family
 * without _total and samples with it). Names are checked here, values
 * escaped here, numbers formatted here: the one place that knows the formats. */
#ifndef LTAP_EXPO_H
#define LTAP_EXPO_H

#include <stddef.h>
#include <stdint.h>

enum ltap_expo_type { LTAP_EXPO_COUNTER, LTAP_EXPO_GAUGE, LTAP_EXPO_HISTOGRAM, LTAP_EXPO_SUMMARY };

struct ltap_expo {
	char *buf;
	size_t len, cap, limit;
	int om;           /* OpenMetrics */
	int failed;       /* out of memory, or over limit: the body is dropped */
	/* the labels of the series being written, rendered once: a="x",b="y" */
	char labels[4096];
	size_t labels_len;
	int labels_cut;   /* they did not fit: the series is skipped */
};

/* A rendering in OpenMetrics (om) or the text format, of at most limit bytes. */
void ltap_expo_init(struct ltap_expo *x, int om, size_t limit);
/* Ends the body (OpenMetrics' # EOF) and hands the buffer over (the caller
 * frees it); NULL when the rendering failed. */
char *ltap_expo_finish(struct ltap_expo *x, size_t *len);
void ltap_expo_free(struct ltap_expo *x);

/* # HELP and # TYPE of a family. name is the family's name: a counter's
 * samples are name_total, and so is its text-format family line. */
void ltap_expo_family(struct ltap_expo *x, const char *name, enum ltap_expo_type type, const char *help);
/* The labels of the next samples: reset, then add each (value escaped). */
void ltap_expo_labels_reset(struct ltap_expo *x);
void ltap_expo_labels_add(struct ltap_expo *x, const char *name, const char *value, size_t len);
/* name suffix{labels[,le="le"]} value */
void ltap_expo_sample(struct ltap_expo *x, const char *name, const char *suffix, const char *le, const char *value);

/* Numbers as both formats want them: integers as integers; floats in their
 * shortest exact form, with ".0" when whole (1.0, 0.5, 1e-06: OpenMetrics'
 * canonical numbers, which `le` needs), +Inf, -Inf, NaN. buf: 32 bytes. */
void ltap_expo_int(char *buf, int64_t v);
void ltap_expo_double(char *buf, double v);

/* 1 for a valid metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) or label name
 * ([a-zA-Z_][a-zA-Z0-9_]*, not starting with "__", which Prometheus keeps) */
int ltap_expo_metric_name(const char *s);
int ltap_expo_label_name(const char *s);

#endif
