/* perfscript.c: one pass over the lines; the tidied frames of a (module,
 * symbol) are made once and kept in a hash table (a sample repeats the
 * frames of many before it), as stdlib/perfscript.lua kept them in tables.
 * Each rule is that Lua's pattern, spelled out: the comments name it. */
#include "perfscript.h"

#include "strbuf.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int text_add(struct ltap_strbuf *t, const char *s, size_t n)
{
	return ltap_strbuf_add(t, s, n);
}

static int text_adds(struct ltap_strbuf *t, const char *s)
{
	return ltap_strbuf_add(t, s, strlen(s));
}

static int blank(char c)
{
	return isspace((unsigned char)c) != 0;
}

static int word(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static const char *find(const char *s, size_t len, const char *what)
{
	return memmem(s, len, what, strlen(what));
}

/* ---- header: "comm pid[/tid] ..." and ": period event:" ---- */

struct header {
	const char *comm, *pid, *tid;
	size_t commlen, pidlen, tidlen;
};

/* "^(%S..-)%s+(%d+)[/]*(%d*)%s": the shortest comm (two characters at
 * least, the first no blank) followed by blanks, the pid, slashes, the tid
 * and a blank. */
static int header(const char *l, size_t len, struct header *h)
{
	if (len < 2 || blank(l[0]))
		return 0;
	for (size_t c = 2; c < len; c++) {
		size_t i = c, p0, p1, t0, t1;
		if (!blank(l[i]))
			continue;
		while (i < len && blank(l[i]))
			i++;
		for (p0 = i; i < len && isdigit((unsigned char)l[i]); i++)
			;
		if ((p1 = i) == p0)
			continue;
		while (i < len && l[i] == '/')
			i++;
		for (t0 = i; i < len && isdigit((unsigned char)l[i]); i++)
			;
		t1 = i;
		if (i < len && blank(l[i])) {
			*h = (struct header){l, l + p0, l + t0, c, p1 - p0, t1 - t0};
			return 1;
		}
	}
	return 0;
}

/* ":%s*(%d*)%s+(%S+):%s*$" at the leftmost ':' where it matches: the
 * period (maybe empty) and the event (the last field, without its ':'). */
static int period_event(const char *l, size_t len, const char **period, size_t *plen, const char **ev, size_t *evlen)
{
	size_t end = len;

	while (end > 0 && blank(l[end - 1]))
		end--;
	for (size_t c = 0; c < len; c++) {
		size_t i = c + 1, sp, d0, d1, t0;
		if (l[c] != ':')
			continue;
		for (sp = i; i < len && blank(l[i]); i++)
			;
		sp = i - sp;
		for (d0 = i; i < len && isdigit((unsigned char)l[i]); i++)
			;
		d1 = i;
		if (d1 > d0 && !(i < len && blank(l[i]))) {
			/* digits not followed by a blank: they may start the event after an empty period */
			if (!sp)
				continue;
			i = d0;
			d1 = d0;
		} else if (d1 == d0 && !sp) {
			continue;
		}
		while (i < len && blank(l[i]))
			i++;
		t0 = i;
		/* the rest: non-blanks ending in ':' (one at least before it), then blanks */
		if (end < t0 + 2 || l[end - 1] != ':')
			continue;
		for (i = t0; i < end && !blank(l[i]); i++)
			;
		if (i != end)
			continue;
		*period = l + d0;
		*plen = d1 - d0;
		*ev = l + t0;
		*evlen = end - 1 - t0;
		return 1;
	}
	return 0;
}

/* ---- frame line: "^%s*([%w_]+)%s*(.+) %((.*)%)" ---- */

struct frame {
	const char *pc, *raw, *mod;
	size_t pclen, rawlen, modlen;
};

/* The greedy pattern with its backtracking spelled out: the symbol ends at
 * the last " (" that a ')' follows, the module runs to the last ')'. */
static int frame_line(const char *l, size_t len, struct frame *f)
{
	size_t i0 = 0, j1, k1, j, k, lastp, e = SIZE_MAX;

	while (i0 < len && blank(l[i0]))
		i0++;
	for (j1 = i0; j1 < len && word(l[j1]); j1++)
		;
	if (j1 == i0)
		return 0;
	for (lastp = len; lastp > 0 && l[lastp - 1] != ')'; lastp--)
		;
	if (!lastp)
		return 0;
	lastp--; /* the last ')' */
	/* the last " (" that ends at least one before the ')' */
	for (const char *q = lastp >= 1 ? memrchr(l, '(', lastp - 1) : NULL; q;
	     q = q > l ? memrchr(l, '(', (size_t)(q - l)) : NULL)
		if (q > l && q[-1] == ' ') {
			e = (size_t)(q - l) - 1;
			break;
		}
	if (e == SIZE_MAX || e < i0 + 2)
		return 0;
	for (k1 = j1; k1 < len && blank(l[k1]); k1++)
		;
	if (e >= j1 + 1) {
		j = j1;
		k = k1 < e - 1 ? k1 : e - 1;
	} else {
		j = e - 1; /* the symbol's first character comes off the address */
		k = j;
	}
	*f = (struct frame){l + i0, l + k, l + e + 2, j - i0, e - k, lastp - (e + 2)};
	return 1;
}

/* ---- frames tidied as the Perl names them ---- */

/* Everything from the first '(' that does not open "(anonymous namespace)". */
static size_t strip_args(const char *f, size_t len)
{
	static const char anon[] = "(anonymous namespace)";

	for (size_t p = 0; p < len; p++)
		if (f[p] == '(' && !(len - p >= sizeof anon - 1 && memcmp(f + p, anon, sizeof anon - 1) == 0))
			return p;
	return len;
}

/* "%.%(.*%)%.": a ".(" and, later, ")." (Go's pkg.(*T).M) */
static int go_method(const char *f, size_t len)
{
	const char *a = find(f, len, ".(");
	return a && find(a + 2, len - (size_t)(a + 2 - f), ").") != NULL;
}

/* Whether the frame's module is the kernel's: "[kernel.kallsyms]", a
 * "[module]", or a path ending in vmlinux. */
static int fr_in_kernel(const struct frame *fr)
{
	return (fr->modlen && fr->mod[0] == '[') ||
	       (fr->modlen >= 7 && memcmp(fr->mod + fr->modlen - 7, "vmlinux", 7) == 0);
}

/* The tidied name of one part (of an inline chain) into out. */
static int tidy_one(struct ltap_strbuf *out, const char *func, size_t flen, const struct frame *fr,
		    const struct ltap_perfscript_opts *o, int java, int first, int *unknown)
{
	struct ltap_strbuf t = {0};
	int rc = 0;

	if (flen == 9 && memcmp(func, "[unknown]", 9) == 0) {
		const char *base = "unknown";
		size_t blen = 7;
		if (!(fr->modlen == 9 && memcmp(fr->mod, "[unknown]", 9) == 0)) {
			const char *slash = NULL;
			for (size_t i = fr->modlen; i-- > 0;)
				if (fr->mod[i] == '/') {
					slash = fr->mod + i;
					break;
				}
			base = slash ? slash + 1 : fr->mod;
			blen = fr->modlen - (size_t)(base - fr->mod);
		} else {
			*unknown = 1;
		}
		rc |= text_add(&t, "[", 1) | text_add(&t, base, blen);
		if (o->addrs)
			rc |= text_add(&t, " <", 2) | text_add(&t, fr->pc, fr->pclen) | text_add(&t, ">", 1);
		rc |= text_add(&t, "]", 1);
	} else {
		rc |= text_add(&t, func, flen);
	}
	if (rc)
		goto out;
	/* "[;\"'(]": ';' made ':', arguments and quotes dropped */
	for (size_t i = 0; i < t.len; i++)
		if (t.p[i] == ';' || t.p[i] == '"' || t.p[i] == '\'' || t.p[i] == '(') {
			size_t k = 0;
			for (size_t j = 0; j < t.len; j++)
				if (t.p[j] == ';')
					t.p[j] = ':';
			if (!go_method(t.p, t.len))
				t.len = strip_args(t.p, t.len);
			for (size_t j = 0; j < t.len; j++)
				if (t.p[j] != '"' && t.p[j] != '\'')
					t.p[k++] = t.p[j];
			t.len = k;
			break;
		}
	if (java && memchr(t.p ? t.p : "", '/', t.len) && t.len && t.p[0] == 'L') {
		memmove(t.p, t.p + 1, t.len - 1);
		t.len--;
	}
	rc = text_add(out, t.p ? t.p : "", t.len);
	if (!first) {
		if (!find(t.p ? t.p : "", t.len, "_[i]"))
			rc |= text_adds(out, "_[i]");
	} else if (o->kernel && fr_in_kernel(fr) && !find(fr->mod, fr->modlen, "unknown")) {
		rc |= text_adds(out, "_[k]");
	} else if (o->jit) {
		/* "/tmp/perf%-%d+%.map" anywhere in the module */
		const char *p = fr->mod, *end = fr->mod + fr->modlen;
		int jit = 0;
		while (!jit && (p = find(p, (size_t)(end - p), "/tmp/perf-")) != NULL) {
			const char *d = p + 10;
			while (d < end && isdigit((unsigned char)*d))
				d++;
			jit = d > p + 10 && end - d >= 4 && memcmp(d, ".map", 4) == 0;
			p++;
		}
		if (jit && !find(t.p ? t.p : "", t.len, "_[j]"))
			rc |= text_adds(out, "_[j]");
	}
out:
	free(t.p);
	return rc ? -ENOMEM : 0;
}

/* A source line under a frame (perf script -F+srcline): "[...]" parts
 * dropped, blanks trimmed; appended as ":LINE" unless empty. */
static int tidy_srcline(struct ltap_strbuf *out, const char *s, size_t len)
{
	struct ltap_strbuf t = {0};
	size_t a = 0, b;
	int rc = 0;

	/* "%[.-%]" removed, shortest first */
	for (size_t i = 0; i < len;) {
		const char *close = s[i] == '[' ? memchr(s + i + 1, ']', len - i - 1) : NULL;
		if (close) {
			i = (size_t)(close - s) + 1;
			continue;
		}
		rc |= text_add(&t, s + i, 1);
		i++;
	}
	b = t.len;
	while (a < b && blank(t.p[a]))
		a++;
	while (b > a && blank(t.p[b - 1]))
		b--;
	if (!rc && b > a)
		rc = text_add(out, ":", 1) | text_add(out, t.p + a, b - a);
	free(t.p);
	return rc ? -ENOMEM : 0;
}

/* ---- the cache of tidied lines ---- */

struct tidied {
	uint64_t hash;
	size_t keylen;
	char *key;   /* java flag, module, '\0', symbol */
	char *frags; /* the frames, root first, joined by ';' */
	size_t fraglen;
	int n;       /* frames */
};

struct cache {
	struct tidied *slots;
	size_t cap, used;
};

/* eight bytes at a time: stacks are hundreds of bytes */
static uint64_t cache_hash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 29);
}

