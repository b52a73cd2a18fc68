/* SPDX-License-Identifier: BSD-3-Clause */
/* Log-scale histogram: 16 buckets per octave, exact below 16. */

#include <math.h>
#include <string.h>

#include "hist.h"

unsigned int
cc_hist_bucket(uint64_t u)
{
	unsigned int e;

	if (u < CC_HIST_SUB)
		return (unsigned int)u;
	e = 63u - (unsigned int)__builtin_clzll(u); /* 4 .. 63 */
	return CC_HIST_SUB + (e - 4) * CC_HIST_SUB +
	       (unsigned int)((u >> (e - 4)) & (CC_HIST_SUB - 1));
}

void
cc_hist_bucket_range(unsigned int b, uint64_t *lo, uint64_t *hi)
{
	unsigned int e, sub;

	if (b < CC_HIST_SUB) {
		*lo = *hi = b;
		return;
	}
	e = (b - CC_HIST_SUB) / CC_HIST_SUB + 4;
	sub = (b - CC_HIST_SUB) % CC_HIST_SUB;
	*lo = (uint64_t)(CC_HIST_SUB + sub) << (e - 4);
	*hi = *lo + ((1ULL << (e - 4)) - 1);
}

void
cc_hist_init(struct cc_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = INT64_MAX;
	h->max = INT64_MIN;
}

static uint64_t
magnitude(int64_t v)
{
	return v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v;
}

void
cc_hist_add(struct cc_hist *h, int64_t v)
{
	unsigned int b = cc_hist_bucket(magnitude(v));

	if (v < 0)
		h->c[CC_HIST_NB - 1 - b]++;
	else
		h->c[CC_HIST_NB + b]++;
	h->n++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

static int64_t
bucket_mid(unsigned int i)
{
	uint64_t lo, hi, mid;

	if (i < CC_HIST_NB) {
		cc_hist_bucket_range(CC_HIST_NB - 1 - i, &lo, &hi);
		mid = lo + (hi - lo) / 2;
		return mid > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)mid;
	}
	cc_hist_bucket_range(i - CC_HIST_NB, &lo, &hi);
	mid = lo + (hi - lo) / 2;
	return mid > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)mid;
}

int64_t
cc_hist_quantile(const struct cc_hist *h, double q)
{
	uint64_t rank, acc = 0;
	unsigned int i;
	int64_t v;

	if (h->n == 0)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	rank = (uint64_t)ceil(q * (double)h->n);
	if (rank == 0)
		rank = 1;
	for (i = 0; i < 2 * CC_HIST_NB; i++) {
		acc += h->c[i];
		if (acc >= rank)
			break;
	}
	v = bucket_mid(i < 2 * CC_HIST_NB ? i : 2 * CC_HIST_NB - 1);
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}
