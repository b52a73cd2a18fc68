/* SPDX-License-Identifier: BSD-3-Clause */
/* CODIF sample encodings (code <-> value, zero and extreme codes, the data
 * layout) and a deterministic synthetic signal with its expected statistics. */

#ifndef CODIF_SIGNAL_H
#define CODIF_SIGNAL_H

/*
 * What it owns
 * ------------
 * The one definition, in this project, of what the data bytes of a CODIF
 * frame mean as samples: which (nbits, representation) pairs are decoded,
 * the value of each code in units of the encoding's step, the code counted
 * as "zero" and the extreme codes counted as "saturated", and the order of
 * the samples in the data. lib/quicklook decodes with it; the synthetic
 * signal below encodes with it, so both read the bytes the same way.
 *
 * Layout (codif.md gives only the header; these follow VDIF and DiFX's
 * mark5access CODIF decoder, the de-facto reference)
 * ------------------------------------------------------------------
 *  - A frame's data is a sequence of time samples; each time sample holds
 *    the nchan channels in order, channel 0 first; a complex channel is I
 *    (real) then Q (imaginary). So component k of the frame is time sample
 *    k / S, channel (k % S) / ncomp, part (k % S) % ncomp, with ncomp =
 *    complex ? 2 : 1 and S = nchan * ncomp.
 *  - Components of nbits < 8 are packed from the least significant bit of
 *    each byte up (the first component in bits 0..nbits-1 of byte 0), and a
 *    component never straddles a byte (1, 2 and 4 divide 8).
 *  - Components of 16 and 32 bits are little-endian, like the header words.
 *  - blocklength does not change this order (it is carried, not used).
 *
 * Encodings (the representation field; codif.md defines only 1)
 * -------------------------------------------------------------
 *   representation 1 (CODIF_SIGNAL_REPR_TWOS): two's complement integers,
 *     nbits 1, 2, 4, 8, 16 or 32.
 *   representation 0 (CODIF_SIGNAL_REPR_OFFSET): offset binary, the same
 *     nbits: the code with its most significant bit inverted is the two's
 *     complement code of the same value (VDIF's convention: for 2 bits 00
 *     is the most negative level, 11 the most positive).
 *   representation 2 (CODIF_SIGNAL_REPR_FLOAT): IEEE-754 binary32, nbits 32
 *     only.
 *   Anything else (nbits 3, 12, 64, half floats, representations 3-15) is
 *   not decoded: codif_signal_enc_init says -ENOTSUP.
 *
 * Values, in steps of the encoding (s = the b-bit two's complement value):
 *   nbits >= 4: value = s, from -2^(b-1) to 2^(b-1)-1 (mid-tread: a zero
 *     level exists; the range is one step longer below than above).
 *   nbits 1, 2: value = s + 1/2 (mid-rise: no zero level, symmetric):
 *     1 bit: +-1/2; 2 bits: -3/2, -1/2, +1/2, +3/2. For two's complement
 *     this is the sign bit as the sign (1-bit code 0 is +, 1 is -; 2-bit
 *     codes 0,1,2,3 are +1/2, +3/2, -3/2, -1/2), as mark5access decodes it
 *     (its 2-bit magnitudes 1 and 3.3359 are a decoder weighting; the step
 *     here is the code spacing).
 *   float: the number itself ("step" 1.0).
 *
 * Zero and saturation (what lib/quicklook counts):
 *   zero code: the code of value 0 where one exists (nbits >= 4, float
 *     +-0.0); where none exists (nbits 1 and 2) the code with every bit
 *     clear, which is what a sender that zero-fills its payload emits --
 *     +1/2 step in two's complement, the most negative level in offset
 *     binary (so a zero-filled offset-binary 1/2-bit stream reads 100%
 *     zero and 100% saturated).
 *   extreme codes: the most negative and most positive levels. With 1 bit
 *     both codes are extreme: every sample "saturates" and saturation says
 *     nothing. Floats have no extreme code: non-finite values (Inf, NaN)
 *     count as saturated and are left out of the sums.
 *
 * The synthetic signal
 * --------------------
 * codif_signal_fill() writes a frame's data from a struct codif_signal:
 * Gaussian noise of a given RMS (steps) plus a DC offset per part and an
 * optional tone, quantised to the nearest level (mid-tread rounds to the
 * nearest integer, mid-rise takes floor(x) + 1/2, both clamped to the
 * range), or a dead (zero code) or saturated (extreme codes, each sign with
 * probability 1/2) signal, per channel. It is a pure function of (stream
 * ids, seconds, frame) through codif_pattern_seed() and the signal's seed,
 * with a counter-based generator (splitmix64 of key + counter, Box-Muller),
 * so any frame can be regenerated alone. (The Gaussian uses libm's log,
 * sqrt and cos: bit-exact on one libm, not promised across libms.)
 *
 * codif_signal_expect() gives the exact expectation of the figures
 * lib/quicklook reports for one channel and part -- mean, mean square,
 * saturated and zero fractions -- and the standard deviation of each per
 * sample, so a test over N samples can allow k * sd / sqrt(N). For noise
 * the quantised Gaussian is summed level by level (P(level) from erfc over
 * the level's interval) while the levels within 12 sigma of the mean number
 * at most 4096 (sigma up to ~170 steps); wider, the clipped Gaussian's
 * moments are used in closed form, plus 1/12 (Sheppard's correction) for
 * the rounding of the levels between the extremes, whose error is of order
 * exp(-2 pi^2 sigma^2): nil at such sigma. Floats are the Gaussian itself.
 * A tone is averaged over 256 equally spaced phases.
 *
 * A common signal (interferometry: what a fringe check must find)
 * -------------------------------------------------------------------
 * With common_rho = rho > 0 the noise of component (chan, part) at absolute
 * time sample n is
 *     rms_c * (sqrt(rho) * C(n - D) + sqrt(1 - rho) * z)
 * where z is the antenna's own unit Gaussian (as above), D = common_delay
 * and C is a unit Gaussian that is a pure function of (common_seed, the
 * stream's threadid, chan, part, n) -- not of the antenna -- so two
 * antennas' frames of the same time carry the same C whatever was lost or
 * reordered. n = (seconds / period * FPP + frame) * samples_per_frame + t
 * counts time samples from the epoch, so C(n - D) of a frame's first
 * samples comes from the previous frame's time. The sample's variance is
 * rms_c^2 whatever rho (codif_signal_expect is unchanged). Two antennas A,
 * B of the same common_seed then correlate, before quantisation, with
 * coefficient sqrt(rho_A * rho_B) (rho for equal rho) at lag D_B - D_A (B's
 * samples are A's delayed by that), and 0 at every other lag; after
 * quantisation the coefficient is codif_signal_expect_corr's.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codif.h"

#ifdef __cplusplus
extern "C" {
#endif

/** representation: offset binary (decided here; codif.md names only 1). */
#define CODIF_SIGNAL_REPR_OFFSET 0
/** representation: two's complement (codif.md). */
#define CODIF_SIGNAL_REPR_TWOS 1
/** representation: IEEE-754 binary32, nbits 32 (decided here). */
#define CODIF_SIGNAL_REPR_FLOAT 2

