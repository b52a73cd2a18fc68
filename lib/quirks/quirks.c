/* SPDX-License-Identifier: BSD-3-Clause */
/* Work-arounds for DPDK 22.11 defects: see quirks.h. */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <mntent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>

#include "quirks.h"

bool
quirk_is_memif(uint16_t port_id)
{
	struct rte_eth_dev_info info;

	return rte_eth_dev_info_get(port_id, &info) == 0 && info.driver_name != NULL &&
	       strcmp(info.driver_name, "net_memif") == 0;
}

bool
quirk_eal_cleanup_safe(void)
{
	uint16_t pid;

	RTE_ETH_FOREACH_DEV(pid)
		if (quirk_is_memif(pid))
			return false;
	return true;
}

/* files PREFIXmap_<digits> of one hugetlbfs mount */
static unsigned int
release_in(const char *dir, const char *prefix)
{
	size_t pl = strlen(prefix);
	unsigned int n = 0;
	struct dirent *e;
	DIR *d = opendir(dir);
	int dfd;

	if (d == NULL)
		return 0;
	dfd = dirfd(d);
	while ((e = readdir(d)) != NULL) {
		const char *p = e->d_name + pl;

		if (strncmp(e->d_name, prefix, pl) != 0 || strncmp(p, "map_", 4) != 0)
			continue;
		for (p += 4; *p >= '0' && *p <= '9'; p++)
			;
		if (p == e->d_name + pl + 4 || *p != '\0')
			continue;
		n += unlinkat(dfd, e->d_name, 0) == 0;
	}
	closedir(d);
	return n;
}

unsigned int
quirk_hugepages_release(void)
{
	const char *run = rte_eal_get_runtime_dir(), *prefix;
	unsigned int n = 0;
	struct mntent *m;
	FILE *f;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY || run == NULL)
		return 0;
	/* the runtime dir is .../PREFIX */
	prefix = strrchr(run, '/');
	prefix = prefix != NULL ? prefix + 1 : run;
	if (*prefix == '\0')
		return 0;
	f = setmntent("/proc/mounts", "r");
	if (f == NULL)
		return 0;
	while ((m = getmntent(f)) != NULL)
		if (strcmp(m->mnt_type, "hugetlbfs") == 0)
			n += release_in(m->mnt_dir, prefix);
	endmntent(f);
	return n;
}

unsigned int
quirk_runtime_release(void)
{
	const char *run = rte_eal_get_runtime_dir();
	unsigned int n = 0;
	struct dirent *e;
	DIR *d;
	int dfd;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY || run == NULL || run[0] == '\0')
		return 0;
	d = opendir(run);
	if (d == NULL)
		return 0;
	dfd = dirfd(d);
	/* flat: config, hugepage_info, fbarray_*, mp_socket*, the telemetry
	 * sockets; nothing else of ours is there (a subdirectory stays) */
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n += unlinkat(dfd, e->d_name, 0) == 0;
	closedir(d);
	n += rmdir(run) == 0;
	return n;
}

int
quirk_eal_prefix_holder(int argc, char **argv, char *prefix, size_t len)
{
	const char *pre = "rte", *xdg = getenv("XDG_RUNTIME_DIR");
	char path[PATH_MAX];
	struct flock lk;
	int i, fd;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strncmp(argv[i], "--file-prefix=", 14) == 0)
			pre = argv[i] + 14;
		else if (strcmp(argv[i], "--file-prefix") == 0 && i + 1 < argc)
			pre = argv[++i];
	}
	snprintf(prefix, len, "%s", pre);
	/* the runtime directory as eal_filesystem.h makes it */
	if (getuid() == 0)
		snprintf(path, sizeof(path), "/var/run/dpdk/%s/config", pre);
	else
		snprintf(path, sizeof(path), "%s/dpdk/%s/config", xdg != NULL ? xdg : "/tmp", pre);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	memset(&lk, 0, sizeof(lk));
	lk.l_type = F_WRLCK;
	lk.l_whence = SEEK_SET;
	lk.l_len = 0;
	if (fcntl(fd, F_GETLK, &lk) != 0 || lk.l_type == F_UNLCK)
		lk.l_pid = 0;
	close(fd);
	return lk.l_pid;
}

struct held {
	long pkts;
	bool infinite;
};

static int
count_pcap(const char *key, const char *value, void *arg)
{
	struct held *h = arg;
	char eb[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *ph;
	const u_char *data;
	pcap_t *p;

	(void)key;
	if (h->pkts < 0)
		return 0;
	p = pcap_open_offline(value, eb);
	if (p == NULL) {
		h->pkts = -1;
		return 0;
	}
	while (pcap_next_ex(p, &ph, &data) == 1)
		h->pkts++;
	pcap_close(p);
	return 0;
}

static int
is_on(const char *key, const char *value, void *arg)
{
	(void)key;
	*(bool *)arg |= strcmp(value, "1") == 0;
	return 0;
}

long
quirk_port_held_mbufs(uint16_t port_id, char *why, size_t len)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;
	struct rte_kvargs *kv;
	struct held h = { 0, false };

	if (rte_eth_dev_info_get(port_id, &info) != 0 || info.driver_name == NULL ||
	    strcmp(info.driver_name, "net_pcap") != 0 || info.device == NULL)
		return 0;
	da = rte_dev_devargs(info.device);
	if (da == NULL || da->args == NULL)
		return 0;
	kv = rte_kvargs_parse(da->args, NULL);
	if (kv == NULL)
		return 0;
	rte_kvargs_process(kv, "infinite_rx", is_on, &h.infinite);
	if (h.infinite)
		rte_kvargs_process(kv, "rx_pcap", count_pcap, &h);
	rte_kvargs_free(kv);
	if (!h.infinite)
		return 0;
	if (h.pkts > 0)
		snprintf(why, len, "net_pcap infinite_rx=1 keeps its files' %ld packets in "
			 "mbufs", h.pkts);
	return h.pkts;
}

