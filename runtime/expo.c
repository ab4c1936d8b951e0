/* expo.c: the exposition formats (see expo.h). */
#include "expo.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ltap_expo_init(struct ltap_expo *x, int om, size_t limit)
{
	memset(x, 0, sizeof *x);
	x->om = om;
	x->limit = limit;
}

void ltap_expo_free(struct ltap_expo *x)
{
	free(x->buf);
	x->buf = NULL;
	x->len = x->cap = 0;
}

static void expo_put(struct ltap_expo *x, const char *s, size_t n)
{
	if (x->failed)
		return;
	if (x->len + n > x->limit) {
		x->failed = 1;
		return;
	}
	if (x->len + n + 1 > x->cap) {
		size_t cap = x->cap ? x->cap : 4096;
		char *b;
		while (cap < x->len + n + 1)
			cap *= 2;
		if (!(b = realloc(x->buf, cap))) {
			x->failed = 1;
			return;
		}
		x->buf = b;
		x->cap = cap;
	}
	memcpy(x->buf + x->len, s, n);
	x->len += n;
}

static void expo_puts(struct ltap_expo *x, const char *s)
{
	expo_put(x, s, strlen(s));
}

char *ltap_expo_finish(struct ltap_expo *x, size_t *len)
{
	char *b;
	if (x->om)
		expo_puts(x, "# EOF\n");
	else if (!x->len)
		expo_put(x, "", 0); /* an empty body is still a body */
	if (x->failed) {
		ltap_expo_free(x);
		return NULL;
	}
	b = x->buf;
	b[x->len] = 0;
	*len = x->len;
	x->buf = NULL;
	x->len = x->cap = 0;
	return b;
}

/* HELP text: backslash and newline escaped (OpenMetrics: the quote too) */
static void expo_help(struct ltap_expo *x, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			expo_puts(x, "\\\\");
		else if (*s == '\n')
			expo_puts(x, "\\n");
		else if (*s == '"' && x->om)
			expo_puts(x, "\\\"");
		else
			expo_put(x, s, 1);
	}
}

void ltap_expo_family(struct ltap_expo *x, const char *name, enum ltap_expo_type type, const char *help)
{
	static const char *const types[] = {"counter", "gauge", "histogram", "summary"};
	const char *suffix = type == LTAP_EXPO_COUNTER && !x->om ? "_total" : "";

	if (help && *help) {
		expo_puts(x, "# HELP ");
		expo_puts(x, name);
		expo_puts(x, suffix);
		expo_puts(x, " ");
		expo_help(x, help);
		expo_puts(x, "\n");
	}
	expo_puts(x, "# TYPE ");
	expo_puts(x, name);
	expo_puts(x, suffix);
	expo_puts(x, " ");
	expo_puts(x, types[type]);
	expo_puts(x, "\n");
}

void ltap_expo_labels_reset(struct ltap_expo *x)
{
	x->labels_len = 0;
	x->labels_cut = 0;
}

