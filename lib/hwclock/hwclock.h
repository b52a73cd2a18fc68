/* SPDX-License-Identifier: BSD-3-Clause */
/* A NIC clock turned into Unix ns: calibration of device ticks against the
 * host clock (control lcore) and the division-free conversion the rx lcores
 * read through a latch (pure C, no DPDK). */

#ifndef HWCLOCK_H
#define HWCLOCK_H

/*
 * What it owns
 * ------------
 * The meaning of a hardware rx timestamp. A NIC stamps packets with its own
 * clock: on mlx5 (DPDK 22.11) either a free-running counter in device ticks
 * (reset at power-on, 63 bits wide, dev_freq_khz per second) or, in
 * real-time mode, ns since 1970 that the driver has already unpacked from
 * the CQE's sec:ns format (see HWCLOCK_KIND_PACKED). This library
 *   - says which of the two a value looks like (hwclock_classify);
 *   - fits ticks -> host ns from bracketed (host, device, host) reads
 *     (struct hwclock, one writer: the control lcore);
 *   - publishes the fit as a fixed-point line (struct hwclock_pub) that rx
 *     lcores snapshot once per burst and apply per packet with a subtract,
 *     two shifts, one 64x64->128 multiply and an add (no division, no
 *     floating point).
 *
 * The model
 * ---------
 * host_ns = base_ns + (ticks - base_ticks) * ns_per_tick, fitted by least
 * squares over the last cfg.window pairs (sliding), anchored at the newest
 * pair. Each pair is the tightest of the bracketed reads of one sampling
 * round, its host time the bracket's midpoint. Rounds with no bracket
 * narrower than cfg.max_bracket_ns are refused. Before the fit, pairs whose
 * bracket is far wider than the window's median, then pairs far from a
 * robust (Theil-Sen) line by a robust sigma (MAD), are dropped: at most a
 * third of the window. Until min_pairs span min_span_ns the frequency is
 * cfg.nominal_hz (or the last fitted one) and only the offset is fitted.
 *
 * Once a frequency has been fitted, a pair that misses the line by more
 * than step_ns (+ slew_ppm of the time since the last pair) is held; if
 * the next pair agrees with it, one of the clocks has stepped: the window
 * restarts from those two pairs with the fitted frequency kept (a host
 * step when CLOCK_REALTIME - CLOCK_MONOTONIC moved by the miss, else a
 * device step); otherwise the held pair was an outlier. Until the step is
 * confirmed (one round) the old line stays published. A counter that
 * wraps at 2^counter_bits is unwrapped between pairs; with a rate known,
 * by the elapsed CLOCK_MONOTONIC, so pairs may be several wraps apart.
 *
 * Accuracy (synthetic clocks only: untested on hardware)
 * -----------------------------------------------------
 * The fixed-point conversion is the fitted line (a double) to within 1 ns
 * for any result within +-2^62 ns (146 years) of the base: mult holds the
 * double's 53-bit slope exactly with up to 62 fraction bits, the product is
 * 128 bits wide, the shift truncates (towards minus infinity). The fit's
 * own error depends on the sampling (bracket widths, pair spacing, the
 * oscillators' wander); tests/unit/test_hwclock.c states the bounds it
 * asserts on synthetic clocks. The result is CLOCK_REALTIME's idea of the
 * arrival, no better than the host's own synchronisation, following its
 * slews and (one round late) its steps. Between two publications a
 * packet's time may move by the change of fit, so times are not strictly
 * monotonic across an update. struct hwclock_state reports the RMS
 * residual and an uncertainty (RMS + median half bracket).
 *
 * Threads
 * -------
 * struct hwclock: one thread only (the writer). struct hwclock_pub: one
 * writer, any number of readers on any lcores; readers never wait for the
 * writer (a latch: two copies, a sequence count picks the stable one), so
 * a writer pre-empted mid-update cannot stall an rx lcore.
 */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most pairs a calibration window can hold. */
#define HWCLOCK_WINDOW_MAX 64
/** Default window: 16 pairs (16 s at one sampling round a second). */
#define HWCLOCK_WINDOW_DEFAULT 16
/** Default tolerance of hwclock_classify: one day either side of the host. */
#define HWCLOCK_CLASSIFY_TOL_NS (86400LL * 1000000000LL)
/** ns per second. */
#define HWCLOCK_NS_PER_S 1000000000LL

