/* SPDX-License-Identifier: BSD-3-Clause */
/* The schedule of scans (lib/writer/wr_sched): checked changes that change
 * nothing when refused, lookups by data time, the writers' snapshot (never
 * torn: a reader thread against a changing one), dump writers' bits and
 * their registry slots (a writer restarted under its name gets its slot,
 * so its scans, back). */

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "shm.h"
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

/* The seqlock under load: one thread rewrites scan 0 and ctl_from[0]
 * with the same k everywhere, another snapshots; its copy must always be
 * one k throughout. */
static struct wr_sched shared;
static volatile int done;

static void *
changer(void *arg)
{
	int64_t k;

	(void)arg;
	for (k = 1; k <= 100000; k++) {
		wr_sched_begin(&shared);
		shared.s[0].start_ns = k;
		memset(shared.s[0].name, 'a' + (int)(k % 26), sizeof(shared.s[0].name) - 1);
		shared.s[0].stop_ns = k + 1;
		shared.ctl_from[0] = k;
		wr_sched_end(&shared);
		/* a pause of varying length: some copies get through */
		for (volatile int64_t j = 0; j < k % 4096; j++)
			;
	}
	done = 1;
	return NULL;
}

static void
torn_test(void)
{
	static struct wr_sched snap;
	uint64_t seen = UINT64_MAX, taken = 0, torn = 0;
	pthread_t t;

	wr_sched_init(&shared, false);
	shared.n = 1;
	shared.s[0].stop_ns = 1; /* k = 0, as the changer writes it */
	shared.ctl_from[0] = 0;
	CHECK_EQ_I(pthread_create(&t, NULL, changer, NULL), 0);
	/* the gate uses snap after every call, renewed or not: so is it checked */
	while (!done) {
		taken += wr_sched_snapshot(&shared, &snap, &seen);
		if (taken == 0)
			continue; /* nothing copied yet */
		if (snap.s[0].stop_ns != snap.s[0].start_ns + 1 || snap.ctl_from[0] != snap.s[0].start_ns ||
		    (snap.s[0].start_ns > 0 && snap.s[0].name[30] != 'a' + (char)(snap.s[0].start_ns % 26)))
			torn++;
	}
	pthread_join(t, NULL);
	CHECK(taken > 0);
	CHECK_EQ_U(torn, 0);
}

static void
claim_test(void)
{
	static struct shm_ctl c;

	shm_ctl_init(&c, "t", 1, 1);
	int self = (int)getpid(), holder = 0, idx;
	uint32_t died = 9;
	pid_t kid;

	shm_ctl_init(&c, "t", 1, 1);
	CHECK_EQ_I(shm_writer_claim(&c, self, "a", "codif", NULL), 0);
	CHECK_EQ_I(shm_writer_claim(&c, self, "b", "codif", NULL), 1);
	shm_writer_release(&c, 0);
	/* a new name: a slot never used, not a's */
	CHECK_EQ_I(shm_writer_claim(&c, self, "c", "codif", NULL), 2);
	/* a again: its own slot */
	CHECK_EQ_I(shm_writer_claim(&c, self, "a", "codif", NULL), 0);
	CHECK_EQ_U(c.writer[0].record, SHM_RECORD_FOLLOW);

	/* liveness: a writer process (a child that waits) holds name d */
	kid = fork();
	CHECK(kid >= 0);
	if (kid == 0) {
		pause();
		_exit(0);
	}
	idx = shm_writer_claim(&c, (int)kid, "d", "raw", NULL);
	CHECK_EQ_I(idx, 3);
	/* a second living writer of that name: refused, the holder named */
	CHECK_EQ_I(shm_writer_claim(&c, self + 1000000, "d", "raw", &holder), -EEXIST);
	CHECK_EQ_I(holder, (int)kid);
	/* alive and publishing: not dead, not hung; silent 4 s: hung */
	c.writer[idx].heartbeat_ns = 100 * 1000000000LL;
	CHECK_EQ_U(shm_writer_reap(&c, self, 101 * 1000000000LL, &died), 1);
	CHECK_EQ_U(died, 0);
	CHECK_EQ_U(c.writer[idx].dead + c.writer[idx].hung, 0);
	CHECK_EQ_U(shm_writer_reap(&c, self, 104 * 1000000000LL, NULL), 1);
	CHECK_EQ_U(c.writer[idx].hung, 1);
	/* killed (-9): dead, its entry free, its figures kept */
	c.writer[idx].written = 1234;
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	CHECK_EQ_U(shm_writer_reap(&c, self, 105 * 1000000000LL, &died), 0);
	CHECK_EQ_U(died, 1u << idx);
	CHECK_EQ_U(c.writer[idx].dead, 1);
	CHECK_EQ_U(c.writer[idx].in_use, 0);
	CHECK_EQ_U(c.writer[idx].written, 1234);
	/* once: a second look finds no new death */
	shm_writer_reap(&c, self, 106 * 1000000000LL, &died);
	CHECK_EQ_U(died, 0);
	/* restarted under its name: the same entry, alive again */
	CHECK_EQ_I(shm_writer_claim(&c, self, "d", "raw", NULL), idx);
	CHECK_EQ_U(c.writer[idx].dead + c.writer[idx].written, 0);
}

/* shm_cpu_pick: off the primary's CPUs and other processes' writers; when
 * every CPU is used, the least used (the primary's last), said. */
