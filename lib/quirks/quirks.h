/* SPDX-License-Identifier: BSD-3-Clause */
/* Work-arounds for DPDK 22.11 defects seen on these machines, in one place
 * so each is named, explained and easy to drop when the bug is fixed. */

#ifndef QUIRKS_H
#define QUIRKS_H

#include <stdbool.h>
#include <stdint.h>

/** Is port_id driven by net_memif? */
bool quirk_is_memif(uint16_t port_id);

/**
 * May this process call rte_eal_cleanup() at exit? Not while a net_memif
 * port exists: in 22.11 closing a memif port (which rte_eal_cleanup's bus
 * cleanup does) frees interrupt handles the EAL interrupt thread still
 * holds (the listener's is never unregistered, the control channel's is
 * unregistered later, on the peer's next event), and rte_eal_cleanup then
 * unmaps the memory they live in: when the peer reacts, the interrupt
 * thread faults (seen here ~1 run in 10, in rte_intr_fd_get at exit).
 * Skipping the cleanup keeps the memory mapped until the process ends;
 * what it would have removed (runtime files under /var/run/dpdk/PREFIX)
 * the next primary with that prefix removes.
 */
bool quirk_eal_cleanup_safe(void);

#endif /* QUIRKS_H */
