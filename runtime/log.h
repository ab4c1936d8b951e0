/* log.h: the one logging function of ltap: lines on stderr. */
#ifndef LTAP_LOG_H
#define LTAP_LOG_H

enum ltap_log_level { LTAP_LOG_NONE = -1, LTAP_LOG_ERROR, LTAP_LOG_WARN, LTAP_LOG_INFO, LTAP_LOG_DEBUG };

/* Messages read "component: action object: reason"; "ltap: " is prefixed. */
void ltap_log(enum ltap_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Where messages go instead of stderr (NULL: stderr again): tests capture them. */
typedef void (*ltap_log_sink)(enum ltap_log_level level, const char *msg, void *ud);
void ltap_log_set_sink(ltap_log_sink sink, void *ud);
/* Runs before a message is written to stderr (NULL: nothing): a progress
 * line (progress.c) is erased first, so the message is not drawn into it. */
typedef void (*ltap_log_before_fn)(void *ud);
void ltap_log_set_before(ltap_log_before_fn fn, void *ud);
/* returns the level in force before */
enum ltap_log_level ltap_log_set_verbosity(enum ltap_log_level max);

#define ltap_err(...) ltap_log(LTAP_LOG_ERROR, __VA_ARGS__)
#define ltap_warn(...) ltap_log(LTAP_LOG_WARN, __VA_ARGS__)
#define ltap_info(...) ltap_log(LTAP_LOG_INFO, __VA_ARGS__)
/* shown with -v only */
#define ltap_debug(...) ltap_log(LTAP_LOG_DEBUG, __VA_ARGS__)

#endif
