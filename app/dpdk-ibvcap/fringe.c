/* SPDX-License-Identifier: BSD-3-Clause */
/* The live fringe check: /ibvcap/fringe,A,B[,SECONDS][,pairs=N][,max_lag=N]
 * reads rows of the same frame index of two antennas' buffers on a control
 * thread of its own (never an rx lcore, never the telemetry thread) and
 * cross-correlates them per thread and channel with lib/quicklook's
 * ql_fringe, the code codifcheck fringe runs; /ibvcap/fringe/status gives
 * its state and, once ended, the lag and coefficient of each channel. */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "config.h"
#include "payload.h"
#include "rings.h"
#include "fringe.h"
#include "antenna.h"
#include "parse.h"
#include "ql_fringe.h"
#include "tconv.h"

#define FR_DEF_SECONDS 1.0
#define FR_MAX_SECONDS 3600.0
#define FR_DEF_PAIRS 200
#define FR_MAX_BASES 16

/* One antenna's side: its cursor and the row being paired, copied out of
 * the ring (the copy checked by antbuf_commit). */
struct fr_side {
	const struct antbuf *b;
	uint8_t *base;
	struct antbuf_cursor c;
	bool have;
	int64_t index;                    /* qlf_frame_index of the row */
	uint64_t valid;                   /* slots with a frame */
	uint8_t hdr[ANTBUF_MAX_SLOTS][CODIF_HDR_LEN];
	uint8_t *data;                    /* nslots x data_bytes */
	uint64_t rows;                    /* rows with a frame taken */
};

struct fr_base {
	uint16_t thread;
	struct qlf q;
};

struct ibv_fringe_result {
	uint64_t rows_a, rows_b, pairs, unmatched_a, unmatched_b, lost_rows;
	double cpu_s, wall_s;
	char why[160];                    /* a baseline refused (shapes differ) */
	struct fr_base base[FR_MAX_BASES];
	unsigned int nbase;
};

void
ibv_fringe_init(struct ibv_fringe *fr, const struct ibv_fringe_deps *deps)
{
	memset(fr, 0, sizeof(*fr));
	pthread_mutex_init(&fr->lock, NULL);
	fr->joined = true;
	fr->deps = *deps;
}

static void
res_free(struct ibv_fringe_result *res)
{
	unsigned int i;

	if (res == NULL)
		return;
	for (i = 0; i < res->nbase; i++)
		qlf_free(&res->base[i].q);
	free(res);
}

/* ---- the job ------------------------------------------------------------- */

/* The next row of s with a frame, copied out: 1, or 0 when none is final yet. */
static int
side_next(struct fr_side *s, uint64_t *lost)
{
	const struct antbuf *b = s->b;
	struct antbuf_view v;
	unsigned int k;

	while (antbuf_next(b, &s->c, &v) == 1) {
		struct codif_hdr h;
		bool first = true;

		s->valid = 0;
		for (k = 0; !v.virt && k < b->g.nslots; k++) {
			const struct antbuf_meta *m = antbuf_metap(b, v.pos, k);
			const uint8_t *codif = antbuf_meta_codif(m);
			uint32_t len = antbuf_hdr_data_bytes(codif);

			if ((m->flags & ANTBUF_F_VALID) == 0 || (m->flags & ANTBUF_F_INVALID) != 0 ||
			    len > b->g.data_bytes)
				continue;
			memcpy(s->hdr[k], codif, CODIF_HDR_LEN);
			memcpy(s->data + (size_t)k * b->g.data_bytes,
			       antbuf_payload_of(b, s->base, v.pos, k), len);
			if (first && codif_decode(codif, CODIF_HDR_LEN, &h, NULL, 0) == 0) {
				s->index = qlf_frame_index(&h);
				first = false;
			}
			s->valid |= 1ULL << k;
		}
		if (!antbuf_commit(b, &s->c, &v)) {
			(*lost)++;
			continue;
		}
		if (s->valid == 0 || first)
			continue;
		s->rows++;
		s->have = true;
		return 1;
	}
	return 0;
}

