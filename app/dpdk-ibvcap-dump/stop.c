/* SPDX-License-Identifier: BSD-3-Clause */
/* The stop request: SIGINT, SIGTERM and SIGHUP end the writer the same way
 * (its files finished and renamed, its summary), as --count does; SIGPIPE
 * is ignored (a reader of its output that went away stops nothing but
 * that output). */

#include <signal.h>
#include <string.h>

#include "dump.h"

volatile sig_atomic_t dump_quit;

static void
on_signal(int sig)
{
	(void)sig;
	dump_quit = 1;
}

void
dump_ignore_sigpipe(void)
{
	signal(SIGPIPE, SIG_IGN);
}

void
dump_stop_on_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}
