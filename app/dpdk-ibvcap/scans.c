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

#include <rte_telemetry.h>

#include "codif.h"
#include "err.h"
#include "ibvcap.h"
#include "scans.h"
#include "refusal.h"
#include "json.h"
#include "opt.h"
#include "parse.h"

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

_Static_assert(WR_SCHED_DUMP_SLOTS == SHM_MAX_WRITERS, "a schedule bit per registry slot");
_Static_assert(IBV_MAX_WRITERS <= WR_SCHED_DUMP_BASE, "--write writers' bits below the dumps'");

/* Whether registry slot i holds a dpdk-ibvcap-dump writer (not one of
 * ours: those carry our pid). */
static bool
dump_slot(const struct shm_ctl *reg, unsigned int i)
{
	return reg != NULL && i < WR_SCHED_DUMP_SLOTS &&
	       __atomic_load_n(&reg->writer[i].in_use, __ATOMIC_ACQUIRE) &&
	       reg->writer[i].pid != reg->primary_pid;
}

/* A writer: its index among --write, its registry name (primary-I-FORMAT,
 * or a dpdk-ibvcap-dump's --name: bit WR_SCHED_DUMP_BASE + its slot), or
 * "all": every --write writer and every dump writer, those attaching later
 * included (reg: the registry; NULL, a --schedule file read before it
 * exists: --write writers and all). */
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
	int64_t now = now_ns();
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

static void
tel_time(struct rte_tel_data *d, const char *key, int64_t t)
{
	char ts[CODIF_TIMESTR_LEN];

	rte_tel_data_add_dict_string(d, key, t == WR_SCAN_OPEN ? "open" :
				     codif_time_str(t, ts, sizeof(ts)));
}

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

static void ledger_tel(const struct ibv_app *app, struct rte_tel_data *d);

/* The schedule and each writer's state at now (status, and each reply). */
static void
status_tel(const struct ibv_app *app, int64_t now, struct rte_tel_data *d)
{
	const struct wr_sched *sc = app->scans.sched;
	struct rte_tel_data *a[8];
	const struct wr_scan *cur, *next;
	unsigned int i, k;
	char buf[128], ts[CODIF_TIMESTR_LEN];
	unsigned int nw = app->writers.n ? app->cfg.nwrite : 0; /* schedule bits: one a --write */
	uint64_t all = (nw >= 64 ? ~0ULL : (1ULL << nw) - 1) | WR_SCHED_DUMPS;

	tel_time(d, "now_utc", now);
	rte_tel_data_add_dict_string(d, "record", app->cfg.record == IBV_REC_IDLE ? "idle" :
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
							     app->rings.ctl, buf, sizeof(buf)));
	}
	/* each writer: recording SCAN, recording (no scan: free-running), idle */
	for (i = 0; a[5] != NULL && i < nw; i++) {
		writer_state(sc, i, now, buf, sizeof(buf));
		rte_tel_data_add_array_string(a[5], buf);
	}
	/* each dpdk-ibvcap-dump writer attached now: its --name and state */
	for (i = 0; a[6] != NULL && a[7] != NULL && i < WR_SCHED_DUMP_SLOTS; i++) {
		const struct shm_writer *w;

		if (!dump_slot(app->rings.ctl, i))
			continue;
		w = &app->rings.ctl->writer[i];
		if (w->record == SHM_RECORD_ALWAYS)
			snprintf(buf, sizeof(buf), "always (its --record always: scans ignored)");
		else
			writer_state(sc, WR_SCHED_DUMP_BASE + i, now, buf, sizeof(buf));
		snprintf(ts, sizeof(ts), "%.*s", SHM_NAMELEN, w->name);
		rte_tel_data_add_array_string(a[6], ts);
		rte_tel_data_add_array_string(a[7], buf);
	}
	ledger_tel(app, d);
	{
		static const char *const keys[] = { "scan_names", "scan_starts_utc",
						    "scan_stops_utc", "scan_states",
						    "scan_writers", "writer_states",
						    "dump_writer_names", "dump_writer_states" };

		for (k = 0; k < RTE_DIM(a); k++)
			if (a[k] != NULL && rte_tel_data_add_dict_container(d, keys[k], a[k], 0) != 0)
				rte_tel_data_free(a[k]);
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

int
ibv_rec_command(struct ibv_app *app, const char *params, struct rte_tel_data *d)
{
	char buf[1024], did[128], name[WR_SCAN_NAMELEN];
	struct err_refusal why;
	struct rec_req r;
	int64_t now = now_ns();
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
		status_tel(app, now, d);
		return 0;
	}
	if (strcmp(r.verb, "on") == 0) {
		struct wr_scan sc;
		unsigned int idx;

		if (r.scan == NULL) {
			snprintf(name, sizeof(name), "scan%04u", app->scans.sched->next_id);
			r.scan = name;
		}
		rc = scan_make(&app->cfg, app->rings.ctl, &sc, r.scan, r.at, r.dur, r.until, r.writer, r.antenna, now,
			       &why);
		if (rc == 0) {
			snprintf(sc.origin, sizeof(sc.origin), "command");
			rc = wr_sched_add(app->scans.sched, &sc, now, &idx, &why);
		}
		if (rc != 0) {
			refused(d, r.verb, &why);
			return 0;
		}
		snprintf(did, sizeof(did), "scan %s added", sc.name);
		rte_tel_data_add_dict_string(d, "scan", sc.name);
		tel_time(d, "start_utc", sc.start_ns);
		tel_time(d, "stop_utc", sc.stop_ns);
	} else if (strcmp(r.verb, "off") == 0) {
		int64_t stop = now;
		unsigned int nfree = 0;
		uint64_t mask;

		if (r.dur != NULL || r.until != NULL) {
			err_refuse(&why, r.dur ? "for" : "until", r.dur ? r.dur : r.until,
				"record off takes at= (a UTC time or now), not for= or until=");
			refused(d, r.verb, &why);
			return 0;
		}
		rc = 0;
		if (r.at != NULL)
			rc = time_parse("at", r.at, now, &stop, &why);
		if (rc == 0)
			rc = writers_parse(&app->cfg, app->rings.ctl, r.writer != NULL ? r.writer : "all", &mask, &why);
		if (rc == 0 && r.antenna != NULL)
			rc = err_refuse(&why, "antenna", r.antenna, "record off for whole writers "
				     "(scan or writer=)");
		if (rc == 0) {
			unsigned int w;

			/* the writers recording everything that this stops */
			for (w = 0; w < WR_SCHED_MAX_WRITERS && r.scan == NULL; w++)
				if ((mask >> w & 1) && app->scans.sched->ctl_from[w] > stop &&
				    (w < app->cfg.nwrite ||
				     dump_slot(app->rings.ctl, w - WR_SCHED_DUMP_BASE)))
					nfree++;
			rc = wr_sched_stop(app->scans.sched, r.scan, mask, stop, now, &why);
		}
		if (rc < 0) {
			refused(d, r.verb, &why);
			return 0;
		}
		snprintf(did, sizeof(did), "%d scan%s stop%s, %u writer%s recording everything "
			 "stop%s", rc, rc == 1 ? "" : "s", rc == 1 ? "s" : "", nfree,
			 nfree == 1 ? "" : "s", nfree == 1 ? "s" : "");
		tel_time(d, "stop_utc", stop);
	} else { /* cancel */
		if (r.scan == NULL) {
			err_refuse(&why, "scan", "(none)", "the name of the scan to cancel");
			refused(d, r.verb, &why);
			return 0;
		}
		if (wr_sched_cancel(app->scans.sched, r.scan, now, &why) != 0) {
			refused(d, r.verb, &why);
			return 0;
		}
		snprintf(did, sizeof(did), "scan %s cancelled", r.scan);
	}
	rte_tel_data_add_dict_string(d, "result", "done");
	rte_tel_data_add_dict_string(d, "command", r.verb);
	rte_tel_data_add_dict_string(d, "did", did);
	status_tel(app, now, d);
	return 0;
}

