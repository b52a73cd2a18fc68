/* SPDX-License-Identifier: BSD-3-Clause */
/* Quick look: decode a sampled frame into per-bin sums, publish them through
 * a sequence lock, and turn two snapshots into an interval's figures. */

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "quicklook.h"

#define QL_LANE_TARGET 64   /* lanes aimed at: S * max(1, 64 / S) */
#define QL_CHUNK 8192       /* components per pass over the lanes (bounds the
			       32-bit lane sums; sub-byte scratch size) */
/* kernels are inlined into frame_sums so that its AVX2 clone has them too */
#define KERNEL static inline __attribute__((always_inline)) void

_Static_assert(sizeof(struct ql_snap) % 8 == 0, "ql_snap is published by 64-bit words");
_Static_assert(QL_MAX_BINS <= 256, "lane_bin is a byte");

/* One frame's sums per bin, before they join the cumulative ones. */
struct fbin {
	uint64_t n, sat, zero, excl;
	double sum[2];  /* real/I, Q */
	double sq;
};

struct facc {
	struct fbin bin[QL_MAX_BINS];
};

/* ---- Loads: the data bytes as host values ------------------------------- */

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
typedef uint16_t u16_una __attribute__((aligned(1), may_alias));
typedef uint32_t u32_una __attribute__((aligned(1), may_alias));
#define LD16(p, i) (((const u16_una *)(const void *)(p))[i])
#define LD32(p, i) (((const u32_una *)(const void *)(p))[i])
#else
static inline uint16_t
ld16_le(const uint8_t *p, size_t i)
{
	return (uint16_t)(p[2 * i] | p[2 * i + 1] << 8);
}

static inline uint32_t
ld32_le(const uint8_t *p, size_t i)
{
	p += 4 * i;
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}
#define LD16(p, i) ld16_le(p, i)
#define LD32(p, i) ld32_le(p, i)
#endif

static inline float
f32_of(uint32_t u)
{
	float f;

	memcpy(&f, &u, 4);
	return f;
}

/* ---- Kernels -------------------------------------------------------------
 *
 * Two ways through a chunk of components, for each sample type:
 *
 *  - by lanes (S <= QL_LANES): component i adds into lane i % L, L a
 *    multiple of S, so a lane is always the same channel and part; the
 *    inner loop runs over the L lanes with no dependence between them and
 *    vectorises. The lanes are folded into bins once per chunk.
 *  - by runs (S > QL_LANES: more than 512 complex or 1024 real channels):
 *    the components of one bin in one time sample are contiguous
 *    (run = channels per bin * parts), each run is reduced in one loop.
 *
 * A kernel value v is an integer (or float) whose extreme and zero codes
 * are lay->lo_v, hi_v, zero_v; steps = v * lay->scale.
 */

#define INT_FIN(v) 1
#define INT_SAT(v) (((v) == lo) | ((v) == hi))
#define INT_ZERO(v) ((v) == z)
/* floats are handled as their bits until summed: integer tests and
 * selects vectorise, float compares (which may trap on NaN) do not */
#define FLT_FIN(u) ((((u) >> 23) & 0xff) != 0xff)
#define FLT_SAT(u) (!FLT_FIN(u))
#define FLT_ZERO(u) (((u) & 0x7fffffffu) == 0)
#define INT_VAL(T, w) ((T)(w))
#define FLT_VAL(T, w) ((T)f32_of(w))

static inline void
fold_lane(struct facc *f, const struct ql_layout *ly, uint32_t k, uint64_t cnt, double sum,
	  double sq, uint64_t sat, uint64_t zero, uint64_t excl)
{
	struct fbin *b = &f->bin[ly->lane_bin[k]];

	b->n += cnt;
	b->sum[ly->lane_im[k]] += sum * ly->scale;
	b->sq += sq * ly->scale * ly->scale;
	b->sat += sat;
	b->zero += zero;
	b->excl += excl;
}

/* One value, x[j] by LOAD, into the accumulators: its sum and square when
 * finite (else counted excluded), saturated and zero counts. */
#define ACC_ONE(T, SUM_T, LOAD, VAL, SQ, FIN, SAT, ZERO, x, j, a_sum, a_sq, a_sat, a_zero,   \
		a_excl)                                                              \
	do {                                                                         \
		T v = LOAD(x, j);                                                    \
		int fin = FIN(v);                                                    \
		T w = fin ? v : (T)0;                                                \
		(a_sum) += VAL(SUM_T, w);                                            \
		(a_sq) += SQ(w);                                                     \
		(a_sat) += SAT(v);                                                   \
		(a_zero) += ZERO(v);                                                 \
		(a_excl) += !fin;                                                    \
	} while (0)

/*
 * NAME: kernel by lanes over n values of type T read by LOAD(x, i);
 * SUM_T/SQ_T: lane sum types; VAL(SUM_T, v): v as a SUM_T; SQ(v): v squared
 * in a type that holds it; FIN, SAT, ZERO: tests of v.
 */
