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
 * Remove this primary's runtime directory (/var/run/dpdk/PREFIX: its
 * config and lock file, hugepage_info, fbarray files, mp and telemetry
 * sockets), to call last at exit, after rte_eal_cleanup() or where it is
 * skipped (quirk_eal_cleanup_safe): 22.11 removes none of them at exit,
 * and without the cleanup not even the sockets. The process must exit
 * right after: a secondary can no longer attach, and another primary may
 * take the prefix.
 * Only a primary that initialised EAL may call it.
 * @return the number of entries removed (the directory included).
 */
unsigned int quirk_runtime_release(void);

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

/**
 * Around rte_eal_init() of a secondary (dpdk-ibvcap-dump): hold back the
 * lines of net_pcap failing to re-open its files. In 22.11 a secondary
 * probes every vdev of the primary, and net_pcap re-opens its rx_pcap
 * files in each process from a copy of the primary's devargs kept in the
 * port's shared data, cut to 63 characters (ETH_PCAP_ARG_MAXLEN): with
 * longer devargs (the README demo's seven files) the secondary logs
 * "open_single_rx_pcap(): Couldn't open <the path, cut>", "vdev_probe():
 * failed to initialize net_pcapN device" and "EAL: Bus (vdev) probe
 * failed.", although the primary's port is fine. A writer of the antenna
 * buffers uses no port, so those lines are noise; any other line passes
 * to stderr. Call quirk_secondary_log_end() after rte_eal_init().
 * @return 0, or -ENOMEM (nothing held back then).
 */
int quirk_secondary_log_begin(void);

/**
 * End what quirk_secondary_log_begin() began: the log goes back to EAL's
 * stream. @return the net_pcap lines held back (0 none).
 */
unsigned int quirk_secondary_log_end(void);

/**
 * Why port_id is not usable in this secondary,
 * when quirk_secondary_log_begin() held back a net_pcap failure for it
 * (the 63-character devargs limit above), in why (len bytes).
 * @return true when that is the reason.
 */
bool quirk_pcap_port_unattached(uint16_t port_id, char *why, size_t len);

#endif /* QUIRKS_H */
