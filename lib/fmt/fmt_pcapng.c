/* SPDX-License-Identifier: BSD-3-Clause */
/* The pcapng format: the section header and interface blocks at the start,
 * an enhanced packet block per packet, written into lib/fio's staging
 * (docs/formats.md, "pcapng"). Written from the pcapng specification
 * (draft-ietf-opsawg-pcapng); libpcap reads the files back. */

#include <errno.h>
#include <string.h>

#include "fmt_int.h"
#include "fmt_pcapng.h"

/* A block being built: at most this many bytes (a section header with its
 * comment and program, or one interface's block). */
#define BLOCK_MAX 2048

struct blk {
	uint8_t b[BLOCK_MAX];
	uint32_t n;
};

static void
put32(struct blk *k, uint32_t v)
{
	memcpy(k->b + k->n, &v, 4);
	k->n += 4;
}

/* An option: code, length, value padded to 4 bytes; a value too long for
 * the block is cut (the caller's strings are short). */
static void
opt(struct blk *k, uint16_t code, const void *v, size_t len)
{
	uint16_t h[2];
	size_t room = BLOCK_MAX - k->n - 4 - 8 - 4; /* this header, end, trailer */

	if (len > room)
		len = room & ~(size_t)3;
	h[0] = code;
	h[1] = (uint16_t)len;
	memcpy(k->b + k->n, h, 4);
	k->n += 4;
	memcpy(k->b + k->n, v, len);
	memset(k->b + k->n + len, 0, (4 - len % 4) % 4);
	k->n += (uint32_t)((len + 3) & ~(size_t)3);
}

static void
opt_str(struct blk *k, uint16_t code, const char *s)
{
	if (s != NULL && s[0] != '\0')
		opt(k, code, s, strlen(s));
}

/* opt_endofopt, the trailing length, and the length at byte 4. */
static int
finish(struct fmt_sink *s, struct blk *k)
{
	uint32_t zero = 0;

	memcpy(k->b + k->n, &zero, 4);
	k->n += 4;
	put32(k, k->n + 4);
	memcpy(k->b + 4, &k->n, 4);
	return fio_append(&s->f, k->b, k->n);
}

int
fmt_pcapng_start(struct fmt_sink *s, const struct fmt_opts *o)
{
	static struct fmt_iface unnamed;
	const struct fmt_iface *ifs = o->nifaces > 0 ? o->ifaces : &unnamed;
	unsigned int n = o->nifaces > 0 ? o->nifaces : 1, i;
	struct blk k;
	uint16_t ver[2] = { 1, 0 };
	int64_t unknown = -1; /* section length: not said */
	uint8_t tsresol = 9;  /* 10^-9 s */
	int rc;

	k.n = 0;
	put32(&k, FMT_PCAPNG_SHB);
	put32(&k, 0);
	put32(&k, FMT_PCAPNG_BOM);
	memcpy(k.b + k.n, ver, 4);
	k.n += 4;
	memcpy(k.b + k.n, &unknown, 8);
	k.n += 8;
	opt_str(&k, FMT_PCAPNG_OPT_COMMENT, o->comment);
	opt_str(&k, FMT_PCAPNG_SHB_USERAPPL, o->app);
	rc = finish(s, &k);
	for (i = 0; i < n && rc == 0; i++) {
		uint16_t lt[2] = { DLT_EN10MB, 0 };
		uint32_t addr[2];

		k.n = 0;
		put32(&k, FMT_PCAPNG_IDB);
		put32(&k, 0);
		memcpy(k.b + k.n, lt, 4);
		k.n += 4;
		put32(&k, s->snaplen);
		opt_str(&k, FMT_PCAPNG_IF_NAME, ifs[i].name);
		if (ifs[i].ipv4 != 0) {
			/* address and mask in network byte order */
			addr[0] = __builtin_bswap32(ifs[i].ipv4);
			addr[1] = 0xFFFFFFFFu;
			opt(&k, FMT_PCAPNG_IF_IPV4, addr, 8);
		}
		opt(&k, FMT_PCAPNG_IF_TSRESOL, &tsresol, 1);
		rc = finish(s, &k);
	}
	s->nifaces = n;
	fmt_record_end(s);
	return rc;
}

uint8_t *
fmt_pcapng_record(struct fmt_sink *s, uint32_t iface, int64_t t_ns, uint32_t caplen,
		  uint32_t len)
{
	uint32_t total = fmt_pcapng_epb_bytes(caplen);
	uint64_t ts = (uint64_t)t_ns;
	const uint32_t hdr[7] = { FMT_PCAPNG_EPB, total, iface, (uint32_t)(ts >> 32),
				  (uint32_t)ts, caplen, len };
	uint8_t *p;

	if (iface >= s->nifaces)
		return NULL;
	p = fio_reserve(&s->f, total);
	if (p == NULL)
		return NULL;
	memcpy(p, hdr, sizeof(hdr));
	/* padding and the trailing length; the caller fills the packet */
	memset(p + total - FMT_PCAPNG_EPB_TAIL - 4, 0, 4);
	memcpy(p + total - FMT_PCAPNG_EPB_TAIL, &total, 4);
	s->cur.frames++; /* a packet */
	return p + FMT_PCAPNG_EPB_HDR;
}