#define KERNEL_LANES(NAME, T, SUM_T, SQ_T, LOAD, VAL, SQ, FIN, SAT, ZERO)             \
KERNEL                                                                               \
NAME(struct facc *f, const struct ql_layout *ly, const uint8_t *x, size_t n)         \
{                                                                                    \
	SUM_T sum[QL_LANES];                                                         \
	SQ_T sq[QL_LANES];                                                           \
	int32_t sat[QL_LANES], zero[QL_LANES], excl[QL_LANES];                       \
	const uint32_t L = ly->L;                                                    \
	const T lo = (T)ly->lo_v, hi = (T)ly->hi_v, z = (T)ly->zero_v;               \
	const uint32_t flip = ly->flip;                                              \
	size_t i = 0;                                                                \
	uint32_t k, rem;                                                             \
                                                                                     \
	(void)lo; (void)hi; (void)z; (void)flip;                                     \
	for (k = 0; k < L; k++) {                                                    \
		sum[k] = 0;                                                          \
		sq[k] = 0;                                                           \
		sat[k] = zero[k] = excl[k] = 0;                                      \
	}                                                                            \
	for (; i + L <= n; i += L) {                                                 \
		const uint8_t *xi = x + i * sizeof(T);                               \
		for (k = 0; k < L; k++)                                              \
			ACC_ONE(T, SUM_T, LOAD, VAL, SQ, FIN, SAT, ZERO, xi, k,      \
				sum[k], sq[k], sat[k], zero[k], excl[k]);            \
	}                                                                            \
	rem = (uint32_t)(n - i);                                                     \
	for (k = 0; k < rem; k++)                                                    \
		ACC_ONE(T, SUM_T, LOAD, VAL, SQ, FIN, SAT, ZERO, x + i * sizeof(T), k, \
			sum[k], sq[k], sat[k], zero[k], excl[k]);                    \
	for (k = 0; k < L; k++)                                                      \
		fold_lane(f, ly, k, i / L + (k < rem), (double)sum[k], (double)sq[k], \
			  (uint64_t)sat[k], (uint64_t)zero[k], (uint64_t)excl[k]);    \
}

/*
 * NAME: kernel by runs; *pos is the position of x[0] in its time sample
 * (carried from chunk to chunk).
 */
#define KERNEL_RUNS(NAME, T, SUM_T, SQ_T, LOAD, VAL, SQ, FIN, SAT, ZERO)              \
KERNEL                                                                               \
NAME(struct facc *f, const struct ql_layout *ly, const uint8_t *x, size_t n,          \
     uint32_t *pos)                                                                  \
{                                                                                    \
	const T lo = (T)ly->lo_v, hi = (T)ly->hi_v, z = (T)ly->zero_v;               \
	const uint32_t flip = ly->flip, S = ly->enc.S, run = ly->run;                \
	const bool cplx = ly->enc.complex;                                           \
	size_t i = 0;                                                                \
                                                                                     \
	(void)lo; (void)hi; (void)z; (void)flip;                                     \
	while (i < n) {                                                              \
		uint32_t b = *pos / run, end = (b + 1) * run;                        \
		size_t m, j;                                                         \
		SUM_T s_all = 0, s_re = 0;                                           \
		SQ_T s_sq = 0;                                                       \
		uint64_t c_sat = 0, c_zero = 0, c_excl = 0;                          \
		const uint8_t *xi = x + i * sizeof(T);                               \
		struct fbin *fb = &f->bin[b];                                        \
                                                                                     \
		if (end > S)                                                         \
			end = S;                                                     \
		m = end - *pos;                                                      \
		if (m > n - i)                                                       \
			m = n - i;                                                   \
		for (j = 0; j < m; j++)                                              \
			ACC_ONE(T, SUM_T, LOAD, VAL, SQ, FIN, SAT, ZERO, xi, j,      \
				s_all, s_sq, c_sat, c_zero, c_excl);                 \
		if (cplx) {                                                          \
			for (j = *pos & 1; j < m; j += 2) {                          \
				T v = LOAD(xi, j);                                   \
				s_re += VAL(SUM_T, FIN(v) ? v : (T)0);                \
			}                                                            \
		} else {                                                             \
			s_re = s_all;                                                \
		}                                                                    \
		fb->n += m;                                                          \
		fb->sum[0] += (double)s_re * ly->scale;                              \
		fb->sum[1] += (double)(s_all - s_re) * ly->scale;                    \
		fb->sq += (double)s_sq * ly->scale * ly->scale;                      \
		fb->sat += c_sat;                                                    \
		fb->zero += c_zero;                                                  \
		fb->excl += c_excl;                                                  \
		*pos += (uint32_t)m;                                                 \
		if (*pos == S)                                                       \
			*pos = 0;                                                    \
		i += m;                                                              \
	}                                                                            \
}