/* ---- a secondary's rte_eal_init: net_pcap's re-probe ------------------- */

static struct {
	FILE *stream;            /* ours, while held */
	char line[1024];         /* the line being written */
	size_t len;
	unsigned int held;       /* net_pcap lines held back */
	bool pcap_failed;        /* a net_pcap device failed to probe */
	char dev[64];            /* the last such device */
	char path[256];          /* the path it could not open (cut) */
	char pci[64];            /* a PCI device the primary does not drive */
} qlog;

static bool
starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* One whole line: held back when it is part of net_pcap's failed
 * re-probe, else written to stderr. */
static void
qlog_line(const char *l)
{
	const char *p;

	if (starts(l, "open_single_rx_pcap(): Couldn't open ") ||
	    starts(l, "open_single_tx_pcap(): Couldn't open ")) {
		p = l + strlen("open_single_rx_pcap(): Couldn't open ");
		snprintf(qlog.path, sizeof(qlog.path), "%.*s", (int)strcspn(p, ":\n"), p);
		qlog.held++;
		return;
	}
	if (starts(l, "vdev_probe(): failed to initialize net_pcap") && qlog.held > 0) {
		p = l + strlen("vdev_probe(): failed to initialize ");
		snprintf(qlog.dev, sizeof(qlog.dev), "%.*s", (int)strcspn(p, " \n"), p);
		qlog.pcap_failed = true;
		qlog.held++;
		return;
	}
	/* a secondary without --no-pci (a tap of a PCI port) probes every PCI
	 * device, and says so of those the primary does not drive: harmless */
	if (starts(l, "Device ") && strstr(l, " is not driven by the primary process") != NULL) {
		p = l + strlen("Device ");
		snprintf(qlog.pci, sizeof(qlog.pci), "%.*s", (int)strcspn(p, " \n"), p);
		return;
	}
	if (starts(l, "EAL: Requested device ") && qlog.pci[0] != '\0' &&
	    starts(l + strlen("EAL: Requested device "), qlog.pci) &&
	    strstr(l, " cannot be used") != NULL)
		return;
	/* EAL's summary of the bus: only net_pcap's failure behind it */
	if (starts(l, "EAL: Bus (vdev) probe failed.") && qlog.pcap_failed) {
		qlog.held++;
		return;
	}
	fputs(l, stderr);
}

static ssize_t
qlog_write(void *cookie, const char *buf, size_t size)
{
	size_t i;

	(void)cookie;
	for (i = 0; i < size; i++) {
		if (qlog.len + 1 < sizeof(qlog.line))
			qlog.line[qlog.len++] = buf[i];
		if (buf[i] == '\n') {
			qlog.line[qlog.len] = '\0';
			qlog_line(qlog.line);
			qlog.len = 0;
		}
	}
	return (ssize_t)size;
}

int
quirk_secondary_log_begin(void)
{
	cookie_io_functions_t io = { .write = qlog_write };

	memset(&qlog, 0, sizeof(qlog));
	qlog.stream = fopencookie(NULL, "w", io);
	if (qlog.stream == NULL)
		return -ENOMEM;
	setvbuf(qlog.stream, NULL, _IOLBF, 0);
	rte_openlog_stream(qlog.stream);
	return 0;
}

unsigned int
quirk_secondary_log_end(void)
{
	if (qlog.stream == NULL)
		return 0;
	rte_openlog_stream(NULL);
	fflush(qlog.stream);
	if (qlog.len > 0) { /* a last line without its newline */
		qlog.line[qlog.len] = '\0';
		qlog_line(qlog.line);
		qlog.len = 0;
	}
	fclose(qlog.stream);
	qlog.stream = NULL;
	return qlog.held;
}

bool
quirk_pcap_port_unattached(uint16_t port_id, char *why, size_t len)
{
	/* the port has no name in this process (ethdev refuses to look it
	 * up): the net_pcap device that failed here is named instead */
	if (!qlog.pcap_failed || rte_eth_dev_is_valid_port(port_id))
		return false;
	snprintf(why, len, "not usable in this process: %s could not be attached here, as net_pcap "
		 "re-opens its files in a secondary from the first 63 characters of the primary's "
		 "--vdev arguments (here it tried '%s'); give the primary's net_pcap shorter paths "
		 "to tap it", qlog.dev, qlog.path);
	return true;
}
