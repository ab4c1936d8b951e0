/* ringclock.c: the ring's clock followed against CLOCK_MONOTONIC
 * (ringclock.h): the segments, the fit that steers them, their marks. */
#include "ringclock.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define Q32 4294967296.0
/* a sample this far off the line is a jump (a suspend), not drift */
#define JUMP_NS 1000000
/* how far a replay's segment may start from where the last one is */
#define SEAM_NS 1000

static const struct ltap_ringclock_seg *seg_at(const struct ltap_ringclock *k, int back)
{
	return &k->segs[(k->last - back + LTAP_RINGCLOCK_SEGS) % LTAP_RINGCLOCK_SEGS];
}

void ltap_ringclock_init(struct ltap_ringclock *k)
{
	memset(k, 0, sizeof *k);
	k->nsegs = 1; /* from 0 on, no correction */
}

int64_t ltap_ringclock_corr_slow(const struct ltap_ringclock *k, uint64_t c)
{
	for (int i = 0; i < k->nsegs; i++)
		if (c >= seg_at(k, i)->from)
			return ltap_ringclock_corr(seg_at(k, i), c);
	return ltap_ringclock_corr(seg_at(k, k->nsegs - 1), c);
}

static int64_t corr_at(const struct ltap_ringclock *k, uint64_t c)
{
	return c >= k->cur.from ? ltap_ringclock_corr(&k->cur, c) : ltap_ringclock_corr_slow(k, c);
}

void ltap_ringclock_sample(struct ltap_ringclock *k, uint64_t c, int64_t lo, int64_t hi)
{
	int64_t m = corr_at(k, c), mid = lo + (hi - lo) / 2, err;

	if (hi < lo)
		return; /* the reads disagree with themselves: nothing to learn */
	/* the correction lies in [lo, hi]: the model at most this far from it */
	err = m < lo ? hi - m : m > hi ? m - lo : (m - lo > hi - m ? m - lo : hi - m);
	if (err > k->worst)
		k->worst = err;
	if (k->count == 0) {
		k->first_c = c;
		k->first_mid = mid;
	}
	if (k->nsamples && (mid - m > JUMP_NS || m - mid > JUMP_NS))
		k->nsamples = 0; /* fit the line anew from here */
	k->samples[k->next] = (struct ltap_ringclock_sample){c, lo, hi};
	k->next = (k->next + 1) % LTAP_RINGCLOCK_FIT;
	if (k->nsamples < LTAP_RINGCLOCK_FIT)
		k->nsamples++;
	k->count++;
}

/* The line through the samples' middles, weighted by how narrow each is:
 * correction = a + b * (c - ref). 0 when there is no sample. */
static int fit(const struct ltap_ringclock *k, uint64_t ref, double *a, double *b)
{
	double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, det;

	if (!k->nsamples)
		return 0;
	for (int i = 0; i < k->nsamples; i++) {
		/* the newest nsamples of the ring */
		const struct ltap_ringclock_sample *s =
		    &k->samples[(k->next - k->nsamples + i + LTAP_RINGCLOCK_FIT) % LTAP_RINGCLOCK_FIT];
		double x = (double)(int64_t)(s->c - ref), y = (double)s->lo + (double)(s->hi - s->lo) / 2,
		       w = 1.0 / (((double)(s->hi - s->lo) + 100.0) * ((double)(s->hi - s->lo) + 100.0));
		sw += w;
		sx += w * x;
		sy += w * y;
		sxx += w * x * x;
		sxy += w * x * y;
	}
	det = sw * sxx - sx * sx;
	/* one sample, or all at one moment: the slope stays what it is */
	if (k->nsamples < 2 || det <= sw * sw * 1e10) {
		*b = (double)k->cur.rate / Q32;
		*a = (sy - *b * sx) / sw;
		return 1;
	}
	*b = (sw * sxy - sx * sy) / det;
	*a = (sy - *b * sx) / sw;
	return 1;
}

struct ltap_ringclock_seg ltap_ringclock_steer(struct ltap_ringclock *k, uint64_t from, uint64_t horizon)
{
	struct ltap_ringclock_seg s = {from, corr_at(k, from), k->cur.rate};
	double a, b, rate, max = LTAP_RINGCLOCK_MAX_PPM * 1e-6;

	/* the fitted slope, and what is left to the line made up by the horizon */
	if (horizon && fit(k, from, &a, &b)) {
		rate = b + (a - (double)s.shift) / (double)horizon;
		rate = rate > max ? max : rate < -max ? -max : rate;
		s.rate = (int64_t)llround(rate * Q32);
	}
	ltap_ringclock_push(k, &s);
	return s;
}

int ltap_ringclock_push(struct ltap_ringclock *k, const struct ltap_ringclock_seg *s)
{
	int64_t at, max = (int64_t)(LTAP_RINGCLOCK_MAX_PPM * 1e-6 * Q32);

	if (s->from <= k->cur.from || s->rate > max || s->rate < -max) {
		k->rejected++;
		return -1;
	}
	at = ltap_ringclock_corr(&k->cur, s->from);
	if (s->shift - at > SEAM_NS || at - s->shift > SEAM_NS) {
		k->rejected++;
		return -1;
	}
	k->last = (k->last + 1) % LTAP_RINGCLOCK_SEGS;
	k->segs[k->last] = *s;
	if (k->nsegs < LTAP_RINGCLOCK_SEGS)
		k->nsegs++;
	k->cur = *s;
	return 0;
}

int ltap_ringclock_format(char *buf, size_t len, unsigned seq, unsigned k, const struct ltap_ringclock_seg *s)
{
	if (!s)
		return snprintf(buf, len, LTAP_RINGCLOCK_MARK "%u.%u", seq, k);
	return snprintf(buf, len, LTAP_RINGCLOCK_MARK "%u.%u from=%llu shift=%lld rate=%lld", seq, k,
			(unsigned long long)s->from, (long long)s->shift, (long long)s->rate);
}

int ltap_ringclock_parse(const char *text, size_t len, unsigned *seq, unsigned *k, struct ltap_ringclock_seg *s,
			 int *has_seg)
{
	char buf[128];
	unsigned long long from;
	long long shift, rate;
	int n = 0;
	size_t m = sizeof LTAP_RINGCLOCK_MARK - 1;

	if (len < m || memcmp(text, LTAP_RINGCLOCK_MARK, m) != 0)
		return 0;
	len = len < sizeof buf - 1 ? len : sizeof buf - 1;
	memcpy(buf, text, len);
	buf[len] = 0;
	if (sscanf(buf + m, "%u.%u%n", seq, k, &n) != 2)
		return 0;
	*has_seg = sscanf(buf + m + n, " from=%llu shift=%lld rate=%lld", &from, &shift, &rate) == 3;
	if (*has_seg)
		*s = (struct ltap_ringclock_seg){from, shift, rate};
	return 1;
}
