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

/**
 * Remove this primary's hugepage files (PREFIXmap_N in every hugetlbfs
 * mount), to call just before rte_eal_cleanup() at exit. In 22.11 neither
 * rte_eal_cleanup() nor a normal exit removes them (so that secondaries may
 * attach while the primary lives): every run, and every start-up that
 * fails after EAL init, left its pages allocated until the next primary
 * with the same prefix (HugePages_Free 1024 -> 960 for one failed start).
 * The mappings stay valid (the pages are freed with the last one); only a
 * new secondary could no longer attach, and the primary is going.
 * Only a primary that initialised EAL may call it: it holds the prefix's
 * lock, so no other primary's files can be of that prefix.
 * @return the number of files removed.
 */
unsigned int quirk_hugepages_release(void);

/**
 * After rte_eal_init() failed: is it because another primary holds the
 * --file-prefix? 22.11 then leaves rte_errno at 0 ("Success") and logs the
 * reason only at a level our tools keep quiet. Reads the EAL arguments
 * (argv up to "--") for --file-prefix (default "rte"), and asks the lock
 * on that prefix's runtime config file who holds it.
 * @param prefix filled with the prefix (len bytes)
 * @return the holder's pid, or 0 when none holds it (another cause).
 */
int quirk_eal_prefix_holder(int argc, char **argv, char *prefix, size_t len);

/**
 * Mbufs a port's driver keeps for itself beyond its rx descriptors: net_pcap
 * with infinite_rx=1 copies every packet of its rx_pcap files into mbufs of
 * the queue's pool at queue setup, and then finds none free to hand out:
 * with a pool sized for descriptors only it receives nothing, says nothing
 * and counts no rx_nombuf. 0 for other ports.
 * @param why filled with a reason when the result is > 0 (len bytes)
 * @return packets in those files (-1 when a file cannot be read: the
 *   port's own setup will say so).
 */
long quirk_port_held_mbufs(uint16_t port_id, char *why, size_t len);

#endif /* QUIRKS_H */