/** What a raw timestamp value is (hwclock_classify). */
enum hwclock_kind {
	/** Device ticks of unknown origin and rate: calibrate. */
	HWCLOCK_KIND_TICKS = 0,
	/** Linear ns since 1970, near the host's CLOCK_REALTIME. */
	HWCLOCK_KIND_UNIX_NS,
	/** Packed: bits 63-32 seconds since 1970, bits 31-0 ns (< 1e9). The
	 * mlx5 CQE's real-time format. DPDK 22.11 unpacks it before the mbuf
	 * (mlx5_txpp_convert_rx_ts in drivers/net/mlx5/mlx5_rx.h, called by
	 * rxq_cq_to_mbuf in mlx5_rx.c and the vector rx paths when
	 * rxq->rt_timestamp), and mlx5_txpp_read_clock unpacks the clock
	 * queue's value too: an mbuf or rte_eth_read_clock should never hold
	 * it there. Kept for other sources (a raw CQE, another driver). */
	HWCLOCK_KIND_PACKED,
};

/** How far the published conversion can be trusted. */
enum hwclock_level {
	/** Nothing published: hwclock_snapshot() says -EAGAIN. */
	HWCLOCK_UNCALIBRATED = 0,
	/** Published from too few pairs or too short a span: the frequency
	 * is cfg.nominal_hz or the one fitted before a step; offset fitted. */
	HWCLOCK_PROVISIONAL,
	/** Frequency and offset fitted over the window. */
	HWCLOCK_CALIBRATED,
	/** The clock is already Unix time (hwclock_init_rt): no fit. */
	HWCLOCK_REALTIME,
};

/** Calibration settings; hwclock_cfg_defaults() fills every field. */
struct hwclock_cfg {
	unsigned int counter_bits; /**< counter wraps at 2^bits, 8..64 (64) */
	unsigned int window;       /**< pairs in the fit, 2..HWCLOCK_WINDOW_MAX */
	unsigned int min_pairs;    /**< pairs for a full fit, 2..window (4) */
	int64_t min_span_ns;       /**< host span for a full fit (100 ms) */
	uint64_t nominal_hz;       /**< expected rate, 0 = unknown (0) */
	uint32_t max_ppm;          /**< fitted rate refused beyond nominal
				    *   +-max_ppm; 0 = no check (1000) */
	int64_t max_bracket_ns;    /**< widest host bracket accepted (1 ms) */
	int64_t step_ns;           /**< miss that suggests a step (1 ms) */
	uint32_t slew_ppm;         /**< the host may slew this much between
				    *   pairs: added to step_ns per ns (500) */
	double outlier_k;          /**< drop pairs beyond k robust sigmas (5) */
	int64_t outlier_floor_ns;  /**< never drop a pair within this (200) */
};

/** One bracketed read of the device clock. */
struct hwclock_sample {
	uint64_t ticks;         /**< the device clock */
	int64_t host_before_ns; /**< CLOCK_REALTIME just before the read */
	int64_t host_after_ns;  /**< CLOCK_REALTIME just after the read */
	int64_t mono_ns;        /**< CLOCK_MONOTONIC next to them; 0 = none
				 *   (then a step cannot be said to be the
				 *   host's or the device's) */
};

/** The published conversion, as a reader applies it (see hwclock_conv_ns). */
struct hwclock_conv {
	uint64_t base_ticks; /**< raw counter value at base_ns */
	int64_t base_ns;     /**< Unix ns at base_ticks */
	uint64_t mult;       /**< ns per tick * 2^shift, < 2^63 */
	uint8_t shift;       /**< fraction bits of mult, <= 62 */
	uint8_t lshift;      /**< 64 - counter_bits: sign-extends deltas */
	uint8_t packed;      /**< unpack sec:ns before converting */
	uint8_t valid;       /**< 0: nothing published */
};

/** One writer's conversion for many readers; zero it or hwclock_pub_init(). */
struct hwclock_pub {
	uint64_t seq;        /**< even: readers use slot 0, odd: slot 1 */
	uint64_t slot[2][4]; /**< base_ticks, base_ns, mult, the small fields */
} __attribute__((aligned(64)));

