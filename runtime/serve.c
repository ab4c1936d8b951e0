/* serve.c: the metrics endpoint over libmicrohttpd, driven by ltap's loop.
 *
 * libmicrohttpd (MHD) parses HTTP: request lines, headers, methods, bodies,
 * HEAD, bad input (400, 414, 431); it runs here with MHD_USE_EPOLL and no
 * thread of its own: its epoll fd is one watch of ltap's loop, and MHD_run
 * (where the metrics are rendered) runs between batches, like a timer, so a
 * scrape never races a handler and costs nothing per event.
 *
 * Bounds, so no client can hold ltap's memory or its scrapers' slots:
 * CONN_LIMIT connections (MHD closes the ones above at once), MEMORY_LIMIT
 * bytes of request per connection (a larger header gets 431), and a deadline
 * of CONN_DEADLINE from accept, after which the connection is shut down
 * whatever it is doing. MHD's own timeout is one of inactivity, which a
 * client sending a byte every few seconds (slowloris) never trips; the
 * deadline is ours: MHD reports each connection, and a shutdown(2) of its
 * socket makes MHD see the peer gone and close it. Every answer says
 * "Connection: close", so one connection is one request and the deadline
 * never cuts a kept-alive scraper between two scrapes.
 *
 * Slots: when a connection takes the last one, the oldest connection not
 * answered yet is shut down, so a new scraper always gets in: a flood of
 * idle or trickling clients churns among itself, while a scraper (which
 * sends its request at once and is answered within the batch) is never the
 * oldest unanswered one for long. */
#include "serve.h"

#include "lazylib.h"
#include "log.h"

#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#define CONN_LIMIT 64
#define MEMORY_LIMIT (16 * 1024)          /* request line + headers, per connection */
#define CONN_DEADLINE 10000000000ull      /* 10 s from accept to closed */
#define IDLE_TIMEOUT 5                    /* s: MHD's own, on inactivity */

#define TEXT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define OPENMETRICS_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"

/* libmicrohttpd, opened by the first ltap_server_open (lazylib.h) */
static struct {
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_get_connection_info) *get_connection_info;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_get_timeout) *get_timeout;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_quiesce_daemon) *quiesce_daemon;
	__typeof__(MHD_run) *run;
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
} mhd;

static const struct ltap_lazysym mhd_syms[] = {
	{"MHD_add_response_header", &mhd.add_response_header},
	{"MHD_create_response_from_buffer", &mhd.create_response_from_buffer},
	{"MHD_destroy_response", &mhd.destroy_response},
	{"MHD_get_connection_info", &mhd.get_connection_info},
	{"MHD_get_daemon_info", &mhd.get_daemon_info},
	{"MHD_get_timeout", &mhd.get_timeout},
	{"MHD_lookup_connection_value", &mhd.lookup_connection_value},
	{"MHD_queue_response", &mhd.queue_response},
	{"MHD_quiesce_daemon", &mhd.quiesce_daemon},
	{"MHD_run", &mhd.run},
	{"MHD_start_daemon", &mhd.start_daemon},
	{"MHD_stop_daemon", &mhd.stop_daemon},
	{0, 0},
};

static struct ltap_lazylib mhd_lib = {.soname = "libmicrohttpd.so.12", .syms = mhd_syms};

struct serve_conn {
	int fd;                /* -1: free */
	int shut;
	int answered;          /* its request reached serve_request */
	uint64_t deadline;
};

struct ltap_server {
	int fd;
	struct MHD_Daemon *mhd;
	struct ltap_loop *loop;
	int watch;
	ltap_serve_fn fn;
	void *ud;
	char address[80];
	struct ltap_server_counts counts;
	struct serve_conn conns[CONN_LIMIT + 1];
	int nconns;
	int was_full;          /* MHD stopped accepting: see serve_poll */
};

/* ------------------------------------------------------------ Accept */

