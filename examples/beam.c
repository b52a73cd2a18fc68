/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ibvcap-beam: an incoherent beam from a running dpdk-ibvcap, a complete
 * consumer of libibvcap (docs/consumer.md walks through it).
 *
 * For every aligned block of the chosen antennas it decodes each valid
 * frame (ibvcap_decode: the samples as float32) and sums the antennas'
 * powers per stream, channel and frame: P[c] = sum over antennas of the
 * sum over the frame's time samples of I^2 + Q^2 (x^2 when real). Frames
 * that did not arrive, or arrived with their CODIF invalid bit, add
 * nothing; each output record says how many antennas it sums. Streams of
 * different antennas are the same beam stream when they have the same
 * CODIF thread id (a thread carries a band of
 * channels; the group id tells antennas apart in ASKAP-like layouts).
 *
 * Output FILE: one record per (frame, stream) with at least one antenna:
 *   int64 frame index, int64 its UTC start (Unix ns),
 *   uint16 threadid, nchan, antennas, 0, then float32 power[nchan]
 * all little-endian, until the capture stops.
 *
 *   ibvcap-beam -i PREFIX -n NAME -a ANTMASK -T FRAMES -o FILE [--oldest]
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ibvcap.h>

#define MAX_BEAMS 64

/* One beam stream: its thread id and, for the block, its sums per frame. */
struct beam {
	uint16_t threadid, nchan;
	float *power;        /* frames x nchan */
	uint16_t *nants;     /* frames */
};

struct beams {
	struct beam b[MAX_BEAMS];
	unsigned int n;
	uint32_t frames;
	float *samples;      /* one frame's decoded values */
	size_t nsamples;
	float *scratch;      /* each view's frames' powers, before the check */
	size_t scap;
};

/* The beam stream of thread t with nchan channels; NULL when there are
 * too many, or the channels disagree. */
static struct beam *
beam_of(struct beams *bs, uint16_t t, uint16_t nchan)
{
	struct beam *b;
	unsigned int i;

	for (i = 0; i < bs->n; i++)
		if (bs->b[i].threadid == t)
			return bs->b[i].nchan == nchan ? &bs->b[i] : NULL;
	if (bs->n == MAX_BEAMS)
		return NULL;
	b = &bs->b[bs->n];
	b->power = calloc((size_t)bs->frames * nchan, sizeof(float));
	b->nants = calloc(bs->frames, sizeof(uint16_t));
	if (b->power == NULL || b->nants == NULL)
		return NULL;
	b->threadid = t;
	b->nchan = nchan;
	bs->n++;
	return b;
}

/* Frame i of view (k, s): its power per channel into pw. */
static int
frame_power(struct ibvcap *c, const struct ibvcap_block *blk, uint32_t k, uint32_t s, uint32_t i,
	    struct beams *bs, float *pw)
{
	const struct ibvcap_view *v = &blk->view[k][s];
	uint32_t ncomp = v->complex ? 2 : 1, t, ch, p;
	int n;

	n = ibvcap_decode(c, blk, k, s, i, bs->samples, bs->nsamples);
	if (n < 0)
		return n;
	memset(pw, 0, v->nchan * sizeof(float));
	for (t = 0; t < v->samples; t++)
		for (ch = 0; ch < v->nchan; ch++)
			for (p = 0; p < ncomp; p++) {
				float x = bs->samples[((size_t)t * v->nchan + ch) * ncomp + p];

				pw[ch] += x * x;
			}
	return 0;
}

/* Whether frame i of view v is to be summed: it arrived, and without its
 * CODIF invalid bit. */
static int
usable(const struct ibvcap_view *v, uint32_t i)
{
	return (v->valid[i / 64] >> (i % 64) & 1) && !(v->flagged[i / 64] >> (i % 64) & 1);
}

/* Scratch room for every view's frames' powers. @return 0, -ENOMEM. */
static int
scratch_fit(const struct ibvcap_block *blk, struct beams *bs)
{
	size_t need = 0;
	uint32_t k, s;

	for (k = 0; k < blk->nants; k++)
		for (s = 0; s < blk->nstreams[k]; s++)
			need += (size_t)blk->frames * blk->view[k][s].nchan;
	if (need <= bs->scap)
		return 0;
	free(bs->scratch);
	bs->scratch = malloc(need * sizeof(float));
	bs->scap = bs->scratch != NULL ? need : 0;
	return bs->scratch != NULL ? 0 : -ENOMEM;
}

/*
 * Block blk into the beams: each usable frame's power is computed from
 * the ring first (zero copy), then the block is checked (ibvcap_check: the
 * frames the ring overwrote meanwhile lose their valid bit), and only the
 * frames still valid are summed. @return 0, or a negative errno.
 */