/* ---- the scan ledger, the data clock ------------------------------------ */

/*
 * Per scan and --write writer (its lcores=N parts together): the frames
 * the scan's data-time span should hold (per antenna of both: its streams
 * x the frames of its clock in [start, stop)), those recorded, and those
 * missing by cause: lost on the wire (placeholders), overrun (the writer
 * behind the ring), cut (an I/O error), not arrived (the rest: frames of
 * the span the ring never held: not received, received but not recorded,
 * or data time elsewhere -- the reason says which it looks like). Each scan
 * is logged when added, begun (the data time reached its start) and ended
 * (the data time passed its stop and no file of it is open, or the capture
 * stopped); an end with fewer frames than the span holds is a warning. The
 * main lcore keeps it (ibv_rec_tick); telemetry and the summary read it.
 */

enum { SW_ADDED, SW_BEGUN, SW_ENDED };

/* One antenna's part of a writer's ledger (/ibvcap/scan,NAME,WRITER, and
 * through it the array's scan ledger). known: the writer keeps its figures
 * per antenna (a --write writer's own antenna); a dpdk-ibvcap-dump
 * publishes its scan's sums only, and an all=yes pcap holds its antennas
 * together: their recorded and missing are the writer's row, not here. */
struct ant_ledger {
	uint64_t expected, recorded, lost, overrun, cut, not_recorded, not_arrived;
	uint32_t streams;
	bool on, known;
};

struct scan_ledger {
	unsigned int spec;          /* schedule bit: --write index, or
				       WR_SCHED_DUMP_BASE + registry slot */
	char writer[SHM_NAMELEN + 16];
	uint64_t expected, recorded, lost, overrun, cut, not_recorded, not_arrived;
	char reason[160];
	struct ant_ledger *ant;     /* [layout nant] once filled (calloc), or NULL */
};

struct scan_watch {
	struct wr_scan sc;          /* as last seen */
	int state;
	bool gone;                  /* no longer in the schedule */
	int64_t past_ns;            /* host time the data first passed its stop */
	unsigned int quiet;         /* ticks in a row with no writer busy with it */
	unsigned int nl;
	struct scan_ledger l[IBV_MAX_WRITERS + WR_SCHED_DUMP_SLOTS];
};

static struct {
	uint64_t seen;
	struct wr_sched snap;
	unsigned int n;
	struct scan_watch w[WR_MAX_SCANS * 2];
	/* per antenna: newest data time seen, its offset from the host clock */
	int64_t last_ns[ACCT_MAX_ANTENNAS];
	int64_t offset_ns[ACCT_MAX_ANTENNAS];
	bool offset_known[ACCT_MAX_ANTENNAS], warned[ACCT_MAX_ANTENNAS];
} lg;

static const char *
wl_name(const struct ibv_wlcore *wl, char *buf, size_t len)
{
	snprintf(buf, len, "primary-%u-%s", wl->spec_idx, wr_format_name(wl->w.o.format));
	return buf;
}

/* Whether the --write writer with schedule bit spec is an all=yes pcap
 * (its antennas in one file: no per-antenna figures). */
static bool
wl_all(const struct ibv_app *app, unsigned int spec)
{
	unsigned int i;

	for (i = 0; i < app->writers.n; i++)
		if (app->writers.wl[i]->spec_idx == spec && app->writers.wl[i]->w.o.all)
			return true;
	return false;
}

/* The --write writer with schedule bit i: its first part. */
static const struct ibv_wlcore *
wl_of(const struct ibv_app *app, unsigned int spec)
{
	unsigned int i;

	for (i = 0; i < app->writers.n; i++)
		if (app->writers.wl[i]->spec_idx == spec)
			return app->writers.wl[i];
	return NULL;
}

