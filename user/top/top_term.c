// SPDX-License-Identifier: GPL-2.0
/* Signals and keys of the live view (see top_term.h). */
#include <curses.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "top_term.h"

static volatile sig_atomic_t ended;
static const int end_signals[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction old_actions[sizeof(end_signals) / sizeof(end_signals[0])];

static void on_end_signal(int sig)
{
	(void)sig;
	ended = 1;
}

void top_term_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_end_signal;
	sigemptyset(&sa.sa_mask);
	ended = 0;
	for (size_t i = 0; i < sizeof(end_signals) / sizeof(end_signals[0]); i++)
		sigaction(end_signals[i], &sa, &old_actions[i]);
}

void top_term_restore(void)
{
	for (size_t i = 0; i < sizeof(end_signals) / sizeof(end_signals[0]); i++)
		sigaction(end_signals[i], &old_actions[i], NULL);
}

int top_term_ended(void)
{
	return ended;
}

/*
 * poll() first: it says POLLHUP when the terminal's other side closed (a
 * pty's master, an ssh session gone), which a getch() in nodelay mode
 * could not tell from "no key yet". A SIGWINCH ends the poll too, and
 * curses' next getch() answers KEY_RESIZE. stdin readable again and again
 * with no key in it is a read that meets EOF or an error: gone too.
 */
int top_term_key(int timeout_ms)
{
	static int empty_reads;
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	int n, ch;

	if (ended)
		return TOP_KEY_END;
	n = poll(&p, 1, timeout_ms);
	if (!ended && n > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)))
		ended = 1;
	if (ended)
		return TOP_KEY_END;
	ch = getch();
	if (ch != ERR) {
		empty_reads = 0;
		return ch;
	}
	if (n > 0 && ++empty_reads > 100) {
		ended = 1;
		return TOP_KEY_END;
	}
	return TOP_KEY_NONE;
}
