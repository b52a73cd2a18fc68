/* SPDX-License-Identifier: BSD-3-Clause */
/* Generator ground truth against lib/acct counting the same frames. */

#include <stdlib.h>
#include <string.h>

#include "acct.h"
#include "check.h"
#include "codif_pattern.h"
#include "gen.h"
#include "stats.h"

/* Hold a suspect's copy; release or drop what acct says. Returns the
 * frames released (checked against the pattern) into *bad. */
static void
actions(struct acct *a, int ant, uint64_t *bad)
{
	struct acct_action act;

	while (acct_action(a, ant, &act)) {
		uint8_t *cp = (uint8_t *)(uintptr_t)act.handle;
		struct codif_hdr h;
		size_t off;

		if (cp == NULL)
			continue;
		if (!act.drop) {
			codif_decode(cp + act.fd.codif_off, 64, &h, NULL, 0);
			if (!codif_pattern_check(&h, cp + act.fd.codif_off + 64,
						 act.fd.codif_len - 64, &off))
				(*bad)++;
		}
		free(cp);
	}
}

static void
keep(const struct acct_result *r, const uint8_t *f, uint32_t len)
{
	uint8_t *cp;

	if (r->fd.cls != CODIF_SEQ_SUSPECT || r->hold == NULL)
		return;
	cp = malloc(len);
	memcpy(cp, f, len);
	r->hold->handle = (uintptr_t)cp;
}

