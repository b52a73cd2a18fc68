/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the capture's host checks: EAL arguments read as EAL reads them, memory fitted to synthetic hugepages. */

#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "config.h"
#include "host.h"

#define MiB (1024ULL * 1024)
#define GiB (1024 * MiB)

static void
view(struct ibv_eal_view *v, const char *a0, const char *a1, const char *a2, const char *a3)
{
	char *argv[8] = { (char *)(uintptr_t)"prog" };
	int argc = 1;

	if (a0 != NULL)
		argv[argc++] = (char *)(uintptr_t)a0;
	if (a1 != NULL)
		argv[argc++] = (char *)(uintptr_t)a1;
	if (a2 != NULL)
		argv[argc++] = (char *)(uintptr_t)a2;
	if (a3 != NULL)
		argv[argc++] = (char *)(uintptr_t)a3;
	argv[argc++] = (char *)(uintptr_t)"--";
	argv[argc++] = (char *)(uintptr_t)"-l"; /* after '--': not EAL's */
	ibv_eal_view_parse(argc, argv, v);
}

static void
test_eal_view(void)
{
	static struct ibv_eal_view v;

	view(&v, "-l", "0-3,6", NULL, NULL);
	CHECK(v.lcores_given && v.bad[0] == '\0');
	CHECK_EQ_U(v.nlcore, 5);
	CHECK(v.lcore[0] && v.lcore[3] && !v.lcore[4] && v.lcore[6]);
	CHECK(v.cpu[6] && !v.cpu[5]);
	CHECK_STR(v.lcores_arg, "-l 0-3,6");
	view(&v, "-l0-1", NULL, NULL, NULL); /* EAL takes the value attached too */
	CHECK_EQ_U(v.nlcore, 2);
	view(&v, "-c", "0x5", NULL, NULL);
	CHECK_EQ_U(v.nlcore, 2);
	CHECK(v.lcore[0] && v.lcore[2]);
	/* --lcores: lcore ids, groups, each on its CPUs */
	view(&v, "--lcores", "(0-2)@0,5@(1,3),7", NULL, NULL);
	CHECK(v.bad[0] == '\0');
	CHECK_EQ_U(v.nlcore, 5);
	CHECK(v.lcore[5] && v.lcore[7] && !v.lcore[3]);
	CHECK(v.cpu[0] && v.cpu[1] && v.cpu[3] && v.cpu[7] && !v.cpu[2] && !v.cpu[5]);
	view(&v, "--lcores=0@0,1@0", "--main-lcore", "1", NULL); /* '=' form */
	CHECK_EQ_U(v.nlcore, 2);
	CHECK_EQ_I(v.main_lcore, 1);
	view(&v, "--lcore", "0@0,1@0", NULL, NULL); /* an abbreviation, as getopt_long */
	CHECK(v.lcores_given && v.nlcore == 2);
	view(&v, "-l", "0-1", "-c", "3");
	CHECK_STR(v.bad, "-l 0-1 and -c 3: EAL takes one of -c, -l and --lcores");
	view(&v, "-l", "3-1", NULL, NULL);
	CHECK_STR(v.bad, "-l '3-1': EAL cannot read it");
	/* memory */
	view(&v, "--no-huge", "-m", "512", NULL);
	CHECK(v.no_huge && v.mem_mb == 512);
	view(&v, "--socket-mem", "512,256", "--socket-limit=1024,0", NULL);
	CHECK_EQ_U(v.socket_mem_mb, 768);
	CHECK_EQ_U(v.socket_limit_mb, 0); /* a socket without a limit */
	view(&v, "--file-prefix", "askap", "--huge-dir=/mnt/huge", NULL);
	CHECK_STR(v.prefix, "askap");
	CHECK_STR(v.huge_dir, "/mnt/huge");
	view(&v, "--vdev", "net_pcap0,rx_pcap=x.pcap", "-n", "4");
	CHECK(!v.lcores_given && v.bad[0] == '\0');
	CHECK_STR(v.prefix, "rte");
	CHECK_STR(v.refused, "");
	/* short options clustered, as getopt reads them: -v is a flag (EAL
	 * says so), -l takes the rest of the cluster or the next argument */
	view(&v, "-vl", "0-1", NULL, NULL);
	CHECK(v.lcores_given && v.bad[0] == '\0');
	CHECK_EQ_U(v.nlcore, 2);
	CHECK_STR(v.lcores_arg, "-l 0-1");
	CHECK_STR(v.refused, "");
	view(&v, "-vl0", NULL, NULL, NULL);
	CHECK(v.lcores_given && v.nlcore == 1 && v.lcore[0]);
	CHECK_STR(v.refused, "");
	/* a letter that takes a value (-a) takes the rest: its 'c' is no -c */
	view(&v, "-a0000:0c:00.0", "-l", "0-1", NULL);
	CHECK(v.bad[0] == '\0' && v.nlcore == 2);
	CHECK_STR(v.lcores_arg, "-l 0-1");
}