#define LD_I8(p, i) ((int8_t)((p)[i] ^ (uint8_t)flip))
#define LD_I16(p, i) ((int16_t)(LD16(p, i) ^ (uint16_t)flip))
#define LD_I32(p, i) ((int32_t)(LD32(p, i) ^ flip))
#define LD_F32(p, i) (LD32(p, i))
#define SQ_I32(w) ((int32_t)(w) * (int32_t)(w))
#define SQ_D(w) ((double)(w) * (double)(w))
#define SQ_F(w) ((double)f32_of(w) * (double)f32_of(w))

/* each sample type's loader and arithmetic, as one argument list */
#define OPS_I8 LD_I8, INT_VAL, SQ_I32, INT_FIN, INT_SAT, INT_ZERO
#define OPS_I16 LD_I16, INT_VAL, SQ_I32, INT_FIN, INT_SAT, INT_ZERO
#define OPS_I32 LD_I32, INT_VAL, SQ_D, INT_FIN, INT_SAT, INT_ZERO
#define OPS_F32 LD_F32, FLT_VAL, SQ_F, FLT_FIN, FLT_SAT, FLT_ZERO
/* (expanding an OPS_ list into the kernel macros' arguments) */
#define LANES(...) KERNEL_LANES(__VA_ARGS__)
#define RUNS(...) KERNEL_RUNS(__VA_ARGS__)

LANES(lanes_i8, int8_t, int32_t, int32_t, OPS_I8)
LANES(lanes_i16, int16_t, int32_t, int64_t, OPS_I16)
LANES(lanes_i32, int32_t, double, double, OPS_I32)
LANES(lanes_f32, uint32_t, double, double, OPS_F32)
RUNS(runs_i8, int8_t, int64_t, int64_t, OPS_I8)
RUNS(runs_i16, int16_t, int64_t, int64_t, OPS_I16)
RUNS(runs_i32, int32_t, double, double, OPS_I32)
RUNS(runs_f32, uint32_t, double, double, OPS_F32)

/*
 * int8 values (8-bit data, or sub-byte data expanded) by rows of 16: lane j
 * of a row is component (16 r + j) % L16, L16 = lcm(S, 16) = 16 A, so row r
 * adds into accumulator set r % A. Only 16-byte vectors (what every x86-64
 * and AArch64 has; wider generic vectors are lowered through the stack).
 * Within a block of at most 254 rows per set, value sums are 16-bit
 * (254 * 128 < 2^15), counts 8-bit, and squares of two rows at a time
 * 16-bit (2 * 128^2 = 2^15, unsigned) before they widen to 32 bits;
 * blocks are folded into 32-bit lane sums (8192 / 16 * 128^2 < 2^31).
 */
typedef int8_t v8i8 __attribute__((vector_size(8)));
typedef int8_t v16i8 __attribute__((vector_size(16)));
typedef uint8_t v16u8 __attribute__((vector_size(16)));
typedef int16_t v8i16 __attribute__((vector_size(16)));
typedef uint16_t v8u16 __attribute__((vector_size(16)));
typedef uint16_t v4u16 __attribute__((vector_size(8)));
typedef int32_t v4i32 __attribute__((vector_size(16)));
typedef uint32_t v4u32 __attribute__((vector_size(16)));

#define ROWS_SETS_MAX (QL_LANES / 16)

struct rows_set {
	v8i16 s[2];    /* value sums: lanes 0-7, 8-15 */
	v4u32 q[4];    /* square sums: lanes 0-3 .. 12-15 */
	v16u8 cs, cz;  /* saturated, zero counts */
};

static inline __attribute__((always_inline)) v8i16
widen8(const uint8_t *p, v8i8 flip)
{
	v8i8 b;

	memcpy(&b, p, 8);
	return __builtin_convertvector(b ^ flip, v8i16);
}

static inline __attribute__((always_inline)) void
q_add(v4u32 *q, v8u16 p)
{
	v4u16 lo, hi;

	memcpy(&lo, &p, 8);
	memcpy(&hi, (const uint8_t *)&p + 8, 8);
	q[0] += __builtin_convertvector(lo, v4u32);
	q[1] += __builtin_convertvector(hi, v4u32);
}

static inline __attribute__((always_inline)) void
row_i8(struct rows_set *t, const uint8_t *x, v8i8 flip8, v16i8 flip, v16i8 vlo, v16i8 vhi,
       v16i8 vz, v8u16 *p)
{
	v16i8 v;
	v8i16 wl = widen8(x, flip8), wh = widen8(x + 8, flip8);

	memcpy(&v, x, 16);
	v ^= flip;
	t->s[0] += wl;
	t->s[1] += wh;
	p[0] += (v8u16)(wl * wl);
	p[1] += (v8u16)(wh * wh);
	t->cs -= (v16u8)((v == vlo) | (v == vhi));
	t->cz -= (v16u8)(v == vz);
}

