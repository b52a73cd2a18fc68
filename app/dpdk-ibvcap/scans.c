/* SPDX-License-Identifier: BSD-3-Clause */
/* Recording control: the scans the --write writers record (lib/writer's
 * schedule), from --schedule FILE and from commands (telemetry
 * /ibvcap/record), each checked whole before anything changes. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include <rte_errno.h>
#include <rte_telemetry.h>

#include "codif.h"
#include "err.h"
#include "rings.h"
#include "writers.h"
#include "scans.h"
#include "ledger.h"
#include "refusal.h"
#include "json.h"
#include "opt.h"
#include "parse.h"

_Static_assert(WR_SCHED_DUMP_SLOTS == SHM_MAX_WRITERS, "a schedule bit per registry slot");
_Static_assert(IBV_MAX_WRITERS <= WR_SCHED_DUMP_BASE, "--write writers' bits below the dumps'");

/* Whether registry slot i holds a writer under a dump bit: another
 * process's (dpdk-ibvcap-dump, a libibvcap consumer; the --write writers
 * carry our pid and have bits of their own) or a --consumer plugin of
 * ours (by its format). */
static bool
dump_slot(const struct shm_ctl *reg, unsigned int i)
{
	return reg != NULL && i < WR_SCHED_DUMP_SLOTS &&
	       __atomic_load_n(&reg->writer[i].in_use, __ATOMIC_ACQUIRE) &&
	       (reg->writer[i].pid != reg->primary_pid || shm_writer_plugin(&reg->writer[i]));
}

/* A writer: its index among --write, its registry name (primary-I-FORMAT,
 * or a dpdk-ibvcap-dump's --name: bit WR_SCHED_DUMP_BASE + its slot), or
 * "all": every --write writer and every dump writer, those attaching later
 * included (reg: the registry; NULL, a --schedule file read before it
 * exists: --write writers and all). */
int
ibv_scans_share(struct ibv_scans *s, const char *name, char *err, size_t len)
{
	s->mz = rte_memzone_reserve(name, sizeof(struct wr_sched), SOCKET_ID_ANY, 0);
	if (s->mz == NULL)
		return err_set(err, len, -rte_errno, "shared schedule of scans '%s': %s", name,
			    rte_strerror(rte_errno));
	memcpy(s->mz->addr, &s->own, sizeof(s->own));
	s->sched = s->mz->addr;
	return 0;
}

void
ibv_scans_unshare(struct ibv_scans *s, bool keep_memory)
{
	if (s->mz == NULL)
		return;
	memcpy(&s->own, s->mz->addr, sizeof(s->own));
	s->sched = &s->own;
	if (!keep_memory)
		rte_memzone_free(s->mz);
	s->mz = NULL;
}

static int
writers_parse(const struct ibv_config *c, const struct shm_ctl *reg, const char *v,
	      uint64_t *mask, struct err_refusal *why)
{
	char buf[256], *save = NULL, *tok, e[128];
	unsigned int i;
	unsigned int n = c->nwrite;

	*mask = 0;
	snprintf(e, sizeof(e), "all, --write writers by index 0..%u or name primary-I-FORMAT, "
		 "or dump writers by --name, comma-separated", n ? n - 1 : 0);
	if (n == 0 && !c->buffers)
		return err_refuse(why, "writer", v, "a capture with --write writers or buffers for "
			       "dpdk-ibvcap-dump (it has neither)");
	if (strlen(v) >= sizeof(buf))
		return err_refuse(why, "writer", v, "%s", e);
	if (strcmp(v, "all") == 0) {
		*mask = (n >= 64 ? ~0ULL : (1ULL << n) - 1) | (c->buffers ? WR_SCHED_DUMPS : 0);
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		uint64_t k;
		bool found = false;

		/* the name writers.c gives it: primary-I-FORMAT (FORMAT: --write's) */
		for (i = 0; i < n; i++) {
			char name[64];

			snprintf(name, sizeof(name), "primary-%u-%s", i,
				 wr_format_name(c->wo[i].format));
			if (strcmp(tok, name) == 0) {
				*mask |= 1ULL << i;
				found = true;
			}
		}
		/* a dump writer's --name, as it is in the registry now */
		for (i = 0; i < WR_SCHED_DUMP_SLOTS; i++)
			if (dump_slot(reg, i) && strncmp(tok, reg->writer[i].name, SHM_NAMELEN) == 0) {
				*mask |= 1ULL << (WR_SCHED_DUMP_BASE + i);
				found = true;
			}
		if (found)
			continue;
		if (n == 0 || parse_u64("writer", tok, 0, n - 1, &k, NULL, 0) != 0)
			return err_refuse(why, "writer", tok, "%s", e);
		*mask |= 1ULL << k;
	}
	if (*mask == 0)
		return err_refuse(why, "writer", v, "%s", e);
	return 0;
}