/* the q of one media range's parameters ("version=1.0.0;q=0.5") */
static double accept_q(const char *params, const char *end)
{
	for (const char *p = params; p && p < end; p = memchr(p, ';', (size_t)(end - p))) {
		p++;
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (end - p > 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=')
			return strtod(p + 2, NULL);
	}
	return 1;
}

int ltap_serve_wants_openmetrics(const char *accept)
{
	double om = 0, text = 0;

	for (const char *p = accept; p && *p;) {
		const char *end = strchr(p, ','), *semi;
		size_t n;
		double q;
		if (!end)
			end = p + strlen(p);
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		semi = memchr(p, ';', (size_t)(end - p));
		n = (size_t)((semi ? semi : end) - p);
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		q = accept_q(semi, end);
		if (n == 28 && strncasecmp(p, "application/openmetrics-text", n) == 0) {
			if (q > om)
				om = q;
		} else if ((n == 10 && strncasecmp(p, "text/plain", n) == 0) || (n == 6 && strncasecmp(p, "text/*", n) == 0) ||
			   (n == 3 && strncmp(p, "*/*", n) == 0)) {
			if (q > text)
				text = q;
		}
		p = *end ? end + 1 : end;
	}
	return om > 0 && om >= text;
}

/* ----------------------------------------------------------- answers */

static enum MHD_Result serve_answer(struct MHD_Connection *c, unsigned status, const char *type, char *body,
				    size_t len, int owned)
{
	struct MHD_Response *r;
	enum MHD_Result ok;

	r = mhd.create_response_from_buffer(len, body, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (!r) {
		if (owned)
			free(body);
		return MHD_NO;
	}
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	mhd.add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ok = mhd.queue_response(c, status, r);
	mhd.destroy_response(r);
	return ok;
}

static enum MHD_Result serve_error(struct MHD_Connection *c, unsigned status, const char *text, uint64_t *count)
{
	(*count)++;
	return serve_answer(c, status, "text/plain; charset=utf-8", (char *)text, strlen(text), 0);
}

static enum MHD_Result serve_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
				     const char *version, const char *upload, size_t *upload_size, void **req)
{
	struct ltap_server *s = cls;
	const char *accept;
	char *body;
	size_t len = 0;
	int om;

	const union MHD_ConnectionInfo *ci = mhd.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	(void)version;
	(void)upload;
	(void)upload_size;
	(void)req;
	if (ci && ci->socket_context)
		((struct serve_conn *)ci->socket_context)->answered = 1;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return serve_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET /metrics is served\n", &s->counts.bad_method);
	if (strcmp(url, "/metrics") != 0)
		return serve_error(c, MHD_HTTP_NOT_FOUND, "not found: ltap serves /metrics\n", &s->counts.not_found);
	accept = mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	om = accept && ltap_serve_wants_openmetrics(accept);
	/* counted first: the scrape being answered is in its own count */
	s->counts.scrapes++;
	s->counts.scrapes_om += om;
	body = s->fn(s->ud, om, &len);
	if (!body) {
		s->counts.scrapes--;
		s->counts.scrapes_om -= om;
		return serve_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "cannot render the metrics\n", &s->counts.failed);
	}
	return serve_answer(c, MHD_HTTP_OK, om ? OPENMETRICS_TYPE : TEXT_TYPE, body, len, 1);
}

/* ------------------------------------------------- connection deadlines */

static void serve_shut(struct serve_conn *sc, uint64_t *count)
{
	shutdown(sc->fd, SHUT_RDWR);
	sc->shut = 1;
	(*count)++;
}

/* the last slot was taken: the oldest connection not answered yet goes */
static void serve_evict(struct ltap_server *s)
{
	struct serve_conn *old = NULL;
	for (int i = 0; i <= CONN_LIMIT; i++) {
		struct serve_conn *sc = &s->conns[i];
		if (sc->fd >= 0 && !sc->shut && !sc->answered && (!old || sc->deadline < old->deadline))
			old = sc;
	}
	if (old)
		serve_shut(old, &s->counts.evicted);
}

static void serve_notify(void *cls, struct MHD_Connection *c, void **sock_ctx, enum MHD_ConnectionNotificationCode toe)
{
	struct ltap_server *s = cls;
	struct serve_conn *sc = *sock_ctx;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (sc) {
			sc->fd = -1;
			s->nconns--;
		}
		return;
	}
	for (int i = 0; i <= CONN_LIMIT; i++) {
		if (s->conns[i].fd < 0) {
			const union MHD_ConnectionInfo *ci = mhd.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
			s->conns[i] = (struct serve_conn){.fd = ci ? ci->connect_fd : -1,
							  .deadline = ltap_now() + CONN_DEADLINE};
			*sock_ctx = &s->conns[i];
			s->counts.connections++;
			if (++s->nconns >= CONN_LIMIT) {
				s->was_full = 1;
				serve_evict(s);
			}
			return;
		}
	}
}

/* shuts down the connections past their deadline; returns the next one */
static uint64_t serve_reap(struct ltap_server *s, uint64_t now)
{
	uint64_t next = 0;

	for (int i = 0; i <= CONN_LIMIT; i++) {
		struct serve_conn *sc = &s->conns[i];
		if (sc->fd < 0 || sc->shut)
			continue;
		if (sc->deadline <= now)
			serve_shut(sc, &s->counts.timeouts);
		else if (!next || sc->deadline < next) {
			next = sc->deadline;
		}
	}
	return next;
}

/* the loop's watch: MHD's epoll fd was readable, or a time of ours came */
static void serve_poll(void *ud)
{
	struct ltap_server *s = ud;
	MHD_UNSIGNED_LONG_LONG ms;
	uint64_t now, due;

	mhd.run(s->mhd);
	/* at its limit MHD takes the listen socket out of its epoll and puts
	 * it back only at the start of a later MHD_run: when connections
	 * closed since, that run must come now, or nothing would wake it */
	if (s->was_full && s->nconns < CONN_LIMIT) {
		s->was_full = 0;
		mhd.run(s->mhd);
	}
	now = ltap_now();
	due = serve_reap(s, now);
	/* MHD's own timeouts, and 0 when it holds data it has not processed */
	if (mhd.get_timeout(s->mhd, &ms) == MHD_YES) {
		uint64_t at = now + (uint64_t)ms * 1000000ull;
		if (!due || at < due)
			due = at ? at : 1;
	}
	ltap_loop_watch_due(s->loop, s->watch, due);
}