static struct fr_base *
base_of(struct ibv_fringe_result *res, const struct codif_hdr *ha, const struct codif_hdr *hb,
	unsigned int max_lag)
{
	char why[128];
	unsigned int i;

	for (i = 0; i < res->nbase; i++)
		if (res->base[i].thread == ha->threadid)
			return &res->base[i];
	if (res->nbase == FR_MAX_BASES || res->why[0] != '\0')
		return NULL;
	if (qlf_init(&res->base[i].q, ha, hb, 0, max_lag, why, sizeof(why)) != 0) {
		snprintf(res->why, sizeof(res->why), "thread %u: %s", ha->threadid, why);
		return NULL;
	}
	res->base[i].thread = ha->threadid;
	res->nbase++;
	return &res->base[i];
}

/* Rows of the same index: each of A's frames with B's of the same thread. */
static void
pair_rows(struct fr_side *A, struct fr_side *B, const struct ibv_fringe_req *r,
	  struct ibv_fringe_result *res)
{
	unsigned int ka, kb, nslots = A->b->g.nslots;
	struct codif_hdr ha, hb;

	for (ka = 0; ka < nslots && res->pairs < r->pairs; ka++) {
		struct fr_base *fb;

		if ((A->valid >> ka & 1) == 0 ||
		    codif_decode(A->hdr[ka], CODIF_HDR_LEN, &ha, NULL, 0) != 0)
			continue;
		for (kb = 0; kb < B->b->g.nslots; kb++)
			if ((B->valid >> kb & 1) != 0 &&
			    codif_decode(B->hdr[kb], CODIF_HDR_LEN, &hb, NULL, 0) == 0 &&
			    hb.threadid == ha.threadid)
				break;
		if (kb == B->b->g.nslots) {
			res->unmatched_a++;
			continue;
		}
		fb = base_of(res, &ha, &hb, r->max_lag);
		if (fb == NULL)
			continue;
		qlf_add(&fb->q, A->data + (size_t)ka * A->b->g.data_bytes,
			B->data + (size_t)kb * B->b->g.data_bytes);
		res->pairs++;
	}
}

static double
thread_cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void
fr_run(struct ibv_fringe *fr, const struct ibv_fringe_req *r, struct ibv_fringe_result *res)
{
	struct fr_side s[2];
	double cpu0 = thread_cpu_s();
	int64_t t0 = mono_ns(), end = t0 + (int64_t)(r->seconds * 1e9);
	unsigned int i;

	memset(s, 0, sizeof(s));
	for (i = 0; i < 2; i++) {
		unsigned int a = i ? r->b : r->a;

		s[i].b = fr->deps.rings->b[a];
		s[i].base = ibv_pl_base(fr->deps.pl, a);
		s[i].data = malloc((size_t)s[i].b->g.nslots * s[i].b->g.data_bytes);
		if (s[i].data == NULL) {
			snprintf(res->why, sizeof(res->why), "out of memory for a row");
			goto out;
		}
		/* the ring's past, oldest first, then what arrives */
		antbuf_cursor_init(s[i].b, &s[i].c, true);
	}
	while (res->pairs < r->pairs && mono_ns() < end && res->why[0] == '\0' &&
	       !__atomic_load_n(&fr->stop, __ATOMIC_ACQUIRE)) {
		if ((!s[0].have && side_next(&s[0], &res->lost_rows) == 0) ||
		    (!s[1].have && side_next(&s[1], &res->lost_rows) == 0)) {
			rte_delay_us_sleep(10000); /* nothing final yet: 10 ms */
			continue;
		}
		if (s[0].index < s[1].index) {
			s[0].have = false;
			res->unmatched_a += (uint64_t)__builtin_popcountll(s[0].valid);
		} else if (s[1].index < s[0].index) {
			s[1].have = false;
			res->unmatched_b += (uint64_t)__builtin_popcountll(s[1].valid);
		} else {
			pair_rows(&s[0], &s[1], r, res);
			s[0].have = s[1].have = false;
		}
	}
out:
	res->rows_a = s[0].rows;
	res->rows_b = s[1].rows;
	res->wall_s = (double)(mono_ns() - t0) / 1e9;
	res->cpu_s = thread_cpu_s() - cpu0;
	free(s[0].data);
	free(s[1].data);
}