/* The registry entry of the writer with schedule bit `bit`: a --write
 * writer's first part, or a dpdk-ibvcap-dump's slot -- one that has been
 * claimed by a dump following scans (a slot's name stays when its writer
 * ends or dies) --, NULL none. */
static const struct shm_writer *
reg_of(const struct ibv_app *app, unsigned int bit)
{
	const struct ibv_wlcore *wl;
	const struct shm_writer *r;

	if (app->rings.ctl == NULL)
		return NULL;
	if (bit >= WR_SCHED_DUMP_BASE) {
		if (bit - WR_SCHED_DUMP_BASE >= SHM_MAX_WRITERS)
			return NULL;
		r = &app->rings.ctl->writer[bit - WR_SCHED_DUMP_BASE];
		return r->name[0] != '\0' && r->pid != (int32_t)getpid() &&
		       r->record == SHM_RECORD_FOLLOW ? r : NULL;
	}
	wl = wl_of(app, bit);
	return wl != NULL && wl->reg >= 0 ? &app->rings.ctl->writer[wl->reg] : NULL;
}

/* The name of the writer with schedule bit `bit`: primary-N-FORMAT, or a
 * dump's --name. */
static const char *
bit_name(const struct ibv_app *app, unsigned int bit, char *buf, size_t len)
{
	const struct shm_writer *r;

	if (bit < WR_SCHED_DUMP_BASE)
		return wl_of(app, bit) != NULL ? wl_name(wl_of(app, bit), buf, len) : "?";
	r = reg_of(app, bit);
	if (r != NULL && r->name[0] != '\0')
		snprintf(buf, len, "%.*s", (int)sizeof(r->name), r->name);
	else
		snprintf(buf, len, "dump-slot-%u", bit - WR_SCHED_DUMP_BASE);
	return buf;
}

/* A dump's published figures of scan id (lib/writer's wr_gate_publish):
 * false when it has none. */
static bool
reg_tally(const struct shm_writer *r, uint32_t id, struct shm_scan_tally *t)
{
	unsigned int k;

	for (k = 0; k < SHM_WRITER_SCANS; k++) {
		const struct shm_scan_tally *e = &r->scans[k];

		if (__atomic_load_n(&e->id, __ATOMIC_ACQUIRE) != id)
			continue;
		*t = *e;
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&e->id, __ATOMIC_RELAXED) == id)
			return true;
	}
	return false;
}

/* Whether the writer with schedule bit `bit` may still add to scan x:
 * alive, and a file of the scan open, or its rows not yet past the scan's
 * stop (data: the newest frame time of the scan's antennas). */
static bool
writer_busy(const struct ibv_app *app, unsigned int bit, const struct wr_scan *sc, int64_t data)
{
	const struct shm_writer *r = reg_of(app, bit);
	struct shm_scan_tally t;

	if (r == NULL || !__atomic_load_n(&r->in_use, __ATOMIC_ACQUIRE) || r->dead)
		return false;
	if (bit >= WR_SCHED_DUMP_BASE && reg_tally(r, sc->id, &t) && t.open)
		return true;
	return data - (int64_t)r->lag_ns < sc->stop_ns;
}

/* The first frame index of clk at or after t. */
static int64_t
first_at(const struct codif_clock *c, int64_t t)
{
	int64_t t0 = codif_clock_time_ns(c, 0);
	double fns = (double)c->period_ns / (double)c->fpp;
	int64_t n = (int64_t)((double)(t - t0) / fns);

	while (codif_clock_time_ns(c, n) < t)
		n++;
	while (codif_clock_time_ns(c, n - 1) >= t)
		n--;
	return n;
}

/* Antenna a's timeline clock (the rx lcore that has it), or NULL. */
static const struct codif_clock *
ant_clock(const struct ibv_app *app, unsigned int a)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = app->lcores.lc[i];

		if (lc != NULL && lc->acct != NULL && lc->acct->ant[a].tl.started &&
		    lc->acct->ant[a].tl.clk.fpp > 0)
			return &lc->acct->ant[a].tl.clk;
	}
	return NULL;
}

static void
secs_str(int64_t ns, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f s", (double)ns / 1e9);
}

/* Frames of scan id and antenna a received and not recorded (every rx
 * lcore's count, rx.c scan_nr_count). */
static uint64_t
scan_nr_of(const struct ibv_app *app, uint32_t id, unsigned int a)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++) {
		const struct ibv_lcore *lc = app->lcores.lc[i];
		const struct ibv_scan_nr *e;

		if (lc == NULL || lc->scan_nr == NULL)
			continue;
		e = &lc->scan_nr[id % IBV_SCAN_NR];
		if (__atomic_load_n(&e->id, __ATOMIC_ACQUIRE) == id)
			n += __atomic_load_n(&e->nr[a], __ATOMIC_RELAXED);
	}
	return n;
}

