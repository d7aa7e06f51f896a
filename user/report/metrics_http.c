// SPDX-License-Identifier: GPL-2.0
/* /metrics over HTTP with libmicrohttpd (see metrics_http.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <microhttpd.h>
#include "metrics_http.h"

/* A connection held open: when it came, and its socket. */
struct held {
	struct MHD_Connection *c;
	int fd;
	uint64_t since_ns;
	bool dropped;		/* shut down by us; MHD closes it next */
};

struct metrics_http {
	struct MHD_Daemon *d;
	pthread_t thread;	/* runs the server: every callback is on it */
	atomic_bool stop;
	pthread_mutex_t lock;
	char token[METRICS_HTTP_TOKEN_MAX];	/* "": no token asked */
	char *text;
	size_t len;
	/* Only the server's thread touches these. */
	struct held held[METRICS_HTTP_MAX_CONNECTIONS + 1];
	int nheld;
};

#define CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status, const char *body,
			     size_t len, const char *type)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)body,
								 MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	/* One request a connection: its deadline is the request's. */
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* The request's "Authorization: Bearer TOKEN" names h's token; compared
 * in time that does not depend on where the two differ. */
static bool authorized(const struct metrics_http *h, struct MHD_Connection *c)
{
	const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	size_t n = strlen(h->token);
	unsigned char diff = 0;

	if (!h->token[0])
		return true;
	if (!auth || strncmp(auth, "Bearer ", 7) || strlen(auth + 7) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)(auth[7 + i] ^ h->token[i]);
	return diff == 0;
}