static void
cpu_test(void)
{
	static struct shm_ctl c;
	const int two[] = { 0, 1 }, three[] = { 0, 1, 2 }, zero[] = { 0 };
	char why[512];
	int cpu = -9, a, b, d;

	shm_ctl_init(&c, "t", 1, 100);
	shm_ctl_cpu_add(&c, 0);
	CHECK_EQ_I(shm_cpu_pick(&c, -1, two, 0, &cpu, why, sizeof(why)), -EINVAL);
	CHECK_EQ_I(shm_cpu_pick(&c, -1, two, 2, &cpu, why, sizeof(why)), 0);
	CHECK_EQ_I(cpu, 1);
	/* a dump on CPU 1; the primary's own writers are its lcores' */
	a = shm_writer_claim(&c, 200, "dump-a", "codif", NULL);
	c.writer[a].cpu = 1;
	d = shm_writer_claim(&c, 100, "primary-0-codif", "codif", NULL);
	c.writer[d].cpu = 2;
	CHECK_EQ_I(shm_cpu_pick(&c, -1, three, 3, &cpu, why, sizeof(why)), 0);
	CHECK_EQ_I(cpu, 2);
	b = shm_writer_claim(&c, 300, "dump-b", "codif", NULL);
	/* itself (self) is not a user of its CPU */
	c.writer[b].cpu = 1;
	CHECK_EQ_I(shm_cpu_pick(&c, b, two, 2, &cpu, why, sizeof(why)), 1);
	CHECK_EQ_I(cpu, 1);
	CHECK(strcmp(why, "no free CPU among the 2 it may run on: CPU 0: the capture's lcores; "
		     "CPU 1: writer dump-a; sharing CPU 1, the least used (not the capture's)") == 0);
	/* two dumps on 1, none on 0 but the capture: still off the capture */
	CHECK_EQ_I(shm_cpu_pick(&c, -1, two, 2, &cpu, why, sizeof(why)), 1);
	CHECK_EQ_I(cpu, 1);
	CHECK(strstr(why, "CPU 1: writer dump-a and others;") != NULL);
	/* its only CPU is the capture's */
	CHECK_EQ_I(shm_cpu_pick(&c, -1, zero, 1, &cpu, why, sizeof(why)), 1);
	CHECK_EQ_I(cpu, 0);
	CHECK(strcmp(why, "no free CPU among the 1 it may run on: CPU 0: the capture's lcores; "
		     "sharing CPU 0, the least used (with the capture's lcores)") == 0);
	/* a writer that ended frees its CPU */
	shm_writer_release(&c, a);
	shm_writer_release(&c, b);
	CHECK_EQ_I(shm_cpu_pick(&c, -1, two, 2, &cpu, why, sizeof(why)), 0);
	CHECK_EQ_I(cpu, 1);
	/* the picking lock: one holder; a dead holder is overtaken */
	CHECK_EQ_I(shm_cpu_lock(&c, 1234), 0);
	CHECK_EQ_I(c.cpu_lock, 1234);
	shm_cpu_unlock(&c, 1234);
	CHECK_EQ_I(c.cpu_lock, 0);
	c.cpu_lock = 0x7ffffff0; /* no such process */
	CHECK_EQ_I(shm_cpu_lock(&c, 1235), 0);
	CHECK_EQ_I(c.cpu_lock, 1235);
}

int
main(void)
{
	static struct wr_sched sc, before, snap;
	const struct wr_scan *p, *cur, *next;
	struct err_refusal why;
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
	CHECK_STR(why.input, "scan");
	CHECK_STR(why.value, "../x");
	/* the one refusal: the value escaped, the expectation formatted */
	CHECK_EQ_I(err_refuse(&why, "prefix", "a\nb\\", "a name of %d characters", 3), -EINVAL);
	CHECK_STR(why.input, "prefix");
	CHECK_STR(why.value, "a\\nb\\\\");
	CHECK_STR(why.expected, "a name of 3 characters");
	CHECK_EQ_I(err_refuse(&why, "at", NULL, "now"), -EINVAL);
	CHECK_STR(why.value, "");
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

	/* a change in progress (gen odd): the snapshot is kept as it was */
	before = snap;
	wr_sched_begin(&sc);
	sc.s[0].stop_ns = now + 11 * S;
	CHECK(!wr_sched_snapshot(&sc, &snap, &seen));
	CHECK(memcmp(&before, &snap, sizeof(snap)) == 0);
	wr_sched_end(&sc);
	CHECK(wr_sched_snapshot(&sc, &snap, &seen));
	CHECK_EQ_I(snap.s[0].stop_ns, now + 11 * S);

	/* idle: nothing recorded outside scans from the start */
	wr_sched_init(&sc, true);
	CHECK_EQ_U(wr_sched_lookup(&sc, 5, 0, 0, &p), WR_ROW_SKIP);

	/* a dump writer (registry slot 3): its own bit, free of --write's */
	x = scan("d1", now + S, now + 2 * S, 1ULL << (WR_SCHED_DUMP_BASE + 3), ~0ULL);
	CHECK_EQ_I(wr_sched_add(&sc, &x, now, &idx, &why), 0);
	CHECK_EQ_U(wr_sched_lookup(&sc, WR_SCHED_DUMP_BASE + 3, 1, now + S, &p), x.id + 1);
	CHECK_EQ_U(wr_sched_lookup(&sc, 0, 1, now + S, &p), WR_ROW_SKIP);
	CHECK_EQ_U(wr_sched_lookup(&sc, WR_SCHED_DUMP_BASE + 2, 1, now + S, &p), WR_ROW_SKIP);
	x = scan("d2", now + S, now + 2 * S, 1, ~0ULL);
	CHECK_EQ_I(wr_sched_add(&sc, &x, now, &idx, &why), 0); /* no common writer */
	CHECK(WR_SCHED_DUMPS >> WR_SCHED_DUMP_BASE == 0xffff);

	torn_test();
	claim_test();
	cpu_test();
	return check_report("sched");
}
