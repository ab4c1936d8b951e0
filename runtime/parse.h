/* parse.h: the one parser for durations ("5s", "250ms") and sizes ("4M"). */
#ifndef LTAP_PARSE_H
#define LTAP_PARSE_H

#include "ltap.h" /* ltap_parse_duration and ltap_parse_size are public */

#include <stdint.h>

/* A bare number is seconds. Units: ns us ms s m h. Returns 0 or -EINVAL. */
int ltap_parse_duration(const char *s, uint64_t *ns);
/* Seconds given as a number (every(0.25, f)), rounded to ns as a string's
 * are: 0, or -EINVAL when negative, not finite or past 2^64 ns. */
int ltap_parse_seconds(double s, uint64_t *ns);
/* A bare number is bytes. Units: K M G (powers of 1024), optional trailing B. */
int ltap_parse_size(const char *s, uint64_t *bytes);
/* Levenshtein distance, for "did you mean" suggestions. */
int ltap_edit_distance(const char *a, const char *b);

#endif