/* Run a generator through acct; compare every stream and antenna. */
static void
run(const char *name, struct gen_cfg *c)
{
	static uint8_t buf[GEN_MAX_FRAME];
	struct acct_layout l;
	struct acct *a, *a2;
	struct gen g;
	struct gen_pkt p;
	uint64_t non_ipv4 = 0, pkts = 0, bad_payload = 0, faults = 0;
	unsigned int i, k;
	int fails = check_failures;

	CHECK(gen_init(&g, c) == 0);
	gen_layout(c, &l);
	a = acct_create(&l);
	a2 = acct_create(&l); /* the same frames seen through a buffer split */
	CHECK(a != NULL && a2 != NULL);
	while (gen_next(&g, &p) == 1) {
		struct acct_result r;
		uint32_t len = gen_build(&g, &p, buf);

		pkts++;
		{
			/* arriving at the packets' times, as a real-time
			 * sender sends them: bursts are outages (lost) */
			struct acct_rx rx = { .arrival_ns = p.ts_ns };

			acct_frame_rx(a, 0, buf, len, len, &rx, &r);
		}
		keep(&r, buf, len);
		if (acct_busy(a, r.ant))
			actions(a, r.ant, &bad_payload);
		{
			/* headers (Ethernet+IPv4+UDP+CODIF) in a host segment of
			 * exactly 106 bytes, the rest elsewhere: acct must not read
			 * past the head (ASan) and must count the same */
			uint32_t cap = len < 106 ? len : 106;
			uint8_t *head = malloc(cap);
			struct acct_result r2;

			struct acct_rx rx2 = { .arrival_ns = p.ts_ns };

			memcpy(head, buf, cap);
			acct_frame_rx(a2, 0, head, cap, len, &rx2, &r2);
			/* the split view holds its copy of the head only */
			keep(&r2, head, cap);
			if (acct_busy(a2, r2.ant)) {
				struct acct_action act;

				while (acct_action(a2, r2.ant, &act))
					free((void *)(uintptr_t)act.handle);
			}
			free(head);
		}
		if (acct_placeable(r.fd.cls)) {
			size_t off;

			if (!codif_pattern_check(&r.hdr, buf + r.fd.codif_off + 64,
						 r.fd.codif_len - 64, &off))
				bad_payload++;
		}
	}
	acct_flush(a);
	acct_flush(a2);
	for (i = 0; i < c->nant; i++) {
		struct acct_action act;

		actions(a, (int)i, &bad_payload);
		while (acct_action(a2, (int)i, &act))
			free((void *)(uintptr_t)act.handle);
	}
	CHECK_EQ_U(pkts, g.packets);
	CHECK_EQ_U(bad_payload, 0);
	for (i = 0; i < g.nstream; i++) {
		const struct gen_stream *s = &g.st[i];
		const struct acct_ant *an = &a->ant[s->ant];
		const struct acct_stream *as = NULL;
		struct gen_truth t;
		struct acct_counts got;

		for (k = 0; k < an->nstream; k++)
			if (an->stream[k].threadid == s->hdr.threadid &&
			    an->stream[k].secondaryid == s->hdr.secondaryid &&
			    an->stream[k].dst_ip == c->group[s->group].ip)
				as = &an->stream[k];
		CHECK(as != NULL);
		if (as == NULL)
			continue;
		gen_truth(&g, i, &t);
		/* every stream counter of the table, as the truth says */
		stats_zero(&stats_counts, &got);
		acct_stream_add(as, &got);
		for (k = 0; k < stats_counts.n; k++) {
			const struct stats_field *f = &stats_counts.f[k];
			unsigned int e;

			if (!stats_in(f, STATS_STREAM) || strcmp(f->name, "too_late") == 0)
				continue;
			for (e = 0; e < (f->type == STATS_ARRAY ? f->n : 1u); e++) {
				if (stats_get(f, &got, e) != stats_get(f, &t.c, e))
					fprintf(stderr, "stream %u: %s\n", i, f->name);
				CHECK_EQ_U(stats_get(f, &got, e), stats_get(f, &t.c, e));
			}
		}
		CHECK(got.expected > 0 && got.first_ns != INT64_MAX);
		non_ipv4 += s->t.non_ipv4;
		for (k = GEN_F_LOSS; k < GEN_F__COUNT; k++)
			faults += s->t.fault[k];
		faults += s->t.c.late; /* reordering is not a per-frame fault */
	}
	for (i = 0; i < c->nant; i++) {
		uint64_t mal = 0;

		for (k = 0; k < g.nstream; k++)
			if (g.st[k].ant == i)
				mal += g.st[k].t.c.malformed;
		CHECK_EQ_U(a->ant[i].malformed, mal);
	}
	CHECK_EQ_U(a->port[0].cause[PKT_ERR_NOT_IPV4], non_ipv4);
	/* split view: with untagged frames every counter the same; an 802.1Q
	 * tag moves the CODIF header past the 106-byte head: such frames count
	 * as split-offset malformed, nothing is read past the head */
	for (i = 0; i < c->nant; i++) {
		uint64_t vlan = 0;

		for (k = 0; k < g.nstream; k++)
			if (g.st[k].ant == i)
				vlan += g.st[k].t.fault[GEN_F_VLAN];
		CHECK_EQ_U(a2->ant[i].nstream, a->ant[i].nstream);
		if (vlan == 0) {
			CHECK_EQ_U(a2->ant[i].malformed, a->ant[i].malformed);
			CHECK_EQ_U(a2->ant[i].mal[ACCT_M_SPLIT], 0);
			for (k = 0; k < a->ant[i].nstream && k < a2->ant[i].nstream; k++)
				CHECK(memcmp(&a2->ant[i].stream[k].seq.st,
					     &a->ant[i].stream[k].seq.st,
					     sizeof(a->ant[i].stream[k].seq.st)) == 0);
		} else if (strcmp(name, "vlan") == 0) {
			CHECK_EQ_U(a2->ant[i].mal[ACCT_M_SPLIT], vlan);
			CHECK_EQ_U(a2->ant[i].malformed, a->ant[i].malformed + vlan);
		} else {
			CHECK(a2->ant[i].mal[ACCT_M_SPLIT] > 0);
			CHECK(a2->ant[i].mal[ACCT_M_SPLIT] <= vlan);
		}
	}
	for (k = 0; k < ACCT_C__COUNT; k++)
		CHECK_EQ_U(a2->port[0].cause[k], a->port[0].cause[k]);
	/* a fault run must have injected something */
	if (strcmp(name, "clean") != 0)
		CHECK(faults > 0);
	else
		CHECK_EQ_U(faults, 0);
	printf("  %-12s %6" PRIu64 " packets, %4" PRIu64 " faults: %s\n", name,
	       pkts, faults, fails == check_failures ? "ok" : "MISMATCH");
	acct_free(a);
	acct_free(a2);
	gen_free(&g);
}

