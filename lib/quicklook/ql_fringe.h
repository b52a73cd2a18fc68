/* SPDX-License-Identifier: BSD-3-Clause */
/* The fringe check: FFT cross-correlation, per channel, of frames of the
 * same time from two antennas, averaged; the lag of the peak and the
 * normalised coefficient. One implementation for codifcheck fringe and the
 * capture's /ibvcap/fringe. Pure C (FFTW), no DPDK. */

#ifndef QL_FRINGE_H
#define QL_FRINGE_H

/*
 * What it computes
 * ----------------
 * For each pair of frames of the same time (the caller pairs them: the
 * same frame index, qlf_frame_index, and the same thread), each channel's
 * n time samples of A (a) and of B (b), decoded with codif_signal.h
 * (steps; complex channels as I + jQ, real ones with Q = 0), minus the
 * frame's mean of that channel, zero-padded to nfft (a power of two >=
 * n + max_lag, so no lag up to max_lag wraps round), are transformed by
 * FFTW and conj(A) B is summed over the pairs. At the end the inverse
 * transform of the sum is r(l) = sum over pairs and t of conj(a(t)) b(t+l),
 * for |l| <= max_lag (and < n): B delayed by L samples behind A peaks at
 * l = +L. The coefficient at l is
 *     rho(l) = r(l) / (pairs * (n - |l|)) / sqrt(Pa * Pb)
 * with Pa, Pb the mean |a|^2, |b|^2 per sample (the overlap of a lag has
 * n - |l| terms per frame, so rho is unbiased at every lag). The peak is
 * the lag of the largest |rho|; real channels report rho there (signed),
 * complex channels |rho| and its phase. Frames are correlated within
 * themselves: samples across a frame boundary are not paired.
 * For uncorrelated antennas |rho| at a given lag has a standard deviation
 * of about 1 / sqrt(N), N = pairs * (n - |l|) (qlf_chan.sigma); the peak
 * over 2 max_lag + 1 lags is the largest of that many.
 *
 * Cost: per pair and channel two FFTs of nfft points and nfft complex
 * multiply-adds (plans made once, FFTW_ESTIMATE), plus the decoding of
 * both frames; the inverse transforms only at qlf_result.
 *
 * Threads: a struct qlf is used by one thread at a time; plans are made
 * and destroyed under a lock (FFTW's planner is not thread-safe).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codif.h"
#include "codif_signal.h"

/** Channels a fringe check correlates at most. */
#define QLF_MAX_CHAN 64
/** Default largest lag searched, samples. */
#define QLF_DEF_MAX_LAG 64
/** Largest lag searched at most, samples. */
#define QLF_MAX_LAG 4096

struct qlf_plan; /* FFTW's state (private) */

struct qlf {
	struct codif_signal_enc e;
	uint32_t nsamp;       /**< time samples per frame */
	uint32_t nfft;
	uint32_t max_lag;     /**< searched: min(asked, nsamp - 1) */
	uint64_t chan_mask;   /**< channels correlated */
	uint32_t frame_bytes; /**< data bytes per frame */
	double sample_ns;     /**< one time sample, ns (period / totalsamples) */
	uint64_t pairs;       /**< frame pairs added */
	double *xs;           /**< per channel, nfft complex: sum conj(A) B */
	double *pa, *pb;      /**< per channel: sum |a|^2, |b|^2 */
	struct qlf_plan *p;
};

/** One channel's result. */
struct qlf_chan {
	unsigned int chan;
	int lag;             /**< samples, B behind A */
	double lag_ns;
	double coef;         /**< real: rho at the peak (signed); complex: |rho| */
	double phase_deg;    /**< complex: arg rho at the peak; real: 0 or 180 */
	double sigma;        /**< 1 / sqrt(pairs * (nsamp - |lag|)): rho's noise */
	double zero_lag;     /**< |rho(0)| */
};

/**
 * Absolute frame index of a header, (seconds / period) * FPP + frame: equal
 * for frames of the same time on every antenna of a clock.
 */
int64_t qlf_frame_index(const struct codif_hdr *h);

/**
 * Set up a baseline for frames like ha (antenna A) and hb (antenna B):
 * they must agree on channels, encoding, sample rate and data length.
 * chan_mask: the channels correlated (bit c; 0 = all); max_lag: the
 * largest lag searched (0 = QLF_DEF_MAX_LAG).
 * @return 0, -EINVAL (they differ, or a channel in chan_mask beyond
 *   nchan: the reason naming both values in err), -ENOTSUP (encoding not
 *   decoded), -ENOMEM.
 */
int qlf_init(struct qlf *f, const struct codif_hdr *ha, const struct codif_hdr *hb,
	     uint64_t chan_mask, unsigned int max_lag, char *err, size_t errlen);

/** Add one pair of frames' data (frame_bytes each; the header excluded). */
void qlf_add(struct qlf *f, const uint8_t *da, const uint8_t *db);

/**
 * Channel ch's coefficient rho(l) for l = -max_lag .. max_lag (re[l +
 * max_lag], im[...]: 2 max_lag + 1 each; real channels: im ~ 0).
 * @return 0, or -EINVAL (no pair yet, ch not correlated).
 */
int qlf_curve(const struct qlf *f, unsigned int ch, double *re, double *im);

/**
 * The result of every correlated channel, in channel order.
 * @return channels written to out (QLF_MAX_CHAN room), 0 when no pair.
 */
unsigned int qlf_result(const struct qlf *f, struct qlf_chan *out);

void qlf_free(struct qlf *f);

#endif /* QL_FRINGE_H */