/* The ledger of scan x for each of its --write writers, as of now. */
static void
ledger_fill(const struct ibv_app *app, const struct ibv_totals *t, struct scan_watch *x,
	    int64_t now)
{
	const struct acct_layout *l = &app->cfg.layout;
	const struct wr_scan *s = &x->sc;
	unsigned int spec, i, a;

	x->nl = 0;
	for (spec = 0; spec < WR_SCHED_DUMP_BASE + WR_SCHED_DUMP_SLOTS; spec++) {
		struct scan_ledger *g;
		const struct shm_writer *r = NULL;
		uint64_t onmask = 0;
		int64_t worst = 0, first = INT64_MAX, last = INT64_MIN;
		bool clock_unknown = false, per_ant;

		if (!(s->writers >> spec & 1))
			continue;
		if (spec < WR_SCHED_DUMP_BASE ? wl_of(app, spec) == NULL :
		    (r = reg_of(app, spec)) == NULL)
			continue;
		g = &x->l[x->nl++];
		{
			struct ant_ledger *keep = g->ant;

			memset(g, 0, sizeof(*g));
			if (keep != NULL)
				memset(keep, 0, ACCT_MAX_ANTENNAS * sizeof(*keep));
			g->ant = keep != NULL ? keep : calloc(ACCT_MAX_ANTENNAS, sizeof(*g->ant));
		}
		g->spec = spec;
		bit_name(app, spec, g->writer, sizeof(g->writer));
		if (r != NULL) { /* a dump: its published figures */
			struct shm_scan_tally tt;

			onmask = r->ants;
			if (reg_tally(r, s->id, &tt)) {
				g->recorded = tt.frames;
				g->lost = tt.gaps;
				g->overrun = tt.overrun;
				g->cut = tt.cut;
			}
		}
		for (i = 0; r == NULL && i < app->writers.n; i++) {
			const struct ibv_wlcore *wl = app->writers.wl[i];
			struct wr_scan_tally tt;

			if (wl->spec_idx != spec)
				continue;
			for (a = 0; a < wl->w.n && a < 64; a++)
				if (wl->w.src[a].on)
					onmask |= 1ULL << a;
			if (wr_gate_tally(&wl->w, s->id, &tt)) {
				g->recorded += tt.frames;
				g->lost += tt.gaps;
				g->overrun += tt.overrun;
				g->cut += tt.cut;
			}
		}
		/* a --write writer keeps its figures per antenna, but an
		 * all=yes pcap's (one file); a dump publishes sums only */
		per_ant = r == NULL && !wl_all(app, spec);
		for (a = 0; a < l->nant; a++) {
			const struct codif_clock *c;
			struct ant_ledger *al = g->ant != NULL ? &g->ant[a] : NULL;
			int64_t lo, hi;
			uint64_t e = 0, nr;

			if (!(onmask >> a & 1) || !(s->ants >> a & 1))
				continue;
			if (al != NULL) {
				al->on = true;
				al->known = per_ant;
				al->streams = t->ant[a].streams;
				/* the part of the writer that has the antenna */
				for (i = 0; per_ant && i < app->writers.n; i++) {
					const struct ibv_wlcore *wl = app->writers.wl[i];
					struct wr_scan_tally tt;

					if (wl->spec_idx != spec || a >= wl->w.n || !wl->w.src[a].on ||
					    !wr_gate_tally_ant(&wl->w, s->id, a, &tt))
						continue;
					al->recorded += tt.frames;
					al->lost += tt.gaps;
					al->overrun += tt.overrun;
					al->cut += tt.cut;
				}
			}
			c = ant_clock(app, a);
			if (c == NULL) {
				clock_unknown = true;
				continue;
			}
			lo = first_at(c, s->start_ns);
			hi = s->stop_ns == WR_SCAN_OPEN ? first_at(c, t->ant[a].last_ns + 1) :
			     first_at(c, s->stop_ns);
			if (hi > lo)
				e = (uint64_t)(hi - lo) * t->ant[a].streams;
			g->expected += e;
			nr = scan_nr_of(app, s->id, a);
			g->not_recorded += nr;
			if (al != NULL) {
				uint64_t have = al->recorded + al->lost + al->overrun + al->cut + nr;

				al->expected = e;
				al->not_recorded = nr;
				al->not_arrived = al->known && e > have ? e - have : 0;
			}
			if (lg.offset_known[a] && (lg.offset_ns[a] > worst ? lg.offset_ns[a] : -lg.offset_ns[a]) >
			    (worst > 0 ? worst : -worst))
				worst = lg.offset_ns[a];
			if (t->ant[a].first_ns < first)
				first = t->ant[a].first_ns;
			if (t->ant[a].last_ns > last)
				last = t->ant[a].last_ns;
		}
		{
			uint64_t have = g->recorded + g->lost + g->overrun + g->cut +
					g->not_recorded;

			g->not_arrived = g->expected > have ? g->expected - have : 0;
		}
		if (g->not_arrived > 0 || g->lost || g->overrun || g->cut || g->not_recorded ||
		    clock_unknown) {
			char a1[40], b1[64];
			size_t o = 0;

			if (g->not_arrived > 0) {
				/* the span outside the data received: the data's
				 * clock, if it is off the host's (a scan given in
				 * host time), else where the data began or ended */
				bool outside = last == INT64_MIN || first >= s->stop_ns ||
					       last < s->start_ns;

				if (last == INT64_MIN) {
					o += (size_t)snprintf(g->reason + o, sizeof(g->reason) - o,
						"no data arrived");
				} else if (outside && (uint64_t)(worst < 0 ? -worst : worst) >
					   app->cfg.clock_warn_ns) {
					secs_str(worst < 0 ? -worst : worst, a1, sizeof(a1));
					o += (size_t)snprintf(g->reason + o, sizeof(g->reason) - o,
						"data clock %s %s the host clock", a1,
						worst > 0 ? "ahead of" : "behind");
				} else if (first > s->start_ns) {
					o += (size_t)snprintf(g->reason + o, sizeof(g->reason) - o,
						"data began after the scan's start (first frame %s)",
						codif_time_str(first, b1, sizeof(b1)));
				} else if (last < s->stop_ns && s->stop_ns != WR_SCAN_OPEN) {
					o += (size_t)snprintf(g->reason + o, sizeof(g->reason) - o,
						"data ended before the scan's stop");
				} else {
					o += (size_t)snprintf(g->reason + o, sizeof(g->reason) - o,
						"frames not received");
				}
			}
			if (clock_unknown && o < sizeof(g->reason))
				o += (size_t)snprintf(g->reason + o, sizeof(g->reason) - o,
					"%san antenna of it has sent nothing (its frames not counted)",
					o ? "; " : "");
			if (g->lost && o < sizeof(g->reason))
				o += (size_t)snprintf(g->reason + o, sizeof(g->reason) - o,
					"%slost on the wire", o ? "; " : "");
			if (g->not_recorded && o < sizeof(g->reason))
				o += (size_t)snprintf(g->reason + o, sizeof(g->reason) - o,
					"%sreceived, not recorded (by cause: the streams' "
					"not_recorded)", o ? "; " : "");
			if (g->overrun && o < sizeof(g->reason))
				o += (size_t)snprintf(g->reason + o, sizeof(g->reason) - o,
					"%swriter behind the ring (overrun)", o ? "; " : "");
			if (g->cut && o < sizeof(g->reason))
				snprintf(g->reason + o, sizeof(g->reason) - o,
					 "%sI/O error (cut)", o ? "; " : "");
		}
	}
	(void)now;
}