/* Antennas by name or index, "all". */
static int
ants_parse(const struct ibv_config *c, const char *v, uint64_t *mask, struct err_refusal *why)
{
	const struct acct_layout *l = &c->layout;
	char buf[512], *save = NULL, *tok;
	unsigned int a;

	*mask = 0;
	if (strcmp(v, "all") == 0 || strlen(v) >= sizeof(buf)) {
		*mask = ~0ULL;
		return strcmp(v, "all") == 0 ? 0 :
			err_refuse(why, "antenna", v, "all, or antenna names or indexes, comma-separated");
	}
	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		uint64_t k;

		for (a = 0; a < l->nant; a++)
			if (strcmp(tok, l->ant_name[a]) == 0)
				break;
		if (a == l->nant) {
			if (parse_u64("antenna", tok, 0, l->nant - 1, &k, NULL, 0) != 0)
				return err_refuse(why, "antenna", tok,
					       "an antenna name or index of this capture (see "
					       "/ibvcap/antennas)");
			a = (unsigned int)k;
		}
		*mask |= 1ULL << a;
	}
	return 0;
}

static int
time_parse(const char *input, const char *v, int64_t now, int64_t *t, struct err_refusal *why)
{
	if (strcmp(v, "now") == 0) {
		*t = now;
		return 0;
	}
	int rc = codif_parse_time(v, t);

	if (rc == -ERANGE)
		return err_refuse(why, input, v, CODIF_TIME_RANGE_EXPECTED);
	if (rc != 0)
		return err_refuse(why, input, v,
			       "now, or a UTC time YYYY-MM-DDThh:mm:ss[.frac]Z or @unix-seconds");
	return 0;
}

static int
dur_parse(const char *input, const char *v, uint64_t *ns, struct err_refusal *why)
{
	if (parse_duration_ns(input, v, 1, 366ULL * 86400 * 1000000000ULL, ns, NULL, 0) != 0)
		return err_refuse(why, input, v, "a duration above 0, e.g. 500ms, 10m, 2h");
	return 0;
}

/* What a request says: its verb, and its fields as given (KEY=VALUE words),
 * each NULL where not given. */
struct rec_req {
	char verb[16];
	const char *scan, *at, *dur, *until, *writer, *antenna;
	/* the fields' text, where rec_fields stores it */
	char scan_s[64], at_s[64], dur_s[64], until_s[64], writer_s[512], antenna_s[512];
};

#define R struct rec_req
static const struct opt_def rec_field_rows[] = {
	{"scan", .kind = OPT_STRING, .metavar = "NAME", OPT_AT(R, scan_s),
	 .help = "the scan's name: 1 to 31 letters, digits, '_', '.' or '-' (not first)"},
	{"at", .kind = OPT_STRING, .metavar = "UTC|now", OPT_AT(R, at_s),
	 .help = "its start (on), or when to stop (off), in data time"},
	{"for", .kind = OPT_STRING, .metavar = "T", OPT_AT(R, dur_s),
	 .help = "its length (on: not with until)"},
	{"until", .kind = OPT_STRING, .metavar = "UTC", OPT_AT(R, until_s),
	 .help = "its stop (on: not with for)"},
	{"writer", .kind = OPT_STRING, .metavar = "W[,W...]", OPT_AT(R, writer_s),
	 .help = "its writers: all, --write writers by index or name, dump writers by --name"},
	{"antenna", .kind = OPT_STRING, .metavar = "A[,A...]", OPT_AT(R, antenna_s),
	 .help = "its antennas: all, or names or indexes"},
	{ .name = NULL },
};
#undef R

/* The fields of a record command, after its verb, separated by spaces or tabs. */
static const struct opt_kv rec_fields = {
	.name = "parameter", .keys = rec_field_rows, .seps = " \t",
};

static const char *
given_or_null(const char *s)
{
	return s[0] != '\0' ? s : NULL;
}

