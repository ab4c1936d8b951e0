/* command.h: the command a run starts (-c, ltap.measure, ltap stat --): an
 * argument vector executed as it is, as perf and bpftrace do. A -c string is
 * split into words as sh would split it (quotes, backslashes); only a string
 * with real shell syntax runs under /bin/sh -c. */
#ifndef LTAP_COMMAND_H
#define LTAP_COMMAND_H

struct ltap_cmd {
	char **argv;   /* NULL-terminated; for a shell: "/bin/sh", "-c", TEXT */
	int argc;
	int shell;     /* the text needed /bin/sh */
	char *text;    /* as given (a string), or the words joined: for messages */
	char *store;   /* the words' bytes */
};

/* Splits s into words. Shell syntax (unquoted | & ; < > ( ) or a newline,
 * $ and ` outside single quotes, unquoted * ? [ globs, ~ or # starting a
 * word, a first word NAME=VALUE or a shell keyword or built-in) makes it
 * "/bin/sh -c s" instead. 0, -EINVAL (empty, or a quote not closed: why
 * says which) or -ENOMEM. */
int ltap_cmd_parse(const char *s, struct ltap_cmd *c, const char **why);
/* An argument vector taken as it is. 0, -EINVAL (empty) or -ENOMEM. */
int ltap_cmd_from_argv(int argc, const char *const *argv, struct ltap_cmd *c);
void ltap_cmd_free(struct ltap_cmd *c);

#endif
