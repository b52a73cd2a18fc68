/* SPDX-License-Identifier: BSD-3-Clause */
/* codifgen's stop flag: set by SIGINT or SIGTERM, read by every loop that
 * waits (pacing, a full socket queue, a link coming up). */

#include <signal.h>

#include "codifgen.h"

volatile sig_atomic_t cg_stop;

static void
on_signal(int sig)
{
	(void)sig;
	cg_stop = 1;
}

void
cg_stop_on_signals(void)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
}