/** A pair in the calibration window (private to hwclock.c). */
struct hwclock_pair {
	uint64_t raw;     /**< counter value as read (masked) */
	int64_t ext;      /**< ticks since the window's origin, unwrapped */
	int64_t host_ns;  /**< bracket midpoint, CLOCK_REALTIME */
	int64_t mono_ns;  /**< CLOCK_MONOTONIC, 0 = none */
	int64_t half_ns;  /**< half the bracket width */
};

/** What the calibration knows and has seen (hwclock_state_get). */
struct hwclock_state {
	enum hwclock_level level;
	double hz;              /**< fitted device ticks per second (0: none) */
	double ppm;             /**< hz vs cfg.nominal_hz (0 if unknown) */
	uint64_t base_ticks;    /**< the offset: this counter value ... */
	int64_t base_ns;        /**< ... is this Unix ns */
	double rms_ns;          /**< RMS residual of the pairs in the fit */
	double uncertainty_ns;  /**< rms_ns + half the median bracket */
	unsigned int pairs;     /**< pairs in the window now */
	uint64_t accepted;      /**< pairs taken into the window */
	uint64_t bracket_refused; /**< rounds with no bracket narrow enough */
	uint64_t outliers;      /**< pairs dropped: residual or held-then-not-confirmed */
	uint64_t steps_host;    /**< host clock steps (restarts) */
	uint64_t steps_device;  /**< device clock steps (restarts) */
	uint64_t steps_unknown; /**< steps with no CLOCK_MONOTONIC to tell */
	uint64_t wraps;         /**< device counter wraps seen */
	uint64_t bad_fits;      /**< fits refused: rate beyond max_ppm */
	uint64_t publishes;     /**< conversions published */
};

/** Calibration state: caller-allocated, used by one thread. */
struct hwclock {
	struct hwclock_cfg cfg;
	struct hwclock_pub *pub;   /**< where fits go, or NULL */
	uint64_t mask;             /**< 2^counter_bits - 1 */
	struct hwclock_pair win[HWCLOCK_WINDOW_MAX]; /**< oldest first */
	unsigned int n;            /**< pairs in win */
	bool held;                 /**< a pair waits for confirmation */
	struct hwclock_pair hold;  /**< that pair (ext relative to win) */
	bool have_rate;            /**< ns_per_tick is a usable rate */
	bool rate_fitted;          /**< ... and came from a fit once */
	double ns_per_tick;        /**< fitted (or nominal) */
	bool have_line;            /**< base_* describe the current fit */
	uint64_t base_raw;         /**< the fit at the newest pair */
	int64_t base_ext;
	int64_t base_ns;
	struct hwclock_state st;   /**< counters and the figures reported */
};

/**
 * Fill a configuration with the defaults (64-bit counter, 16-pair window,
 * 4 pairs over 100 ms for a full fit, 1 ms bracket and step thresholds).
 *
 * @param cfg
 *   Filled; never NULL.
 */
void
hwclock_cfg_defaults(struct hwclock_cfg *cfg);

/**
 * Start a calibration (uncalibrated, no pairs, counters zero).
 *
 * @param c
 *   The state to initialise.
 * @param cfg
 *   Its settings (copied); NULL means hwclock_cfg_defaults().
 * @param pub
 *   Where every new fit is published, or NULL (then hwclock_conv_get()).
 *   Initialised here (nothing valid published).
 * @return
 *   0, or -EINVAL if c is NULL or a setting is out of its range.
 */
int
hwclock_init(struct hwclock *c, const struct hwclock_cfg *cfg,
	     struct hwclock_pub *pub);

/**
 * Feed one sampling round: n bracketed reads of the device clock, taken
 * back to back. The read with the narrowest bracket is kept (one that was
 * pre-empted between its host reads is thereby ignored); it becomes a pair
 * (device ticks, bracket midpoint), is checked against the current fit for
 * a step or an outlier, joins the window, the fit is redone and, when
 * there is one, published.
 *
 * @param c
 *   The calibration.
 * @param s
 *   The reads of this round.
 * @param n
 *   How many, >= 1.
 * @return
 *   0 when the pair was taken (into the window, or held as a possible
 *   step), -EINVAL if c or s is NULL or n is 0, -ERANGE when no read had a
 *   bracket of 0..cfg.max_bracket_ns (counted in bracket_refused; a host
 *   clock stepped back inside the bracket ends up here too).
 */
