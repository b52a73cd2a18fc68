/* SPDX-License-Identifier: BSD-3-Clause */
/* Triggered dumps as jobs: each trigger runs on a control thread of its own
 * (never an rx lcore, never the telemetry thread): /ibvcap/trigger answers
 * its id at once and /ibvcap/trigger/status,ID its state and result, so
 * that no telemetry connection is held while a trigger waits for its data.
 * The jobs' table, their replies and their log lines. */

#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_telemetry.h>

#include "config.h"
#include "rings.h"
#include "trigger.h"
#include "refusal.h"
#include "parse.h"
#include "tconv.h"

void
ibv_trig_init(struct ibv_trig *jobs, const struct ibv_trig_deps *deps)
{
	memset(jobs, 0, sizeof(*jobs));
	pthread_mutex_init(&jobs->lock, NULL);
	jobs->next_id = 1;
	jobs->deps = *deps;
}

/* ---- the reply and the log ----------------------------------------------- */

static void
add_span(struct rte_tel_data *d, const char *what, int64_t from, int64_t to, uint64_t frames)
{
	char k[64], t[48];

	if (to <= from)
		return;
	snprintf(k, sizeof(k), "%s_from", what);
	rte_tel_data_add_dict_string(d, k, codif_time_str(from, t, sizeof(t)));
	snprintf(k, sizeof(k), "%s_to", what);
	rte_tel_data_add_dict_string(d, k, codif_time_str(to, t, sizeof(t)));
	snprintf(k, sizeof(k), "%s_frames", what);
	rte_tel_data_add_dict_u64(d, k, frames);
}

/* What a job was asked: in every reply about it. */
static void
req_tel(const struct ibv_trig_job *j, struct rte_tel_data *d)
{
	const struct ibv_trig_req *r = &j->r;
	char t[48];

	rte_tel_data_add_dict_u64(d, "id", j->id);
	rte_tel_data_add_dict_string(d, "state", j->done ? "done" : "running");
	rte_tel_data_add_dict_string(d, "from", codif_time_str(r->t0, t, sizeof(t)));
	rte_tel_data_add_dict_string(d, "to", codif_time_str(r->t1, t, sizeof(t)));
	rte_tel_data_add_dict_string(d, "format", wr_format_name(r->o.format));
	rte_tel_data_add_dict_string(d, "dir", r->o.dir);
	rte_tel_data_add_dict_string(d, "prefix", r->o.prefix);
	rte_tel_data_add_dict_u64(d, "timeout_ms", r->timeout_ns / 1000000);
}

static void
result_tel(const struct acct_layout *l, const struct ibv_trig_result *res,
	   struct rte_tel_data *d)
{
	struct rte_tel_data *files;
	uint64_t frames = 0, ph = 0, over = 0, before = 0, future = 0, blocked = 0, bytes = 0,
		 nf = 0, nblocked = 0;
	unsigned int a, i;
	char t[48];