/** Channels a signal can set one by one (dead_mask, sat_mask). */
#define CODIF_SIGNAL_MASK_CHAN 64

/** A decoded sample encoding: everything needed to read or write samples. */
struct codif_signal_enc {
	uint8_t nbits;        /**< 1, 2, 4, 8, 16 or 32 */
	uint8_t repr;         /**< CODIF_SIGNAL_REPR_* */
	bool is_float;        /**< binary32 */
	bool midrise;         /**< nbits 1, 2: value = s + 1/2, no zero level */
	bool complex;         /**< I, Q per channel */
	uint8_t ncomp;        /**< 2 when complex, else 1 */
	uint16_t nchan;       /**< channels */
	uint32_t ncode;       /**< 2^nbits (0 for 32 bits) */
	uint32_t flip;        /**< XOR taking a code to two's complement (offset: MSB) */
	uint32_t zero_code;   /**< the code counted as zero */
	uint32_t lo_code;     /**< most negative level's code (integers) */
	uint32_t hi_code;     /**< most positive level's code (integers) */
	double lo;            /**< value of lo_code, steps */
	double hi;            /**< value of hi_code, steps */
	uint32_t S;           /**< components per time sample: nchan * ncomp */
};

/**
 * The encoding of the samples of frames with header h (nbits,
 * representation, complex, nchan).
 * @return 0, -ENOTSUP (encoding not decoded: reason in errbuf), or
 *   -EINVAL (nchan 0).
 */
int codif_signal_enc_init(struct codif_signal_enc *e, const struct codif_hdr *h,
			  char *errbuf, size_t errlen);

/** Value in steps of an integer code (the low nbits of code are used). */
double codif_signal_value(const struct codif_signal_enc *e, uint32_t code);

/** The integer code of the level nearest x (clamped to the range). */
uint32_t codif_signal_quantise(const struct codif_signal_enc *e, double x);

/** What a synthetic signal is, per channel. */
enum codif_signal_kind {
	CODIF_SIGNAL_NOISE = 0,  /**< Gaussian noise + DC + optional tone */
	CODIF_SIGNAL_DEAD,       /**< every sample the zero code */
	CODIF_SIGNAL_SATURATED,  /**< extreme codes, each sign with p 1/2
				      (floats: +-Inf) */
};

