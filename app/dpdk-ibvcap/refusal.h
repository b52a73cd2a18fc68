/* SPDX-License-Identifier: BSD-3-Clause */
/* A telemetry command's refusal, as its reply and its log line (refusal.c). */

#ifndef IBV_REFUSAL_H
#define IBV_REFUSAL_H

#include <stdio.h>

#include <rte_telemetry.h>

#include "err.h"

/**
 * A refusal as the reply of a telemetry command (record, scan, trigger),
 * into the dict d the caller started: result "refused", command, error
 * ("COMMAND refused: nothing changed"), input, value, expected and changed
 * "nothing". Nothing was changed or written.
 */
void ibv_refusal_tel(struct rte_tel_data *d, const char *command, const struct err_refusal *r);

/** The refusal's log line: "dpdk-ibvcap: COMMAND PARAMS refused: INPUT 'VALUE':
 * expected EXPECTED" (PARAMS escaped). */
void ibv_refusal_log(FILE *f, const char *command, const char *params,
		     const struct err_refusal *r);

#endif /* IBV_REFUSAL_H */