static inline __attribute__((always_inline)) size_t
rows_i8(int32_t *lsum, int32_t *lsq, int32_t *lsat, int32_t *lzero,
	const struct ql_layout *ly, const uint8_t *x, size_t rows, const unsigned int A)
{
	const v8i8 flip8 = (v8i8){ 0 } + (int8_t)ly->flip;
	const v16i8 flip = (v16i8){ 0 } + (int8_t)ly->flip;
	const v16i8 vlo = (v16i8){ 0 } + (int8_t)ly->lo_v;
	const v16i8 vhi = (v16i8){ 0 } + (int8_t)ly->hi_v;
	const v16i8 vz = (v16i8){ 0 } + (int8_t)ly->zero_v;
	struct rows_set t[ROWS_SETS_MAX];
	size_t r = 0, end;
	unsigned int a, j;

	for (a = 0; a < A; a++)
		memset(&t[a], 0, sizeof(t[a]));
	/* whole pairs of row groups: two rows' squares per 16-bit add */
	while (r + 2 * A <= rows) {
		end = r + 254 * (size_t)A;
		if (end > rows)
			end = rows - (rows - r) % (2 * A);
		for (a = 0; a < A; a++) {
			t[a].s[0] = t[a].s[1] = (v8i16){ 0 };
			t[a].cs = t[a].cz = (v16u8){ 0 };
		}
		for (; r < end; r += 2 * A)
			for (a = 0; a < A; a++) {
				v8u16 p[2] = { { 0 }, { 0 } };

				row_i8(&t[a], x + 16 * (r + a), flip8, flip, vlo, vhi, vz, p);
				row_i8(&t[a], x + 16 * (r + A + a), flip8, flip, vlo, vhi, vz, p);
				q_add(&t[a].q[0], p[0]);
				q_add(&t[a].q[2], p[1]);
			}
		for (a = 0; a < A; a++)
			for (j = 0; j < 16; j++) {
				lsum[16 * a + j] += t[a].s[j / 8][j % 8];
				lsat[16 * a + j] += t[a].cs[j];
				lzero[16 * a + j] += t[a].cz[j];
			}
	}
	for (a = 0; a < A; a++)
		for (j = 0; j < 16; j++)
			lsq[16 * a + j] += (int32_t)t[a].q[j / 4][j % 4];
	return r;
}

KERNEL
rows16_i8(struct facc *f, const struct ql_layout *ly, const uint8_t *x, size_t n)
{
	int32_t sum[QL_LANES], sq[QL_LANES], sat[QL_LANES], zero[QL_LANES];
	const unsigned int L = ly->L16, A = L / 16;
	const int8_t lo = (int8_t)ly->lo_v, hi = (int8_t)ly->hi_v, z = (int8_t)ly->zero_v;
	size_t r, i;
	unsigned int k, rem;

	memset(sum, 0, L * sizeof(sum[0]));
	memset(sq, 0, L * sizeof(sq[0]));
	memset(sat, 0, L * sizeof(sat[0]));
	memset(zero, 0, L * sizeof(zero[0]));
	/* one set stays in registers: its own copy of the loop */
	if (A == 1)
		r = rows_i8(sum, sq, sat, zero, ly, x, n / 16, 1);
	else
		r = rows_i8(sum, sq, sat, zero, ly, x, n / 16, A);
	i = 16 * r; /* a multiple of L: the rest starts at lane 0 */
	rem = (unsigned int)(n - i);
	for (k = 0; k < rem; k++) {
		int32_t v = (int8_t)(x[i + k] ^ (uint8_t)ly->flip);

		sum[k] += v;
		sq[k] += v * v;
		sat[k] += (v == lo) | (v == hi);
		zero[k] += v == z;
	}
	for (k = 0; k < L; k++)
		fold_lane(f, ly, k, i / L + (k < rem), (double)sum[k], (double)sq[k],
			  (uint64_t)sat[k], (uint64_t)zero[k], 0);
}

/*
 * Sub-byte data by byte histograms: byte j holds components j*per ..
 * j*per + per-1 (per = 8 / nbits), so with P = S / gcd(S, per) bytes per
 * period, byte j's components are always the same lanes for the same
 * j % P. Counting byte values per j % R (R a multiple of P: 8 when P
 * divides 8, read a word at a time, else at least 4, so that equal bytes
 * in a row do not wait on each other's increment) costs
 * one increment a byte; the fold then reads each lane's code counts off
 * the histogram (the marginal of its bit field), ~512 adds per byte of
 * the period.
 */
#define HIST_ROWS_MAX 16
#define HIST_PASS 65535u  /* bytes per pass: uint16 counts cannot overflow */