static void
test_faults(void)
{
	static const struct {
		const char *name;
		enum gen_fault f;
	} kinds[] = {
		{"loss", GEN_F_LOSS}, {"invalid", GEN_F_INVALID},
		{"duplicate", GEN_F_DUPLICATE}, {"vlan", GEN_F_VLAN},
		{"bad-sync", GEN_F_BAD_SYNC}, {"bad-length", GEN_F_BAD_LENGTH},
		{"truncated", GEN_F_TRUNCATED}, {"non-codif", GEN_F_NON_CODIF},
		{"non-ipv4", GEN_F_NON_IPV4},
	};
	struct gen_cfg c;
	unsigned int i;

	gen_cfg_defaults(&c);
	c.frames = 60;
	run("clean", &c);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		gen_cfg_defaults(&c);
		c.frames = 60;
		c.seed = 7 + i;
		c.p[kinds[i].f] = 0.05;
		run(kinds[i].name, &c);
	}
	gen_cfg_defaults(&c);
	c.frames = 60;
	c.p_reorder = 0.1;
	c.depth = 6;
	run("reorder", &c);
	gen_cfg_defaults(&c);
	c.frames = 200;
	c.seed = 99;
	c.p_reorder = 0.05;
	c.depth = 8;
	for (i = GEN_F_LOSS; i < GEN_F_EVENT; i++)
		c.p[i] = 0.02;
	run("everything", &c);
	/* timeline events, one per antenna, random faults around them */
	{
		static const char *const ev[] = {
			"flip:frame.14@100,ant=0", "stray:+30d@200,ant=1,extra",
			"step:+3h@300,ant=2", "step:-3h@300,ant=3", "burst:500@100,ant=4",
			"param:nchan=8@400,ant=5", "flip:seconds.20@700,ant=2,stream=3",
			"param:representation=3@800,ant=0,stream=5",
			"burst:3000@900,ant=1", "flip:period.3@1000,ant=4",
		};
		char err[256];

		gen_cfg_defaults(&c);
		c.frames = 4000;
		c.seed = 5;
		c.p[GEN_F_LOSS] = 0.01;
		c.p_reorder = 0.02;
		c.depth = 6;
		for (i = 0; i < sizeof(ev) / sizeof(ev[0]); i++) {
			CHECK(gen_event_parse(ev[i], &c.ev[c.nev], err, sizeof(err)) == 0);
			c.nev++;
		}
		run("events", &c);
	}
}

/* --antenna emits exactly the selected antennas' packets of the full run. */
static void
test_select(void)
{
	static uint8_t b1[GEN_MAX_FRAME], b2[GEN_MAX_FRAME];
	struct gen_cfg c;
	struct gen ga, gs;
	struct gen_pkt p, q;
	uint64_t n = 0, mismatch = 0;

	gen_cfg_defaults(&c);
	c.frames = 40;
	c.p[GEN_F_LOSS] = 0.05;
	c.p[GEN_F_DUPLICATE] = 0.05;
	c.p_reorder = 0.1;
	CHECK(gen_init(&ga, &c) == 0);
	c.select = 1u << 2 | 1u << 4;
	CHECK(gen_init(&gs, &c) == 0);
	while (gen_next(&gs, &q) == 1) {
		uint32_t l1, l2;

		do {
			CHECK(gen_next(&ga, &p) == 1);
		} while (ga.st[p.stream].ant != 2 && ga.st[p.stream].ant != 4);
		l1 = gen_build(&ga, &p, b1);
		l2 = gen_build(&gs, &q, b2);
		if (l1 != l2 || memcmp(b1, b2, l1) != 0 || p.index != q.index)
			mismatch++;
		n++;
	}
	CHECK(n > 0);
	CHECK_EQ_U(mismatch, 0);
	gen_free(&ga);
	gen_free(&gs);
}