/** A synthetic signal; all amplitudes in steps of the encoding. */
struct codif_signal {
	enum codif_signal_kind kind;  /**< for every channel not in a mask */
	double rms;          /**< noise RMS per component (I and Q each) */
	double chan_slope;   /**< channel c's RMS is rms * (1 + chan_slope * c) */
	double dc_re;        /**< offset added to the real (I) part */
	double dc_im;        /**< offset added to Q (complex only) */
	double tone_amp;     /**< tone amplitude A: I += A cos(phi), Q += A sin(phi) */
	double tone_freq;    /**< tone frequency, cycles per time sample; phi =
				  2 pi f (frame * samples_per_frame + t) */
	uint64_t dead_mask;  /**< channels c < 64 forced DEAD */
	uint64_t sat_mask;   /**< channels c < 64 forced SATURATED (dead wins) */
	uint64_t seed;       /**< mixed with the frame's codif_pattern_seed */
	uint32_t stuck_mask; /**< integer encodings: these bits of every code
				  forced to stuck_val's (a stuck sampler bit;
				  codif_signal_expect does not model it) */
	uint32_t stuck_val;
	/** noise only: the share of the noise power common to every antenna
	 * with the same common_seed (0..1; see "A common signal" above) */
	double common_rho;
	int64_t common_delay; /**< samples the common part is late by */
	uint64_t common_seed; /**< which common signal (antennas that share it correlate) */
};

/** A noise signal of the given RMS, nothing else set. */
void codif_signal_noise(struct codif_signal *s, double rms, uint64_t seed);

/** The kind channel chan gets (masks applied). */
enum codif_signal_kind codif_signal_chan_kind(const struct codif_signal *s,
					      unsigned int chan);

/**
 * Fill len bytes of data of the frame h describes (its stream ids, seconds,
 * frame, nbits, representation, complex, nchan). len need not be the whole
 * frame: whole components are written from the frame's start, a trailing
 * partial component's bytes are zeroed.
 * @return 0, -ENOTSUP (encoding not decoded) or -EINVAL (nchan 0,
 *   rms < 0, non-finite parameter).
 */
int codif_signal_fill(const struct codif_signal *s, const struct codif_hdr *h,
		      void *buf, size_t len);

/** Expected per-sample figures of one channel and part of a signal. */
struct codif_signal_expect {
	double mean;      /**< E[x], steps (over finite samples for floats) */
	double power;     /**< E[x^2] */
	double sat;       /**< P(extreme code) (floats: P(non-finite)) */
	double zero;      /**< P(zero code) */
	double sd_mean;   /**< sd of x per sample */
	double sd_power;  /**< sd of x^2 per sample */
	double sd_sat;    /**< sqrt(sat (1 - sat)) */
	double sd_zero;   /**< sqrt(zero (1 - zero)) */
};

/**
 * Expected figures of channel chan, part im (0 = real/I, 1 = Q) of signal s
 * under encoding e.
 * @return 0, or -EINVAL (chan or im out of range, bad parameters).
 */
int codif_signal_expect(const struct codif_signal *s, const struct codif_signal_enc *e,
			unsigned int chan, unsigned int im, struct codif_signal_expect *x);

/**
 * Expected normalised correlation coefficient, after quantisation by e, of
 * channel chan, part im of two noise signals a and b sharing a common
 * signal, at their lag (b.common_delay - a.common_delay):
 * cov(q(x_a), q(y_b)) / sqrt(var q(x_a) * var q(y_b)). Before quantisation
 * it is sqrt(rho_a * rho_b); quantisation lowers it (2 bits at RMS 1 step:
 * by about 12 %). Integers: Price's theorem, d E[q(x)q(y)] / d r = sum over
 * the pairs of decision thresholds of the bivariate normal density there,
 * integrated over r from 0 (Gauss-Legendre, 24 points) while at most 512
 * thresholds lie within 10 sigma; beyond that (fine quantisation) the
 * rounding noise of variance 1/12 step^2 is taken as uncorrelated. Floats:
 * sqrt(rho_a rho_b). Tones, DC and masks are not modelled (both must be
 * noise; a tone shared by both would correlate too).
 * @return 0, or -EINVAL (chan or im out of range, a signal not noise,
 *   common seeds differ, rho outside 0..1).
 */
int codif_signal_expect_corr(const struct codif_signal *a, const struct codif_signal *b,
			     const struct codif_signal_enc *e, unsigned int chan,
			     unsigned int im, double *coef);

#ifdef __cplusplus
}
#endif

#endif /* CODIF_SIGNAL_H */