static struct tidied *cache_find(struct cache *c, const char *key, size_t len, uint64_t h)
{
	if (!c->cap)
		return NULL;
	for (size_t i = h & (c->cap - 1);; i = (i + 1) & (c->cap - 1)) {
		struct tidied *t = &c->slots[i];
		if (!t->key)
			return t;
		if (t->hash == h && t->keylen == len && memcmp(t->key, key, len) == 0)
			return t;
	}
}

static int cache_grow(struct cache *c)
{
	size_t ncap = c->cap ? c->cap * 2 : 1024;
	struct tidied *ns = calloc(ncap, sizeof *ns), *old = c->slots;
	size_t ocap = c->cap;

	if (!ns)
		return -ENOMEM;
	c->slots = ns;
	c->cap = ncap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].key)
			*cache_find(c, old[i].key, old[i].keylen, old[i].hash) = old[i];
	free(old);
	return 0;
}

static void cache_free(struct cache *c)
{
	for (size_t i = 0; i < c->cap; i++) {
		free(c->slots[i].key);
		free(c->slots[i].frags);
	}
	free(c->slots);
}

/* ---- the fold ---- */

struct fold {
	const struct ltap_perfscript_opts *o;
	struct ltap_lines *r;
	struct ltap_perfscript_info *info;
	struct ltap_strbuf frags;   /* this sample's frames, by line */
	size_t *at, *len;    /* per line of the sample: its frames in frags */
	int *n;
	size_t nlines, caplines;
	struct ltap_strbuf stack;   /* the stack being built */
	struct ltap_strbuf pname;
	const char *period;  /* of the sample being read, in periodbuf */
	char periodbuf[64];
	size_t plen;
	int have;            /* a sample is being read (pname set) */
	struct ltap_strbuf filter;  /* the event kept ("" until the first is seen) */
	struct ltap_strbuf key;     /* a cache key being built */
	struct cache cache;  /* (java?, module, symbol) -> tidied frames */
	struct cache stacks; /* stack -> its number (the frags field unused) */
};