static int
req_parse(char *s, struct rec_req *r, struct err_refusal *why)
{
	size_t n;
	int rc;

	memset(r, 0, sizeof(*r));
	s += strspn(s, " \t");
	n = strcspn(s, " \t");
	if (n > 0 && memchr(s, '=', n) == NULL) {
		char verb[sizeof(r->verb)];

		snprintf(verb, sizeof(verb), "%.*s", (int)n, s);
		if (n >= sizeof(verb) || (strcmp(verb, "on") && strcmp(verb, "off") &&
					  strcmp(verb, "cancel") && strcmp(verb, "status"))) {
			s[n] = '\0';
			return err_refuse(why, "command", s, "on, off, cancel or status");
		}
		str_copy(r->verb, sizeof(r->verb), verb);
		s += n;
	}
	rc = opt_kv_parse_why(&rec_fields, r, NULL, s, NULL, why);
	if (rc != 0)
		return rc;
	r->scan = given_or_null(r->scan_s);
	r->at = given_or_null(r->at_s);
	r->dur = given_or_null(r->dur_s);
	r->until = given_or_null(r->until_s);
	r->writer = given_or_null(r->writer_s);
	r->antenna = given_or_null(r->antenna_s);
	if (r->verb[0] == '\0')
		snprintf(r->verb, sizeof(r->verb), "status");
	return 0;
}

/* A scan from its parts (times, duration, writers, antennas as text). */
static int
scan_make(const struct ibv_config *c, const struct shm_ctl *reg, struct wr_scan *sc, const char *name, const char *at,
	  const char *dur, const char *until, const char *writer, const char *antenna,
	  int64_t now, struct err_refusal *why)
{
	uint64_t d;
	int rc;

	memset(sc, 0, sizeof(*sc));
	if (strlen(name) >= sizeof(sc->name) || !wr_scan_name_ok(name))
		return err_refuse(why, "scan", name,
			       "a name of 1 to 31 letters, digits, '_', '.' or '-' (not first)");
	snprintf(sc->name, sizeof(sc->name), "%s", name);
	sc->start_ns = now;
	if (at != NULL && (rc = time_parse("at", at, now, &sc->start_ns, why)) != 0)
		return rc;
	sc->stop_ns = WR_SCAN_OPEN;
	if (dur != NULL && until != NULL)
		return err_refuse(why, "for", dur, "for or until, not both");
	if (dur != NULL) {
		if ((rc = dur_parse("for", dur, &d, why)) != 0)
			return rc;
		sc->stop_ns = sc->start_ns + (int64_t)d;
	}
	if (until != NULL && (rc = time_parse("until", until, now, &sc->stop_ns, why)) != 0)
		return rc;
	if ((rc = writers_parse(c, reg, writer != NULL ? writer : "all", &sc->writers, why)) != 0)
		return rc;
	return ants_parse(c, antenna != NULL ? antenna : "all", &sc->ants, why);
}

/* ---- --schedule FILE --------------------------------------------------- */

int
ibv_rec_load(const struct ibv_config *c, struct wr_sched *sched, char *err, size_t len)
{
	char line[1024];
	unsigned int lineno = 0, idx;
	int64_t now = ibv_scan_now_ns();
	FILE *f;

	wr_sched_init(sched, c->record == IBV_REC_IDLE);
	if (c->schedule[0] == '\0')
		return 0;
	f = fopen(c->schedule, "r");
	if (f == NULL)
		return err_set(err, len, -errno, "--schedule %s: %s", c->schedule, strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL) {
		char *w[8], *save = NULL, *tok, *hash = strchr(line, '#');
		const char *writer = NULL, *antenna = NULL, *dur = NULL, *until = NULL;
		struct err_refusal why;
		struct wr_scan sc;
		unsigned int n = 0, k;
		int rc = 0;

		lineno++;
		if (hash != NULL)
			*hash = '\0';
		for (tok = strtok_r(line, " \t\r\n", &save); tok != NULL && n < 8;
		     tok = strtok_r(NULL, " \t\r\n", &save))
			w[n++] = tok;
		if (n == 0)
			continue;
		memset(&why, 0, sizeof(why));
		if (n < 3 || tok != NULL) {
			err_refuse(&why, "line", w[0], "NAME START STOP|+DURATION [writer=W,...] "
				"[antenna=A,...]");
			rc = -EINVAL;
		}
		for (k = 3; rc == 0 && k < n; k++) {
			if (strncmp(w[k], "writer=", 7) == 0 && writer == NULL)
				writer = w[k] + 7;
			else if (strncmp(w[k], "antenna=", 8) == 0 && antenna == NULL)
				antenna = w[k] + 8;
			else
				rc = err_refuse(&why, "field", w[k], "writer=W,... or antenna=A,... (once "
					     "each)");
		}
		if (rc == 0) {
			if (w[2][0] == '+')
				dur = w[2] + 1;
			else
				until = w[2];
			rc = scan_make(c, NULL, &sc, w[0], w[1], dur, until, writer, antenna, now, &why);
		}
		if (rc == 0 && sc.stop_ns <= now) {
			char ts[CODIF_TIMESTR_LEN];

			rc = err_refuse(&why, "stop", codif_time_str(sc.stop_ns, ts, sizeof(ts)),
				     "a scan not over before the capture starts");
		}
		if (rc == 0) {
			snprintf(sc.origin, sizeof(sc.origin), "schedule");
			rc = wr_sched_add(sched, &sc, INT64_MIN, &idx, &why);
		}
		if (rc != 0) {
			fclose(f);
			return err_set(err, len, -EINVAL, "--schedule %s line %u: %s '%s': expected %s",
				       c->schedule, lineno, why.input, why.value, why.expected);
		}
	}
	fclose(f);
	return 0;
}

