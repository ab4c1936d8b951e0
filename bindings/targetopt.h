/* targetopt.h: the target options of a run (-p PID, -c CMD, -a, -d DURATION,
 * --record FILE), whether ltap's command line gives them or a script's own
 * (ltap.options{}, which ltap.getopt calls for bundled scripts): one check
 * and one set of messages, so `ltap -p 0 syscount` and `ltap syscount -p 0`
 * say the same. */
#ifndef LTAP_TARGETOPT_H
#define LTAP_TARGETOPT_H

#include <stddef.h>

struct ltap_options;
struct ltap_cmd;

/* Sets the option opt ('p', 'c', 'a', 'd', or 'R' for --record) of o from
 * its text, kept by pointer (-c's is only stored: see ltap_targetopt_command).
 * 0, or -EINVAL with the one-line message in why ("-p: bad pid '0' (1 to
 * 2147483647)", "-d was given twice"). */
int ltap_targetopt_set(struct ltap_options *o, int opt, const char *value, char *why, size_t len);
/* -c's text split into c (command.h): 0, or -EINVAL / -ENOMEM with why. */
int ltap_targetopt_command(const char *text, struct ltap_cmd *c, char *why, size_t len);
/* The options together: -p with -c, -a with either, --record with --input.
 * 0, or -EINVAL with why. */
int ltap_targetopt_check(const struct ltap_options *o, char *why, size_t len);

#endif