/* The frames of one frame line, root first: "a->b" is a calling the inlined b. */
static int fold_tidy(struct fold *s, const struct frame *fr, const char *raw, size_t rawlen, int java,
		     struct ltap_strbuf *out, int *nframes)
{
	size_t parts = 0, pos = 0, ends[512], starts[512];
	int unknown = 0, rc = 0;

	/* split on "->", trailing empty parts dropped (Perl's split) */
	for (;;) {
		const char *a = find(raw + pos, rawlen - pos, "->");
		size_t end = a ? (size_t)(a - raw) : rawlen;
		if (parts < 512) {
			starts[parts] = pos;
			ends[parts] = end;
			parts++;
		}
		if (!a)
			break;
		pos = end + 2;
	}
	while (parts > 0 && ends[parts - 1] == starts[parts - 1])
		parts--;
	for (size_t i = 0; i < parts && !rc; i++) {
		if (i)
			rc = text_add(out, ";", 1);
		rc = rc ? rc : tidy_one(out, raw + starts[i], ends[i] - starts[i], fr, s->o, java, i == 0, &unknown);
		if (!rc && s->o->srcline && !unknown) {
			const char *l;
			size_t n;
			int got = ltap_lines_next(s->r, &l, &n);
			if (got < 0)
				return got;
			if (got > 0) {
				s->info->lines++;
				rc = tidy_srcline(out, l, n);
			}
		}
	}
	*nframes = (int)parts;
	return rc;
}

