/* parse.c: durations, sizes and edit distance. */
#include "parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct { const char *unit; double scale; } duration_units[] = {
	{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9}, {"", 1e9},
};

/* The leading non-negative number of s; *end is what follows it. */
static int parse_number(const char *s, double *v, char **end)
{
	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	*v = strtod(s, end);
	if (errno || *end == s || *v < 0 || !isfinite(*v))
		return -EINVAL;
	return 0;
}

static int duration_scale(double v, double scale, uint64_t *ns)
{
	double r = v * scale;
	if (!(r >= 0) || r > 1.8e19) /* NaN fails the first test */
		return -EINVAL;
	*ns = (uint64_t)round(r); /* not llround: past INT64_MAX it overflows */
	return 0;
}

int ltap_parse_duration(const char *s, uint64_t *ns)
{
	char *end;
	double v;
	size_t i;

	if (parse_number(s, &v, &end))
		return -EINVAL;
	for (i = 0; i < sizeof duration_units / sizeof duration_units[0]; i++)
		if (strcmp(end, duration_units[i].unit) == 0)
			return duration_scale(v, duration_units[i].scale, ns);
	return -EINVAL;
}

int ltap_parse_seconds(double s, uint64_t *ns)
{
	return duration_scale(s, 1e9, ns);
}

int ltap_parse_size(const char *s, uint64_t *bytes)
{
	static const char units[] = "KMGT";
	char *end;
	double v;
	const char *u;

	if (parse_number(s, &v, &end))
		return -EINVAL;
	if (*end && (u = strchr(units, *end & ~0x20)) != NULL) {
		for (int k = 0; k <= u - units; k++)
			v *= 1024;
		end++;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v > 1.8e19)
		return -EINVAL;
	*bytes = (uint64_t)round(v);
	return 0;
}

int ltap_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	int *row, d;

	if (la > 256 || lb > 256)
		return 1000;
	row = malloc((lb + 1) * sizeof *row);
	if (!row)
		return 1000;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0];
		row[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int cost = a[i - 1] != b[j - 1];
			int best = diag + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	d = row[lb];
	free(row);
	return d;
}