static void
test_bad_config(void)
{
	struct gen_cfg c;
	struct gen g;

	gen_cfg_defaults(&c);
	c.ant_ip[3] = c.ant_ip[1];
	CHECK(gen_init(&g, &c) != 0);
	CHECK_HAS(g.err, "antenna source IP 10.17.0.212 given twice");
	gen_cfg_defaults(&c);
	c.p[GEN_F_LOSS] = 0.7;
	c.p[GEN_F_INVALID] = 0.7;
	CHECK(gen_init(&g, &c) != 0);
	CHECK_HAS(g.err, "fault probabilities add up to 1.4");
	gen_cfg_defaults(&c);
	c.tmpl.nbits = 12;
	CHECK(gen_init(&g, &c) != 0);
	CHECK_HAS(g.err, "stream parameters: framelength8");
	gen_cfg_defaults(&c);
	c.frames = 1;
	CHECK(gen_init(&g, &c) != 0);
	CHECK_HAS(g.err, "frames: 1");
	gen_cfg_defaults(&c);
	c.ant_groups[2] = 0;
	CHECK(gen_init(&g, &c) != 0);
	CHECK_HAS(g.err, "antenna 2 sends to no group");
}

/* Frame times: the first frame at --start, then frame_ns apart. */
static void
test_times(void)
{
	struct gen_cfg c;
	struct gen g;
	struct codif_hdr h;
	char ts[CODIF_TIMESTR_LEN];

	gen_cfg_defaults(&c);
	codif_parse_time("2025-03-10T12:00:13.5Z", &c.start_ns);
	c.tmpl.epoch = (uint8_t)codif_epoch_for_unix(c.start_ns / 1000000000);
	CHECK(gen_init(&g, &c) == 0);
	gen_frame_hdr(&g, 0, 0, &h);
	CHECK_EQ_U(h.seconds, 5918400);
	CHECK_EQ_U(h.frame, 31250);
	CHECK_STR(codif_time_str(codif_frame_time_ns(&h), ts, sizeof(ts)),
		  "2025-03-10T12:00:13.500000000Z");
	gen_frame_hdr(&g, 0, 62500 - 31250, &h);
	CHECK_EQ_U(h.seconds, 5918400 + 27);
	CHECK_EQ_U(h.frame, 0);
	gen_free(&g);
}

/* One frame's outcome through both instances must be the same. */
static void
same_result(const struct acct_result *x, const struct acct_result *y, uint64_t *diff)
{
	bool same = x->ant == y->ant && x->fd.stream == y->fd.stream &&
		    x->fd.cls == y->fd.cls && x->fd.index == y->fd.index &&
		    x->fd.nlost == y->fd.nlost && x->fd.flags == y->fd.flags &&
		    x->fd.slot == y->fd.slot && x->tail == y->tail;

	if (x->fd.cls == CODIF_SEQ_MALFORMED)
		same = same && x->mal == y->mal;
	if (acct_placeable(x->fd.cls) || x->fd.cls == CODIF_SEQ_SUSPECT)
		same = same && memcmp(&x->hdr, &y->hdr, sizeof(x->hdr)) == 0;
	*diff += !same;
}

/* The header fast path (a frame whose header words equal its stream's last
 * fully checked one) against the full checks of every frame: every fault
 * kind, and a random bit of the CODIF header flipped in one frame of 40
 * (ids, parameters, flags, blocklength, version, metadata, sync): each
 * frame's outcome, the decoded header and every counter the same. */
