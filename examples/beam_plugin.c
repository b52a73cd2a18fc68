/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * beam_plugin.so: examples/beam.c's incoherent beam as an in-process
 * consumer (include/ibvcap_plugin.h), loaded by the capture itself:
 *
 *   dpdk-ibvcap -l 0-2 ... -- ... --consumer beam_plugin.so,out=FILE[,frames=T,antennas=MASK]
 *
 * (it runs on an EAL worker lcore of its own: here lcore 2, the last free)
 *
 * For every aligned block it sums, per beam stream (a CODIF thread id),
 * channel and frame, the antennas' powers (I^2 + Q^2, x^2 when real, over
 * the frame's time samples) of the frames that arrived without their
 * CODIF invalid bit, and writes the same records as ibvcap-beam:
 *   int64 frame index, int64 its UTC start (Unix ns),
 *   uint16 threadid, nchan, antennas, 0, then float32 power[nchan]
 * little-endian. Host memory only (it decodes with args->decode, which
 * refuses device pointers).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibvcap_plugin.h>

#define NBEAM 64

/* A beam stream's sums over one block. */
struct bsum {
	uint16_t thread, nchan;
	float *pw;          /* frames x nchan */
	uint16_t *n;        /* antennas summed, per frame */
};

struct bstate {
	const struct ibvcap_plugin_args *a;
	FILE *out;
	struct bsum sum[NBEAM];
	unsigned int nsum;
	float *vals;        /* a frame's decoded values */
	size_t nvals;
	float *frame_pw;    /* per view: frames x nchan powers, before the check */
	size_t npw;
};

const uint32_t ibvcap_plugin_abi = IBVCAP_PLUGIN_ABI;

int
ibvcap_plugin_init(const struct ibvcap_plugin_args *a, void **state)
{
	struct bstate *st;
	const char *path = NULL;
	size_t most = 0;
	unsigned int i;

	for (i = 0; i < a->nkv; i++) {
		if (strcmp(a->kv[i].key, "out") != 0) {
			snprintf(a->err, a->errlen, "key '%s': expected out=FILE", a->kv[i].key);
			return -EINVAL;
		}
		path = a->kv[i].value;
	}
	if (path == NULL) {
		snprintf(a->err, a->errlen, "out=FILE: where the beam goes, missing");
		return -EINVAL;
	}
	if (a->gpu) {
		snprintf(a->err, a->errlen, "the payload is in GPU memory: this example reads "
			 "host memory only");
		return -ENOTSUP;
	}
	for (i = 0; i < a->nant; i++)
		if ((size_t)a->ant[i].slot_bytes * 8 > most)
			most = (size_t)a->ant[i].slot_bytes * 8; /* 1-bit values at most */
	st = calloc(1, sizeof(*st));
	if (st == NULL)
		return -ENOMEM;
	st->a = a;
	st->nvals = most;
	st->vals = malloc(most * sizeof(float));
	st->out = fopen(path, "wb");
	if (st->vals == NULL || st->out == NULL) {
		snprintf(a->err, a->errlen, "out=%s: %s", path, strerror(errno));
		free(st->vals);
		free(st);
		return -EIO;
	}
	*state = st;
	return 0;
}

/* The sums of thread t (nchan channels), made on first use; NULL: too
 * many threads, or one with another channel count. */
static struct bsum *
sum_of(struct bstate *st, uint16_t t, uint16_t nchan, uint32_t frames)
{
	struct bsum *b;
	unsigned int j;

	for (j = 0; j < st->nsum; j++)
		if (st->sum[j].thread == t)
			return st->sum[j].nchan == nchan ? &st->sum[j] : NULL;
	if (st->nsum == NBEAM)
		return NULL;
	b = &st->sum[st->nsum];
	b->pw = calloc((size_t)frames * nchan, sizeof(float));
	b->n = calloc(frames, sizeof(uint16_t));
	if (b->pw == NULL || b->n == NULL)
		return NULL;
	b->thread = t;
	b->nchan = nchan;
	st->nsum++;
	return b;
}

static int
bit(const uint64_t *m, uint32_t i)
{
	return (int)(m[i / 64] >> (i % 64) & 1);
}

/* Frame i of view (k, s) as powers per channel into pw. @return 0, <0. */
static int
powers(struct bstate *st, const struct ibvcap_block *blk, uint32_t k, uint32_t s, uint32_t i,
       float *pw)
{
	const struct ibvcap_view *v = &blk->view[k][s];
	int n = st->a->decode(st->a->host, blk, k, s, i, st->vals, st->nvals), j;
	uint32_t per = v->complex ? 2u : 1u;

	if (n < 0)
		return n;
	memset(pw, 0, v->nchan * sizeof(float));
	for (j = 0; j < n; j++)
		pw[(uint32_t)j / per % v->nchan] += st->vals[j] * st->vals[j];
	return 0;
}

