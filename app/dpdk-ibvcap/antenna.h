/* SPDX-License-Identifier: BSD-3-Clause */
/* An antenna as a command names it (antenna.c): the telemetry commands,
 * triggers and fringe checks share the one rule. */

#ifndef IBV_ANTENNA_H
#define IBV_ANTENNA_H

#include "config.h"

/** An antenna of the layout by name or index. @return its index, or -1. */
int ibv_antenna_of(const struct ibv_config *c, const char *s);

#endif /* IBV_ANTENNA_H */
