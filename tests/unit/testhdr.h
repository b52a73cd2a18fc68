/* SPDX-License-Identifier: BSD-3-Clause */
/* The CODIF header of frame n of a small test stream (100 frames per 1 s
 * period from 2025-01-01 + 1000 s, 8-bit real, one channel). */

#ifndef TESTS_TESTHDR_H
#define TESTS_TESTHDR_H

#include <stdbool.h>
#include <string.h>

#include "codif.h"

static inline struct codif_hdr
test_hdr(int64_t n, uint16_t thread, uint32_t data_bytes)
{
	struct codif_hdr h;

	memset(&h, 0, sizeof(h));
	h.epoch = 50;
	h.nbits = 8;
	h.nchan = 1;
	h.period = 1;
	h.framelength8 = data_bytes / 8;
	h.totalsamples = 100ULL * data_bytes; /* FPP 100 */
	h.protocol = 7;
	h.version = 3;
	h.sync = CODIF_SYNC;
	h.threadid = thread;
	h.groupid = 257;
	h.seconds = (uint32_t)(1000 + n / 100);
	h.frame = (uint32_t)(n % 100);
	return h;
}

/* The header of a signal test's frames (lib/codif's codif_signal, lib/quicklook):
 * nbits x nchan, real or complex, representation repr, data_bytes of data,
 * 100 frames per 1 s period, 2025-01-01 + 1000 s. */
static inline struct codif_hdr
test_signal_hdr(unsigned int nbits, unsigned int nchan, bool cplx, unsigned int repr,
		uint32_t data_bytes)
{
	struct codif_hdr h;

	memset(&h, 0, sizeof(h));
	h.epoch = 50;
	h.nbits = (uint8_t)nbits;
	h.nchan = (uint16_t)nchan;
	h.complex = cplx;
	h.representation = (uint8_t)repr;
	h.period = 1;
	h.framelength8 = data_bytes / 8;
	h.totalsamples = 100ULL * (data_bytes * 8ULL / nbits / nchan / (cplx ? 2 : 1));
	h.protocol = 7;
	h.version = 3;
	h.sync = CODIF_SYNC;
	h.groupid = 257;
	h.seconds = 1000;
	return h;
}

#endif