static int fold_line_frames(struct fold *s, const char *l, size_t len)
{
	struct frame fr;
	const char *raw;
	size_t rawlen;
	int java, n, rc;
	size_t at;

	if (!frame_line(l, len, &fr)) {
		s->info->unrecognized++;
		if (!s->info->first_unrecognized)
			s->info->first_unrecognized = s->info->lines;
		return 0;
	}
	if (!s->have)
		return 0;
	raw = fr.raw;
	rawlen = fr.rawlen;
	/* "%+0x%x+$": the offset goes */
	{
		size_t i = rawlen;
		while (i > 0 && isxdigit((unsigned char)raw[i - 1]))
			i--;
		if (i < rawlen && i >= 3 && raw[i - 1] == 'x' && raw[i - 2] == '0' && raw[i - 3] == '+')
			rawlen = i - 3;
	}
	if (rawlen && raw[0] == '(')
		return 0;
	java = s->pname.len >= 4 && memcmp(s->pname.p, "java", 4) == 0;
	if (s->nlines == s->caplines) {
		size_t c = s->caplines ? s->caplines * 2 : 64;
		size_t *na = realloc(s->at, c * sizeof *na), *nl = na ? realloc(s->len, c * sizeof *nl) : NULL;
		int *nn = nl ? realloc(s->n, c * sizeof *nn) : NULL;
		if (na)
			s->at = na;
		if (nl)
			s->len = nl;
		if (!na || !nl || !nn)
			return -ENOMEM;
		s->n = nn;
		s->caplines = c;
	}
	at = s->frags.len;
	/* the tidied frames of a (module, symbol) are the same every time, unless
	 * they take the address or the lines after */
	if (s->o->srcline || (s->o->addrs && find(raw, rawlen, "[unknown]"))) {
		if ((rc = fold_tidy(s, &fr, raw, rawlen, java, &s->frags, &n)))
			return rc;
	} else {
		struct ltap_strbuf *key = &s->key;
		struct tidied *t;
		uint64_t h;
		/* java?, the module, a NUL (text_add ends the text with one), the symbol */
		key->len = 0;
		rc = text_add(key, java ? "j" : "n", 1) | text_add(key, fr.mod, fr.modlen);
		if (!rc) {
			key->len++;
			rc = text_add(key, raw, rawlen);
		}
		if (rc)
			return -ENOMEM;
		h = cache_hash(key->p, key->len);
		if ((s->cache.used + 1) * 2 > s->cache.cap && cache_grow(&s->cache))
			return -ENOMEM;
		t = cache_find(&s->cache, key->p, key->len, h);
		if (!t->key) {
			struct ltap_strbuf frags = {0};
			char *copy = malloc(key->len);
			if (!copy)
				return -ENOMEM;
			memcpy(copy, key->p, key->len);
			if ((rc = fold_tidy(s, &fr, raw, rawlen, java, &frags, &n))) {
				free(copy);
				free(frags.p);
				return rc;
			}
			*t = (struct tidied){h, key->len, copy, frags.p, frags.len, n};
			s->cache.used++;
		}
		if (text_add(&s->frags, t->frags ? t->frags : "", t->fraglen))
			return -ENOMEM;
		n = t->n;
	}
	s->at[s->nlines] = at;
	s->len[s->nlines] = s->frags.len - at;
	s->n[s->nlines] = n;
	s->nlines++;
	return 0;
}

