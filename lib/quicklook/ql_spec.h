/* SPDX-License-Identifier: BSD-3-Clause */
/* Power spectra (bandpasses) of one stream's channels: each channel's
 * samples cut into blocks of nfft, transformed by FFTW, |X|^2 averaged
 * (pure C, no DPDK; read by codifcheck spectrum and the capture's
 * /ibvcap/spectrum). */

#ifndef QL_SPEC_H
#define QL_SPEC_H

/*
 * What it owns
 * ------------
 * Samples as codif_signal.h defines them (layout, values in steps; floats
 * as they are, non-finite ones as 0), each channel's in time order, in
 * blocks of nfft (a power of two, QLS_NFFT_MIN..QLS_NFFT_MAX); a block
 * spans frames (the samples of a frame continue the last one's). One
 * complex FFTW plan (FFTW_ESTIMATE); real data has a zero imaginary part
 * and the upper half of the output is dropped. Axes: frequency from the
 * header's sample rate, fs = totalsamples / period samples per second per
 * channel: a real channel 0 .. fs/2 (nfft/2 + 1 bins), a complex one
 * -fs/2 .. +fs/2 about the channel's centre (nfft bins, the FFT's halves
 * swapped); power the mean |X|^2 / nfft in dB (steps^2 per bin: white
 * noise of RMS sigma per component reads 10 log10(sigma^2) real,
 * 10 log10(2 sigma^2) complex).
 *
 * FFTW's planner is not thread-safe: qls_init and qls_free belong to one
 * thread of the process (qls_add and the readers may run on any, one at a
 * time per accumulator).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codif.h"
#include "codif_signal.h"

#define QLS_NFFT_MIN 16u
#define QLS_NFFT_MAX 65536u
#define QLS_MAX_CHAN 64u  /**< channels of a stream, at most */

/** One stream's spectrum accumulator. */
struct qls_acc {
	struct codif_signal_enc e;
	unsigned int nfft, nchan, nbin;
	double fs_hz;          /**< samples per second per channel (0: unknown) */
	double *acc;           /**< nchan x nfft sums of |X|^2 */
	uint64_t blocks;       /**< FFTs per channel in the sums */
	void *buf;             /**< nchan x nfft complex: the blocks being filled */
	size_t fill;           /**< samples in buf per channel */
	void *in, *out;        /**< the plan's arrays */
	void *plan;            /**< fftw_plan */
};

/**
 * For frames with header h, nfft points per FFT. s is zeroed first.
 * @return 0, -EINVAL (nfft not a power of two in range), -ENOTSUP (an
 *   encoding codif_signal.h does not decode, more than QLS_MAX_CHAN
 *   channels: why in err) or -ENOMEM.
 */
int qls_init(struct qls_acc *s, const struct codif_hdr *h, unsigned int nfft, char *err,
	     size_t errlen);

/** Free what qls_init allocated (a zeroed s: nothing). */
void qls_free(struct qls_acc *s);

/** Add one frame's data (len bytes after the header: whole time samples). */
void qls_add(struct qls_acc *s, const uint8_t *data, size_t len);

/** Drop the sums and the partial blocks (a new interval). */
void qls_reset(struct qls_acc *s);

/** Frequency of output bin j (0 .. nbin-1), MHz from the channel's lower
 * edge (real) or centre (complex); 0 when fs is unknown. */
double qls_bin_mhz(const struct qls_acc *s, unsigned int j);

/** Power of channel ch's output bin j, dB (steps^2); -300 when zero, NAN
 * when no block yet. */
double qls_bin_db(const struct qls_acc *s, unsigned int ch, unsigned int j);

/** Channel ch's output bin of highest power. */
unsigned int qls_peak(const struct qls_acc *s, unsigned int ch);

/** A channel's bandwidth, MHz (real fs/2, complex fs). */
double qls_chan_mhz(const struct qls_acc *s);

#endif /* QL_SPEC_H */