static void
ledger_log(const struct scan_watch *x, FILE *f)
{
	unsigned int i;

	if (x->nl == 0)
		fprintf(f, "dpdk-ibvcap: scan %s ended (no --write writer of this capture "
			"records it)\n", x->sc.name);
	for (i = 0; i < x->nl; i++) {
		const struct scan_ledger *g = &x->l[i];
		bool short_ = g->recorded < g->expected;

		fprintf(f, "dpdk-ibvcap: %sscan %s ended, %s: %" PRIu64 " of %" PRIu64
			" frames recorded", short_ ? "warning: " : "", x->sc.name,
			g->writer, g->recorded, g->expected);
		if (short_ || g->lost || g->overrun || g->cut || g->not_recorded)
			fprintf(f, " (missing: lost %" PRIu64 ", not recorded %" PRIu64
				", overrun %" PRIu64 ", cut %" PRIu64 ", not arrived %" PRIu64 ")%s%s",
				g->lost, g->not_recorded, g->overrun, g->cut,
				g->not_arrived, g->reason[0] ? ": " : "", g->reason);
		fprintf(f, "\n");
	}
}

static struct scan_watch *
watch_of(uint32_t id)
{
	unsigned int i;

	for (i = 0; i < lg.n; i++)
		if (lg.w[i].sc.id == id)
			return &lg.w[i];
	return NULL;
}

/* A new scan to watch (the oldest ended one forgotten when full). */
static struct scan_watch *
watch_add(const struct wr_scan *s)
{
	unsigned int i;

	if (lg.n == RTE_DIM(lg.w)) {
		for (i = 0; i < lg.n && lg.w[i].state != SW_ENDED; i++)
			;
		if (i == lg.n)
			return NULL;
		{
			unsigned int k;

			for (k = 0; k < RTE_DIM(lg.w[i].l); k++)
				free(lg.w[i].l[k].ant);
		}
		memmove(&lg.w[i], &lg.w[i + 1], (lg.n - i - 1) * sizeof(lg.w[0]));
		lg.n--;
	}
	memset(&lg.w[lg.n], 0, sizeof(lg.w[0]));
	lg.w[lg.n].sc = *s;
	return &lg.w[lg.n++];
}