/* EAL's own verdict (its parse in a child process): options the view does
 * not read are taken or refused by the EAL installed, not by a table here. */
static void
test_eal_verdict(void)
{
	static struct ibv_eal_view v;

	/* none of these is read by the view; EAL 22.11 takes them all, an
	 * abbreviation (--force-max) and values attached or next included */
	view(&v, "--force-max=64", "-n4", "--iova-mode", "va");
	CHECK_STR(v.bad, "");
	CHECK_STR(v.refused, "");
	view(&v, "--no-pci", "--huge-worker-stack=512", "--log-level=lib.eal:debug", "--no-hpet");
	CHECK_STR(v.refused, "");
	/* an option no EAL has, named in EAL's words */
	view(&v, "-l", "0", "--no-such-eal-option", NULL);
	CHECK_STR(v.refused, "--no-such-eal-option: EAL refuses it: unrecognized option "
		  "'--no-such-eal-option'");
	CHECK_EQ_U(v.nlcore, 1); /* the view read what it reads all the same */
	/* a value EAL cannot read, of an option the view does not read */
	view(&v, "--iova-mode=bogus", NULL, NULL, NULL);
	CHECK_STR(v.refused, "--iova-mode=bogus: EAL refuses it: invalid parameters for --iova-mode");
	/* an abbreviation EAL finds ambiguous */
	view(&v, "--no-pci", "--huge", "/mnt", NULL);
	CHECK(strncmp(v.refused, "--huge: EAL refuses it: option '--huge' is ambiguous", 52) == 0);
	/* EAL's words need not name the argument: the check does */
	view(&v, "--no-pci", "-n", "0", "--no-hpet");
	CHECK_STR(v.refused, "-n: EAL refuses it: invalid channel number");
	/* the last option without the value it needs */
	view(&v, "-l", "0", "--file-prefix", NULL);
	CHECK_STR(v.refused, "--file-prefix: no value after it");
}

/* 2 MiB pages, n free, mounted */
static void
pages(struct ibv_hp_info *h, uint64_t n2m, uint64_t n1g)
{
	memset(h, 0, sizeof(*h));
	h->nsocket = 1;
	h->n = 2;
	h->s[0].page = 2 * MiB;
	h->s[0].free = h->s[0].total = n2m;
	h->s[0].usable = true;
	snprintf(h->s[0].dir, sizeof(h->s[0].dir), "/dev/hugepages");
	h->s[1].page = GiB;
	h->s[1].free = h->s[1].total = n1g;
	h->s[1].usable = n1g > 0;
	snprintf(h->s[1].dir, sizeof(h->s[1].dir), "/dev/hugepages1G");
}