/* ---- /ibvcap/record ------------------------------------------------------ */

/* A scan's writers: --write indexes, then by name the dump writers
 * attached now that follow scans. */
static const char *
mask_str(uint64_t m, unsigned int n, const struct shm_ctl *reg, char *buf, size_t len)
{
	unsigned int i;
	size_t o = 0;

	buf[0] = '\0';
	for (i = 0; i < n && i < WR_SCHED_DUMP_BASE && o + 4 < len; i++)
		if (m >> i & 1)
			o += (size_t)snprintf(buf + o, len - o, "%s%u", o ? "," : "", i);
	for (i = 0; i < WR_SCHED_DUMP_SLOTS && o + 4 < len; i++)
		if ((m >> (WR_SCHED_DUMP_BASE + i) & 1) && dump_slot(reg, i) &&
		    reg->writer[i].record != SHM_RECORD_ALWAYS) {
			int k = snprintf(buf + o, len - o, "%s%.*s", o ? "," : "", SHM_NAMELEN,
					 reg->writer[i].name);

			o = k < 0 || (size_t)k >= len - o ? len - 1 : o + (size_t)k;
		}
	return buf;
}

/* Writer bit wi's state at now: scan NAME, always (no scan yet), idle. */
static void
writer_state(const struct wr_sched *sc, unsigned int wi, int64_t now, char *buf, size_t len)
{
	const struct wr_scan *cur, *next;

	wr_sched_current(sc, 1ULL << wi, now, &cur, &next);
	if (cur != NULL)
		snprintf(buf, len, "scan %s", cur->name);
	else if (now < sc->ctl_from[wi])
		snprintf(buf, len, "always");
	else
		snprintf(buf, len, "idle%s%s", next ? " until " : "", next ? next->name : "");
}

static const char *
scan_state(const struct wr_scan *s, int64_t now)
{
	return now < s->start_ns ? "scheduled" : now < s->stop_ns ? "recording" : "done";
}