void
ibv_rec_tick(struct ibv_app *app, FILE *f, bool final)
{
	const struct acct_layout *l = &app->cfg.layout;
	struct ibv_totals *t = malloc(sizeof(*t));
	int64_t now = now_ns();
	unsigned int i, a;
	char ts[CODIF_TIMESTR_LEN], ts2[CODIF_TIMESTR_LEN], n[64];

	if (t == NULL)
		return;
	ibv_collect(app, t);
	/* each antenna's data time against the host clock, at a new frame */
	for (a = 0; a < l->nant; a++) {
		int64_t last = t->ant[a].last_ns, off;

		if (t->ant[a].received == 0 || last == INT64_MIN || last == lg.last_ns[a])
			continue;
		lg.last_ns[a] = last;
		off = last - now;
		lg.offset_ns[a] = off;
		lg.offset_known[a] = true;
		if ((uint64_t)(off < 0 ? -off : off) > app->cfg.clock_warn_ns && !lg.warned[a]) {
			secs_str(off < 0 ? -off : off, ts, sizeof(ts));
			fprintf(f, "dpdk-ibvcap: warning: antenna %s: its data time is %s %s the host "
				"clock (newest frame %s; --clock-warn %.3f s): scans are data time, "
				"they record what the data's clock says\n", l->ant_name[a], ts,
				off > 0 ? "ahead of" : "behind", codif_time_str(last, ts2, sizeof(ts2)),
				(double)app->cfg.clock_warn_ns / 1e9);
			lg.warned[a] = true;
		} else if ((uint64_t)(off < 0 ? -off : off) <= app->cfg.clock_warn_ns / 2 &&
			   lg.warned[a]) {
			fprintf(f, "dpdk-ibvcap: antenna %s: its data time agrees with the host "
				"clock again (%.3f s apart)\n", l->ant_name[a], (double)off / 1e9);
			lg.warned[a] = false;
		}
	}
	wr_sched_snapshot(app->scans.sched, &lg.snap, &lg.seen);
	for (i = 0; i < lg.n; i++)
		lg.w[i].gone = true;
	for (i = 0; i < lg.snap.n; i++) {
		const struct wr_scan *s = &lg.snap.s[i];
		struct scan_watch *x = watch_of(s->id);
		char wn[256];
		size_t o = 0;
		unsigned int k;

		if (x == NULL) {
			if ((x = watch_add(s)) == NULL)
				continue;
			wn[0] = '\0';
			for (k = 0; k < WR_SCHED_DUMP_BASE + WR_SCHED_DUMP_SLOTS && o < sizeof(wn); k++)
				if ((s->writers >> k & 1) && (k < WR_SCHED_DUMP_BASE ?
							      wl_of(app, k) != NULL :
							      reg_of(app, k) != NULL))
					o += (size_t)snprintf(wn + o, sizeof(wn) - o, "%s%s", o ? "," : "",
							      bit_name(app, k, n, sizeof(n)));
			fprintf(f, "dpdk-ibvcap: scan %s added (%s): data time %s .. %s, writers %s\n",
				s->name, s->origin, codif_time_str(s->start_ns, ts, sizeof(ts)),
				s->stop_ns == WR_SCAN_OPEN ? "open" :
				codif_time_str(s->stop_ns, ts2, sizeof(ts2)), wn);
		}
		x->sc = *s;
		x->gone = false;
	}
	for (i = 0; i < lg.n; i++) {
		struct scan_watch *x = &lg.w[i];
		int64_t data = INT64_MIN;
		bool open = false;
		unsigned int k;

		if (x->state == SW_ENDED)
			continue;
		for (a = 0; a < l->nant; a++)
			if ((x->sc.ants >> a & 1) && t->ant[a].received && t->ant[a].last_ns > data)
				data = t->ant[a].last_ns;
		if (x->gone && x->state == SW_ADDED) { /* cancelled before it began */
			fprintf(f, "dpdk-ibvcap: scan %s cancelled\n", x->sc.name);
			x->state = SW_ENDED;
			continue;
		}
		if (x->state == SW_ADDED && data >= x->sc.start_ns) {
			fprintf(f, "dpdk-ibvcap: scan %s begun: the data time reached its start "
				"(newest frame %s)\n", x->sc.name, codif_time_str(data, ts, sizeof(ts)));
			x->state = SW_BEGUN;
		}
		if (x->state == SW_ADDED && final) {
			/* left as not begun: the summary says so */
			fprintf(f, "dpdk-ibvcap: scan %s not begun: the capture stopped before the "
				"data time reached its start (newest frame %s)\n", x->sc.name,
				data == INT64_MIN ? "none" : codif_time_str(data, ts, sizeof(ts)));
			continue;
		}
		if (x->state != SW_BEGUN)
			continue;
		for (k = 0; k < app->writers.n; k++) {
			const struct ibv_wlcore *wl = app->writers.wl[k];
			struct wr_scan_tally tt;

			if (!(x->sc.writers >> wl->spec_idx & 1))
				continue;
			if (wr_gate_tally(&wl->w, x->sc.id, &tt) && tt.open)
				open = true;
			/* rows of the scan it has not taken yet (a writer off
			 * its CPU publishes an old lag: its own cursor, per
			 * antenna, says) */
			for (a = 0; a < l->nant && !open; a++)
				if ((x->sc.ants >> a & 1) && t->ant[a].received &&
				    wr_behind(&wl->w, a, t->ant[a].last_ns, x->sc.stop_ns))
					open = true;
		}
		/* every writer of it past its stop (a writer behind the ring
		 * has not taken its rows yet), dumps with their files closed */
		for (k = 0; k < WR_SCHED_DUMP_BASE + WR_SCHED_DUMP_SLOTS && !open; k++)
			if ((x->sc.writers >> k & 1) && writer_busy(app, k, &x->sc, data))
				open = true;
		if (!final) {
			if (x->sc.stop_ns == WR_SCAN_OPEN || data < x->sc.stop_ns)
				continue;
			if (x->past_ns == 0)
				x->past_ns = now;
			/* the writers' rows lag the newest frame: half a second
			 * more, and two ticks in a row with none busy (a file
			 * closes just after its writer took the row past it) */
			x->quiet = open ? 0 : x->quiet + 1;
			if (open || x->quiet < 2 || now - x->past_ns < 500000000LL)
				continue;
		}
		ledger_fill(app, t, x, now);
		ledger_log(x, f);
		x->state = SW_ENDED;
	}
	fflush(f);
	free(t);
}

/* The ledger of one scan, into a JSON array. */
static void
ledger_json(const struct scan_watch *x, json_t *arr)
{
	unsigned int i;

	for (i = 0; i < x->nl; i++) {
		const struct scan_ledger *g = &x->l[i];
		json_t *o = js_obj(arr, NULL), *m;

		js_str(o, "writer", g->writer);
		js_u64(o, "expected", g->expected);
		js_u64(o, "recorded", g->recorded);
		m = js_obj(o, "missing");
		js_u64(m, "lost", g->lost);
		js_u64(m, "not_recorded", g->not_recorded);
		js_u64(m, "overrun", g->overrun);
		js_u64(m, "cut", g->cut);
		js_u64(m, "not_arrived", g->not_arrived);
		js_str(o, "reason", g->reason);
		js_str(o, "result", g->recorded < g->expected ? "short" : "complete");
	}
}

/* The ledgers of the scans ended (a row per scan and --write writer, as
 * parallel arrays: ledger_scan, ledger_writer, ledger_expected, ..._recorded,
 * ..._lost, ..._overrun, ..._cut, ..._not_arrived, ledger_reason,
 * ledger_not_recorded) and each
 * antenna's data time minus the host clock (data_offset_ms, in antenna
 * order; data_offset_known 0 before its first frame). */
