/* flame.c: the layout walks the stacks once, keeping the path of the last
 * one; the SVG writer formats numbers itself where printf would dominate
 * (a one- or two-decimal figure is an integer of tenths or hundredths,
 * printf only near a tie, where its exact rounding decides). */
#include "flame.h"
#include "grow.h"

#include "strbuf.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- layout ---- */

struct field {
	const char *p;
	size_t len;
};

/* The ';'-separated frames of s as Perl's split gives them (flamegraph.pl
 * reads them so): blank ones kept, trailing blank ones dropped. */
static size_t flame_split(const char *s, size_t len, struct field **out, size_t *cap)
{
	size_t n = 0, pos = 0;

	for (;;) {
		const char *semi = memchr(s + pos, ';', len - pos);
		size_t end = semi ? (size_t)(semi - s) : len;
		if (ltap_grow(out, cap, n + 1, sizeof **out, 64))
			return (size_t)-1;
		(*out)[n++] = (struct field){s + pos, end - pos};
		if (!semi)
			break;
		pos = end + 1;
	}
	while (n > 0 && (*out)[n - 1].len == 0)
		n--;
	return n;
}

/* The per-depth state while stacks are walked. */
struct level {
	double start, start0, delta;
	int hmax; /* the deepest level opened above it */
};

struct walk {
	struct ltap_flame *fl;
	struct level *lv; /* by depth, 0 the root */
	size_t nlv;
	double t, t0, minw;
};

static int flame_push(struct ltap_flame *fl, struct ltap_flame_frame f)
{
	if (ltap_grow(&fl->f, &fl->cap, fl->n + 1, sizeof *fl->f, 1024))
		return -ENOMEM;
	fl->f[fl->n++] = f;
	return 0;
}

/* Ends the frame open at depth d (named name): kept when wide enough. */
static int flame_close(struct walk *w, size_t d, struct field name)
{
	struct level *l = &w->lv[d];
	double width = w->t - l->start;

	if (!(width >= w->minw && width > 0))
		return 0;
	if (flame_push(w->fl, (struct ltap_flame_frame){name.p, name.len, (int)d, l->hmax - (int)d, l->start, width,
							l->delta, w->t0 - l->start0}))
		return -ENOMEM;
	if ((int)d > w->fl->dmax)
		w->fl->dmax = (int)d;
	if (l->hmax > w->lv[d - 1].hmax)
		w->lv[d - 1].hmax = l->hmax;
	return 0;
}

static int flame_levels(struct walk *w, size_t k)
{
	if (k + 1 > w->nlv) {
		size_t c = (k + 1) * 2;
		struct level *nl = realloc(w->lv, c * sizeof *nl);
		if (!nl)
			return -ENOMEM;
		memset(nl + w->nlv, 0, (c - w->nlv) * sizeof *nl);
		w->lv = nl;
		w->nlv = c;
	}
	return 0;
}

int ltap_flame_layout(struct ltap_flame *fl, const char *const *keys, const size_t *lens, const double *cnt,
		      const double *cnt0, size_t nkeys, double minw)
{
	struct walk w = {fl, NULL, 0, 0, 0, minw};
	struct field *prev = NULL, *cur = NULL, *tmp;
	size_t pcap = 0, ccap = 0, pn = 0, tcap;
	double rootdelta = 0;
	int rc = -ENOMEM;

	fl->n = 0;
	fl->dmax = 0;
	fl->maxdelta = 0;
	if (flame_levels(&w, 0))
		goto out;
	w.lv[0].hmax = 0;
	for (size_t i = 0; i < nkeys; i++) {
		size_t k = flame_split(keys[i], lens[i], &cur, &ccap), same = 0;
		if (k == (size_t)-1 || flame_levels(&w, k))
			goto out;
		while (same < k && same < pn && cur[same].len == prev[same].len &&
		       memcmp(cur[same].p, prev[same].p, cur[same].len) == 0)
			same++;
		for (size_t d = pn; d > same; d--)
			if (flame_close(&w, d, prev[d - 1]))
				goto out;
		for (size_t d = same + 1; d <= k; d++)
			w.lv[d] = (struct level){w.t, w.t0, 0, (int)d};
		if (cnt0) {
			double delta = cnt[i] - cnt0[i];
			if (k > 0)
				w.lv[k].delta += delta;
			else
				rootdelta += delta;
			if (fabs(delta) > fl->maxdelta)
				fl->maxdelta = fabs(delta);
			w.t0 += cnt0[i];
		}
		w.t += cnt[i];
		tmp = prev, prev = cur, cur = tmp;
		tcap = pcap, pcap = ccap, ccap = tcap;
		pn = k;
	}
	for (size_t d = pn; d > 0; d--)
		if (flame_close(&w, d, prev[d - 1]))
			goto out;
	if (w.t > 0 && flame_push(fl, (struct ltap_flame_frame){"all", 3, 0, w.lv[0].hmax, 0, w.t, rootdelta, w.t0}))
		goto out;
	fl->total = w.t;
	fl->total_before = w.t0;
	rc = 0;
out:
	free(prev);
	free(cur);
	free(w.lv);
	return rc;
}