static void
test_memory(void)
{
	static struct ibv_config c;
	static struct ibv_eal_view v;
	struct ibv_mem_need m;
	struct ibv_hp_info h;
	char err[1024];
	uint64_t avail;

	ibv_config_defaults(&c);
	c.layout.nthread = c.threads;
	c.slots = 8; /* groups x threads, no spare: the sums below */
	view(&v, "-l", "0-1", NULL, NULL);
	ibv_mem_need(&c, &v, &m);
	/* 1024 rows x 8 streams x 8192 bytes, plus metadata */
	CHECK_EQ_U(m.nant, 6);
	CHECK(m.ant_bytes > 1024ULL * 8 * 8192 && m.ant_bytes < 1024ULL * 8 * 8192 * 105 / 100);
	CHECK(m.pool_bytes > 0 && m.total > 6 * m.ant_bytes);
	pages(&h, 1024, 0);
	CHECK_EQ_I(ibv_mem_fit(&c, &m, &v, &h, &avail, err, sizeof(err)), 0);
	CHECK_EQ_U(avail, 2 * GiB);
	pages(&h, 100, 0);
	CHECK_EQ_I(ibv_mem_fit(&c, &m, &v, &h, &avail, err, sizeof(err)), -ENOMEM);
	CHECK_HAS(err, "more than the 200.0 MiB of hugepages EAL can have (100 x 2 MiB free in "
		  "/dev/hugepages): lower --ring (1024 frames), --reorder-window (64 frames; the "
		  "ring is at least twice it) or --antennas (6), or reserve more hugepages");
	/* -m with hugepages: taken at start, so no more than the free pages */
	view(&v, "-l", "0-1", "-m", "4096");
	pages(&h, 1024, 0);
	CHECK_EQ_I(ibv_mem_fit(&c, &m, &v, &h, NULL, err, sizeof(err)), -ENOMEM);
	CHECK_HAS(err, "-m 4096: EAL takes that many MiB of hugepages at start, only 2.0 GiB");
	/* --legacy-mem -m: what EAL maps at start is all it has */
	view(&v, "--legacy-mem", "-m", "256", NULL);
	CHECK_EQ_I(ibv_mem_fit(&c, &m, &v, &h, &avail, err, sizeof(err)), -ENOMEM);
	CHECK_EQ_U(avail, 256 * MiB);
	/* --no-huge: -m, 64 MiB without */
	view(&v, "--no-huge", NULL, NULL, NULL);
	CHECK_EQ_I(ibv_mem_fit(&c, &m, &v, &h, &avail, err, sizeof(err)), -ENOMEM);
	CHECK_EQ_U(avail, 64 * MiB);
	CHECK_HAS(err, "more than the 64 MiB EAL has with --no-huge (no -m)");
	view(&v, "--no-huge", "-m", "1024", NULL);
	CHECK_EQ_I(ibv_mem_fit(&c, &m, &v, &h, &avail, err, sizeof(err)), 0);
	/* the reorder window grows the ring: 5000 -> 16384 rows, 1 GiB each */
	c.window_frames = 5000;
	ibv_mem_need(&c, &v, &m);
	CHECK(m.ant_bytes > GiB);
	view(&v, "-l", "0-1", NULL, NULL);
	pages(&h, 4096, 0); /* 8 GiB */
	CHECK_EQ_I(ibv_mem_fit(&c, &m, &v, &h, NULL, err, sizeof(err)), 0);
	pages(&h, 2048, 0);
	CHECK_EQ_I(ibv_mem_fit(&c, &m, &v, &h, NULL, err, sizeof(err)), -ENOMEM);
	CHECK_HAS(err, "lower --ring (16384 frames, grown for the reorder window), "
		  "--reorder-window (5000 frames");
	/* 100000: 16 GiB a buffer, more than a 2 MiB pages' segment list holds;
	 * 1 GiB pages hold it */
	c.window_frames = 100000;
	ibv_mem_need(&c, &v, &m);
	pages(&h, 60000, 0);
	CHECK_EQ_I(ibv_mem_fit(&c, &m, &v, &h, NULL, err, sizeof(err)), -ENOMEM);
	CHECK_HAS(err, "must lie in one of EAL's memory segment lists, at most 16.0 GiB with 2 MiB "
		  "pages");
	pages(&h, 0, 120);
	/* EAL takes at most 64 GiB of a page size on a socket
	 * (RTE_MAX_MEM_MB_PER_TYPE): 97.8 GiB needs two sockets */
	CHECK_EQ_I(ibv_mem_fit(&c, &m, &v, &h, &avail, err, sizeof(err)), -ENOMEM);
	CHECK_EQ_U(avail, 64 * GiB);
	h.nsocket = 2;
	CHECK_EQ_I(ibv_mem_fit(&c, &m, &v, &h, NULL, err, sizeof(err)), 0);
	/* buffers lie whole in pages of one size, within a segment list: 117
	 * GiB in all, but only one 16.3 GiB buffer can be had (1 GiB pages) */
	pages(&h, 50 * 1024, 17); /* 100 GiB of 2 MiB pages, 17 GiB of 1 GiB pages */
	h.nsocket = 2;           /* (64 GiB a page size and socket) */
	CHECK_EQ_I(ibv_mem_fit(&c, &m, &v, &h, NULL, err, sizeof(err)), -ENOMEM);
	CHECK_HAS(err, "need 97.");
	/* no hugepages at all */
	c.window_frames = 64;
	ibv_mem_need(&c, &v, &m);
	pages(&h, 0, 0);
	h.s[0].usable = false;
	CHECK_EQ_I(ibv_mem_fit(&c, &m, &v, &h, NULL, err, sizeof(err)), -ENOMEM);
	CHECK_HAS(err, "memory: no hugepages EAL could use (no hugepages reserved)");
}

int
main(void)
{
	test_eal_view();
	test_eal_verdict();
	test_memory();
	return check_report("host");
}