	rte_tel_data_add_dict_string(d, "result", ibv_trig_outcome_name(res->outcome));
	rte_tel_data_add_dict_string(d, "ended", ibv_trig_end_name(res->end));
	for (a = 0; a < l->nant; a++) {
		const struct ibv_trig_ant *ta = &res->ant[a];

		frames += ta->frames;
		ph += ta->placeholders;
		over += ta->over_frames;
		before += ta->before_frames;
		future += ta->future_frames;
		blocked += ta->blocked_frames;
		nblocked += ta->on && ta->blocked;
		bytes += ta->bytes;
		nf += ta->files;
	}
	rte_tel_data_add_dict_u64(d, "files_written", nf);
	rte_tel_data_add_dict_u64(d, "frames", frames);
	rte_tel_data_add_dict_u64(d, "placeholders", ph);
	rte_tel_data_add_dict_u64(d, "bytes", bytes);
	rte_tel_data_add_dict_u64(d, "overwritten_frames", over);
	rte_tel_data_add_dict_u64(d, "before_capture_frames", before);
	rte_tel_data_add_dict_u64(d, "not_arrived_frames", future);
	rte_tel_data_add_dict_u64(d, "blocked_frames", blocked);
	rte_tel_data_add_dict_u64(d, "antennas_blocked", nblocked);
	rte_tel_data_add_dict_u64(d, "lost_while_dumping", res->overrun);
	rte_tel_data_add_dict_u64(d, "wall_ms", (uint64_t)res->wall_ns / 1000000);
	files = rte_tel_data_alloc();
	if (files != NULL) {
		rte_tel_data_start_array(files, RTE_TEL_STRING_VAL);
		for (i = 0; i < res->nfiles; i++)
			rte_tel_data_add_array_string(files, res->file[i]);
		if (rte_tel_data_add_dict_container(d, "files", files, 0) != 0)
			rte_tel_data_free(files);
	}
	for (a = 0; a < l->nant; a++) {
		const struct ibv_trig_ant *ta = &res->ant[a];
		struct rte_tel_data *o;

		if (!ta->on || (o = rte_tel_data_alloc()) == NULL)
			continue;
		rte_tel_data_start_dict(o);
		rte_tel_data_add_dict_string(o, "complete", ta->complete ? "yes" : "no");
		rte_tel_data_add_dict_u64(o, "window_frames", ta->window_frames);
		rte_tel_data_add_dict_u64(o, "files", ta->files);
		rte_tel_data_add_dict_u64(o, "frames", ta->frames);
		rte_tel_data_add_dict_u64(o, "placeholders", ta->placeholders);
		rte_tel_data_add_dict_u64(o, "streams", ta->streams);
		if (ta->to_ns > ta->from_ns && ta->from_ns != INT64_MIN) {
			rte_tel_data_add_dict_string(o, "written_from",
						     codif_time_str(ta->from_ns, t, sizeof(t)));
			rte_tel_data_add_dict_string(o, "written_to",
						     codif_time_str(ta->to_ns, t, sizeof(t)));
		}
		if (ta->oldest_ns != INT64_MIN && ta->oldest_ns != 0)
			rte_tel_data_add_dict_string(o, "ring_oldest",
						     codif_time_str(ta->oldest_ns, t, sizeof(t)));
		add_span(o, "overwritten", ta->over_from, ta->over_to, ta->over_frames);
		add_span(o, "before_capture", ta->before_from, ta->before_to, ta->before_frames);
		add_span(o, "not_arrived", ta->future_from, ta->future_to, ta->future_frames);
		add_span(o, "no_data", ta->nodata_from, ta->nodata_to, 0);
		if (ta->blocked) {
			add_span(o, "blocked", ta->blocked_from, ta->blocked_to, ta->blocked_frames);
			rte_tel_data_add_dict_string(o, "blocked", ta->why);
		}
		rte_tel_data_add_dict_u64(o, "lost_while_dumping", ta->overrun);
		if (rte_tel_data_add_dict_container(d, l->ant_name[a], o, 0) != 0)
			rte_tel_data_free(o);
	}
}

static void
log_span(FILE *f, uint64_t id, const char *ant, const char *what, int64_t from, int64_t to,
	 uint64_t frames, const char *why)
{
	char t0[48], t1[48];

	if (to <= from)
		return;
	fprintf(f, "dpdk-ibvcap: trigger %" PRIu64 ": %s: %s [%s, %s): %" PRIu64 " frames%s%s\n",
		id, ant, what, codif_time_str(from, t0, sizeof(t0)),
		codif_time_str(to, t1, sizeof(t1)), frames, why ? ": " : "", why ? why : "");
}

/* The log's lines of a job's end, written at once (jobs end on their own
 * threads). */