/* The stack of the sample read, if one is: the command, then its frames
 * root first (the last line first); its number among the stacks seen. */
static int fold_flush(struct fold *s, ltap_perfscript_fn fn, void *ud)
{
	int rc = 0;

	if (s->have) {
		struct tidied *t;
		uint64_t h;
		s->stack.len = 0;
		rc = text_add(&s->stack, s->pname.p, s->pname.len);
		for (size_t i = s->nlines; i-- > 0 && !rc;)
			if (s->n[i])
				rc = text_add(&s->stack, ";", 1) | text_add(&s->stack, s->frags.p + s->at[i], s->len[i]);
		if (rc || ((s->stacks.used + 1) * 2 > s->stacks.cap && cache_grow(&s->stacks)))
			return -ENOMEM;
		h = cache_hash(s->stack.p, s->stack.len);
		t = cache_find(&s->stacks, s->stack.p, s->stack.len, h);
		if (!t->key) {
			if (!(t->key = malloc(s->stack.len ? s->stack.len : 1)))
				return -ENOMEM;
			memcpy(t->key, s->stack.p, s->stack.len);
			t->hash = h;
			t->keylen = s->stack.len;
			t->n = (int)s->stacks.used++;
			rc = fn(ud, (size_t)t->n, s->stack.p, s->stack.len, s->period, s->plen);
		} else {
			rc = fn(ud, (size_t)t->n, NULL, 0, s->period, s->plen);
		}
		if (rc)
			return rc;
	}
	s->have = 0;
	s->nlines = 0;
	s->frags.len = 0;
	return 0;
}

