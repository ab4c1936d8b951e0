/* log.h: the one logging function of ltap. A message goes to the log
 * target of the host running on this thread (host.c enters it for every
 * call into the library), else to the process-wide one (ltap_set_log;
 * none by default): the library never writes to stderr by itself. */
#ifndef LTAP_LOG_H
#define LTAP_LOG_H

#include "ltap.h" /* enum ltap_log_level, ltap_log_fn */

#define LTAP_LOG_NONE ((enum ltap_log_level)-1) /* a max level that passes nothing */

/* Where messages go and how many. */
struct ltap_log_target {
	ltap_log_fn fn;             /* NULL: nowhere */
	void *ud;
	enum ltap_log_level max;    /* the most verbose level passed */
};

/* Messages read "component: action object: reason" (no "ltap: " prefix, no
 * newline: the target adds what it wants). */
void ltap_log(enum ltap_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Makes t this thread's target until ltap_log_leave(the returned one). */
struct ltap_log_target *ltap_log_enter(struct ltap_log_target *t);
void ltap_log_leave(struct ltap_log_target *prev);

/* The process-wide target's function (tests capture messages with it; NULL:
 * nowhere). */
void ltap_log_set_sink(ltap_log_fn fn, void *ud);
/* The current target's max level; returns the one in force before. */
enum ltap_log_level ltap_log_set_verbosity(enum ltap_log_level max);

/* A log function writing "ltap: MSG\n" to the FILE * ud, after flushing
 * stdout so report output and messages keep their order on a terminal. */
void ltap_log_to_file(void *ud, enum ltap_log_level level, const char *msg);

#define ltap_err(...) ltap_log(LTAP_LOG_ERROR, __VA_ARGS__)
#define ltap_warn(...) ltap_log(LTAP_LOG_WARN, __VA_ARGS__)
#define ltap_info(...) ltap_log(LTAP_LOG_INFO, __VA_ARGS__)
/* shown with -v only */
#define ltap_debug(...) ltap_log(LTAP_LOG_DEBUG, __VA_ARGS__)

#endif
