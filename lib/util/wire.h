/* SPDX-License-Identifier: BSD-3-Clause */
/* Loads and stores in a wire's byte order, whatever the host's: CODIF is
 * little-endian, Ethernet/IPv4/UDP big-endian. Unaligned access through
 * memcpy (one load or store on x86). Header only: the pure libraries
 * (lib/codif, lib/pkt, lib/acct) include it without linking lib/util. */

#ifndef WIRE_H
#define WIRE_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t
ld_le64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline uint32_t
ld_le32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline void
st_le64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static inline uint16_t
ld_be16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return be16toh(v);
}

static inline uint32_t
ld_be32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

static inline void
st_be16(uint8_t *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void
st_be32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

#endif /* WIRE_H */