int
hwclock_add(struct hwclock *c, const struct hwclock_sample *s, unsigned int n);

/**
 * Forget the pairs and the fit (the rate is kept as a prior); the counters
 * stay. For a caller that knows a clock was changed under it.
 *
 * @param c
 *   The calibration.
 * @return
 *   0, or -EINVAL if c is NULL.
 */
int
hwclock_restart(struct hwclock *c);

/**
 * Read the calibration's figures and counters.
 *
 * @param c
 *   The calibration.
 * @param st
 *   Filled.
 * @return
 *   0, or -EINVAL if c or st is NULL.
 */
int
hwclock_state_get(const struct hwclock *c, struct hwclock_state *st);

/**
 * The conversion the current fit gives (what was last published).
 *
 * @param c
 *   The calibration.
 * @param cv
 *   Filled (valid = 0 when uncalibrated).
 * @return
 *   0, -EINVAL if c or cv is NULL, -EAGAIN when there is no fit yet.
 */
int
hwclock_conv_get(const struct hwclock *c, struct hwclock_conv *cv);

/**
 * Build the fixed-point conversion for a line, without a calibration: the
 * tick at base_ticks is base_ns, one tick is ns_per_tick.
 *
 * @param cv
 *   Filled.
 * @param base_ticks
 *   The counter value at the base.
 * @param base_ns
 *   Unix ns at the base.
 * @param ns_per_tick
 *   1e9 / frequency; > 0 and < 2^30.
 * @param counter_bits
 *   The counter's width, 8..64.
 * @return
 *   0, or -EINVAL if cv is NULL or an argument is out of range.
 */
int
hwclock_conv_line(struct hwclock_conv *cv, uint64_t base_ticks, int64_t base_ns,
		  double ns_per_tick, unsigned int counter_bits);

/**
 * Publish a clock that already counts Unix ns (mlx5 real-time mode): the
 * conversion adds offset_ns, after unpacking sec:ns if packed.
 *
 * @param pub
 *   Where to publish (one writer; readers may be running).
 * @param packed
 *   The values are HWCLOCK_KIND_PACKED, not HWCLOCK_KIND_UNIX_NS.
 * @param offset_ns
 *   Added to every value: e.g. -37 s for a PTP clock on TAI when
 *   CLOCK_REALTIME is UTC; 0 for a clock already on UTC.
 * @return
 *   0, or -EINVAL if pub is NULL.
 */
int
hwclock_init_rt(struct hwclock_pub *pub, bool packed, int64_t offset_ns);

/**
 * Publish "no conversion" (readers get -EAGAIN); readers may be running.
 *
 * @param pub
 *   The publication; never NULL.
 */
void
hwclock_pub_init(struct hwclock_pub *pub);

/**
 * Publish a conversion (one writer at a time; readers never wait).
 *
 * @param pub
 *   The publication; never NULL.
 * @param cv
 *   The conversion; never NULL.
 */
void
hwclock_pub_write(struct hwclock_pub *pub, const struct hwclock_conv *cv);

/**
 * Say what a timestamp value is: Unix ns, packed sec:ns, or ticks, by its
 * distance from the host's CLOCK_REALTIME. A free-running counter would
 * need decades of uptime at 1 GHz to come within a day of Unix time now.
 *
 * @param value
 *   A device clock value (rte_eth_read_clock, or an mbuf's timestamp).
 * @param host_ns
 *   CLOCK_REALTIME read next to it.
 * @param tol_ns
 *   How far from host_ns Unix time may be (HWCLOCK_CLASSIFY_TOL_NS).
 * @param diff_ns
 *   If not NULL and the value is Unix time (either kind): its ns minus
 *   host_ns (e.g. +37e9 for a clock on TAI); else 0.
 * @return
 *   The kind.
 */