/* The schedule and each writer's state at now (status, and each reply). */
static void
status_tel(const struct ibv_scans *scans, int64_t now, struct rte_tel_data *d)
{
	const struct wr_sched *sc = scans->sched;
	struct rte_tel_data *a[8], *lc = rte_tel_data_alloc(); /* the dumps' lcores */
	const struct wr_scan *cur, *next;
	unsigned int i, k;
	char buf[128], ts[CODIF_TIMESTR_LEN];
	/* schedule bits: one a --write */
	unsigned int nw = scans->deps.writers->n ? scans->deps.cfg->nwrite : 0;
	uint64_t all = (nw >= 64 ? ~0ULL : (1ULL << nw) - 1) | WR_SCHED_DUMPS;

	ibv_scan_tel_time(d, "now_utc", now);
	rte_tel_data_add_dict_string(d, "record", scans->deps.cfg->record == IBV_REC_IDLE ? "idle" :
				     "always");
	rte_tel_data_add_dict_u64(d, "writers", nw);
	wr_sched_current(sc, all, now, &cur, &next);
	rte_tel_data_add_dict_string(d, "current_scan", cur ? cur->name : "");
	rte_tel_data_add_dict_string(d, "current_stop_utc", !cur ? "" :
				     cur->stop_ns == WR_SCAN_OPEN ? "open" :
				     codif_time_str(cur->stop_ns, ts, sizeof(ts)));
	rte_tel_data_add_dict_string(d, "next_scan", next ? next->name : "");
	rte_tel_data_add_dict_string(d, "next_start_utc", next ?
				     codif_time_str(next->start_ns, ts, sizeof(ts)) : "");
	for (k = 0; k < RTE_DIM(a); k++)
		if ((a[k] = rte_tel_data_alloc()) != NULL)
			rte_tel_data_start_array(a[k], RTE_TEL_STRING_VAL);
	for (i = 0; i < sc->n; i++) {
		const struct wr_scan *s = &sc->s[i];

		if (a[0] == NULL || a[1] == NULL || a[2] == NULL || a[3] == NULL || a[4] == NULL)
			break;
		rte_tel_data_add_array_string(a[0], s->name);
		rte_tel_data_add_array_string(a[1], codif_time_str(s->start_ns, ts, sizeof(ts)));
		rte_tel_data_add_array_string(a[2], s->stop_ns == WR_SCAN_OPEN ? "open" :
					      codif_time_str(s->stop_ns, ts, sizeof(ts)));
		rte_tel_data_add_array_string(a[3], scan_state(s, now));
		rte_tel_data_add_array_string(a[4], mask_str(s->writers, nw,
							     scans->deps.rings->ctl, buf, sizeof(buf)));
	}
	/* each writer: recording SCAN, recording (no scan: free-running), idle */
	for (i = 0; a[5] != NULL && i < nw; i++) {
		writer_state(sc, i, now, buf, sizeof(buf));
		rte_tel_data_add_array_string(a[5], buf);
	}
	/* each dpdk-ibvcap-dump writer or consumer attached now: its --name and
	 * state, and its lcore in the capture (a --consumer plugin; -1 another
	 * process) */
	if (lc != NULL)
		rte_tel_data_start_array(lc, RTE_TEL_INT_VAL);
	for (i = 0; a[6] != NULL && a[7] != NULL && i < WR_SCHED_DUMP_SLOTS; i++) {
		const struct shm_writer *w;

		if (!dump_slot(scans->deps.rings->ctl, i))
			continue;
		w = &scans->deps.rings->ctl->writer[i];
		if (w->record == SHM_RECORD_ALWAYS)
			snprintf(buf, sizeof(buf), "always (its --record always: scans ignored)");
		else
			writer_state(sc, WR_SCHED_DUMP_BASE + i, now, buf, sizeof(buf));
		snprintf(ts, sizeof(ts), "%.*s", SHM_NAMELEN, w->name);
		rte_tel_data_add_array_string(a[6], ts);
		rte_tel_data_add_array_string(a[7], buf);
		if (lc != NULL)
			rte_tel_data_add_array_int(lc, w->lcore); /* -1: another process's */
	}
	ibv_ledger_tel(scans->deps.ledger, d);
	{
		static const char *const keys[] = { "scan_names", "scan_starts_utc",
						    "scan_stops_utc", "scan_states",
						    "scan_writers", "writer_states",
						    "dump_writer_names", "dump_writer_states" };

		for (k = 0; k < RTE_DIM(a); k++)
			if (a[k] != NULL && rte_tel_data_add_dict_container(d, keys[k], a[k], 0) != 0)
				rte_tel_data_free(a[k]);
		if (lc != NULL && rte_tel_data_add_dict_container(d, "dump_writer_lcores", lc, 0) != 0)
			rte_tel_data_free(lc);
	}
}

/* A record command refused: the command is "record VERB". */
static void
refused(struct rte_tel_data *d, const char *verb, const struct err_refusal *why)
{
	char command[32];

	snprintf(command, sizeof(command), "record %s", verb);
	ibv_refusal_tel(d, command, why);
}

/* record on: a scan added (named scanNNNN when not named). @return 0, or
 * -1 with why. */
static int
rec_on(struct ibv_scans *scans, struct rec_req *r, int64_t now, struct rte_tel_data *d, char *did,
       size_t dlen, struct err_refusal *why)
{
	char name[WR_SCAN_NAMELEN];
	struct wr_scan sc;
	unsigned int idx;
	int rc;

	if (r->scan == NULL) {
		snprintf(name, sizeof(name), "scan%04u", scans->sched->next_id);
		r->scan = name;
	}
	rc = scan_make(scans->deps.cfg, scans->deps.rings->ctl, &sc, r->scan, r->at, r->dur,
		       r->until, r->writer, r->antenna, now, why);
	r->scan = NULL; /* not left pointing at name */
	if (rc == 0) {
		snprintf(sc.origin, sizeof(sc.origin), "command");
		rc = wr_sched_add(scans->sched, &sc, now, &idx, why);
	}
	if (rc != 0)
		return -1;
	snprintf(did, dlen, "scan %s added", sc.name);
	rte_tel_data_add_dict_string(d, "scan", sc.name);
	ibv_scan_tel_time(d, "start_utc", sc.start_ns);
	ibv_scan_tel_time(d, "stop_utc", sc.stop_ns);
	return 0;
}