static void *
fr_main(void *arg)
{
	struct ibv_fringe *fr = arg;
	struct ibv_fringe_result *res;
	struct ibv_fringe_req r;
	uint64_t id;

	pthread_mutex_lock(&fr->lock);
	r = fr->r;
	res = fr->res;
	id = fr->id;
	pthread_mutex_unlock(&fr->lock);
	fr_run(fr, &r, res);
	printf("dpdk-ibvcap: fringe %" PRIu64 " ended: %" PRIu64 " pairs in %.3f s, %.4f s "
	       "of CPU%s%s\n", id, res->pairs, res->wall_s, res->cpu_s,
	       res->why[0] ? ": " : "", res->why);
	fflush(stdout);
	pthread_mutex_lock(&fr->lock);
	fr->running = false;
	pthread_mutex_unlock(&fr->lock);
	return NULL;
}

/* ---- telemetry ----------------------------------------------------------- */

static int
refuse(struct rte_tel_data *d, const char *input, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
refuse(struct rte_tel_data *d, const char *input, const char *value, const char *fmt, ...)
{
	char v[RTE_TEL_MAX_STRING_LEN], e[RTE_TEL_MAX_STRING_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e, sizeof(e), fmt, ap);
	va_end(ap);
	str_escape(value != NULL ? value : "", v, sizeof(v));
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "error", "refused");
	rte_tel_data_add_dict_string(d, "input", input);
	rte_tel_data_add_dict_string(d, "value", v);
	rte_tel_data_add_dict_string(d, "expected", e);
	printf("dpdk-ibvcap: fringe refused: %s '%s': expected %s\n", input, v, e);
	fflush(stdout);
	return 0;
}

/* Why antenna a's rows cannot be read here, or NULL. */
static const char *
unreadable(const struct ibv_fringe *fr, unsigned int a)
{
	if (fr->deps.cfg->gpu >= 0 && ibv_pl_base(fr->deps.pl, a) == NULL)
		return "its payload is in GPU memory (--gpu) with no CPU view: a CPU "
		       "cannot correlate it";
	return NULL;
}

/* "A,B[,SECONDS][,pairs=N][,max_lag=N]" */
static int
fr_parse(const struct ibv_fringe *fr, const char *params, struct ibv_fringe_req *r,
	 struct rte_tel_data *d)
{
	char buf[256], *f[5], *save = NULL, *tok;
	unsigned int n = 0, i;
	uint64_t v;
	int ant[2];

	memset(r, 0, sizeof(*r));
	r->seconds = FR_DEF_SECONDS;
	r->pairs = FR_DEF_PAIRS;
	r->max_lag = QLF_DEF_MAX_LAG;
	if (params == NULL || snprintf(buf, sizeof(buf), "%s", params) >= (int)sizeof(buf))
		return refuse(d, "parameters", params, "A,B[,SECONDS][,pairs=N][,max_lag=N]");
	for (tok = strtok_r(buf, ",", &save); tok != NULL && n < 5;
	     tok = strtok_r(NULL, ",", &save))
		f[n++] = tok;
	if (n < 2 || tok != NULL)
		return refuse(d, "parameters", params, "A,B[,SECONDS][,pairs=N][,max_lag=N]: "
			      "two antennas (names or indices), then options");
	for (i = 0; i < 2; i++) {
		ant[i] = ibv_antenna_of(fr->deps.cfg, f[i]);
		if (ant[i] < 0)
			return refuse(d, i ? "B" : "A", f[i], "an antenna name or index (0..%u)",
				      fr->deps.cfg->layout.nant - 1);
		if (unreadable(fr, (unsigned int)ant[i]) != NULL)
			return refuse(d, i ? "B" : "A", f[i], "%s", unreadable(fr,
									       (unsigned int)ant[i]));
	}
	if (ant[0] == ant[1])
		return refuse(d, "B", f[1], "an antenna other than A");
	r->a = (unsigned int)ant[0];
	r->b = (unsigned int)ant[1];
	for (i = 2; i < n; i++) {
		char *e;

		if (strncmp(f[i], "pairs=", 6) == 0) {
			if (parse_u64("pairs", f[i] + 6, 1, 10000000, &r->pairs, NULL, 0) != 0)
				return refuse(d, "pairs", f[i] + 6, "1..10000000 frame pairs");
		} else if (strncmp(f[i], "max_lag=", 8) == 0) {
			if (parse_u64("max_lag", f[i] + 8, 1, QLF_MAX_LAG, &v, NULL, 0) != 0)
				return refuse(d, "max_lag", f[i] + 8, "1..%d samples", QLF_MAX_LAG);
			r->max_lag = (unsigned int)v;
		} else {
			r->seconds = strtod(f[i], &e);
			if (e == f[i] || *e != '\0' || !(r->seconds > 0) ||
			    r->seconds > FR_MAX_SECONDS)
				return refuse(d, "SECONDS", f[i], "seconds in (0, %.0f], or pairs=N, "
					      "max_lag=N", FR_MAX_SECONDS);
		}
	}
	return 1;
}

