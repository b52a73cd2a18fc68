/* SPDX-License-Identifier: BSD-3-Clause */
/* The schedule of scans (lib/writer/wr_sched): checked changes that change
 * nothing when refused, lookups by data time, the writers' snapshot. */

#include <errno.h>
#include <string.h>

#include "check.h"
#include "wr_sched.h"

#define S 1000000000LL

static struct wr_scan
scan(const char *name, int64_t a, int64_t b, uint64_t writers, uint64_t ants)
{
	struct wr_scan s;

	memset(&s, 0, sizeof(s));
	strcpy(s.name, name);
	s.start_ns = a;
	s.stop_ns = b;
	s.writers = writers;
	s.ants = ants;
	return s;
}

int
main(void)
{
	static struct wr_sched sc, before, snap;
	const struct wr_scan *p, *cur, *next;
	struct wr_sched_why why;
	struct wr_scan x;
	unsigned int idx;
	uint64_t seen = UINT64_MAX;
	int64_t now = 1000 * S;

	/* always: free-running until a scan; the first scan ends that */
	wr_sched_init(&sc, false);
	CHECK_EQ_U(wr_sched_lookup(&sc, 0, 0, 5 * S, &p), WR_ROW_FREE);
	x = scan("s1", now + 10 * S, now + 20 * S, 1, ~0ULL);
	CHECK_EQ_I(wr_sched_add(&sc, &x, now, &idx, &why), 0);
	CHECK_EQ_U(wr_sched_lookup(&sc, 0, 3, now - 1, &p), WR_ROW_FREE); /* before the command */
	CHECK_EQ_U(wr_sched_lookup(&sc, 0, 3, now + 1, &p), WR_ROW_SKIP); /* controlled: idle */
	CHECK_EQ_U(wr_sched_lookup(&sc, 0, 3, now + 10 * S, &p), sc.s[0].id); /* start: in */
	CHECK(p != NULL && strcmp(p->name, "s1") == 0);
	CHECK_EQ_U(wr_sched_lookup(&sc, 0, 3, now + 20 * S - 1, &p), sc.s[0].id);
	CHECK_EQ_U(wr_sched_lookup(&sc, 0, 3, now + 20 * S, &p), WR_ROW_SKIP); /* stop: out */
	CHECK_EQ_U(wr_sched_lookup(&sc, 1, 3, now + 15 * S, &p), WR_ROW_FREE); /* writer 1 */

	/* refused: nothing changes */
	memcpy(&before, &sc, sizeof(sc));
	x = scan("s2", now + 15 * S, now + 30 * S, 3, ~0ULL);
	CHECK_EQ_I(wr_sched_add(&sc, &x, now, &idx, &why), -EINVAL); /* overlaps s1 */
	CHECK_STR(why.input, "scan");
	CHECK_HAS(why.expected, "s1");
	x = scan("s2", now - S, now + 30 * S, 2, ~0ULL);
	CHECK_EQ_I(wr_sched_add(&sc, &x, now, &idx, &why), -EINVAL); /* in the past */
	CHECK_STR(why.input, "at");
	x = scan("s2", now + 40 * S, now + 30 * S, 2, ~0ULL);
	CHECK_EQ_I(wr_sched_add(&sc, &x, now, &idx, &why), -EINVAL); /* stop before start */
	CHECK_STR(why.input, "until");
	x = scan("s1", now + 40 * S, now + 50 * S, 2, ~0ULL);
	CHECK_EQ_I(wr_sched_add(&sc, &x, now, &idx, &why), -EINVAL); /* name taken */
	x = scan("../x", now + 40 * S, now + 50 * S, 2, ~0ULL);
	CHECK_EQ_I(wr_sched_add(&sc, &x, now, &idx, &why), -EINVAL); /* bad name */
	CHECK_EQ_I(wr_sched_stop(&sc, "nope", 1, now, now, &why), -EINVAL);
	CHECK_EQ_I(wr_sched_stop(&sc, "s1", 1, now + 5 * S, now, &why), -EINVAL); /* before start */
	CHECK_EQ_I(wr_sched_stop(&sc, NULL, 1, now, now, &why), -EINVAL); /* nothing recording */
	CHECK(memcmp(&before, &sc, sizeof(sc)) == 0);

	/* the same writers, not overlapping; another writer overlapping */
	x = scan("s2", now + 20 * S, WR_SCAN_OPEN, 1, 1);
	CHECK_EQ_I(wr_sched_add(&sc, &x, now, &idx, &why), 0);
	x = scan("s3", now + 15 * S, now + 16 * S, 2, ~0ULL);
	CHECK_EQ_I(wr_sched_add(&sc, &x, now, &idx, &why), 0);
	CHECK_EQ_U(wr_sched_lookup(&sc, 0, 1, now + 25 * S, &p), WR_ROW_SKIP); /* antenna 1 */
	CHECK_EQ_U(wr_sched_lookup(&sc, 0, 0, now + 25 * S, &p), sc.s[1].id);
	/* record off at a time: the open scan running then ends */
	CHECK_EQ_I(wr_sched_stop(&sc, NULL, 1, now + 30 * S, now, &why), 1);
	CHECK_EQ_I(sc.s[1].stop_ns, now + 30 * S);
	wr_sched_current(&sc, 1, now + 12 * S, &cur, &next);
	CHECK(cur == &sc.s[0] && next == &sc.s[1]);
	/* cancel: only before it begins */
	CHECK_EQ_I(wr_sched_cancel(&sc, "s3", now + 15 * S, &why), -EINVAL);
	CHECK_EQ_I(wr_sched_cancel(&sc, "s3", now, &why), 0);
	CHECK_EQ_U(sc.n, 2);

	/* a writer's snapshot: renewed when the schedule changed, only then */
	CHECK(wr_sched_snapshot(&sc, &snap, &seen));
	CHECK(!wr_sched_snapshot(&sc, &snap, &seen));
	CHECK_EQ_I(wr_sched_stop(&sc, "s1", 1, now + 12 * S, now, &why), 1);
	CHECK(wr_sched_snapshot(&sc, &snap, &seen));
	CHECK_EQ_I(snap.s[0].stop_ns, now + 12 * S);

	/* idle: nothing recorded outside scans from the start */
	wr_sched_init(&sc, true);
	CHECK_EQ_U(wr_sched_lookup(&sc, 5, 0, 0, &p), WR_ROW_SKIP);
	return check_report("sched");
}
