/* folded.c: flamegraph.pl's rule, "^(.*)\s+?(\d+(?:\.\d*)?)$": a count is
 * the last field, a number (digits, at most one '.', digits), one blank
 * before it; the stack is all that comes before that one blank, blanks of
 * its own included (a frame named " ", as stackcollapse-perf.pl writes a
 * symbol perf printed blank, stays a frame). Blanks after the count are
 * allowed (flamegraph.pl would ignore the line). */
#include "folded.h"

#include <ctype.h>

static int blank(char c)
{
	return isspace((unsigned char)c) != 0;
}

/* The count ending at end: the last field of s[0..end), a number (digits,
 * then maybe a '.' and digits), with a blank before it. 1, with where it
 * starts and where what comes before that blank ends. */
static int folded_last(const char *s, size_t end, size_t *num, size_t *before_end)
{
	size_t i = end, k;

	while (i > 0 && !blank(s[i - 1]))
		i--;
	if (i == 0 || i == end)
		return 0;
	for (k = i; k < end && isdigit((unsigned char)s[k]); k++)
		;
	if (k == i)
		return 0;
	if (k < end && s[k] == '.')
		for (k++; k < end && isdigit((unsigned char)s[k]); k++)
			;
	if (k != end)
		return 0;
	*num = i;
	*before_end = i - 1;
	return 1;
}

int ltap_folded_parse(const char *line, size_t len, struct ltap_folded_line *out)
{
	size_t end = len, num, stack_end, num0, s2_end;

	while (end > 0 && blank(line[end - 1]))
		end--;
	if (end == 0)
		return 0;
	if (!folded_last(line, end, &num, &stack_end))
		return -1;
	out->stack = line;
	out->stacklen = stack_end;
	out->count = line + num;
	out->countlen = end - num;
	out->before = NULL;
	out->beforelen = 0;
	if (folded_last(line, stack_end, &num0, &s2_end)) {
		out->before = line + num0;
		out->beforelen = stack_end - num0;
		out->stacklen = s2_end;
	}
	return 1;
}
