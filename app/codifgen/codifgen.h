/* SPDX-License-Identifier: BSD-3-Clause */
/* What codifgen's files share: its options, its three outputs (pcap,
 * kernel sockets, a DPDK port), and the stop flag of a signal. */

#ifndef CODIFGEN_H
#define CODIFGEN_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mbuf.h>

#include "fmt.h"
#include "gen.h"

#define ERRLEN 512

/* The command line, parsed and checked (options.c). */
struct opts {
	struct gen_cfg cfg;
	const char *pcap_path;
	const char *truth_path;
	bool socket;
	bool dpdk;
	uint16_t tx_port;
	double rate_fps;   /* per stream; <0: real time */
	double rate_gbps;  /* total; 0: unset */
	bool epoch_set;
	uint64_t duration_ns;
	bool frames_set;
	bool quiet;
	bool queue_per_antenna;
	bool tx_drop;
	unsigned int nb_mbufs;
	uint64_t linger_ns;
	char ant_name[GEN_MAX_ANTENNAS][32]; /* --antenna-ip IP=NAME, else "" (ant<i>) */
	const char *select;                  /* --antenna, resolved after the layout */
	bool check_only;                     /* --check-config */
};

/* Set by SIGINT or SIGTERM: every loop that waits (pacing, a full socket
 * queue, a link coming up) stops waiting. */
extern volatile sig_atomic_t cg_stop;
/* From now on, SIGINT and SIGTERM set cg_stop (stop.c). */
void cg_stop_on_signals(void);

/* Parse and check codifgen's options (EAL's taken off already) into o.
 * --help prints and exits 0. @return 0, or -1 with the message printed. */
int cg_parse_args(int argc, char **argv, struct opts *o);

/* Print the effective configuration (--check-config), as the table says. */
void cg_opts_print(const struct opts *o, FILE *f);

/* --pcap FILE (out_pcap.c): each returns 0, or nonzero with the message
 * printed naming the file. */
int pcap_out_open(struct fmt_sink *op, const char *path);
int pcap_out_write(struct fmt_sink *op, const char *path, int64_t ts, const uint8_t *buf,
		   uint32_t len);
int pcap_out_close(struct fmt_sink *op, const char *path);

/* --socket (out_socket.c): one UDP socket per emitted antenna, bound to its
 * source address. */
struct out_sock {
	int fd[GEN_MAX_ANTENNAS];
	uint64_t retries;
};

/* Open and bind the sockets. @return 0, or -1 with the message printed
 * (sock_close then closes what was opened). */
int sock_open(struct out_sock *os, const struct gen_cfg *c);
/* Send p's UDP payload to its group, retrying while the kernel queue is
 * full. @return 0, or -1 with the message printed. */
int sock_send(struct out_sock *os, const struct gen *g, const struct gen_pkt *p,
	      const uint8_t *payload, uint32_t len);
void sock_close(struct out_sock *os);

/* --tx-port (out_dpdk.c): a DPDK port, one tx queue or one per antenna. */
#define TXQ_MAX (GEN_MAX_ANTENNAS + 1)

struct out_dpdk {
	uint16_t port;
	struct rte_mempool *mp;
	unsigned int nq;
	bool per_antenna;
	struct rte_mbuf *burst[TXQ_MAX][32];
	unsigned int n[TXQ_MAX];
	uint64_t sent, retries, dropped;
	bool started;
	bool pace;
	bool drop;
};

/* Configure and start the port of o->tx_port, with its mbuf pool sized for
 * g's frames. @return 0, or -1 with the message printed (dpdk_close then
 * undoes what was done). */
int dpdk_open(struct out_dpdk *od, const struct opts *o, const struct gen *g);
/* Queue p's frame; send the queue's burst when full or when paced.
 * @return 0, or -1 with the message printed. */
int dpdk_send(struct out_dpdk *od, const struct gen *g, const struct gen_pkt *p);
/* Send what is queued, keep the port open linger_ns, stop and close it. */
void dpdk_close(struct out_dpdk *od, uint64_t linger_ns);

#endif /* CODIFGEN_H */
