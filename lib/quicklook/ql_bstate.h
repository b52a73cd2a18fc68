/* SPDX-License-Identifier: BSD-3-Clause */
/* Sampler statistics: the occupancy of each sampler state (1, 2 and 4-bit
 * encodings: each code; 8 bits and more: a histogram of QLB_BINS fixed
 * bins) per stream and channel group, its Gaussian expectation and a
 * verdict (pure C; the offline reader is codifcheck bstate). */

#ifndef QL_BSTATE_H
#define QL_BSTATE_H

/*
 * What it owns
 * ------------
 * What a VLBI operator reads off a digitiser's sampler (mark5access's
 * m5bstate, jive5ab's bstate): how often each level is used. Samples are
 * read as codif_signal.h defines them (layout, the value of each code in
 * steps); states are numbered by value, most negative first: for nbits
 * <= 4 state i is the level of value lo + i (2 bits: -3/2, -1/2, +1/2,
 * +3/2), for nbits 8, 16 and 32 (integers) bin b holds the values
 * [lo + b * w, lo + (b + 1) * w), w = 2^nbits / QLB_BINS. Floats are not
 * read (-ENOTSUP).
 *
 * Expectation and verdict
 * -----------------------
 * Gaussian noise of RMS sigma steps fills level v with the probability of
 * the interval that quantises to it (codif_signal_quantise: mid-rise,
 * nbits 1 and 2, takes floor(x) + 1/2; mid-tread rounds; the extremes take
 * the tails): qlb_gauss_occ. The optimal RMS, sigma_opt (the level at which
 * a uniform quantiser of that many levels loses least; Max 1960): 2 bits
 * 1.0 step (thresholds at +-1 step = 0.996 sigma: 16/34/34/16 %), 4 bits
 * 2.98 steps (spacing 0.335 sigma); 8 bits and more 2^(nbits-1) / 8 (the
 * extremes at 8 sigma, headroom for RFI); 1 bit has none (its two states
 * are 50/50 at any level). The RMS is estimated from the occupancy (nbits
 * 2 and 4: the sigma whose expected share of the states beyond the
 * innermost equals the observed one; 8 bits and more: the sample standard
 * deviation). The verdict, first that holds:
 *   nodata     fewer than cfg.min_samples samples;
 *   dead       the zero code's share >= cfg.dead (0.99);
 *   saturated  the extreme codes' share >= cfg.sat (0.99; nbits >= 2);
 *   stuck bit  a bit of the code never changed over the samples (nbits
 *              >= 2; the bits and their values in stuck_mask/stuck_val);
 *   under-driven  rms < cfg.under * sigma_opt (0.5);
 *   over-driven   rms > cfg.over * sigma_opt (2.0);
 *   ok.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codif.h"
#include "codif_signal.h"

#define QLB_BINS 64        /**< states of nbits <= 4 (16 used at most), bins above */
#define QLB_MAX_GROUPS 16  /**< channel groups of a stream */

enum qlb_verdict {
	QLB_NODATA = 0,
	QLB_OK,
	QLB_UNDER,
	QLB_OVER,
	QLB_DEAD,
	QLB_SATURATED,
	QLB_STUCK,
};

/** "nodata", "ok", "under-driven", "over-driven", "dead", "saturated", "stuck bit". */
const char *qlb_verdict_name(enum qlb_verdict v);

/** The thresholds of the verdict (settable: codifcheck bstate's options). */
struct qlb_cfg {
	double under;          /**< under-driven below under x sigma_opt (0.5) */
	double over;           /**< over-driven above over x sigma_opt (2.0) */
	double dead;           /**< dead from this zero-code share (0.99) */
	double sat;            /**< saturated from this extreme share (0.99) */
	uint64_t min_samples;  /**< fewer: nodata (1000) */
};

void qlb_cfg_defaults(struct qlb_cfg *c);

/** One stream's sampler statistics. */
struct qlb_acc {
	struct codif_signal_enc e;
	unsigned int nstate;           /**< states (2^nbits, nbits <= 4) or QLB_BINS */
	unsigned int ngroup;           /**< channel groups */
	unsigned int chan_per_group;
	uint8_t state_of[16];          /**< nbits <= 4: code -> state */
	uint64_t n[QLB_MAX_GROUPS];
	uint64_t cnt[QLB_MAX_GROUPS][QLB_BINS];
	uint64_t zero[QLB_MAX_GROUPS], ext[QLB_MAX_GROUPS];
	double sum[QLB_MAX_GROUPS], sum2[QLB_MAX_GROUPS];
	uint32_t bits_or[QLB_MAX_GROUPS], bits_and[QLB_MAX_GROUPS];
};

/**
 * For frames with header h, channels in groups of ceil(nchan / groups)
 * (groups 1..QLB_MAX_GROUPS; no more than nchan).
 * @return 0, -ENOTSUP (floats, an encoding codif_signal.h does not decode:
 *   why in err) or -EINVAL (groups out of range).
 */
int qlb_init(struct qlb_acc *a, const struct codif_hdr *h, unsigned int groups, char *err,
	     size_t errlen);

/** The code of component k of data (codif_signal.h's layout; integers). */
uint32_t qlb_code(const struct codif_signal_enc *e, const uint8_t *d, size_t k);

/** Count the samples of one frame's data (len bytes: whole time samples). */
void qlb_add(struct qlb_acc *a, const uint8_t *data, size_t len);

/** Zero the counts, keep the format (a new interval). */
void qlb_clear(struct qlb_acc *a);

/**
 * Add src's counts into dst (the streams of one antenna). A dst with no
 * format yet (zeroed: nstate 0) becomes a copy of src; a src with none adds
 * nothing.
 * @return 0, or -EINVAL: the two differ in encoding, channels or groups
 *   (dst unchanged).
 */
int qlb_merge(struct qlb_acc *dst, const struct qlb_acc *src);

/** The value (steps) at the middle of state s. */
double qlb_state_value(const struct qlb_acc *a, unsigned int s);

/** Expected occupancy of each state for Gaussian noise of RMS sigma (steps). */
void qlb_gauss_occ(const struct qlb_acc *a, double sigma, double occ[QLB_BINS]);

/** The optimal RMS of the encoding (steps); 0 for 1 bit (none). */
double qlb_sigma_opt(const struct qlb_acc *a);

struct qlb_result {
	uint64_t samples;
	double occ[QLB_BINS];      /**< observed share of each state */
	double expect[QLB_BINS];   /**< expected at sigma_opt (1 bit: 1/2 each) */
	double rms;                /**< estimated (steps); NAN: no estimate (1 bit,
					no sample beyond the innermost states) */
	bool rms_below;            /**< no sample beyond the innermost: rms is
					below what the samples can tell */
	double sigma_opt;
	double zero, sat;          /**< shares of the zero and extreme codes */
	uint32_t stuck_mask, stuck_val;
	enum qlb_verdict verdict;
};

/** The figures of group g, or of the whole stream (g < 0). */
void qlb_result(const struct qlb_acc *a, int g, const struct qlb_cfg *c, struct qlb_result *r);

#endif /* QL_BSTATE_H */
