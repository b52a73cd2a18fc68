/* SPDX-License-Identifier: BSD-3-Clause */
/* The capture's telemetry commands (telemetry.c): /ibvcap/..., answered on
 * DPDK's telemetry thread while the capture is open. */

#ifndef IBV_TELEMETRY_H
#define IBV_TELEMETRY_H

struct ibv_app;

/** Register the telemetry commands (/ibvcap/...): they answer -EAGAIN
 * until ibv_telemetry_open. @return 0, or non-zero when one failed. */
int ibv_telemetry_register(void);
/** Serve app's figures: once everything they read is set up. */
void ibv_telemetry_open(struct ibv_app *app);
/** Stop serving them, before anything they read is freed (waits for a
 * reply in progress): running triggers and fringe checks end first.
 * Idempotent. */
void ibv_telemetry_close(void);

#endif /* IBV_TELEMETRY_H */
