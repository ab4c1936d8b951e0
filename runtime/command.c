/* command.c: a command string split into words as sh splits them, or left
 * to /bin/sh when it uses what only a shell can do. */
#include "command.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A first word sh runs itself: keywords, and built-ins no file provides. */
static const char *const shell_words[] = {
	"!", "{", "}", "case", "do", "done", "elif", "else", "esac", "fi", "for", "if", "in", "then",
	"until", "while", ".", ":", "alias", "bg", "break", "cd", "command", "continue", "eval", "exec",
	"exit", "export", "fc", "fg", "getopts", "hash", "jobs", "read", "readonly", "return", "set",
	"shift", "times", "trap", "type", "ulimit", "umask", "unalias", "unset", "wait", NULL,
};

static int shell_word(const char *w)
{
	for (const char *const *k = shell_words; *k; k++)
		if (strcmp(w, *k) == 0)
			return 1;
	return 0;
}

/* NAME=...: an assignment when it is the first word */
static int assignment(const char *w, size_t len)
{
	size_t i = 0;
	if (!len || !(isalpha((unsigned char)w[0]) || w[0] == '_'))
		return 0;
	while (i < len && (isalnum((unsigned char)w[i]) || w[i] == '_'))
		i++;
	return i < len && w[i] == '=';
}

static int cmd_shell(const char *s, struct ltap_cmd *c)
{
	c->store = strdup(s);
	c->argv = calloc(4, sizeof *c->argv);
	if (!c->store || !c->argv)
		return -ENOMEM;
	c->argv[0] = "/bin/sh";
	c->argv[1] = "-c";
	c->argv[2] = c->store;
	c->argc = 3;
	c->shell = 1;
	return 0;
}

/* Splits s into c's words; 1 when s needs a shell, 0 or -errno. */
static int cmd_split(const char *s, struct ltap_cmd *c, const char **why)
{
	size_t n = strlen(s);
	char *out = c->store = malloc(n + 1);
	int quoted_word = 0, in_word = 0;
	char *word = out;
	const char *raw = s; /* where the current word starts in s */

	c->argv = calloc(n / 2 + 2, sizeof *c->argv);
	if (!out || !c->argv)
		return -ENOMEM;
	for (const char *p = s;; p++) {
		char ch = *p;
		if (ch == '\0' || ch == ' ' || ch == '\t') {
			if (in_word) {
				*out++ = '\0';
				if (c->argc == 0 && !quoted_word && (shell_word(word) || assignment(raw, (size_t)(p - raw))))
					return 1;
				c->argv[c->argc++] = word;
				in_word = quoted_word = 0;
			}
			if (ch == '\0')
				break;
			continue;
		}
		if (!in_word) {
			in_word = 1;
			word = out;
			raw = p;
			if (ch == '~' || ch == '#')
				return 1;
		}
		switch (ch) {
		case '\'': {
			const char *end = strchr(p + 1, '\'');
			if (!end) {
				*why = "a ' is not closed";
				return -EINVAL;
			}
			memcpy(out, p + 1, (size_t)(end - p - 1));
			out += end - p - 1;
			p = end;
			quoted_word = 1;
			break;
		}
		case '"':
			for (p++; *p != '"'; p++) {
				if (!*p) {
					*why = "a \" is not closed";
					return -EINVAL;
				}
				if (*p == '$' || *p == '`')
					return 1;
				if (*p == '\\' && p[1] && strchr("\"\\\n", p[1])) {
					if (*++p != '\n')
						*out++ = *p;
				} else {
					*out++ = *p;
				}
			}
			quoted_word = 1;
			break;
		case '\\':
			if (p[1] == '\n') {
				p++; /* a line continuation */
			} else if (p[1]) {
				*out++ = *++p;
				quoted_word = 1;
			} else {
				*out++ = '\\';
			}
			break;
		case '|': case '&': case ';': case '<': case '>': case '(': case ')': case '\n':
		case '$': case '`': case '*': case '?': case '[':
			return 1;
		default:
			*out++ = ch;
		}
	}
	if (c->argc == 0) {
		*why = "no command";
		return -EINVAL;
	}
	return 0;
}

int ltap_cmd_parse(const char *s, struct ltap_cmd *c, const char **why)
{
	int r;

	memset(c, 0, sizeof *c);
	*why = NULL;
	r = cmd_split(s, c, why);
	if (r == 1) {
		ltap_cmd_free(c);
		r = cmd_shell(s, c);
	}
	if (r == 0 && !(c->text = strdup(s)))
		r = -ENOMEM;
	if (r < 0) {
		if (!*why)
			*why = strerror(-r);
		ltap_cmd_free(c);
	}
	return r;
}

int ltap_cmd_from_argv(int argc, const char *const *argv, struct ltap_cmd *c)
{
	size_t len = 1;
	char *t;

	memset(c, 0, sizeof *c);
	if (argc < 1)
		return -EINVAL;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	c->argv = calloc((size_t)argc + 1, sizeof *c->argv);
	c->store = malloc(len);
	c->text = malloc(len);
	if (!c->argv || !c->store || !c->text) {
		ltap_cmd_free(c);
		return -ENOMEM;
	}
	t = c->store;
	c->text[0] = '\0';
	for (int i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]) + 1;
		memcpy(t, argv[i], l);
		c->argv[i] = t;
		t += l;
		if (i)
			strcat(c->text, " ");
		strcat(c->text, argv[i]);
	}
	c->argc = argc;
	return 0;
}

void ltap_cmd_free(struct ltap_cmd *c)
{
	if (!c)
		return;
	free(c->argv);
	free(c->store);
	free(c->text);
	memset(c, 0, sizeof *c);
}