KERNEL
hist_fold(struct facc *f, const struct ql_layout *ly, uint16_t (*hist)[256])
{
	const unsigned int b = ly->enc.nbits, per = 8 / b, ncode = 1u << b;
	const uint32_t S = ly->enc.S;
	uint32_t cur[256], marg[16];
	unsigned int p, j, code, u, r, block;

	for (r = ly->hP; r < ly->hR; r++)
		for (u = 0; u < 256; u++)
			hist[r % ly->hP][u] += hist[r][u];
	/* the top field of a byte is a contiguous block per code; summing the
	 * blocks (collapsing that field) leaves the next field on top: each
	 * field's code counts in ~2 * 256 / ncode^level contiguous adds */
	for (p = 0; p < ly->hP; p++) {
		for (u = 0; u < 256; u++)
			cur[u] = hist[p][u];
		for (j = per; j-- > 0;) {
			unsigned int k = (p * per + j) % S;
			struct fbin *fb = &f->bin[ly->lane_bin[k]];
			int64_t sum = 0, sq = 0;
			uint64_t cnt = 0, sat = 0, zero = 0;

			block = 1u << (j * b);
			for (code = 0; code < ncode; code++) {
				uint32_t m = 0;

				for (u = 0; u < block; u++)
					m += cur[code * block + u];
				marg[code] = m;
			}
			for (code = 1; code < ncode; code++)
				for (u = 0; u < block; u++)
					cur[u] += cur[code * block + u];
			for (code = 0; code < ncode; code++) {
				cnt += marg[code];
				sum += (int64_t)marg[code] * ly->kv[code];
				sq += (int64_t)marg[code] * ly->kv[code] * ly->kv[code];
				sat += (uint64_t)marg[code] * ly->ksat[code];
				zero += (uint64_t)marg[code] * ly->kzero[code];
			}
			fb->n += cnt;
			fb->sum[ly->lane_im[k]] += (double)sum * ly->scale;
			fb->sq += (double)sq * ly->scale * ly->scale;
			fb->sat += sat;
			fb->zero += zero;
		}
	}
}

KERNEL
hist_sums(struct facc *f, const struct ql_layout *ly, const uint8_t *data, size_t nbytes)
{
	uint16_t hist[HIST_ROWS_MAX][256];
	const unsigned int R = ly->hR;
	size_t off, j, end;
	unsigned int r;

	for (off = 0; off < nbytes; off += HIST_PASS - HIST_PASS % R) {
		end = nbytes - off < HIST_PASS - HIST_PASS % R ? nbytes : off + HIST_PASS - HIST_PASS % R;
		memset(hist, 0, R * sizeof(hist[0]));
		/* every pass starts on a multiple of R bytes: row r is j % R */
		j = off;
		if (R == 8) {
			/* a word at a time: one load for eight counts */
			for (; j + 8 <= end; j += 8) {
				uint64_t w;

				memcpy(&w, data + j, 8);
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
				w = __builtin_bswap64(w);
#endif
				for (r = 0; r < 8; r++)
					hist[r][(w >> (8 * r)) & 0xff]++;
			}
		} else {
			for (; j + R <= end; j += R)
				for (r = 0; r < R; r++)
					hist[r][data[j + r]]++;
		}
		for (r = 0; j < end; j++, r++)
			hist[r][data[j]]++;
		hist_fold(f, ly, hist);
	}
}

/* Sub-byte components to one kernel value (int8) each, through the table. */
KERNEL
expand(const struct ql_layout *ly, const uint8_t *in, size_t nbytes, int8_t *out)
{
	unsigned int per = 8 / ly->enc.nbits;
	size_t j;

	switch (per) {
	case 8:
		for (j = 0; j < nbytes; j++)
			memcpy(out + 8 * j, ly->lut[in[j]], 8);
		break;
	case 4:
		for (j = 0; j < nbytes; j++)
			memcpy(out + 4 * j, ly->lut[in[j]], 4);
		break;
	default:
		for (j = 0; j < nbytes; j++)
			memcpy(out + 2 * j, ly->lut[in[j]], 2);
		break;
	}
}

/* int8 values, by the fastest way the layout allows. */
KERNEL
chunk_i8(struct facc *f, const struct ql_layout *ly, const uint8_t *x, size_t n, uint32_t *pos)
{
	if (ly->L16 != 0)
		rows16_i8(f, ly, x, n);
	else if (ly->L != 0)
		lanes_i8(f, ly, x, n);
	else
		runs_i8(f, ly, x, n, pos);
}