/* record off: a scan, or the writers' recording, stopped at at= (now when
 * not given). @return 0, or -1 with why. */
static int
rec_off(struct ibv_scans *scans, const struct rec_req *r, int64_t now, struct rte_tel_data *d,
	char *did, size_t dlen, struct err_refusal *why)
{
	int64_t stop = now;
	unsigned int nfree = 0, w;
	uint64_t mask;
	int rc = 0;

	if (r->dur != NULL || r->until != NULL)
		return err_refuse(why, r->dur ? "for" : "until", r->dur ? r->dur : r->until,
				  "record off takes at= (a UTC time or now), not for= or until=");
	if (r->at != NULL)
		rc = time_parse("at", r->at, now, &stop, why);
	if (rc == 0)
		rc = writers_parse(scans->deps.cfg, scans->deps.rings->ctl,
				   r->writer != NULL ? r->writer : "all", &mask, why);
	if (rc == 0 && r->antenna != NULL)
		rc = err_refuse(why, "antenna", r->antenna, "record off for whole writers "
				"(scan or writer=)");
	if (rc != 0)
		return -1;
	/* the writers recording everything that this stops */
	for (w = 0; w < WR_SCHED_MAX_WRITERS && r->scan == NULL; w++)
		if ((mask >> w & 1) && scans->sched->ctl_from[w] > stop &&
		    (w < scans->deps.cfg->nwrite ||
		     dump_slot(scans->deps.rings->ctl, w - WR_SCHED_DUMP_BASE)))
			nfree++;
	rc = wr_sched_stop(scans->sched, r->scan, mask, stop, now, why);
	if (rc < 0)
		return -1;
	snprintf(did, dlen, "%d scan%s stop%s, %u writer%s recording everything stop%s", rc,
		 rc == 1 ? "" : "s", rc == 1 ? "s" : "", nfree, nfree == 1 ? "" : "s",
		 nfree == 1 ? "s" : "");
	ibv_scan_tel_time(d, "stop_utc", stop);
	return 0;
}

/* record cancel: a scan removed as if never asked. @return 0, or -1 with why. */
static int
rec_cancel(struct ibv_scans *scans, const struct rec_req *r, int64_t now, char *did, size_t dlen,
	   struct err_refusal *why)
{
	if (r->scan == NULL)
		return err_refuse(why, "scan", "(none)", "the name of the scan to cancel");
	if (wr_sched_cancel(scans->sched, r->scan, now, why) != 0)
		return -1;
	snprintf(did, dlen, "scan %s cancelled", r->scan);
	return 0;
}

int
ibv_rec_command(struct ibv_scans *scans, const char *params, struct rte_tel_data *d)
{
	char buf[1024], did[128];
	struct err_refusal why;
	struct rec_req r;
	int64_t now = ibv_scan_now_ns();
	int rc;

	memset(&why, 0, sizeof(why));
	rte_tel_data_start_dict(d);
	if (params != NULL && strlen(params) >= sizeof(buf)) {
		err_refuse(&why, "parameters", "(too long)", "at most 1023 characters");
		refused(d, "?", &why);
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", params != NULL ? params : "");
	if (req_parse(buf, &r, &why) != 0) {
		refused(d, r.verb[0] ? r.verb : "?", &why);
		return 0;
	}
	if (strcmp(r.verb, "status") == 0) {
		rte_tel_data_add_dict_string(d, "result", "status");
		status_tel(scans, now, d);
		return 0;
	}
	if (strcmp(r.verb, "on") == 0)
		rc = rec_on(scans, &r, now, d, did, sizeof(did), &why);
	else if (strcmp(r.verb, "off") == 0)
		rc = rec_off(scans, &r, now, d, did, sizeof(did), &why);
	else
		rc = rec_cancel(scans, &r, now, did, sizeof(did), &why);
	if (rc != 0) {
		refused(d, r.verb, &why);
		return 0;
	}
	rte_tel_data_add_dict_string(d, "result", "done");
	rte_tel_data_add_dict_string(d, "command", r.verb);
	rte_tel_data_add_dict_string(d, "did", did);
	status_tel(scans, now, d);
	return 0;
}