enum hwclock_kind
hwclock_classify(uint64_t value, int64_t host_ns, int64_t tol_ns,
		 int64_t *diff_ns);

/**
 * A name for a level ("uncalibrated", "provisional", "calibrated",
 * "real-time").
 *
 * @param level
 *   The level.
 * @return
 *   A static string; "?" for an unknown value.
 */
const char *
hwclock_level_name(enum hwclock_level level);

/** Reads a device clock for hwclock_sample_read: 0, or an errno (negative,
 * or positive as DPDK 22.11's mlx5 returns through rte_eth_read_clock). */
typedef int (*hwclock_read_fn)(void *arg, uint64_t *ticks);

/**
 * Take one bracketed read: CLOCK_MONOTONIC, CLOCK_REALTIME, read(arg),
 * CLOCK_REALTIME.
 *
 * @param read
 *   The device clock reader (e.g. a wrapper of rte_eth_read_clock).
 * @param arg
 *   Its argument.
 * @param s
 *   Filled.
 * @return
 *   0, -EINVAL if read or s is NULL, or read's non-zero errno, negated if
 *   it was positive.
 */
int
hwclock_sample_read(hwclock_read_fn read, void *arg, struct hwclock_sample *s);

/**
 * Unpack mlx5's real-time CQE format (bits 63-32 s, bits 31-0 ns) into
 * linear ns, as DPDK 22.11's mlx5_txpp_convert_rx_ts does.
 *
 * @param v
 *   The packed value.
 * @return
 *   ns since 1970.
 */
static inline uint64_t
hwclock_rt_unpack(uint64_t v)
{
	return (v >> 32) * (uint64_t)HWCLOCK_NS_PER_S + (v & UINT32_MAX);
}

/**
 * Snapshot the published conversion (once per burst on an rx lcore).
 * Never waits for the writer; retries only if a whole update happened
 * during the read.
 *
 * @param pub
 *   The publication.
 * @param cv
 *   Filled.
 * @return
 *   0, or -EAGAIN when nothing valid is published.
 */
static inline int
hwclock_snapshot(const struct hwclock_pub *pub, struct hwclock_conv *cv)
{
	uint64_t s, w[4];
	const uint64_t *p;

	do {
		s = __atomic_load_n(&pub->seq, __ATOMIC_ACQUIRE);
		p = pub->slot[s & 1];
		w[0] = __atomic_load_n(&p[0], __ATOMIC_RELAXED);
		w[1] = __atomic_load_n(&p[1], __ATOMIC_RELAXED);
		w[2] = __atomic_load_n(&p[2], __ATOMIC_RELAXED);
		w[3] = __atomic_load_n(&p[3], __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
	} while (__atomic_load_n(&pub->seq, __ATOMIC_RELAXED) != s);
	cv->base_ticks = w[0];
	cv->base_ns = (int64_t)w[1];
	cv->mult = w[2];
	cv->shift = (uint8_t)w[3];
	cv->lshift = (uint8_t)(w[3] >> 8);
	cv->packed = (uint8_t)(w[3] >> 16);
	cv->valid = (uint8_t)(w[3] >> 24);
	return cv->valid ? 0 : -EAGAIN;
}

/**
 * Device ticks to Unix ns with a snapshot: no division, no floating point.
 * Ticks before the base give times before base_ns; the counter's wrap is
 * undone for ticks within 2^(counter_bits-1) of the base either side.
 *
 * @param cv
 *   A valid snapshot (hwclock_snapshot returned 0).
 * @param ticks
 *   The device clock value (e.g. the mbuf's rx timestamp).
 * @return
 *   Unix ns.
 */
static inline int64_t
hwclock_conv_ns(const struct hwclock_conv *cv, uint64_t ticks)
{
	int64_t d;

	if (cv->packed)
		ticks = hwclock_rt_unpack(ticks);
	/* the N-bit difference, sign-extended: the wrap costs nothing */
	d = (int64_t)((ticks - cv->base_ticks) << cv->lshift) >> cv->lshift;
	return cv->base_ns +
	       (int64_t)(((__int128)d * (__int128)(int64_t)cv->mult) >> cv->shift);
}

#ifdef __cplusplus
}
#endif

#endif /* HWCLOCK_H */