static enum MHD_Result unauthorized(struct MHD_Connection *c)
{
	static const char body[] = "spinscope: this /metrics needs its token: Authorization: Bearer TOKEN\n";
	struct MHD_Response *r = MHD_create_response_from_buffer(sizeof(body) - 1, (void *)body,
								 MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain");
	MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(c, MHD_HTTP_UNAUTHORIZED, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_len, void **req)
{
	static const char not_found[] = "spinscope serves /metrics only\n";
	struct metrics_http *h = cls;
	enum MHD_Result ret;

	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "", 0, "text/plain");
	if (!authorized(h, c))
		return unauthorized(c);
	if (strcmp(url, "/metrics"))
		return reply(c, MHD_HTTP_NOT_FOUND, not_found, sizeof(not_found) - 1, "text/plain");
	pthread_mutex_lock(&h->lock);
	ret = reply(c, MHD_HTTP_OK, h->text ? h->text : "", h->text ? h->len : 0, CONTENT_TYPE);
	pthread_mutex_unlock(&h->lock);
	return ret;
}

int metrics_http__parse_addr(const char *arg, char *addr, size_t addrlen, unsigned int *port,
			     char *why, size_t whylen)
{
	const char *colon = strrchr(arg, ':');
	const char *p = colon ? colon + 1 : arg;
	struct in_addr in;
	char *end;
	long v;

	errno = 0;
	v = strtol(p, &end, 10);
	if (!*p || *end || errno || v < 1 || v > 65535) {
		snprintf(why, whylen, "--metrics %s: expected ADDR:PORT with a port from 1 to 65535", arg);
		return -EINVAL;
	}
	*port = (unsigned int)v;
	if (!colon || colon == arg)
		snprintf(addr, addrlen, "127.0.0.1");
	else
		snprintf(addr, addrlen, "%.*s", (int)(colon - arg), arg);
	if (inet_pton(AF_INET, addr, &in) != 1) {
		snprintf(why, whylen, "--metrics %s: '%s' is not an IPv4 address", arg, addr);
		return -EINVAL;
	}
	return 0;
}

int metrics_http__probe(const char *arg, char *why, size_t whylen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char addr[64];
	unsigned int port;
	int fd, one = 1, err = 0;

	if (metrics_http__parse_addr(arg, addr, sizeof(addr), &port, why, whylen))
		return -EINVAL;
	sa.sin_port = htons((uint16_t)port);
	inet_pton(AF_INET, addr, &sa.sin_addr);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	/* as libmicrohttpd binds: SO_REUSEADDR, which a listener still blocks */
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		err = errno;
	if (fd >= 0)
		close(fd);
	if (err)
		snprintf(why, whylen, "cannot serve metrics on %s:%u: %s (choose another --metrics address)",
			 addr, port, strerror(err));
	return err ? -err : 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Ends a connection from outside MHD: its next read or write fails, and
 * MHD closes it (and says so, CLOSED) on this same thread. */
static void drop(struct held *c)
{
	if (!c->dropped)
		shutdown(c->fd, SHUT_RDWR);
	c->dropped = true;
}

/*
 * Connections come and go here. Over the limit, the oldest still served is
 * dropped, so that a local user holding connections open delays a scrape
 * by at most its own deadline and never takes spinscope's descriptors.
 */
static void on_connection(void *cls, struct MHD_Connection *c, void **ctx,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct metrics_http *h = cls;
	const union MHD_ConnectionInfo *ci;
	int oldest = -1, live = 0;

	(void)ctx;
	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		for (int i = 0; i < h->nheld; i++)
			if (h->held[i].c == c) {
				h->held[i] = h->held[--h->nheld];
				break;
			}
		return;
	}
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (!ci || h->nheld == METRICS_HTTP_MAX_CONNECTIONS + 1)
		return;	/* MHD's own limit keeps this from happening */
	h->held[h->nheld++] = (struct held){ .c = c, .fd = ci->connect_fd, .since_ns = mono_ns() };
	for (int i = 0; i < h->nheld; i++) {
		if (h->held[i].dropped)
			continue;
		live++;
		if (oldest < 0 || h->held[i].since_ns < h->held[oldest].since_ns)
			oldest = i;
	}
	if (live > METRICS_HTTP_MAX_CONNECTIONS)
		drop(&h->held[oldest]);
}

/* The server's loop: MHD's work, then the deadlines (an absolute one per
 * connection: a byte every few seconds does not keep it open). */
static void *serve(void *arg)
{
	struct metrics_http *h = arg;

	while (!atomic_load(&h->stop)) {
		uint64_t now;

		MHD_run_wait(h->d, METRICS_HTTP_TICK_MS);
		now = mono_ns();
		for (int i = 0; i < h->nheld; i++)
			if (now - h->held[i].since_ns > METRICS_HTTP_DEADLINE_MS * 1000000ull)
				drop(&h->held[i]);
	}
	return NULL;
}

int metrics_http__read_token(const char *path, char token[METRICS_HTTP_TOKEN_MAX], char *why,
			     size_t whylen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	ssize_t n;

	if (fd < 0) {
		snprintf(why, whylen, "cannot read the metrics token file %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (st.st_mode & 077)) {
		snprintf(why, whylen, "the metrics token file %s must be a regular file only its owner can read (chmod 600 it): the token is a secret",
			 path);
		close(fd);
		return -1;
	}
	n = read(fd, token, METRICS_HTTP_TOKEN_MAX);
	close(fd);
	if (n < 0) {
		snprintf(why, whylen, "cannot read the metrics token file %s: %s", path, strerror(errno));
		return -1;
	}
	token[n < METRICS_HTTP_TOKEN_MAX ? n : METRICS_HTTP_TOKEN_MAX - 1] = 0;
	token[strcspn(token, "\r\n")] = 0;
	if (n >= METRICS_HTTP_TOKEN_MAX && strlen(token) == METRICS_HTTP_TOKEN_MAX - 1) {
		snprintf(why, whylen, "the token in %s is longer than %d bytes: use a shorter one",
			 path, METRICS_HTTP_TOKEN_MAX - 1);
		return -1;
	}
	for (const char *t = token; *t; t++)
		if ((unsigned char)*t <= ' ' || (unsigned char)*t > '~') {
			snprintf(why, whylen, "the token in %s has a space or an unprintable byte: use printable ASCII",
				 path);
			return -1;
		}
	if (!token[0]) {
		snprintf(why, whylen, "the metrics token file %s is empty: write the token on its first line", path);
		return -1;
	}
	return 0;
}

int metrics_http__check(const char *arg, const char *token_file, char token[METRICS_HTTP_TOKEN_MAX],
			char *why, size_t whylen)
{
	token[0] = 0;
	if (arg && metrics_http__probe(arg, why, whylen))
		return -1;
	return token_file ? metrics_http__read_token(token_file, token, why, whylen) : 0;
}

struct metrics_http *metrics_http__start(const char *addr, unsigned int port, const char *token,
					 char *why, size_t whylen)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	struct metrics_http *h = calloc(1, sizeof(*h));
	sigset_t all, old;
	int err;

	if (!h) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	inet_pton(AF_INET, addr, &sa.sin_addr);
	snprintf(h->token, sizeof(h->token), "%s", token ? token : "");
	pthread_mutex_init(&h->lock, NULL);
	errno = 0;
	/* MHD's limit is one over ours: the newest is taken, the oldest let go. */
	h->d = MHD_start_daemon(MHD_USE_EPOLL, (uint16_t)port, NULL, NULL, on_request, h,
				MHD_OPTION_SOCK_ADDR, &sa,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned int)METRICS_HTTP_MAX_CONNECTIONS + 1,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)(METRICS_HTTP_DEADLINE_MS / 1000),
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, h, MHD_OPTION_END);
	err = errno;
	/* The server's thread inherits our signal mask: with every signal
	 * blocked there, SIGINT reaches the tracing thread (its signalfd),
	 * which ends the trace with a report, instead of killing us. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (h->d && (err = pthread_create(&h->thread, NULL, serve, h))) {
		MHD_stop_daemon(h->d);
		h->d = NULL;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!h->d) {
		snprintf(why, whylen, "cannot serve metrics on %s:%u: %s (choose another --metrics address)",
			 addr, port, err ? strerror(err) : "libmicrohttpd refused");
		pthread_mutex_destroy(&h->lock);
		free(h);
		return NULL;
	}
	return h;
}

void metrics_http__publish(struct metrics_http *h, char *text, size_t len)
{
	char *old;

	pthread_mutex_lock(&h->lock);
	old = h->text;
	h->text = text;
	h->len = len;
	pthread_mutex_unlock(&h->lock);
	free(old);
}

void metrics_http__stop(struct metrics_http *h)
{
	if (!h)
		return;
	atomic_store(&h->stop, true);
	pthread_join(h->thread, NULL);
	MHD_stop_daemon(h->d);
	pthread_mutex_destroy(&h->lock);
	explicit_bzero(h->token, sizeof(h->token));
	free(h->text);
	free(h);
}