static void
req_tel(const struct ibv_fringe *fr, struct rte_tel_data *d)
{
	char s[32];

	rte_tel_data_add_dict_u64(d, "id", fr->id);
	rte_tel_data_add_dict_string(d, "state", fr->running ? "running" : "done");
	rte_tel_data_add_dict_string(d, "a", fr->deps.cfg->layout.ant_name[fr->r.a]);
	rte_tel_data_add_dict_string(d, "b", fr->deps.cfg->layout.ant_name[fr->r.b]);
	snprintf(s, sizeof(s), "%.3f", fr->r.seconds);
	rte_tel_data_add_dict_string(d, "seconds", s);
	rte_tel_data_add_dict_u64(d, "max_pairs", fr->r.pairs);
	rte_tel_data_add_dict_u64(d, "max_lag", fr->r.max_lag);
}

int
ibv_fringe_tel_start(struct ibv_fringe *fr, const char *params, struct rte_tel_data *d)
{
	struct ibv_fringe_result *res;
	struct ibv_fringe_req r;
	int rc;

	if (!fr->deps.rings->on)
		return refuse(d, "--no-buffers", "", "a capture with antenna buffers: this one "
			      "keeps none");
	if (fr_parse(fr, params, &r, d) <= 0)
		return 0;
	res = calloc(1, sizeof(*res));
	if (res == NULL)
		return refuse(d, "fringe", "", "memory for its result");
	pthread_mutex_lock(&fr->lock);
	if (fr->closed || fr->running) {
		pthread_mutex_unlock(&fr->lock);
		free(res);
		return refuse(d, "fringe", "", fr->closed ? "a capture that is not stopping" :
			      "one fringe check at a time (/ibvcap/fringe/status: the one running)");
	}
	if (!fr->joined)
		pthread_join(fr->tid, NULL);
	res_free(fr->res);
	fr->res = res;
	fr->r = r;
		fr->id++;
	fr->running = true;
	fr->joined = false;
	__atomic_store_n(&fr->stop, false, __ATOMIC_RELEASE);
	rc = rte_ctrl_thread_create(&fr->tid, "ibv-fringe", NULL, fr_main, fr);
	if (rc != 0) {
		fr->running = false;
		fr->joined = true;
		pthread_mutex_unlock(&fr->lock);
		return refuse(d, "fringe", "", "a thread for it (%s)", strerror(rc < 0 ? -rc : rc));
	}
	rte_tel_data_start_dict(d);
	req_tel(fr, d);
	pthread_mutex_unlock(&fr->lock);
	printf("dpdk-ibvcap: fringe %" PRIu64 " started: %s x %s, %.3f s or %" PRIu64 " pairs\n",
	       fr->id, fr->deps.cfg->layout.ant_name[r.a], fr->deps.cfg->layout.ant_name[r.b],
	       r.seconds, r.pairs);
	fflush(stdout);
	return 0;
}