static void
test_fast_path(void)
{
	static uint8_t buf[GEN_MAX_FRAME];
	struct gen_cfg c;
	struct acct_layout l;
	struct acct *a, *full;
	struct gen g;
	struct gen_pkt p;
	uint64_t diff = 0, flips = 0, fast_seen = 0, dummy = 0, stray = 0;
	unsigned int i, k, seed = 7;

	gen_cfg_defaults(&c);
	c.frames = 3000;
	c.p[GEN_F_LOSS] = 0.01;
	c.p[GEN_F_INVALID] = 0.01;
	c.p[GEN_F_DUPLICATE] = 0.01;
	c.p[GEN_F_BAD_SYNC] = 0.005;
	c.p[GEN_F_BAD_LENGTH] = 0.005;
	c.p[GEN_F_VLAN] = 0.01;
	CHECK(gen_init(&g, &c) == 0);
	gen_layout(&c, &l);
	a = acct_create(&l);
	full = acct_create(&l);
	CHECK(a != NULL && full != NULL);
	full->fast_off = true;
	while (gen_next(&g, &p) == 1) {
		struct acct_result r, r2;
		uint32_t len = gen_build(&g, &p, buf);
		struct acct_rx rx = { .arrival_ns = p.ts_ns };

		seed = seed * 1103515245u + 12345u;
		if ((seed >> 16) % 40 == 0 && len >= 106) {
			unsigned int bit = (seed >> 4) % (64 * 8);

			buf[42 + bit / 8] ^= (uint8_t)(1u << (bit % 8));
			flips++;
		}
		acct_frame_rx(a, 0, buf, len, len, &rx, &r);
		keep(&r, buf, len);
		acct_frame_rx(full, 0, buf, len, len, &rx, &r2);
		keep(&r2, buf, len);
		same_result(&r, &r2, &diff);
		if (len >= 106 && buf[12] == 0x08 && buf[13] == 0x00 && (seed >> 8) % 50 == 0) {
			/* the same packet from an address no antenna has (its
			 * IPv4 checksum now wrong too): unknown-source, early */
			struct acct_result r3;

			buf[14 + 12] = 192;
			buf[14 + 15] = (uint8_t)seed;
			acct_frame_rx(a, 0, buf, len, len, &rx, &r3);
			stray++;
			CHECK(r3.ant < 0 && r3.cause == ACCT_C_UNKNOWN_SOURCE && r3.pi.have_ip);
		}
		if (acct_busy(a, r.ant))
			actions(a, r.ant, &dummy);
		if (acct_busy(full, r2.ant))
			actions(full, r2.ant, &dummy);
	}
	acct_flush(a);
	acct_flush(full);
	for (i = 0; i < c.nant; i++) {
		actions(a, (int)i, &dummy);
		actions(full, (int)i, &dummy);
		CHECK_EQ_U(a->ant[i].nstream, full->ant[i].nstream);
		CHECK(memcmp(a->ant[i].mal, full->ant[i].mal, sizeof(a->ant[i].mal)) == 0);
		for (k = 0; k < a->ant[i].nstream && k < full->ant[i].nstream; k++) {
			CHECK(memcmp(&a->ant[i].stream[k].seq.st, &full->ant[i].stream[k].seq.st,
				     sizeof(a->ant[i].stream[k].seq.st)) == 0);
			fast_seen += a->ant[i].stream[k].fast_len != 0;
		}
	}
	for (k = 0; k < ACCT_C__COUNT; k++)
		CHECK_EQ_U(a->port[0].cause[k], full->port[0].cause[k] +
			   (k == ACCT_C_UNKNOWN_SOURCE ? stray : 0));
	CHECK(stray > 100);
	CHECK_EQ_U(diff, 0);
	CHECK(flips > 1000);
	CHECK(fast_seen > 0); /* the fast path was taken */
	printf("  fast path: %" PRIu64 " packets, %" PRIu64 " header bits flipped, "
	       "%" PRIu64 " outcomes differ from the full checks; %" PRIu64 " from unknown "
	       "sources counted so\n", g.packets, flips, diff, stray);
	acct_free(a);
	acct_free(full);
	gen_free(&g);
}

int
main(void)
{
	test_faults();
	test_fast_path();
	test_select();
	test_bad_config();
	test_times();
	return check_report("test_gen");
}
