/* SPDX-License-Identifier: BSD-3-Clause */
/* Benchmark (not a test): the copy baselines the capture's path is read
 * against, at one payload size: frames/s and TSC cycles per frame of one
 * core copying payloads from a pool of received buffers (mbuf-like, 10 KiB
 * apart, far larger than the last-level cache) into successive slots of a
 * ring (also larger than the cache), as placement does: glibc memcpy, and
 * the non-temporal copy lib/antbuf uses (the producer's copy function:
 * AVX2 streaming stores where the CPU has them, else memcpy).
 *
 *   copy_bench SIZE [SECONDS]
 *
 * One line per copy: "copy SIZE NAME FRAMES SECONDS CYCLES_PER_FRAME FPS".
 * After each copy every slot of the ring's last pass is compared with the
 * buffer it was copied from; a difference fails the bench (exit 1). */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "antbuf.h"
#include "tconv.h"

#define POOL 16384		/* buffers, as a 16 K mbuf pool */
#define POOL_STRIDE 10240	/* bytes between buffers (mbuf data room) */
#define RING_BYTES (512u << 20) /* the ring: 512 MiB */

typedef void (*copy_fn)(uint8_t *dst, const uint8_t *src, size_t n);

static void
copy_memcpy(uint8_t *dst, const uint8_t *src, size_t n)
{
	memcpy(dst, src, n);
}

/* the slot that buffer k of pass p went to, and back: the check */
static int
run(const char *name, copy_fn copy, const uint8_t *pool, uint8_t *ring, size_t size,
    double secs)
{
	size_t nslot = RING_BYTES / size, slot = 0, k = 0, i;
	uint64_t frames = 0, c0, c1;
	double t0, t;

	/* warm the ring's pages: first-touch faults are not the copy's cost */
	memset(ring, 0, RING_BYTES);
	t0 = mono_s();
	c0 = tsc_cycles();
	do {
		/* 1024 frames between clock reads */
		for (i = 0; i < 1024; i++) {
			copy(ring + slot * size, pool + k * POOL_STRIDE, size);
			if (++slot == nslot)
				slot = 0;
			if (++k == POOL)
				k = 0;
		}
		frames += 1024;
		t = mono_s() - t0;
	} while (t < secs);
	c1 = tsc_cycles();
	__builtin_ia32_sfence();
	/* every slot holds the buffer last copied into it: frame f went to
	 * slot f mod nslot from buffer f mod POOL */
	for (i = 0; i < nslot && i < frames; i++) {
		uint64_t f = frames - 1 - i; /* the newest frames, backwards */
		size_t s = (size_t)(f % nslot), b = (size_t)(f % POOL);

		if (memcmp(ring + s * size, pool + b * POOL_STRIDE, size) != 0) {
			fprintf(stderr, "copy_bench: %s: slot %zu differs from buffer %zu "
				"(frame %" PRIu64 ")\n", name, s, b, f);
			return 1;
		}
	}
	printf("copy %zu %s %" PRIu64 " %.3f %.1f %.0f\n", size, name, frames, t,
	       TCONV_HAVE_TSC ? (double)(c1 - c0) / (double)frames : 0.0,
	       (double)frames / t);
	return 0;
}

int
main(int argc, char **argv)
{
	size_t size = argc > 1 ? strtoul(argv[1], NULL, 0) : 8192;
	double secs = argc > 2 ? atof(argv[2]) : 2.0;
	struct antbuf_prod prod;
	uint8_t *pool, *ring;
	size_t i;
	int rc = 0;

	if (size < 64 || size > POOL_STRIDE || secs <= 0) {
		fprintf(stderr, "copy_bench: SIZE '%s': expected 64..%d bytes; SECONDS > 0\n",
			argc > 1 ? argv[1] : "", POOL_STRIDE);
		return 2;
	}
	pool = aligned_alloc(4096, (size_t)POOL * POOL_STRIDE);
	ring = aligned_alloc(4096, RING_BYTES);
	if (pool == NULL || ring == NULL) {
		fprintf(stderr, "copy_bench: out of memory\n");
		return 2;
	}
	/* distinct bytes per buffer, so a slot from the wrong buffer shows */
	for (i = 0; i < (size_t)POOL * POOL_STRIDE / 8; i++)
		((uint64_t *)pool)[i] = i * 0x9e3779b97f4a7c15ull;
	/* the producer's own copy: the function placement calls */
	antbuf_prod_init(&prod, NULL, NULL, false);
	rc |= run("memcpy", copy_memcpy, pool, ring, size, secs);
	rc |= run("antbuf-copy", prod.copy, pool, ring, size, secs);
	free(ring);
	free(pool);
	return rc;
}