static void
ledger_tel(const struct ibv_app *app, struct rte_tel_data *d)
{
	static const char *const keys[] = { "ledger_scan", "ledger_writer", "ledger_reason",
					    "ledger_expected", "ledger_recorded", "ledger_lost",
					    "ledger_overrun", "ledger_cut", "ledger_not_arrived",
					    "data_offset_ms", "data_offset_known",
					    "ledger_not_recorded" };
	struct rte_tel_data *a[RTE_DIM(keys)] = { NULL };
	unsigned int i, k, ant;

	for (k = 0; k < RTE_DIM(a); k++) {
		a[k] = rte_tel_data_alloc();
		if (a[k] == NULL)
			goto out;
		rte_tel_data_start_array(a[k], k < 3 ? RTE_TEL_STRING_VAL :
					 k == 9 ? RTE_TEL_INT_VAL : RTE_TEL_U64_VAL);
	}
	for (i = 0; i < lg.n; i++) {
		const struct scan_watch *x = &lg.w[i];

		if (x->state != SW_ENDED)
			continue;
		for (k = 0; k < x->nl; k++) {
			const struct scan_ledger *g = &x->l[k];

			rte_tel_data_add_array_string(a[0], x->sc.name);
			rte_tel_data_add_array_string(a[1], g->writer);
			rte_tel_data_add_array_string(a[2], g->reason);
			rte_tel_data_add_array_u64(a[3], g->expected);
			rte_tel_data_add_array_u64(a[4], g->recorded);
			rte_tel_data_add_array_u64(a[5], g->lost);
			rte_tel_data_add_array_u64(a[6], g->overrun);
			rte_tel_data_add_array_u64(a[7], g->cut);
			rte_tel_data_add_array_u64(a[8], g->not_arrived);
			rte_tel_data_add_array_u64(a[11], g->not_recorded);
		}
	}
	for (ant = 0; ant < app->cfg.layout.nant; ant++) {
		int64_t ms = lg.offset_ns[ant] / 1000000;

		rte_tel_data_add_array_int(a[9], ms > INT32_MAX ? INT32_MAX :
					   ms < -INT32_MAX ? -INT32_MAX : (int)ms);
		rte_tel_data_add_array_u64(a[10], lg.offset_known[ant]);
	}
	rte_tel_data_add_dict_u64(d, "clock_warn_ms", app->cfg.clock_warn_ns / 1000000);
out:
	for (k = 0; k < RTE_DIM(a); k++)
		if (a[k] != NULL && rte_tel_data_add_dict_container(d, keys[k], a[k], 0) != 0)
			rte_tel_data_free(a[k]);
}

/*
 * /ibvcap/scan,NAME[,WRITER]: one scan's ledger. Without WRITER: its span,
 * its state (added, begun, ended) and, once ended, a row per writer (the
 * figures of /ibvcap/record's ledger_*); with WRITER (its name in those
 * rows): that writer's row per antenna of the scan (antenna, streams,
 * expected, recorded, missing by cause, known: 0 where the writer keeps
 * no per-antenna figures: a dump, an all=yes pcap). The array's agent
 * writes these as the host's scan ledger (docs/formats.md).
 */
int
ibv_rec_tel_scan(struct ibv_app *app, const char *params, struct rte_tel_data *d)
{
	static const char *const rk[] = { "writer", "reason", "expected", "recorded", "lost",
					  "not_recorded", "overrun", "cut", "not_arrived" };
	static const char *const ak[] = { "antenna", "streams", "known", "expected", "recorded",
					  "lost", "not_recorded", "overrun", "cut",
					  "not_arrived" };
	struct rte_tel_data *c[RTE_DIM(ak)] = { NULL };
	const struct scan_watch *x = NULL;
	const struct scan_ledger *g = NULL;
	struct err_refusal why;
	char buf[WR_SCAN_NAMELEN + SHM_NAMELEN + 32], *wn;
	unsigned int i, k, n;

	rte_tel_data_start_dict(d);
	snprintf(buf, sizeof(buf), "%s", params != NULL ? params : "");
	wn = strchr(buf, ',');
	if (wn != NULL)
		*wn++ = '\0';
	for (i = 0; i < lg.n; i++)
		if (strcmp(lg.w[i].sc.name, buf) == 0)
			x = &lg.w[i]; /* the newest of that name */
	if (x == NULL) {
		err_refuse(&why, "scan", buf, "a scan this capture knows (scan_names of "
			"/ibvcap/record,status)");
		ibv_refusal_tel(d, "scan", &why);
		return 0;
	}
	rte_tel_data_add_dict_string(d, "scan", x->sc.name);
	rte_tel_data_add_dict_string(d, "origin", x->sc.origin);
	tel_time(d, "start_utc", x->sc.start_ns);
	tel_time(d, "stop_utc", x->sc.stop_ns);
	rte_tel_data_add_dict_u64(d, "start_ns", (uint64_t)x->sc.start_ns);
	rte_tel_data_add_dict_u64(d, "stop_ns", x->sc.stop_ns == WR_SCAN_OPEN ? 0 :
				  (uint64_t)x->sc.stop_ns);
	rte_tel_data_add_dict_string(d, "state", x->state == SW_ENDED ? "ended" :
				     x->state == SW_BEGUN ? "begun" : "added");
	if (x->state != SW_ENDED)
		return 0;
	if (wn != NULL) {
		for (k = 0; k < x->nl; k++)
			if (strcmp(x->l[k].writer, wn) == 0)
				g = &x->l[k];
		if (g == NULL || g->ant == NULL) {
			err_refuse(&why, "writer", wn, "a writer of the scan's ledger "
				"(/ibvcap/scan,NAME: writer)");
			ibv_refusal_tel(d, "scan", &why);
			return 0;
		}
		rte_tel_data_add_dict_string(d, "writer", g->writer);
		n = RTE_DIM(ak);
	} else {
		n = RTE_DIM(rk);
	}
	for (k = 0; k < n; k++) {
		if ((c[k] = rte_tel_data_alloc()) == NULL)
			goto out;
		rte_tel_data_start_array(c[k], k < 2 - (wn != NULL) ? RTE_TEL_STRING_VAL :
					 RTE_TEL_U64_VAL);
	}
	if (wn != NULL) {
		const struct acct_layout *l = &app->cfg.layout;

		for (i = 0; i < l->nant; i++) {
			const struct ant_ledger *al = &g->ant[i];
			const uint64_t v[] = { al->streams, al->known, al->expected, al->recorded,
					       al->lost, al->not_recorded, al->overrun, al->cut,
					       al->not_arrived };

			if (!al->on)
				continue;
			rte_tel_data_add_array_string(c[0], l->ant_name[i]);
			for (k = 0; k < RTE_DIM(v); k++)
				rte_tel_data_add_array_u64(c[k + 1], v[k]);
		}
	} else {
		for (i = 0; i < x->nl; i++) {
			const struct scan_ledger *e = &x->l[i];
			const uint64_t v[] = { e->expected, e->recorded, e->lost, e->not_recorded,
					       e->overrun, e->cut, e->not_arrived };

			rte_tel_data_add_array_string(c[0], e->writer);
			rte_tel_data_add_array_string(c[1], e->reason);
			for (k = 0; k < RTE_DIM(v); k++)
				rte_tel_data_add_array_u64(c[k + 2], v[k]);
		}
	}
out:
	for (k = 0; k < n; k++)
		if (c[k] != NULL && rte_tel_data_add_dict_container(d, wn != NULL ? ak[k] : rk[k],
								     c[k], 0) != 0)
			rte_tel_data_free(c[k]);
	return 0;
}

