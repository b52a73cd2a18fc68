/* SPDX-License-Identifier: BSD-3-Clause */
/* Deterministic CODIF payload generator and checker (xorshift64* stream). */

#include <string.h>

#include "codif_pattern.h"

static inline uint64_t
splitmix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

uint64_t
codif_pattern_seed(const struct codif_hdr *h)
{
	uint64_t ids = (uint64_t)h->stationid << 48 |
		       (uint64_t)h->secondaryid << 32 |
		       (uint64_t)h->groupid << 16 | h->threadid;
	uint64_t t = (uint64_t)h->seconds << 32 | h->frame;
	uint64_t s = splitmix64(splitmix64(ids) ^ t);

	return s != 0 ? s : 1;
}

static inline uint64_t
next_word(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* Words are stored little-endian so the bytes are the same on any host. */
static inline void
put_word(uint8_t *p, uint64_t v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

void
codif_pattern_fill(const struct codif_hdr *h, void *buf, size_t len)
{
	uint64_t s = codif_pattern_seed(h);
	uint8_t *p = buf;
	size_t off = 0;

	for (; off + 8 <= len; off += 8) {
		uint64_t w = next_word(&s);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		memcpy(p + off, &w, 8);
#else
		put_word(p + off, w, 8);
#endif
	}
	if (off < len)
		put_word(p + off, next_word(&s), len - off);
}

bool
codif_pattern_check(const struct codif_hdr *h, const void *buf, size_t len,
		    size_t *bad_off)
{
	uint64_t s = codif_pattern_seed(h);
	const uint8_t *p = buf;
	uint8_t w[8];
	size_t off, i, n;

	for (off = 0; off < len; off += 8) {
		n = len - off < 8 ? len - off : 8;
		put_word(w, next_word(&s), n);
		if (memcmp(w, p + off, n) != 0) {
			for (i = 0; i < n && w[i] == p[off + i]; i++)
				;
			if (bad_off != NULL)
				*bad_off = off + i;
			return false;
		}
	}
	return true;
}