/* the length of the valid UTF-8 sequence at s (of at most n bytes), or 0 */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t need;
	uint32_t c;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 4, c = s[0] & 0x07;
	else
		return 0;
	if (need > n)
		return 0;
	for (size_t i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((need == 3 && c < 0x800) || (need == 4 && (c < 0x10000 || c > 0x10ffff)) || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return need;
}

static int labels_put(struct ltap_expo *x, const char *s, size_t n)
{
	if (x->labels_len + n >= sizeof x->labels) {
		x->labels_cut = 1;
		return -1;
	}
	memcpy(x->labels + x->labels_len, s, n);
	x->labels_len += n;
	return 0;
}

/* Label values must be UTF-8, and distinct keys must stay distinct after
 * Prometheus unescapes them. So the value Prometheus stores is the key
 * with a backslash doubled and a byte that is not UTF-8 (a comm can hold
 * any) or NUL written as the four characters \xNN: comm "k" + 0xff is
 * stored as k\xff, comm "k\xff" as k\\xff, one from the other for ever
 * (read back: "\\" is a backslash, "\x" two hex digits a byte). That
 * stored value is then escaped for the exposition (backslash, quote,
 * newline), so a key's backslash is four in the text. */
void ltap_expo_labels_add(struct ltap_expo *x, const char *name, const char *value, size_t len)
{
	const unsigned char *v = (const unsigned char *)value;

	if (x->labels_len && labels_put(x, ",", 1))
		return;
	if (labels_put(x, name, strlen(name)) || labels_put(x, "=\"", 2))
		return;
	for (size_t i = 0; i < len;) {
		size_t u = utf8_len(v + i, len - i);
		char hex[8];
		int r;
		if (v[i] == '\\')
			r = labels_put(x, "\\\\\\\\", 4);
		else if (v[i] == '"')
			r = labels_put(x, "\\\"", 2);
		else if (v[i] == '\n')
			r = labels_put(x, "\\n", 2);
		else if (u && v[i])
			r = labels_put(x, value + i, u);
		else {
			snprintf(hex, sizeof hex, "\\\\x%02x", v[i]);
			r = labels_put(x, hex, strlen(hex));
		}
		if (r)
			return;
		i += u ? u : 1;
	}
	labels_put(x, "\"", 1);
}

void ltap_expo_sample(struct ltap_expo *x, const char *name, const char *suffix, const char *le, const char *value)
{
	expo_puts(x, name);
	expo_puts(x, suffix);
	if (x->labels_len || le) {
		expo_puts(x, "{");
		expo_put(x, x->labels, x->labels_len);
		if (le) {
			expo_puts(x, x->labels_len ? ",le=\"" : "le=\"");
			expo_puts(x, le);
			expo_puts(x, "\"");
		}
		expo_puts(x, "}");
	}
	expo_puts(x, " ");
	expo_puts(x, value);
	expo_puts(x, "\n");
}

void ltap_expo_int(char *buf, int64_t v)
{
	snprintf(buf, 32, "%" PRId64, v);
}

/* Python's repr of a float, which OpenMetrics' canonical numbers follow:
 * the shortest digits that read back the same; positional from 1e-4 to
 * 1e16 (with ".0" when whole), scientific with a two-digit exponent outside. */
void ltap_expo_double(char *buf, double v)
{
	char sci[40], digits[24];
	int prec, exp, nd = 0;
	char *p;

	if (isnan(v)) {
		strcpy(buf, "NaN");
		return;
	}
	if (isinf(v)) {
		strcpy(buf, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	if (v == 0) {
		strcpy(buf, signbit(v) ? "-0.0" : "0.0");
		return;
	}
	for (prec = 0; prec < 17; prec++) {
		snprintf(sci, sizeof sci, "%.*e", prec, v);
		if (strtod(sci, NULL) == v)
			break;
	}
	/* sci is [-]d[.ddd]e[+-]XX: split into digits and exponent */
	p = sci;
	if (*p == '-')
		p++;
	for (; *p && *p != 'e'; p++)
		if (*p != '.')
			digits[nd++] = *p;
	digits[nd] = 0;
	while (nd > 1 && digits[nd - 1] == '0')
		digits[--nd] = 0;
	exp = atoi(p + 1);
	p = buf;
	if (v < 0)
		*p++ = '-';
	if (exp >= -4 && exp < 16) {
		if (exp < 0) {
			p += sprintf(p, "0.");
			for (int i = -1; i > exp; i--)
				*p++ = '0';
			p += sprintf(p, "%s", digits);
		} else {
			for (int i = 0; i <= exp || i < nd; i++) {
				if (i == exp + 1)
					*p++ = '.';
				*p++ = i < nd ? digits[i] : '0';
			}
			if (nd <= exp + 1)
				p += sprintf(p, ".0");
		}
		*p = 0;
	} else {
		*p++ = digits[0];
		if (nd > 1)
			p += sprintf(p, ".%s", digits + 1);
		sprintf(p, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
	}
}

static int name_char(int c, int first, int colon)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':') ||
	       (!first && c >= '0' && c <= '9');
}

static int expo_name(const char *s, int colon)
{
	if (!s || !*s)
		return 0;
	for (const char *p = s; *p; p++)
		if (!name_char((unsigned char)*p, p == s, colon))
			return 0;
	return 1;
}

int ltap_expo_metric_name(const char *s)
{
	return expo_name(s, 1);
}

int ltap_expo_label_name(const char *s)
{
	return expo_name(s, 0) && strncmp(s, "__", 2) != 0;
}