/* -------------------------------------------------------------- set-up */

static int serve_bind(struct ltap_server *s, const char *where)
{
	char host[64] = "127.0.0.1", port[16];
	const char *colon = strrchr(where, ':');
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV | AI_PASSIVE}, *ai;
	struct sockaddr_storage sa;
	socklen_t salen = sizeof sa;
	int e, one = 1;

	if (colon) {
		size_t hl = (size_t)(colon - where);
		if (hl >= 2 && where[0] == '[' && where[hl - 1] == ']') {
			where++;
			hl -= 2;
		}
		if (hl == 0 || hl >= sizeof host) {
			ltap_err("serve: bad address '%.*s' (try 9100, 127.0.0.1:9100 or [::1]:9100)", (int)(colon - where), where);
			return -1;
		}
		memcpy(host, where, hl);
		host[hl] = 0;
		where = colon + 1;
	}
	if (!*where || strlen(where) >= sizeof port || strspn(where, "0123456789") != strlen(where) || atol(where) > 65535) {
		ltap_err("serve: bad port '%s' (a number from 0 to 65535)", where);
		return -1;
	}
	strcpy(port, where);
	if ((e = getaddrinfo(host, port, &hints, &ai))) {
		ltap_err("serve: cannot resolve address %s: %s", host, gai_strerror(e));
		return -1;
	}
	s->fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd >= 0)
		setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (s->fd < 0 || bind(s->fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(s->fd, CONN_LIMIT) < 0 ||
	    getsockname(s->fd, (struct sockaddr *)&sa, &salen) < 0) {
		ltap_err("serve: cannot listen on %s:%s: %s", host, port, strerror(errno));
		freeaddrinfo(ai);
		return -1;
	}
	freeaddrinfo(ai);
	if (getnameinfo((struct sockaddr *)&sa, salen, host, sizeof host, port, sizeof port,
			NI_NUMERICHOST | NI_NUMERICSERV) == 0)
		snprintf(s->address, sizeof s->address, sa.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", host, port);
	return 0;
}

struct ltap_server *ltap_server_open(const char *where, ltap_serve_fn fn, void *ud)
{
	struct ltap_server *s;

	if (ltap_lazylib_load(&mhd_lib)) {
		ltap_err("serve: cannot load libmicrohttpd for --serve: %s", mhd_lib.why);
		return NULL;
	}
	if (!(s = calloc(1, sizeof *s))) {
		ltap_err("serve: out of memory");
		return NULL;
	}
	s->fd = -1;
	s->watch = -1;
	s->fn = fn;
	s->ud = ud;
	for (int i = 0; i <= CONN_LIMIT; i++)
		s->conns[i].fd = -1;
	if (serve_bind(s, where)) {
		ltap_server_close(s);
		return NULL;
	}
	return s;
}

const char *ltap_server_address(const struct ltap_server *s)
{
	return s->address;
}

const struct ltap_server_counts *ltap_server_counts(const struct ltap_server *s)
{
	return &s->counts;
}

int ltap_server_attach(struct ltap_server *s, struct ltap_loop *loop)
{
	const union MHD_DaemonInfo *di;
	int w;

	s->mhd = mhd.start_daemon(MHD_USE_EPOLL, 0, NULL, NULL, serve_request, s,
				  MHD_OPTION_LISTEN_SOCKET, s->fd,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONN_LIMIT,
				  MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)MEMORY_LIMIT,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_TIMEOUT,
				  MHD_OPTION_NOTIFY_CONNECTION, serve_notify, s,
				  MHD_OPTION_END);
	if (!s->mhd) {
		ltap_err("serve: cannot start the HTTP server on %s", s->address);
		return -EINVAL;
	}
	di = mhd.get_daemon_info(s->mhd, MHD_DAEMON_INFO_EPOLL_FD);
	if (!di) {
		ltap_err("serve: the HTTP server has no epoll fd");
		return -EINVAL;
	}
	w = ltap_loop_watch(loop, di->epoll_fd, serve_poll, s);
	if (w < 0) {
		ltap_err("serve: cannot watch the HTTP server: %s", strerror(-w));
		return w;
	}
	s->loop = loop;
	s->watch = w;
	return 0;
}

void ltap_server_close(struct ltap_server *s)
{
	if (!s)
		return;
	if (s->loop && s->watch >= 0)
		ltap_loop_unwatch(s->loop, s->watch);
	if (s->mhd) {
		/* hands the listen socket back (ours to close), then closes the connections */
		mhd.quiesce_daemon(s->mhd);
		mhd.stop_daemon(s->mhd);
	}
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}