static int
beam_block(struct ibvcap *c, const struct ibvcap_block *blk, struct beams *bs)
{
	uint32_t k, s, i;
	size_t off = 0;
	int rc = scratch_fit(blk, bs);

	for (k = 0; rc == 0 && k < blk->nants; k++)
		for (s = 0; rc == 0 && s < blk->nstreams[k]; s++) {
			const struct ibvcap_view *v = &blk->view[k][s];

			for (i = 0; rc == 0 && i < blk->frames; i++)
				if (usable(v, i))
					rc = frame_power(c, blk, k, s, i, bs,
							 bs->scratch + off + (size_t)i * v->nchan);
			off += (size_t)blk->frames * v->nchan;
		}
	if (rc != 0)
		return rc;
	ibvcap_check(c, blk);
	off = 0;
	for (k = 0; k < blk->nants; k++)
		for (s = 0; s < blk->nstreams[k]; s++) {
			const struct ibvcap_view *v = &blk->view[k][s];
			struct ibvcap_stream si;
			struct beam *b = NULL;
			uint32_t ch;

			for (i = 0; i < blk->frames; i++) {
				const float *pw = bs->scratch + off + (size_t)i * v->nchan;

				if (!usable(v, i))
					continue;
				if (b == NULL && (ibvcap_stream_info(c, blk->ant[k], s, &si) != 0 ||
						  (b = beam_of(bs, si.threadid, v->nchan)) == NULL))
					return -ENOSPC;
				for (ch = 0; ch < v->nchan; ch++)
					b->power[(size_t)i * b->nchan + ch] += pw[ch];
				b->nants[i]++;
			}
			off += (size_t)blk->frames * v->nchan;
		}
	return 0;
}

/* The block's records, then the sums cleared. @return 0, -EIO. */
static int
beam_write(struct ibvcap *c, const struct ibvcap_block *blk, struct beams *bs, FILE *f)
{
	unsigned int j;
	uint32_t i;

	for (i = 0; i < blk->frames; i++)
		for (j = 0; j < bs->n; j++) {
			struct beam *b = &bs->b[j];
			int64_t idx = blk->index + i, ns = ibvcap_frame_time_ns(c, blk, i);
			uint16_t hd[4] = { b->threadid, b->nchan, b->nants[i], 0 };

			if (b->nants[i] == 0)
				continue;
			if (fwrite(&idx, 8, 1, f) != 1 || fwrite(&ns, 8, 1, f) != 1 ||
			    fwrite(hd, 2, 4, f) != 4 ||
			    fwrite(b->power + (size_t)i * b->nchan, 4, b->nchan, f) != b->nchan)
				return -EIO;
		}
	for (j = 0; j < bs->n; j++) {
		memset(bs->b[j].power, 0, (size_t)bs->frames * bs->b[j].nchan * sizeof(float));
		memset(bs->b[j].nants, 0, bs->frames * sizeof(uint16_t));
	}
	return 0;
}

/* The largest frame of the capture's antennas, in decoded values (8 per
 * byte at most: 1-bit components). */
static size_t
most_values(const struct ibvcap *c)
{
	struct ibvcap_antenna a;
	size_t most = 0;
	unsigned int i;

	for (i = 0; i < ibvcap_antennas(c); i++)
		if (ibvcap_antenna_info(c, i, &a) == 0 && (size_t)a.slot_bytes * 8 > most)
			most = (size_t)a.slot_bytes * 8;
	return most;
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = { { "oldest", no_argument, NULL, 'O' }, { 0 } };
	const char *inst = NULL, *name = NULL, *out = NULL;
	unsigned long long ants = 0;
	unsigned int flags = 0;
	struct beams bs = { .n = 0 };
	const struct ibvcap_block *blk;
	struct ibvcap_stats st;
	struct ibvcap *c;
	char err[512];
	FILE *f;
	int opt, rc;

	while ((opt = getopt_long(argc, argv, "i:n:a:T:o:", lo, NULL)) != -1) {
		switch (opt) {
		case 'i': inst = optarg; break;
		case 'n': name = optarg; break;
		case 'a': ants = strtoull(optarg, NULL, 0); break;
		case 'T': bs.frames = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'o': out = optarg; break;
		case 'O': flags |= IBVCAP_OPEN_OLDEST; break;
		default: return 2;
		}
	}
	if (inst == NULL || name == NULL || out == NULL || ants == 0 || bs.frames == 0) {
		fprintf(stderr, "usage: ibvcap-beam -i PREFIX -n NAME -a ANTMASK -T FRAMES -o FILE "
			"[--oldest]\n");
		return 2;
	}
	c = ibvcap_open(inst, name, flags, err, sizeof(err));
	if (c == NULL) {
		fprintf(stderr, "ibvcap-beam: %s\n", err);
		return 1;
	}
	if (ibvcap_select(c, ants, bs.frames, err, sizeof(err)) != 0 ||
	    (f = fopen(out, "wb")) == NULL) {
		fprintf(stderr, "ibvcap-beam: %s\n", err);
		ibvcap_close(c);
		return 1;
	}
	bs.nsamples = most_values(c);
	bs.samples = malloc(bs.nsamples * sizeof(float));
	fprintf(stderr, "ibvcap-beam %s: attached to '%s', writing %s\n", name, inst, out);
	while (bs.samples != NULL) {
		rc = ibvcap_acquire(c, &blk, 1000);
		if (rc == -EAGAIN)
			continue;
		if (rc != 0)
			break;
		rc = beam_block(c, blk, &bs);
		if (rc == 0)
			rc = beam_write(c, blk, &bs, f);
		ibvcap_release(c, blk);
		if (rc != 0) {
			fprintf(stderr, "ibvcap-beam: %s\n", strerror(-rc));
			break;
		}
	}
	fclose(f);
	ibvcap_get_stats(c, &st);
	fprintf(stderr, "ibvcap-beam %s: %s: %" PRIu64 " blocks, %" PRIu64 " frames, %" PRIu64
		" overrun\n", name, rc == -ENODATA ? "the capture stopped" : strerror(-rc),
		st.blocks, st.frames, st.overrun);
	ibvcap_close(c);
	return rc == -ENODATA ? 0 : 1;
}