void ltap_flame_free(struct ltap_flame *fl)
{
	free(fl->f);
	memset(fl, 0, sizeof *fl);
}

/* ---- text ---- */

/* The writer of one frame's line: appends into a text, remembers a failure. */
struct out {
	struct ltap_strbuf *t;
	int failed;
};

static void put(struct out *o, const char *s, size_t len)
{
	if (!o->failed)
		o->failed = ltap_strbuf_add(o->t, s, len);
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void putf(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void putf(struct out *o, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	/* the callers' numbers fit: a longer text is cut */
	put(o, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static void put_xml(struct out *o, const char *s, size_t len)
{
	size_t from = 0;

	for (size_t i = 0; i < len; i++) {
		const char *e;
		switch (s[i]) {
		case '&': e = "&amp;"; break;
		case '<': e = "&lt;"; break;
		case '>': e = "&gt;"; break;
		case '"': e = "&quot;"; break;
		case '\'': e = "&#39;"; break;
		default: continue;
		}
		put(o, s + from, i - from);
		puts_(o, e);
		from = i + 1;
	}
	put(o, s + from, len - from);
}

static void put_int(struct out *o, long long v)
{
	char buf[24], *p = buf + sizeof buf;
	unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	put(o, p, (size_t)(buf + sizeof buf - p));
}

/* A count as flamegraph.lua's num(): integral values as integers, others
 * with every digit. */
static void put_num(struct out *o, double v)
{
	static const char *const quarters[] = {"", ".25", ".5", ".75"};

	if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		put_int(o, (long long)v);
	} else if (v > 0 && v < 1e15 && v * 4 == floor(v * 4)) {
		/* a label's y, half a frame down: exact in binary, so "%.17g" prints it short too */
		put_int(o, (long long)v);
		puts_(o, quarters[(int)((v - floor(v)) * 4)]);
	} else {
		putf(o, "%.17g", v);
	}
}

static const double pow10s[] = {1, 10, 100};

/* v with 1 or 2 decimals into buf, as printf's "%.Nf" rounds it (the value
 * itself, ties to even): an integer of tenths or hundredths, unless v is
 * near a tie or negative, then printf. Its length; the value printed (the
 * double strtod would read back) in *shown. */
static size_t fixed_text(double v, int decimals, char *buf, double *shown)
{
	double m = pow10s[decimals], s = v * m, r = floor(s + 0.5), frac = s - floor(s);
	char digits[24], *p = digits + sizeof digits;
	unsigned long long q;
	size_t n;

	if (!(v >= 0) || s > 1e15 || fabs(frac - 0.5) < 1e-6) {
		int k = snprintf(buf, 32, "%.*f", decimals, v);
		if (shown)
			*shown = strtod(buf, NULL);
		return k > 0 ? (size_t)k : 0;
	}
	q = (unsigned long long)r;
	for (int i = 0; i < decimals; i++, q /= 10)
		*--p = (char)('0' + q % 10);
	*--p = '.';
	do
		*--p = (char)('0' + q % 10);
	while (q /= 10);
	n = (size_t)(digits + sizeof digits - p);
	memcpy(buf, p, n);
	if (shown)
		*shown = r / m; /* the double nearest the decimal, as strtod reads it */
	return n;
}

static void put_fixed(struct out *o, double v, int decimals, double *shown)
{
	char buf[32];
	put(o, buf, fixed_text(v, decimals, buf, shown));
}

/* "1234567" -> "1,234,567", as flamegraph.pl's tooltips; a count rounded
 * to an integer ("%.0f") first. */
static void put_samples(struct out *o, double v)
{
	char buf[400], grouped[600];
	int n, digits, k = 0, sign;

	if (v >= 0 && !signbit(v) && v < 9007199254740992.0 && v == floor(v)) {
		/* an integer: "%.0f" prints its digits */
		unsigned long long u = (unsigned long long)v;
		char *p = buf + sizeof buf;
		do
			*--p = (char)('0' + u % 10);
		while (u /= 10);
		n = (int)(buf + sizeof buf - p);
		memmove(buf, p, (size_t)n);
	} else {
		n = snprintf(buf, sizeof buf, "%.0f", v);
	}
	sign = buf[0] == '-' || buf[0] == '+';

	if (n <= 0 || (size_t)n >= sizeof buf)
		return;
	for (int i = sign; i < n; i++)
		if (buf[i] < '0' || buf[i] > '9') {
			put(o, buf, (size_t)n);
			return;
		}
	digits = n - sign;
	if (sign)
		grouped[k++] = buf[0];
	for (int i = 0; i < digits; i++) {
		if (i && (digits - i) % 3 == 0)
			grouped[k++] = ',';
		grouped[k++] = buf[sign + i];
	}
	put(o, grouped, (size_t)k);
}

/* ---- colours ---- */

static int ends_with(const char *s, size_t len, const char *tail)
{
	size_t t = strlen(tail);
	return len >= t && memcmp(s + len - t, tail, t) == 0;
}

static int contains(const char *s, size_t len, const char *what)
{
	return memmem(s, len, what, strlen(what)) != NULL;
}

/* ltap's name hash, in [0, 1): the same name, the same colour */
static double name_hash(const char *s, size_t len)
{
	long long h = 0;
	for (size_t i = 0; i < len; i++)
		h = (h * 31 + (unsigned char)s[i]) % 1000003;
	return (double)h / 1000003;
}

/* One code point of s (Lua 5.4.4's utf8_decode, strict): the next byte
 * after it, or NULL for an invalid sequence. s ends with a NUL. */
static const char *utf8_next(const char *s, uint32_t *val)
{
	static const uint32_t limits[] = {~(uint32_t)0, 0x80, 0x800, 0x10000u, 0x200000u, 0x4000000u};
	unsigned c = (unsigned char)s[0];
	uint32_t res = 0;

	if (c < 0x80) {
		res = c;
	} else {
		int count = 0;
		for (; c & 0x40; c <<= 1) {
			unsigned cc = (unsigned char)s[++count];
			if ((cc & 0xC0) != 0x80)
				return NULL;
			res = (res << 6) | (cc & 0x3F);
		}
		res |= ((uint32_t)(c & 0x7F) << (count * 5));
		if (count > 5 || res > 0x7FFFFFFFu || res < limits[count])
			return NULL;
		s += count;
	}
	if (res > 0x10FFFFu || (0xD800u <= res && res <= 0xDFFFu))
		return NULL;
	*val = res;
	return s + 1;
}

/* The characters of s (len bytes, NUL after) into cp (room for len): its
 * code points as Lua's utf8.codes walks them, or its bytes when it is no
 * valid UTF-8 (flamegraph.lua's chars()). */
static size_t chars(const char *s, size_t len, uint32_t *cp)
{
	size_t n = 0, i = 0;

	for (;;) {
		while (i < len && (s[i] & 0xC0) == 0x80)
			i++; /* Lua 5.4.4 skips stray continuation bytes */
		if (i >= len)
			return n;
		if (!utf8_next(s + i, &cp[n]))
			break;
		n++;
		i++; /* the rest of the character is skipped above */
	}
	for (n = 0; n < len; n++)
		cp[n] = (unsigned char)s[n];
	return n;
}

/* --hash: weighs the first characters most, so similar names get similar
 * colours (flamegraph.pl's); three characters count */
static double vector_hash(const uint32_t *cp, size_t n, int step)
{
	double vector = 0, weight = 1, maxv = 1;
	long long mod = 10;

	for (size_t i = 0; i < n; i++) {
		vector = vector + (double)(cp[step > 0 ? i : n - 1 - i] % mod) / (double)(mod - 1) * weight;
		mod = mod + 1;
		maxv = maxv + weight;
		weight = weight * 0.70;
		if (mod > 12)
			break;
	}
	return 1 - vector / maxv;
}

/* the name's hash and its reverse's; a "module`" prefix is left out */
static int hash_values(const char *name, size_t len, double *v1, double *v2)
{
	const char *tick = len > 1 ? memchr(name + 1, '`', len - 1) : NULL;
	char *copy;
	uint32_t *cp;
	size_t n;

	if (tick) {
		len -= (size_t)(tick + 1 - name);
		name = tick + 1;
	}
	copy = malloc(len + 1);
	cp = malloc((len + 1) * sizeof *cp);
	if (!copy || !cp) {
		free(copy);
		free(cp);
		return -ENOMEM;
	}
	memcpy(copy, name, len);
	copy[len] = 0;
	n = chars(copy, len, cp);
	*v1 = vector_hash(cp, n, 1);
	*v2 = vector_hash(cp, n, -1);
	free(copy);
	free(cp);
	return 0;
}

static int starts_with_java(const char *s, size_t len)
{
	static const char *const pre[] = {"java/", "javax/", "jdk/", "net/", "org/", "com/", "io/", "sun/"};

	if (len && s[0] == 'L') { /* "L?" */
		for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
			if (len - 1 >= strlen(pre[i]) && memcmp(s + 1, pre[i], strlen(pre[i])) == 0)
				return 1;
	}
	for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
		if (len >= strlen(pre[i]) && memcmp(s, pre[i], strlen(pre[i])) == 0)
			return 1;
	return 0;
}

/* "/.*%.js": a '/' and, later, ".js" */
static int slash_then_js(const char *s, size_t len)
{
	const char *slash = memchr(s, '/', len);
	return slash && contains(slash + 1, len - (size_t)(slash + 1 - s), ".js");
}

static void rgb(struct out *o, int r, int g, int b)
{
	puts_(o, "rgb(");
	put_int(o, r);
	put(o, ",", 1);
	put_int(o, g);
	put(o, ",", 1);
	put_int(o, b);
	put(o, ")", 1);
}

/* the colour of a frame in palette kind; v1, v2, v3 in [0, 1] */
static void palette_color(struct out *o, const char *kind, const char *name, size_t len, double v1, double v2,
			  double v3)
{
	if (strcmp(kind, "hot") == 0) {
		if (ends_with(name, len, "_[k]")) {
			kind = "orange"; /* ltap: kernel frames apart */
		} else {
			rgb(o, 205 + (int)floor(50 * v3), (int)floor(230 * v1), (int)floor(55 * v2));
			return;
		}
	} else if (strcmp(kind, "mem") == 0) {
		rgb(o, 0, 190 + (int)floor(50 * v2), (int)floor(210 * v1));
		return;
	} else if (strcmp(kind, "io") == 0) {
		int r = 80 + (int)floor(60 * v1);
		rgb(o, r, r, 190 + (int)floor(55 * v2));
		return;
	} else if (strcmp(kind, "java") == 0) {
		if (ends_with(name, len, "_[j]"))
			kind = "green";
		else if (ends_with(name, len, "_[i]"))
			kind = "aqua";
		else if (starts_with_java(name, len))
			kind = "green";
		else if (contains(name, len, ":::"))
			kind = "green";
		else if (contains(name, len, "::"))
			kind = "yellow";
		else if (ends_with(name, len, "_[k]"))
			kind = "orange";
		else
			kind = "red";
	} else if (strcmp(kind, "perl") == 0) {
		if (contains(name, len, "::"))
			kind = "yellow";
		else if (contains(name, len, "Perl") || contains(name, len, ".pl"))
			kind = "green";
		else if (ends_with(name, len, "_[k]"))
			kind = "orange";
		else
			kind = "red";
	} else if (strcmp(kind, "js") == 0) {
		if (ends_with(name, len, "_[j]"))
			kind = memchr(name, '/', len) ? "green" : "aqua";
		else if (contains(name, len, "::"))
			kind = "yellow";
		else if (slash_then_js(name, len))
			kind = "green";
		else if (memchr(name, ':', len))
			kind = "aqua";
		else if (len == 1 && name[0] == ' ')
			kind = "green";
		else if (contains(name, len, "_[k]"))
			kind = "orange";
		else
			kind = "red";
	} else if (strcmp(kind, "wakeup") == 0) {
		kind = "aqua";
	} else if (strcmp(kind, "chain") == 0) {
		kind = contains(name, len, "_[w]") ? "aqua" : "blue";
	}
	if (strcmp(kind, "red") == 0) {
		int x = 50 + (int)floor(80 * v1);
		rgb(o, 200 + (int)floor(55 * v1), x, x);
	} else if (strcmp(kind, "green") == 0) {
		int x = 50 + (int)floor(60 * v1);
		rgb(o, x, 200 + (int)floor(55 * v1), x);
	} else if (strcmp(kind, "blue") == 0) {
		int x = 80 + (int)floor(60 * v1);
		rgb(o, x, x, 205 + (int)floor(50 * v1));
	} else if (strcmp(kind, "yellow") == 0) {
		int x = 175 + (int)floor(55 * v1);
		rgb(o, x, x, 50 + (int)floor(20 * v1));
	} else if (strcmp(kind, "purple") == 0) {
		int x = 190 + (int)floor(65 * v1);
		rgb(o, x, 80 + (int)floor(60 * v1), x);
	} else if (strcmp(kind, "aqua") == 0) {
		rgb(o, 50 + (int)floor(60 * v1), 165 + (int)floor(55 * v1), 165 + (int)floor(55 * v1));
	} else if (strcmp(kind, "orange") == 0) {
		rgb(o, 190 + (int)floor(65 * v1), 90 + (int)floor(65 * v1), 0);
	} else {
		puts_(o, "rgb(0,0,0)");
	}
}

static void name_color(struct out *o, const struct ltap_flame_style *st, const char *name, size_t len)
{
	if (len == 2 && memcmp(name, "--", 2) == 0) {
		puts_(o, "rgb(160,160,160)");
	} else if (len == 1 && name[0] == '-') {
		puts_(o, "rgb(200,200,200)");
	} else if (st->hash) {
		double v1, v2;
		if (hash_values(name, len, &v1, &v2))
			o->failed = -ENOMEM;
		else
			palette_color(o, st->palette, name, len, v1, v2, v2);
	} else {
		double v = name_hash(name, len);
		palette_color(o, st->palette, name, len, v, v, v);
	}
}

/* a change on the scale of the largest one: red grew, blue shrank, white
 * none; the largest change is saturated (flamegraph.pl's rule) */
static void diff_color(struct out *o, double value, double maxv, int negate)
{
	if (negate)
		value = -value;
	if (value > 0) {
		int x = (int)floor(210 * (maxv - value) / maxv);
		rgb(o, 255, x, x);
	} else if (value < 0) {
		int x = (int)floor(210 * (maxv + value) / maxv);
		rgb(o, x, x, 255);
	} else {
		puts_(o, "rgb(255,255,255)");
	}
}

/* ---- frames ---- */

/* The name shown: the "_[k]", "_[w]", "_[i]", "_[j]" suffixes are for colours only. */
static size_t shown_len(const char *name, size_t len)
{
	if (len >= 4 && name[len - 4] == '_' && name[len - 3] == '[' && name[len - 1] == ']' &&
	    strchr("kwij", name[len - 2]) && name[len - 2])
		return len - 4;
	return len;
}

/* a count rounded as the tooltip shows it: "%.0f", read back */
static double rounded(double v)
{
	char buf[400];

	if (v == floor(v))
		return v;
	snprintf(buf, sizeof buf, "%.0f", v);
	return strtod(buf, NULL);
}

/* The tooltip: "name (N samples, P%)", and the change for a differential. */
static void frame_info(struct out *o, const struct ltap_flame *fl, const struct ltap_flame_style *st,
		       const struct ltap_flame_frame *f, const char *name, size_t len)
{
	double total = fl->total, tb = fl->total_before;

	if (f->depth == 0) {
		puts_(o, "all (");
		put_samples(o, f->w);
		put(o, " ", 1);
		puts_(o, st->countname);
		puts_(o, ", 100%)");
		return;
	}
	put(o, name, len);
	puts_(o, " (");
	put_samples(o, f->w);
	put(o, " ", 1);
	puts_(o, st->countname);
	puts_(o, ", ");
	if (st->fill == LTAP_FLAME_DIFF_INCLUSIVE) {
		double a = 100 * f->w / total, b = tb > 0 ? 100 * f->before / tb : 0;
		put_fixed(o, a, 2, NULL);
		puts_(o, "%; before ");
		put_samples(o, f->before);
		puts_(o, ", ");
		put_fixed(o, b, 2, NULL);
		putf(o, "%%; %+.2f points)", a - b);
		return;
	}
	put_fixed(o, 100 * rounded(f->w) / total, 2, NULL);
	if (st->fill == LTAP_FLAME_DIFF_SELF) {
		double d = st->negate ? -f->delta : f->delta;
		puts_(o, "%; ");
		if (d > 0)
			put(o, "+", 1);
		put_fixed(o, 100 * d / total, 2, NULL);
		puts_(o, "%)");
		return;
	}
	puts_(o, "%)");
}

int ltap_flame_svg(const struct ltap_flame *fl, const struct ltap_flame_style *st, struct ltap_strbuf *text)
{
	struct out o = {text, 0}, info = {&(struct ltap_strbuf){0}, 0}, fill = {&(struct ltap_strbuf){0}, 0};
	double big = 1;

	if (st->fill == LTAP_FLAME_DIFF_INCLUSIVE) {
		double m = 0;
		for (size_t i = 0; i < fl->n; i++) {
			const struct ltap_flame_frame *f = &fl->f[i];
			double d = fabs(f->w / fl->total - (fl->total_before > 0 ? f->before / fl->total_before : 0));
			if (d > m)
				m = d;
		}
		big = m > 0 ? m : 1;
	} else if (st->fill == LTAP_FLAME_DIFF_SELF) {
		big = fl->maxdelta > 1 ? fl->maxdelta : 1;
	}
	/* a frame's line is 200-300 bytes: one allocation, not a copy per doubling */
	if (ltap_strbuf_reserve(text, fl->n * 320))
		return -ENOMEM;
	for (size_t i = 0; i < fl->n && !o.failed; i++) {
		const struct ltap_flame_frame *f = &fl->f[i];
		const char *name = f->name;
		size_t len = shown_len(name, f->len);
		double rx1 = st->xpad + f->x * st->wpt, rx2 = st->xpad + (f->x + f->w) * st->wpt, x1, x2, y1;
		double nchars = floor((rx2 - rx1) / st->charw);
		int d = f->depth;
		char x2text[32];

		if (i)
			put(&o, "\n", 1);
		fill.t->len = 0;
		if (st->fill == LTAP_FLAME_DIFF_INCLUSIVE)
			diff_color(&fill, f->w / fl->total - (fl->total_before > 0 ? f->before / fl->total_before : 0), big,
				   st->negate);
		else if (st->fill == LTAP_FLAME_DIFF_SELF)
			diff_color(&fill, f->delta, big, st->negate);
		else
			name_color(&fill, st, d == 0 ? "" : f->name, d == 0 ? 0 : f->len);
		info.t->len = 0;
		frame_info(&info, fl, st, f, name, len);
		if (fill.failed || info.failed) {
			o.failed = -ENOMEM;
			break;
		}
		put(&o, "<g", 2);
		if (st->cap >= 0 && d > st->cap)
			puts_(&o, " class=\"hide\"");
		else if (st->cap >= 0 && d == st->cap && f->h > 0)
			puts_(&o, " class=\"cut\"");
		puts_(&o, " data-name=\"");
		put_xml(&o, name, len);
		puts_(&o, "\" data-x=\"");
		put_num(&o, f->x);
		puts_(&o, "\" data-w=\"");
		put_num(&o, f->w);
		puts_(&o, "\" data-depth=\"");
		put_int(&o, d);
		put(&o, "\"", 1);
		if (st->cap >= 0) {
			puts_(&o, " data-h=\"");
			put_int(&o, f->h);
			put(&o, "\"", 1);
		}
		puts_(&o, " data-fill=\"");
		put(&o, fill.t->p, fill.t->len);
		puts_(&o, "\"><title>");
		put_xml(&o, info.t->p, info.t->len);
		puts_(&o, "</title><rect x=\"");
		/* x1, x2: the rect's edges as printed, which the width and the label take */
		put_fixed(&o, rx1, 1, &x1);
		fixed_text(rx2, 1, x2text, &x2);
		y1 = st->inverted ? st->base + d * st->fh : st->base - (d + 1) * st->fh + 1;
		puts_(&o, "\" y=\"");
		put_int(&o, (long long)y1);
		puts_(&o, "\" width=\"");
		put_fixed(&o, x2 - x1, 1, NULL);
		puts_(&o, "\" height=\"");
		put_fixed(&o, st->fh - 1, 1, NULL);
		puts_(&o, "\" fill=\"");
		put(&o, fill.t->p, fill.t->len);
		puts_(&o, "\" rx=\"2\" ry=\"2\"/><text x=\"");
		put_fixed(&o, x1 + 3, 2, NULL);
		puts_(&o, "\" y=\"");
		put_num(&o, y1 + st->ty_off);
		puts_(&o, "\">");
		if (nchars >= 3) {
			if ((double)len > nchars) {
				put_xml(&o, name, (size_t)nchars - 2);
				puts_(&o, "..");
			} else {
				put_xml(&o, name, len);
			}
		}
		puts_(&o, "</text></g>");
	}
	free(info.t->p);
	free(fill.t->p);
	return o.failed ? -ENOMEM : 0;
}