/* Powers of every usable frame of the block, read from the ring before the
 * check (frame_pw, view after view). @return 0, <0. */
static int
block_powers(struct bstate *st, const struct ibvcap_block *blk)
{
	size_t need = 0, at = 0;
	uint32_t k, s, i;
	int rc;

	for (k = 0; k < blk->nants; k++)
		for (s = 0; s < blk->nstreams[k]; s++)
			need += (size_t)blk->frames * blk->view[k][s].nchan;
	if (need > st->npw) {
		free(st->frame_pw);
		st->frame_pw = malloc(need * sizeof(float));
		st->npw = st->frame_pw != NULL ? need : 0;
		if (st->frame_pw == NULL)
			return -ENOMEM;
	}
	for (k = 0; k < blk->nants; k++)
		for (s = 0; s < blk->nstreams[k]; s++) {
			const struct ibvcap_view *v = &blk->view[k][s];

			for (i = 0; i < blk->frames; i++) {
				if (!bit(v->valid, i) || bit(v->flagged, i))
					continue;
				rc = powers(st, blk, k, s, i, st->frame_pw + at + (size_t)i * v->nchan);
				if (rc != 0)
					return rc;
			}
			at += (size_t)blk->frames * v->nchan;
		}
	return 0;
}

/* The powers of the frames still valid after the check into the sums. */
static int
block_sum(struct bstate *st, const struct ibvcap_block *blk)
{
	size_t at = 0;
	uint32_t k, s, i, ch;

	for (k = 0; k < blk->nants; k++)
		for (s = 0; s < blk->nstreams[k]; s++) {
			const struct ibvcap_view *v = &blk->view[k][s];
			struct ibvcap_stream si;
			struct bsum *b = NULL;

			for (i = 0; i < blk->frames; i++) {
				const float *pw = st->frame_pw + at + (size_t)i * v->nchan;

				if (!bit(v->valid, i) || bit(v->flagged, i))
					continue;
				if (b == NULL) {
					if (st->a->stream_info(st->a->host, blk->ant[k], s, &si) != 0)
						return -EINVAL;
					b = sum_of(st, si.threadid, v->nchan, blk->frames);
					if (b == NULL)
						return -ENOSPC;
				}
				for (ch = 0; ch < v->nchan; ch++)
					b->pw[(size_t)i * v->nchan + ch] += pw[ch];
				b->n[i]++;
			}
			at += (size_t)blk->frames * v->nchan;
		}
	return 0;
}

/* The block's records, frame by frame, then the sums zeroed. */
static int
block_write(struct bstate *st, const struct ibvcap_block *blk)
{
	uint32_t i;
	unsigned int j;

	for (i = 0; i < blk->frames; i++) {
		int64_t rec[2] = { blk->index + i, st->a->frame_time_ns(st->a->host, blk, i) };

		for (j = 0; j < st->nsum; j++) {
			struct bsum *b = &st->sum[j];
			uint16_t h[4] = { b->thread, b->nchan, b->n[i], 0 };

			if (b->n[i] != 0 &&
			    (fwrite(rec, sizeof(rec), 1, st->out) != 1 ||
			     fwrite(h, sizeof(h), 1, st->out) != 1 ||
			     fwrite(b->pw + (size_t)i * b->nchan, sizeof(float), b->nchan,
				    st->out) != b->nchan))
				return -EIO;
		}
	}
	for (j = 0; j < st->nsum; j++) {
		memset(st->sum[j].pw, 0, (size_t)blk->frames * st->sum[j].nchan * sizeof(float));
		memset(st->sum[j].n, 0, blk->frames * sizeof(uint16_t));
	}
	return 0;
}

int
ibvcap_plugin_block(void *state, const struct ibvcap_block *blk)
{
	struct bstate *st = state;
	int rc = block_powers(st, blk);

	if (rc != 0)
		return rc;
	st->a->check(st->a->host, blk); /* frames overwritten meanwhile lose their bit */
	rc = block_sum(st, blk);
	return rc != 0 ? rc : block_write(st, blk);
}

void
ibvcap_plugin_fini(void *state)
{
	struct bstate *st = state;
	unsigned int j;

	fclose(st->out);
	for (j = 0; j < st->nsum; j++) {
		free(st->sum[j].pw);
		free(st->sum[j].n);
	}
	free(st->frame_pw);
	free(st->vals);
	free(st);
}
