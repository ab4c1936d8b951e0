/* parse.h: the one parser for durations ("5s", "250ms") and sizes ("4M"). */
#ifndef LTAP_PARSE_H
#define LTAP_PARSE_H

#include <stdint.h>

/* A bare number is seconds. Units: ns us ms s m h. Returns 0 or -EINVAL. */
int ltap_parse_duration(const char *s, uint64_t *ns);
/* A bare number is bytes. Units: K M G (powers of 1024), optional trailing B. */
int ltap_parse_size(const char *s, uint64_t *bytes);
/* Levenshtein distance, for "did you mean" suggestions. */
int ltap_edit_distance(const char *a, const char *b);

#endif