static void
job_log(const struct acct_layout *l, const struct ibv_trig_job *j, FILE *out)
{
	const struct ibv_trig_req *r = &j->r;
	const struct ibv_trig_result *res = j->res;
	uint64_t frames = 0, ph = 0, nf = 0;
	unsigned int a;
	char t0[48], t1[48], *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (f == NULL)
		f = out;
	for (a = 0; a < l->nant; a++) {
		frames += res->ant[a].frames;
		ph += res->ant[a].placeholders;
		nf += res->ant[a].files;
	}
	fprintf(f, "dpdk-ibvcap: trigger %" PRIu64 " [%s, %s) %s to %s: %s (%s): %" PRIu64
		" files, %" PRIu64 " frames, %" PRIu64 " gap frames, %" PRIu64
		" lost while dumping, %.3f s\n", j->id,
		codif_time_str(r->t0, t0, sizeof(t0)), codif_time_str(r->t1, t1, sizeof(t1)),
		wr_format_name(r->o.format), r->o.dir, ibv_trig_outcome_name(res->outcome),
		ibv_trig_end_name(res->end), nf, frames, ph, res->overrun,
		(double)res->wall_ns / 1e9);
	for (a = 0; a < l->nant; a++) {
		const struct ibv_trig_ant *ta = &res->ant[a];
		const char *n = l->ant_name[a];

		if (!ta->on)
			continue;
		log_span(f, j->id, n, "already overwritten", ta->over_from, ta->over_to,
			 ta->over_frames, NULL);
		log_span(f, j->id, n, "before the capture's first frame", ta->before_from,
			 ta->before_to, ta->before_frames, NULL);
		log_span(f, j->id, n, "not arrived", ta->future_from, ta->future_to,
			 ta->future_frames, NULL);
		log_span(f, j->id, n, "no frame of this antenna yet", ta->nodata_from,
			 ta->nodata_to, 0, NULL);
		if (ta->blocked) {
			if (ta->blocked_to > ta->blocked_from)
				log_span(f, j->id, n, "blocked", ta->blocked_from, ta->blocked_to,
					 ta->blocked_frames, ta->why);
			else
				fprintf(f, "dpdk-ibvcap: trigger %" PRIu64 ": %s: blocked: %s\n",
					j->id, n, ta->why);
		}
	}
	if (f != out) {
		fclose(f);
		if (text != NULL)
			fputs(text, out);
		free(text);
	}
	fflush(out);
}

/* ---- the jobs ---------------------------------------------------------- */

static void *
job_main(void *arg)
{
	struct ibv_trig_job *j = arg;
	struct ibv_trig *jobs = j->owner;

	ibv_trig_run(&jobs->deps, &j->r, &jobs->closing, j->res);
	job_log(&jobs->deps.cfg->layout, j, stdout);
	pthread_mutex_lock(&jobs->lock);
	j->done = true;
	jobs->running--;
	pthread_mutex_unlock(&jobs->lock);
	return NULL;
}

/* A finished job's entry freed (jobs->lock held; its thread has returned or
 * is returning: joined). */
static void
job_free(struct ibv_trig_job *j)
{
	if (!j->joined)
		pthread_join(j->tid, NULL);
	free(j->res);
	memset(j, 0, sizeof(*j));
}

/* An entry for a new job: a free one, else the oldest finished one (read
 * ones first). jobs->lock held. */
static struct ibv_trig_job *
job_slot(struct ibv_trig *jobs)
{
	struct ibv_trig_job *best = NULL;
	unsigned int i;

	for (i = 0; i < IBV_TRIG_JOBS; i++)
		if (jobs->job[i].id == 0)
			return &jobs->job[i];
	for (i = 0; i < IBV_TRIG_JOBS; i++) {
		struct ibv_trig_job *j = &jobs->job[i];

		if (!j->done)
			continue;
		if (best == NULL || (j->read && !best->read) ||
		    (j->read == best->read && j->id < best->id))
			best = j;
	}
	if (best != NULL)
		job_free(best);
	return best;
}

