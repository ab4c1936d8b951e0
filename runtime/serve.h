/* serve.h: the metrics endpoint (ltap --serve): HTTP on a socket ltap binds,
 * answered from ltap's own loop between batches (libmicrohttpd with its own
 * epoll fd and no thread). One request per connection, every connection
 * bounded in time and memory. */
#ifndef LTAP_SERVE_H
#define LTAP_SERVE_H

#include "loop.h"

#include <stddef.h>
#include <stdint.h>

struct ltap_server;

/* Renders the body of GET /metrics (openmetrics: the scraper prefers
 * OpenMetrics to the text format). Returns a malloc'd buffer of *len bytes,
 * or NULL (the scrape gets a 500). */
typedef char *(*ltap_serve_fn)(void *ud, int openmetrics, size_t *len);

/* What the server did, for ltap's own metrics. */
struct ltap_server_counts {
	uint64_t scrapes;      /* 200 answers to GET /metrics */
	uint64_t scrapes_om;   /* ... of them in OpenMetrics */
	uint64_t not_found;    /* 404: another path */
	uint64_t bad_method;   /* 405: not GET or HEAD */
	uint64_t failed;       /* 500: rendering failed */
	uint64_t timeouts;     /* connections closed at their deadline */
	uint64_t evicted;      /* unanswered connections closed to free a slot */
	uint64_t connections;  /* accepted */
};

/* Binds and listens on "PORT" (127.0.0.1), "ADDR:PORT" or "[ADDR6]:PORT";
 * port 0 takes a free one. NULL (with a message) on failure. */
struct ltap_server *ltap_server_open(const char *where, ltap_serve_fn fn, void *ud);
/* The address bound, as "127.0.0.1:9100". */
const char *ltap_server_address(const struct ltap_server *s);
/* Starts answering from loop; 0 or -errno. */
int ltap_server_attach(struct ltap_server *s, struct ltap_loop *loop);
const struct ltap_server_counts *ltap_server_counts(const struct ltap_server *s);
void ltap_server_close(struct ltap_server *s);

/* 1 when an Accept header value prefers OpenMetrics to the text format
 * (by q-values, as Prometheus sends them). */
int ltap_serve_wants_openmetrics(const char *accept);

#endif