static int fold_header(struct fold *s, const char *l, size_t len, const struct header *h, int *defaulted)
{
	const char *p = NULL, *ev;
	size_t plen = 0, evlen = 0;
	int rc = 0;

	if (period_event(l, len, &p, &plen, &ev, &evlen)) {
		if (!s->filter.len) {
			if (text_add(&s->filter, ev, evlen))
				return -ENOMEM;
			snprintf(s->info->event, sizeof s->info->event, "%.*s", (int)evlen, ev);
			*defaulted = 1;
		} else if (s->filter.len != evlen || memcmp(s->filter.p, ev, evlen) != 0) {
			if (*defaulted && !s->info->left_out[0])
				snprintf(s->info->left_out, sizeof s->info->left_out, "%.*s", (int)evlen, ev);
			return 0; /* another event: the sample is left out */
		}
	}
	/* the period, unless absent or zero */
	s->period = NULL;
	s->plen = 0;
	for (size_t i = 0; i < plen; i++)
		if (p[i] != '0') {
			size_t n = plen < sizeof s->periodbuf ? plen : sizeof s->periodbuf - 1;
			memcpy(s->periodbuf, p, n);
			s->period = s->periodbuf;
			s->plen = n;
			break;
		}
	s->pname.len = 0;
	rc |= text_add(&s->pname, h->comm, h->commlen);
	if (s->o->tid || s->o->pid) {
		/* one number is the tid: the pid is then unknown */
		int one = h->tidlen == 0 || (h->tidlen == 1 && h->tid[0] == '0');
		rc |= text_add(&s->pname, "-", 1);
		if (one)
			rc |= text_add(&s->pname, "?", 1);
		else
			rc |= text_add(&s->pname, h->pid, h->pidlen);
		if (s->o->tid) {
			rc |= text_add(&s->pname, "/", 1);
			rc |= one ? text_add(&s->pname, h->pid, h->pidlen) : text_add(&s->pname, h->tid, h->tidlen);
		}
	}
	for (size_t i = 0; i < s->pname.len; i++)
		if (s->pname.p[i] == ' ')
			s->pname.p[i] = '_';
	s->have = 1;
	return rc ? -ENOMEM : 0;
}

int ltap_perfscript_fold(struct ltap_lines *r, const struct ltap_perfscript_opts *o, ltap_perfscript_fn fn,
			 void *ud, struct ltap_perfscript_info *info)
{
	struct fold s = {.o = o, .r = r, .info = info};
	int defaulted = 0, rc = 0, got;
	const char *l;
	size_t len;

	memset(info, 0, sizeof *info);
	if (o->event && *o->event) {
		snprintf(info->event, sizeof info->event, "%s", o->event);
		if (text_adds(&s.filter, o->event))
			return -ENOMEM;
	}
	while (!rc && (got = ltap_lines_next(r, &l, &len)) > 0) {
		struct header h;
		info->lines++;
		if (len && l[0] == '#')
			continue; /* comments, perf script --header */
		if (len == 0 || (len == 1 && l[0] == '\r'))
			rc = fold_flush(&s, fn, ud);
		else if (header(l, len, &h))
			rc = fold_header(&s, l, len, &h, &defaulted);
		else
			rc = fold_line_frames(&s, l, len);
	}
	if (!rc && got < 0)
		rc = got;
	if (!rc)
		rc = fold_flush(&s, fn, ud);
	cache_free(&s.cache);
	cache_free(&s.stacks);
	free(s.key.p);
	free(s.frags.p);
	free(s.at);
	free(s.len);
	free(s.n);
	free(s.stack.p);
	free(s.pname.p);
	free(s.filter.p);
	return rc;
}