int
ibv_trig_tel_start(struct ibv_trig *jobs, const char *params, struct rte_tel_data *d)
{
	struct err_refusal e;
	struct ibv_trig_req r;
	struct ibv_trig_job *j;
	char name[RTE_MAX_THREAD_NAME_LEN], t0[48], t1[48];
	uint64_t id;
	int rc;

	memset(&e, 0, sizeof(e));
	if (!jobs->deps.rings->on) {
		err_refuse(&e, "--no-buffers", "", "a capture with antenna buffers: this one keeps none");
		goto refused;
	}
	if (ibv_trig_parse(jobs->deps.cfg, params, &r, &e) != 0)
		goto refused;
	pthread_mutex_lock(&jobs->lock);
	if (jobs->closed || jobs->closing) {
		pthread_mutex_unlock(&jobs->lock);
		err_refuse(&e, "trigger", "", "a capture that is not stopping");
		goto refused;
	}
	if (jobs->running >= IBV_TRIG_RUNNING) {
		pthread_mutex_unlock(&jobs->lock);
		err_refuse(&e, "trigger", "", "at most %u triggers running at once (%u are: "
		       "/ibvcap/trigger/status lists them)", IBV_TRIG_RUNNING, IBV_TRIG_RUNNING);
		goto refused;
	}
	j = job_slot(jobs); /* never NULL: running < IBV_TRIG_RUNNING < IBV_TRIG_JOBS */
	j->res = calloc(1, sizeof(*j->res));
	if (j->res == NULL) {
		pthread_mutex_unlock(&jobs->lock);
		err_refuse(&e, "trigger", "", "memory for its result");
		goto refused;
	}
	j->id = id = jobs->next_id++;
	j->owner = jobs;
	j->r = r;
	j->start_ns = mono_ns();
	snprintf(name, sizeof(name), "ibv-trig-%" PRIu64, id % 100000);
	rc = rte_ctrl_thread_create(&j->tid, name, NULL, job_main, j);
	if (rc != 0) {
		free(j->res);
		memset(j, 0, sizeof(*j));
		pthread_mutex_unlock(&jobs->lock);
		err_refuse(&e, "trigger", "", "a thread for it (%s)", strerror(rc < 0 ? -rc : rc));
		goto refused;
	}
	jobs->running++;
	rte_tel_data_start_dict(d);
	req_tel(j, d);
	pthread_mutex_unlock(&jobs->lock);
	printf("dpdk-ibvcap: trigger %" PRIu64 " started: [%s, %s) %s to %s\n", id,
	       codif_time_str(r.t0, t0, sizeof(t0)), codif_time_str(r.t1, t1, sizeof(t1)),
	       wr_format_name(r.o.format), r.o.dir);
	fflush(stdout);
	return 0;
refused:
	ibv_refusal_log(stdout, "trigger", params, &e);
	rte_tel_data_start_dict(d);
	ibv_refusal_tel(d, "trigger", &e);
	return 0;
}

