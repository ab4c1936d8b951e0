/* folded.h: one line of folded stacks, as flamegraph.pl (and
 * stdlib/folded.lua before this parser) reads it: "STACK COUNT", or
 * difffolded.pl's "STACK BEFORE AFTER"; counts may be fractional ("12.5",
 * "12."), frames blank ("a;;b"); blanks between and after the fields. */
#ifndef LTAP_FOLDED_H
#define LTAP_FOLDED_H

#include <stddef.h>

struct ltap_folded_line {
	const char *stack, *count, *before; /* before: NULL for one column */
	size_t stacklen, countlen, beforelen;
};

/* 1: a stack line (into out), 0: a blank line, -1: not a stack line. */
int ltap_folded_parse(const char *line, size_t len, struct ltap_folded_line *out);

#endif