/*
 * Decode n components of data into f. The kernels are compiled twice on
 * x86-64 with GCC (AVX2 and the baseline), the better one picked at load.
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
	!defined(__SANITIZE_ADDRESS__)
__attribute__((target_clones("avx2", "default")))
#endif
static void
frame_sums(struct facc *f, const struct ql_layout *ly, const uint8_t *data, uint64_t n)
{
	unsigned int b = ly->enc.nbits;
	uint64_t chunk, i, L;
	uint32_t pos = 0;

	if (ly->hR != 0) {
		hist_sums(f, ly, data, n * b / 8);
		return;
	}
	/* chunks start at lane 0 and on a byte: a multiple of L and of 8 */
	L = b <= 8 && ly->L16 != 0 ? ly->L16 : ly->L;
	if (L != 0)
		chunk = L * 8 * (QL_CHUNK / (8 * L) > 0 ? QL_CHUNK / (8 * L) : 1);
	else
		chunk = QL_CHUNK;

	for (i = 0; i < n; i += chunk) {
		uint64_t m = n - i < chunk ? n - i : chunk;

		if (b < 8) {
			int8_t scratch[QL_CHUNK + 8];

			expand(ly, data + i * b / 8, (m * b + 7) / 8, scratch);
			chunk_i8(f, ly, (const uint8_t *)scratch, m, &pos);
			continue;
		}
		switch (b) {
		case 8:
			chunk_i8(f, ly, data + i, m, &pos);
			break;
		case 16:
			if (ly->L != 0)
				lanes_i16(f, ly, data + 2 * i, m);
			else
				runs_i16(f, ly, data + 2 * i, m, &pos);
			break;
		default:
			if (ly->enc.is_float) {
				if (ly->L != 0)
					lanes_f32(f, ly, data + 4 * i, m);
				else
					runs_f32(f, ly, data + 4 * i, m, &pos);
			} else {
				if (ly->L != 0)
					lanes_i32(f, ly, data + 4 * i, m);
				else
					runs_i32(f, ly, data + 4 * i, m, &pos);
			}
			break;
		}
	}
}

/* ---- Layout: the plan for one format ------------------------------------ */

static uint64_t
fmt_key(const struct codif_hdr *h)
{
	return 1ULL << 63 | (uint64_t)h->nbits | (uint64_t)(h->representation & 0xf) << 8 |
	       (uint64_t)h->complex << 12 | (uint64_t)h->nchan << 16;
}