int
ibv_trig_tel_status(struct ibv_trig *jobs, const char *params, struct rte_tel_data *d)
{
	struct err_refusal e;
	unsigned int i, running = 0, kept = 0;
	uint64_t id, lo = UINT64_MAX, hi = 0;

	memset(&e, 0, sizeof(e));
	pthread_mutex_lock(&jobs->lock);
	for (i = 0; i < IBV_TRIG_JOBS; i++)
		if (jobs->job[i].id != 0) {
			kept++;
			running += !jobs->job[i].done;
			lo = jobs->job[i].id < lo ? jobs->job[i].id : lo;
			hi = jobs->job[i].id > hi ? jobs->job[i].id : hi;
		}
	if (params == NULL || *params == '\0') {
		/* every job kept: id -> state (result once done) */
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_u64(d, "running", running);
		rte_tel_data_add_dict_u64(d, "kept", kept);
		rte_tel_data_add_dict_u64(d, "max_running", IBV_TRIG_RUNNING);
		rte_tel_data_add_dict_u64(d, "max_kept", IBV_TRIG_JOBS);
		/* in the order of their ids (those kept need not be consecutive) */
		for (id = 0;;) {
			const struct ibv_trig_job *next = NULL;
			char k[24];

			for (i = 0; i < IBV_TRIG_JOBS; i++)
				if (jobs->job[i].id > id && (next == NULL || jobs->job[i].id < next->id))
					next = &jobs->job[i];
			if (next == NULL)
				break;
			id = next->id;
			snprintf(k, sizeof(k), "%" PRIu64, id);
			rte_tel_data_add_dict_string(d, k, !next->done ? "running" :
						     ibv_trig_outcome_name(next->res->outcome));
		}
		pthread_mutex_unlock(&jobs->lock);
		return 0;
	}
	if (parse_u64("id", params, 1, UINT64_MAX, &id, NULL, 0) != 0) {
		pthread_mutex_unlock(&jobs->lock);
		err_refuse(&e, "id", params, "a trigger's id (a number that /ibvcap/trigger answered)");
		rte_tel_data_start_dict(d);
		ibv_refusal_tel(d, "trigger/status", &e);
		return 0;
	}
	for (i = 0; i < IBV_TRIG_JOBS; i++)
		if (jobs->job[i].id == id)
			break;
	if (i == IBV_TRIG_JOBS) {
		pthread_mutex_unlock(&jobs->lock);
		if (kept == 0)
			err_refuse(&e, "id", params, "a trigger's id: none is kept (%" PRIu64
			       " started so far)", jobs->next_id - 1);
		else if (hi - lo + 1 == kept)
			err_refuse(&e, "id", params, "a trigger's id: ids %" PRIu64 " .. %" PRIu64
			       " are kept (the last %u; older finished ones aged out)", lo, hi,
			       IBV_TRIG_JOBS);
		else
			err_refuse(&e, "id", params, "a trigger's id: %u between %" PRIu64 " and %"
			       PRIu64 " are kept (/ibvcap/trigger/status lists them; older "
			       "finished ones aged out)", kept, lo, hi);
		rte_tel_data_start_dict(d);
		ibv_refusal_tel(d, "trigger/status", &e);
		return 0;
	}
	{
		struct ibv_trig_job *j = &jobs->job[i];

		rte_tel_data_start_dict(d);
		req_tel(j, d);
		j->polled_ns = mono_ns();
		if (j->done) {
			result_tel(&jobs->deps.cfg->layout, j->res, d);
			j->read = true;
		} else {
			rte_tel_data_add_dict_u64(d, "elapsed_ms",
						  (uint64_t)(mono_ns() - j->start_ns) / 1000000);
		}
	}
	pthread_mutex_unlock(&jobs->lock);
	return 0;
}

#define JOBS_GRACE_NS (2LL * 1000000000LL)

void
ibv_trig_jobs_end(struct ibv_trig *jobs)
{
	int64_t t0 = mono_ns();
	unsigned int i;
	bool wait;

	pthread_mutex_lock(&jobs->lock);
	if (jobs->closed) {
		pthread_mutex_unlock(&jobs->lock);
		return;
	}
	jobs->closed = true; /* no new job */
	/* the stop made every row final: running jobs write them and end
	 * (capture stopped), up to the grace; then the rest are cancelled */
	while (jobs->running > 0 && mono_ns() - t0 < JOBS_GRACE_NS) {
		pthread_mutex_unlock(&jobs->lock);
		rte_delay_us_sleep(10000);
		pthread_mutex_lock(&jobs->lock);
	}
	__atomic_store_n(&jobs->closing, true, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&jobs->lock);
	for (i = 0; i < IBV_TRIG_JOBS; i++)
		if (jobs->job[i].id != 0 && !jobs->job[i].joined) {
			pthread_join(jobs->job[i].tid, NULL);
			jobs->job[i].joined = true;
		}
	/* results a client was polling for (read within the grace) and has
	 * not read yet: read before telemetry closes, up to the grace */
	t0 = mono_ns();
	do {
		int64_t now = mono_ns();

		wait = false;
		pthread_mutex_lock(&jobs->lock);
		for (i = 0; i < IBV_TRIG_JOBS; i++) {
			const struct ibv_trig_job *j = &jobs->job[i];

			if (j->id != 0 && j->done && !j->read && j->polled_ns != 0 &&
			    now - j->polled_ns < JOBS_GRACE_NS)
				wait = true;
		}
		pthread_mutex_unlock(&jobs->lock);
		if (wait)
			rte_delay_us_sleep(10000);
	} while (wait && mono_ns() - t0 < JOBS_GRACE_NS);
	pthread_mutex_lock(&jobs->lock);
	for (i = 0; i < IBV_TRIG_JOBS; i++)
		if (jobs->job[i].id != 0)
			job_free(&jobs->job[i]);
	pthread_mutex_unlock(&jobs->lock);
}