/* Each thread's channels: a dict "t<thread>_ch<c>" of JSON numbers (22.11
 * telemetry has no floating point: integers in ps, millionths, millidegrees). */
static void
result_tel(const struct ibv_fringe_result *res, struct rte_tel_data *d)
{
	struct qlf_chan ch[QLF_MAX_CHAN];
	unsigned int i, k, n;

	rte_tel_data_add_dict_u64(d, "pairs", res->pairs);
	rte_tel_data_add_dict_u64(d, "rows_a", res->rows_a);
	rte_tel_data_add_dict_u64(d, "rows_b", res->rows_b);
	rte_tel_data_add_dict_u64(d, "unmatched_a", res->unmatched_a);
	rte_tel_data_add_dict_u64(d, "unmatched_b", res->unmatched_b);
	rte_tel_data_add_dict_u64(d, "lost_rows", res->lost_rows);
	rte_tel_data_add_dict_u64(d, "cpu_us", (uint64_t)(res->cpu_s * 1e6));
	rte_tel_data_add_dict_u64(d, "wall_us", (uint64_t)(res->wall_s * 1e6));
	if (res->why[0] != '\0')
		rte_tel_data_add_dict_string(d, "error", res->why);
	for (i = 0; i < res->nbase; i++) {
		const struct qlf *q = &res->base[i].q;

		n = qlf_result(q, ch);
		for (k = 0; k < n; k++) {
			struct rte_tel_data *x = rte_tel_data_alloc();
			char key[32];

			if (x == NULL)
				return;
			rte_tel_data_start_dict(x);
			rte_tel_data_add_dict_u64(x, "thread", res->base[i].thread);
			rte_tel_data_add_dict_u64(x, "channel", ch[k].chan);
			rte_tel_data_add_dict_u64(x, "pairs", q->pairs);
			rte_tel_data_add_dict_int(x, "lag_samples", ch[k].lag);
			if (fabs(ch[k].lag_ns * 1e3) < INT_MAX)
				rte_tel_data_add_dict_int(x, "lag_ps", (int)lround(ch[k].lag_ns * 1e3));
			else /* slow rates, long lags: whole ns */
				rte_tel_data_add_dict_int(x, "lag_ns", (int)lround(ch[k].lag_ns));
			rte_tel_data_add_dict_int(x, "coefficient_ppm", (int)(ch[k].coef * 1e6));
			rte_tel_data_add_dict_int(x, "phase_mdeg", (int)(ch[k].phase_deg * 1e3));
			rte_tel_data_add_dict_int(x, "sigma_ppm", (int)(ch[k].sigma * 1e6));
			snprintf(key, sizeof(key), "t%u_ch%u", res->base[i].thread, ch[k].chan);
			rte_tel_data_add_dict_container(d, key, x, 0);
		}
	}
}

int
ibv_fringe_tel_status(struct ibv_fringe *fr, const char *params, struct rte_tel_data *d)
{
	(void)params;
	pthread_mutex_lock(&fr->lock);
	if (fr->id == 0) {
		pthread_mutex_unlock(&fr->lock);
		return refuse(d, "fringe", "", "a fringe check started first (/ibvcap/fringe,A,B)");
	}
	rte_tel_data_start_dict(d);
	req_tel(fr, d);
	if (!fr->running)
		result_tel(fr->res, d);
	pthread_mutex_unlock(&fr->lock);
	return 0;
}

void
ibv_fringe_end(struct ibv_fringe *fr)
{
	pthread_mutex_lock(&fr->lock);
	fr->closed = true;
	__atomic_store_n(&fr->stop, true, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&fr->lock);
	if (!fr->joined) {
		pthread_join(fr->tid, NULL);
		fr->joined = true;
	}
	pthread_mutex_lock(&fr->lock);
	res_free(fr->res);
	fr->res = NULL;
	pthread_mutex_unlock(&fr->lock);
}