static uint32_t
gcd32(uint32_t a, uint32_t b)
{
	while (b != 0) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static void
layout(struct ql_layout *ly, const struct codif_hdr *h)
{
	const struct codif_signal_enc *e = &ly->enc;
	uint32_t k, c, v, lcm16;
	unsigned int per, j;

	memset(ly, 0, sizeof(*ly));
	ly->key = fmt_key(h);
	ly->ok = codif_signal_enc_init(&ly->enc, h, NULL, 0) == 0;
	if (!ly->ok)
		return;
	ly->cpb = (e->nchan + QL_MAX_BINS - 1) / QL_MAX_BINS;
	ly->nbin = (e->nchan + ly->cpb - 1) / ly->cpb;
	ly->run = ly->cpb * e->ncomp;
	for (k = 0; k < QL_LANES; k++) {
		c = k % e->S;
		ly->lane_bin[k] = (uint8_t)(c / e->ncomp / ly->cpb);
		ly->lane_im[k] = (uint8_t)(c % e->ncomp);
	}
	if (e->S <= QL_LANES)
		ly->L = e->S * (QL_LANE_TARGET / e->S > 0 ? QL_LANE_TARGET / e->S : 1);
	lcm16 = e->S / gcd32(e->S, 16) * 16;
	if (e->nbits <= 8 && !e->is_float && lcm16 <= QL_LANES)
		ly->L16 = lcm16;
	if (e->is_float) {
		ly->scale = 1.0;
		return;
	}
	/* integers: kernel value = two's complement value, doubled for the
	 * mid-rise 1/2-bit levels so they stay integers */
	ly->scale = e->midrise ? 0.5 : 1.0;
	ly->lo_v = (int32_t)(codif_signal_value(e, e->lo_code) / ly->scale);
	ly->hi_v = (int32_t)(codif_signal_value(e, e->hi_code) / ly->scale);
	ly->zero_v = (int32_t)(codif_signal_value(e, e->zero_code) / ly->scale);
	if (e->nbits >= 8) {
		ly->flip = e->flip;
		return;
	}
	per = 8 / e->nbits;
	for (v = 0; v < e->ncode; v++) {
		ly->kv[v] = (int8_t)(codif_signal_value(e, v) / ly->scale);
		ly->ksat[v] = v == e->lo_code || v == e->hi_code;
		ly->kzero[v] = v == e->zero_code;
	}
	for (v = 0; v < 256; v++)
		for (j = 0; j < per; j++)
			ly->lut[v][j] = ly->kv[v >> (j * e->nbits) & (e->ncode - 1)];
	/* byte histograms when a period is at most 64 components in at most
	 * 16 bytes (the fold reads 256 counts per component of a period) */
	ly->hP = e->S / gcd32(e->S, per);
	if (ly->hP * per <= 64 && ly->hP <= HIST_ROWS_MAX) {
		/* 8 rows when a period divides 8 bytes (a word a step), else
		 * at least 4 */
		ly->hR = 8 % ly->hP == 0 ? 8 : ly->hP;
		while (ly->hR < 4)
			ly->hR += ly->hP;
	} else {
		ly->hP = 0;
	}
}

/* ---- Writer ------------------------------------------------------------- */

void
ql_cfg_defaults(struct ql_cfg *c)
{
	c->every = QL_EVERY_DEFAULT;
	c->min_gap = 0;
	c->min = 0;
}

/* Publish the first nbytes of the writer's copy (a sequence lock). */
static void
publish(struct ql_acc *a, size_t nbytes)
{
	const uint8_t *src = (const uint8_t *)&a->own;
	uint64_t s = a->seq, w;
	size_t i, nw = (nbytes + 7) / 8;

	__atomic_store_n(&a->seq, s + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (i = 0; i < nw; i++) {
		memcpy(&w, src + 8 * i, 8);
		__atomic_store_n(&a->pub[i], w, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&a->seq, s + 2, __ATOMIC_RELEASE);
}

static size_t
used_bytes(const struct ql_acc *a)
{
	return offsetof(struct ql_snap, bin) + (size_t)a->own.nbin * sizeof(struct ql_sums);
}

int
ql_init(struct ql_acc *a, const struct ql_cfg *cfg)
{
	if (cfg == NULL || cfg->every == 0)
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	a->cfg = *cfg;
	a->since = cfg->every - 1; /* the first frame is sampled */
	a->floor = cfg->min;       /* and the first interval's minimum */
	return 0;
}

struct ql_acc *
ql_create(const struct ql_cfg *cfg)
{
	struct ql_acc *a;
	int rc;

	a = aligned_alloc(64, (sizeof(*a) + 63) / 64 * 64);
	if (a == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	rc = ql_init(a, cfg);
	if (rc != 0) {
		free(a);
		errno = -rc;
		return NULL;
	}
	return a;
}

void
ql_free(struct ql_acc *a)
{
	free(a);
}

/* A new format: sums afresh, a new generation, the whole copy published. */
static void
new_format(struct ql_acc *a, const struct codif_hdr *h)
{
	struct ql_snap *o = &a->own;

	layout(&a->lay, h);
	o->gen++;
	o->nbits = h->nbits;
	o->repr = h->representation;
	o->complex = h->complex;
	o->nchan = h->nchan;
	o->nbin = (uint16_t)a->lay.nbin;
	o->chan_per_bin = a->lay.cpb;
	memset(&o->total, 0, sizeof(o->total));
	memset(o->bin, 0, sizeof(o->bin));
	publish(a, sizeof(*o));
}

static void
sums_add(struct ql_sums *d, const struct fbin *b)
{
	d->n += b->n;
	d->sat += b->sat;
	d->zero += b->zero;
	d->excl += b->excl;
	d->sum_re += b->sum[0];
	d->sum_im += b->sum[1];
	d->sumsq += b->sq;
}

int
ql_frame(struct ql_acc *a, const struct codif_hdr *h, const void *data, size_t len)
{
	struct ql_snap *o = &a->own;
	struct facc f;
	struct fbin tot;
	uint64_t n;
	uint32_t b;

	o->sampled++;
	if (h->invalid) {
		o->invalid++;
		publish(a, used_bytes(a));
		return -EINVAL;
	}
	if (len != codif_data_bytes(h)) {
		o->bad_len++;
		publish(a, used_bytes(a));
		return -EBADMSG;
	}
	if (fmt_key(h) != a->lay.key)
		new_format(a, h);
	if (!a->lay.ok) {
		o->unsupported++;
		publish(a, used_bytes(a));
		return -ENOTSUP;
	}
	memset(f.bin, 0, a->lay.nbin * sizeof(f.bin[0]));
	n = (uint64_t)len * 8 / a->lay.enc.nbits;
	frame_sums(&f, &a->lay, data, n);

	memset(&tot, 0, sizeof(tot));
	for (b = 0; b < a->lay.nbin; b++) {
		sums_add(&o->bin[b], &f.bin[b]);
		tot.n += f.bin[b].n;
		tot.sat += f.bin[b].sat;
		tot.zero += f.bin[b].zero;
		tot.excl += f.bin[b].excl;
		tot.sum[0] += f.bin[b].sum[0];
		tot.sum[1] += f.bin[b].sum[1];
		tot.sq += f.bin[b].sq;
	}
	sums_add(&o->total, &tot);
	o->used++;
	publish(a, used_bytes(a));
	return 0;
}

/* ---- Readers ------------------------------------------------------------ */

void
ql_read(const struct ql_acc *a, struct ql_snap *out)
{
	uint64_t w[QL_SNAP_WORDS];
	uint64_t s;
	size_t i;

	for (;;) {
		s = __atomic_load_n(&a->seq, __ATOMIC_ACQUIRE);
		if (s & 1) {
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#endif
			continue;
		}
		for (i = 0; i < QL_SNAP_WORDS; i++)
			w[i] = __atomic_load_n(&a->pub[i], __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&a->seq, __ATOMIC_RELAXED) == s)
			break;
	}
	memcpy(out, w, sizeof(*out));
}

static bool
same_format(const struct ql_snap *a, const struct ql_snap *b)
{
	return a->nbits == b->nbits && a->repr == b->repr && a->complex == b->complex &&
	       a->nchan == b->nchan;
}

static void
sums_plus(struct ql_sums *d, const struct ql_sums *s)
{
	d->n += s->n;
	d->sat += s->sat;
	d->zero += s->zero;
	d->excl += s->excl;
	d->sum_re += s->sum_re;
	d->sum_im += s->sum_im;
	d->sumsq += s->sumsq;
}

void
ql_snap_add(struct ql_snap *dst, const struct ql_snap *src)
{
	uint16_t b;

	if (dst->nbits == 0 && dst->gen == 0 && dst->total.n == 0) {
		dst->nbits = src->nbits;
		dst->repr = src->repr;
		dst->complex = src->complex;
		dst->nchan = src->nchan;
		dst->nbin = src->nbin;
		dst->chan_per_bin = src->chan_per_bin;
	} else if (src->nbits != 0 && !same_format(dst, src)) {
		dst->nbin = 0;
		dst->chan_per_bin = 0;
	}
	dst->gen += src->gen;
	dst->offered += src->offered;
	dst->sampled += src->sampled;
	dst->used += src->used;
	dst->invalid += src->invalid;
	dst->bad_len += src->bad_len;
	dst->unsupported += src->unsupported;
	sums_plus(&dst->total, &src->total);
	for (b = 0; b < dst->nbin; b++)
		sums_plus(&dst->bin[b], &src->bin[b]);
}

static void
sums_minus(struct ql_sums *d, const struct ql_sums *a, const struct ql_sums *b)
{
	d->n = a->n - b->n;
	d->sat = a->sat - b->sat;
	d->zero = a->zero - b->zero;
	d->excl = a->excl - b->excl;
	d->sum_re = a->sum_re - b->sum_re;
	d->sum_im = a->sum_im - b->sum_im;
	d->sumsq = a->sumsq - b->sumsq;
}

static void
stat_of(struct ql_stat *st, const struct ql_sums *s, const struct ql_snap *fmt)
{
	unsigned int ncomp = fmt->complex ? 2 : 1;
	uint64_t nv = s->n - s->excl;  /* samples in the value sums */
	double npart, var, thr;

	memset(st, 0, sizeof(*st));
	st->n = s->n;
	if (s->n == 0) {
		st->verdict = QL_NODATA;
		return;
	}
	st->sat = (double)s->sat / (double)s->n;
	st->zero = (double)s->zero / (double)s->n;
	if (nv > 0) {
		npart = (double)nv / ncomp;
		st->mean_re = s->sum_re / npart;
		st->mean_im = fmt->complex ? s->sum_im / npart : 0.0;
		st->power = s->sumsq / (double)nv;
	}
	var = st->power - (st->mean_re * st->mean_re + st->mean_im * st->mean_im) / ncomp;
	if (var < 0)
		var = 0;
	st->rms = sqrt(var);

	thr = fmt->nbits == 2 ? QL_SAT_FRAC_2BIT : QL_SAT_FRAC;
	if (st->zero >= QL_DEAD_ZERO_FRAC)
		st->verdict = QL_DEAD;
	else if (fmt->nbits != 1 && st->sat >= thr)
		st->verdict = QL_SATURATED;
	else if (var <= QL_CONST_REL * st->power)
		st->verdict = QL_DEAD;
	else
		st->verdict = QL_OK;
}

void
ql_figs(const struct ql_snap *now, const struct ql_snap *prev, struct ql_figs *f)
{
	static const struct ql_snap zero;
	const struct ql_snap *p = prev != NULL ? prev : &zero;
	bool same = prev != NULL && prev->gen == now->gen;
	struct ql_sums d;
	uint16_t b;

	memset(f, 0, sizeof(*f));
	f->offered = now->offered - p->offered;
	f->sampled = now->sampled - p->sampled;
	f->used = now->used - p->used;
	f->invalid = now->invalid - p->invalid;
	f->bad_len = now->bad_len - p->bad_len;
	f->unsupported = now->unsupported - p->unsupported;
	f->nbits = now->nbits;
	f->repr = now->repr;
	f->complex = now->complex != 0;
	f->nchan = now->nchan;
	f->nbin = now->nbin;
	f->chan_per_bin = now->chan_per_bin;
	f->restarted = prev != NULL && !same;
	if (!same)
		p = &zero;
	sums_minus(&d, &now->total, &p->total);
	stat_of(&f->total, &d, now);
	for (b = 0; b < now->nbin && b < QL_MAX_BINS; b++) {
		sums_minus(&d, &now->bin[b], &p->bin[b]);
		stat_of(&f->bin[b], &d, now);
	}
}

const char *
ql_verdict_name(enum ql_verdict v)
{
	switch (v) {
	case QL_NODATA:
		return "nodata";
	case QL_OK:
		return "ok";
	case QL_DEAD:
		return "dead";
	case QL_SATURATED:
		return "saturated";
	}
	return "?";
}