/* ---- the summary ---------------------------------------------------------- */

void
ibv_rec_summary_json(const struct ibv_app *app, json_t *root)
{
	json_t *o = js_obj(root, "recording"), *arr, *sc;
	char ts[CODIF_TIMESTR_LEN];
	unsigned int i;

	js_str(o, "record", app->cfg.record == IBV_REC_IDLE ? "idle" : "always");
	js_str(o, "schedule", app->cfg.schedule);
	sc = js_arr(o, "schedule_scans");
	for (i = 0; i < app->scans.sched->n; i++) {
		const struct wr_scan *s = &app->scans.sched->s[i];
		json_t *x = js_obj(sc, NULL);

		js_str(x, "scan", s->name);
		js_str(x, "origin", s->origin);
		js_str(x, "start_utc", codif_time_str(s->start_ns, ts, sizeof(ts)));
		if (s->stop_ns == WR_SCAN_OPEN)
			js_null(x, "stop_utc");
		else
			js_str(x, "stop_utc", codif_time_str(s->stop_ns, ts, sizeof(ts)));
		{
			json_t *wa = js_arr(x, "writers");
			const struct scan_watch *w = watch_of(s->id);
			unsigned int k;
			char n[64];

			for (k = 0; k < WR_SCHED_DUMP_BASE + WR_SCHED_DUMP_SLOTS; k++)
				if ((s->writers >> k & 1) && (k < WR_SCHED_DUMP_BASE ?
							      wl_of(app, k) != NULL :
							      reg_of(app, k) != NULL))
					json_array_append_new(wa, json_string(bit_name(app, k, n,
										       sizeof(n))));
			js_str(x, "state", w == NULL ? "unseen" : w->state == SW_ENDED ? "ended" :
			       w->state == SW_BEGUN ? "begun" : "added");
			if (w != NULL && w->state == SW_ENDED)
				ledger_json(w, js_arr(x, "ledger"));
		}
	}
	{
		json_t *ao = js_arr(o, "data_clock");
		unsigned int a;

		for (a = 0; a < app->cfg.layout.nant; a++) {
			json_t *e = js_obj(ao, NULL);

			js_str(e, "antenna", app->cfg.layout.ant_name[a]);
			if (lg.offset_known[a])
				json_object_set_new(e, "offset_s", json_real((double)lg.offset_ns[a] / 1e9));
			else
				js_null(e, "offset_s");
		}
		json_object_set_new(o, "clock_warn_s", json_real((double)app->cfg.clock_warn_ns / 1e9));
	}
	arr = js_arr(o, "writers");
	for (i = 0; i < app->writers.n; i++) {
		const struct ibv_wlcore *wl = app->writers.wl[i];
		json_t *x = js_obj(arr, NULL);

		js_u64(x, "writer", wl->spec_idx);
		if (wl->parts > 1) /* lcores=N: its part (an index each lists all) */
			js_u64(x, "part", wl->part);
		js_str(x, "spec", wl->spec);
		js_u64(x, "rows_not_recorded", wr_gate_skipped(&wl->w));
		wr_gate_json(&wl->w, js_arr(x, "scans"));
	}
}

void
ibv_rec_summary_text(const struct ibv_app *app, FILE *f)
{
	unsigned int i, k;

	(void)app; /* the ledgers are the main lcore's (lg) */
	if (lg.n == 0)
		return;
	fprintf(f, "\nscans (per --write writer: frames the span holds, recorded, missing by cause)\n");
	fprintf(f, "%-16s %-22s %12s %12s %10s %10s %10s %8s %12s  %s\n", "scan", "writer",
		"expected", "recorded", "lost", "not-rec", "overrun", "cut", "not-arrived", "reason");
	for (i = 0; i < lg.n; i++) {
		const struct scan_watch *x = &lg.w[i];

		if (x->state != SW_ENDED || x->nl == 0) {
			fprintf(f, "%-16s %s\n", x->sc.name, x->state != SW_ENDED ? "(not begun)" :
				"(no --write writer records it)");
			continue;
		}
		for (k = 0; k < x->nl; k++) {
			const struct scan_ledger *g = &x->l[k];

			fprintf(f, "%-16s %-22s %12" PRIu64 " %12" PRIu64 " %10" PRIu64 " %10" PRIu64
				" %10" PRIu64 " %8" PRIu64 " %12" PRIu64 "  %s%s\n", x->sc.name,
				g->writer, g->expected, g->recorded,
				g->lost, g->not_recorded, g->overrun, g->cut, g->not_arrived,
				g->recorded < g->expected ? "SHORT: " : "", g->reason);
		}
	}
}
