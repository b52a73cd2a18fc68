/* SPDX-License-Identifier: BSD-3-Clause */
/* Gap runs of one stream: append, insert, merge, and split on late arrivals. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gaps.h"

void
cc_gaps_init(struct cc_gaps *g)
{
	memset(g, 0, sizeof(*g));
}

void
cc_gaps_free(struct cc_gaps *g)
{
	free(g->v);
	cc_gaps_init(g);
}

static int
reserve(struct cc_gaps *g, size_t n)
{
	struct cc_gap *v;
	size_t cap;

	if (n <= g->cap)
		return 0;
	cap = g->cap != 0 ? g->cap * 2 : 8;
	while (cap < n)
		cap *= 2;
	v = realloc(g->v, cap * sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	g->v = v;
	g->cap = cap;
	return 0;
}

/* Index of the first run whose last >= n (g->n if none): gaps arrive in
 * order, so the answer is nearly always at the end; binary search for the
 * rest. */
static size_t
lower(const struct cc_gaps *g, int64_t n)
{
	size_t lo = 0, hi = g->n;

	if (g->n == 0 || g->v[g->n - 1].last < n)
		return g->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (g->v[mid].last < n)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int
insert_at(struct cc_gaps *g, size_t i, const struct cc_gap *r)
{
	if (reserve(g, g->n + 1) != 0)
		return -ENOMEM;
	memmove(&g->v[i + 1], &g->v[i], (g->n - i) * sizeof(g->v[0]));
	g->v[i] = *r;
	g->n++;
	return 0;
}

int
cc_gaps_add(struct cc_gaps *g, int64_t first, int64_t last, enum cc_gap_kind k)
{
	struct cc_gap r = { first, last, k };
	struct cc_gap *prev, *next;
	size_t i;

	if (last < first || (unsigned int)k >= CC_GAP__COUNT)
		return -EINVAL;
	i = lower(g, first);
	if (i < g->n && g->v[i].first <= last)
		return -EINVAL; /* overlaps run i */
	prev = i > 0 ? &g->v[i - 1] : NULL;
	next = i < g->n ? &g->v[i] : NULL;
	g->frames[k] += (uint64_t)(last - first + 1);
	if (prev != NULL && prev->kind == k && prev->last + 1 == first) {
		prev->last = last;
		if (next != NULL && next->kind == k && next->first == last + 1) {
			prev->last = next->last;
			memmove(next, next + 1, (g->n - i - 1) * sizeof(*next));
			g->n--;
		}
		return 0;
	}
	if (next != NULL && next->kind == k && next->first == last + 1) {
		next->first = first;
		return 0;
	}
	if (insert_at(g, i, &r) != 0) {
		g->frames[k] -= (uint64_t)(last - first + 1);
		return -ENOMEM;
	}
	return 0;
}

int
cc_gaps_fill(struct cc_gaps *g, int64_t n)
{
	size_t i = lower(g, n);
	struct cc_gap *r, tail;

	if (i == g->n || g->v[i].first > n || g->v[i].kind != CC_GAP_MISSING)
		return -ENOENT;
	r = &g->v[i];
	if (r->first == n && r->last == n) {
		memmove(r, r + 1, (g->n - i - 1) * sizeof(*r));
		g->n--;
	} else if (r->first == n) {
		r->first++;
	} else if (r->last == n) {
		r->last--;
	} else {
		tail = *r;
		tail.first = n + 1;
		if (insert_at(g, i + 1, &tail) != 0)
			return -ENOMEM;
		g->v[i].last = n - 1;
	}
	g->frames[CC_GAP_MISSING]--;
	return 0;
}

uint64_t
cc_gaps_total(const struct cc_gaps *g)
{
	return g->frames[CC_GAP_MISSING] + g->frames[CC_GAP_FILLED];
}
