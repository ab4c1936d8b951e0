/* ringclock.h: the ftrace ring's clock turned into CLOCK_MONOTONIC, over a
 * whole run.
 *
 * The ring keeps the kernel's `local` clock (sched_clock), which no one
 * slews: against CLOCK_MONOTONIC it drifts by what NTP corrects and by how
 * differently the two were calibrated (a KVM guest's kvm-clock against its
 * TSC: 0.48 ppm here, 1.7 ms an hour). A constant offset measured at the
 * start (instance.c) would be that far off an hour later. So ltap measures
 * again once a second, with trace_marker writes between CLOCK_MONOTONIC
 * reads (each a bound on the correction, "a sample"), and follows the drift
 * with a continuous line in pieces ("segments"): each new piece starts where
 * the last one is, a millisecond ahead of any event read, with the slope that
 * brings it onto the line fitted through the recent samples.
 *
 * Time here is "c", the ring's clock plus the start's offset (what a
 * recording's OFFSET option holds and libtracecmd adds): the correction is
 * CLOCK_MONOTONIC - c, zero at the start. Each segment is announced in the
 * trace by a mark ("ltap-clock SEQ.K from=C shift=NS rate=Q32") written
 * before any event it applies to, so a replay of a
 * recording rebuilds the same segments and converts every event to the same
 * nanosecond as the live run did. */
#ifndef LTAP_RINGCLOCK_H
#define LTAP_RINGCLOCK_H

#include <stddef.h>
#include <stdint.h>

/* the text every clock mark starts with */
#define LTAP_RINGCLOCK_MARK "ltap-clock "
/* segments kept: an event read later than this many segments (a minute)
 * after its time is converted by the oldest */
#define LTAP_RINGCLOCK_SEGS 64
/* samples a fit uses: the last 16 s */
#define LTAP_RINGCLOCK_FIT 16
/* the slope's bound, in parts per million (NTP slews at most 500) */
#define LTAP_RINGCLOCK_MAX_PPM 1000

/* From c = from on: correction = shift + (c - from) * rate / 2^32. */
struct ltap_ringclock_seg {
	uint64_t from;
	int64_t shift;
	int64_t rate; /* ns per ns, fixed point with 32 fraction bits */
};

struct ltap_ringclock_sample {
	uint64_t c;
	int64_t lo, hi; /* the correction lies within */
};

struct ltap_ringclock {
	struct ltap_ringclock_seg cur;                      /* the newest segment: the fast path */
	struct ltap_ringclock_seg segs[LTAP_RINGCLOCK_SEGS]; /* a ring, cur among them */
	int nsegs, last;
	/* the live run's measurements (a replay has none) */
	struct ltap_ringclock_sample samples[LTAP_RINGCLOCK_FIT];
	int nsamples, next;
	uint64_t first_c;     /* the first sample's time */
	int64_t first_mid;    /* and its middle */
	int64_t worst;        /* the largest bound on the error seen at a sample, ns */
	uint64_t count;       /* samples taken */
	int rejected;         /* segments of a replay refused */
};

/* The correction of one segment at c (c >= s->from). */
static inline int64_t ltap_ringclock_corr(const struct ltap_ringclock_seg *s, uint64_t c)
{
	__int128 d = (__int128)(int64_t)(c - s->from) * s->rate;
	return s->shift + (int64_t)(d >> 32);
}

int64_t ltap_ringclock_corr_slow(const struct ltap_ringclock *k, uint64_t c);

/* c (the ring's clock plus the start's offset) on CLOCK_MONOTONIC: the
 * per-event path, a compare and a multiply. */
static inline uint64_t ltap_ringclock_mono(const struct ltap_ringclock *k, uint64_t c)
{
	if (__builtin_expect(c >= k->cur.from, 1))
		return c + (uint64_t)ltap_ringclock_corr(&k->cur, c);
	return c + (uint64_t)ltap_ringclock_corr_slow(k, c);
}

/* No correction: the start's offset alone (a replay without marks). */
void ltap_ringclock_init(struct ltap_ringclock *k);

/* A live run's sample: at c, the correction lies in [lo, hi]. The first
 * is the start's. A sample that jumps more than a millisecond off the line
 * (a suspend, a clock set) starts the fit anew. */
void ltap_ringclock_sample(struct ltap_ringclock *k, uint64_t c, int64_t lo, int64_t hi);

/* The next segment, from c = from on (after every event read so far): it
 * starts where the current one is at from, with the fitted line's slope
 * plus what meets the line `horizon` ns later (the next sample's time).
 * Pushed, and returned for its mark. */
struct ltap_ringclock_seg ltap_ringclock_steer(struct ltap_ringclock *k, uint64_t from, uint64_t horizon);

/* A mark's text: "ltap-clock SEQ.K", and the segment s announces if any. */
int ltap_ringclock_format(char *buf, size_t len, unsigned seq, unsigned k, const struct ltap_ringclock_seg *s);
/* Reads a mark's text (len bytes, not necessarily ended): 1 with *seq and
 * *k, and *s when it carries a segment (*has_seg); 0 if not a clock mark. */
int ltap_ringclock_parse(const char *text, size_t len, unsigned *seq, unsigned *k, struct ltap_ringclock_seg *s,
			 int *has_seg);

/* A replay's segment, read from a mark: taken when it follows the newest
 * one in time, continues it (within a microsecond) and its slope is within
 * bounds; else refused (counted), so a damaged file cannot make time run
 * backwards. 0, or -1 when refused. */
int ltap_ringclock_push(struct ltap_ringclock *k, const struct ltap_ringclock_seg *s);

#endif
