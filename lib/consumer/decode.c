/* SPDX-License-Identifier: BSD-3-Clause */
/* libibvcap's sample decoding: a frame of a block's view into float32
 * values, in the encoding lib/codif's codif_signal defines (the one owner
 * of what the bytes mean: each code's value comes from
 * codif_signal_value). A decoder per stream, made on first use and again
 * when the stream's parameters change, holds a table of values: per byte
 * for packed 1-, 2- and 4-bit components, per code for 8 and 16 bits. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "codif.h"
#include "codif_signal.h"
#include "consumer.h"

struct cons_dec {
	uint8_t hdr[CODIF_HDR_LEN];  /* the header it was made for */
	struct codif_signal_enc e;
	int rc;                      /* 0, or -ENOTSUP */
	uint32_t per_byte;           /* components per byte (nbits < 8) */
	float *lut;                  /* nbits < 8: 256 x per_byte values;
					8, 16: a value per code; 32: NULL */
};

void
cons_dec_free(struct cons_ant *ca)
{
	uint32_t s;

	for (s = 0; s < ca->nslots; s++) {
		if (ca->dec[s] != NULL)
			free(ca->dec[s]->lut);
		free(ca->dec[s]);
		ca->dec[s] = NULL;
	}
}

/* The table of values of encoding e. @return 0, -ENOMEM. */
static int
dec_table(struct cons_dec *d)
{
	const struct codif_signal_enc *e = &d->e;
	uint32_t b, j, ncode;

	if (e->nbits < 8) {
		d->per_byte = 8u / e->nbits;
		d->lut = malloc(256 * d->per_byte * sizeof(float));
		if (d->lut == NULL)
			return -ENOMEM;
		for (b = 0; b < 256; b++)
			for (j = 0; j < d->per_byte; j++)
				d->lut[b * d->per_byte + j] =
					(float)codif_signal_value(e, b >> (j * e->nbits));
		return 0;
	}
	if (e->nbits > 16)
		return 0;
	ncode = 1u << e->nbits;
	d->lut = malloc(ncode * sizeof(float));
	if (d->lut == NULL)
		return -ENOMEM;
	for (b = 0; b < ncode; b++)
		d->lut[b] = (float)codif_signal_value(e, b);
	return 0;
}

/* The decoder of slot s for header hdr, made or remade. NULL: no memory. */
static struct cons_dec *
dec_get(struct cons_ant *ca, uint32_t s, const uint8_t *hdr)
{
	struct cons_dec *d = ca->dec[s];
	struct codif_hdr h;

	if (d != NULL && memcmp(d->hdr, hdr, CODIF_HDR_LEN) == 0)
		return d;
	if (d == NULL) {
		d = calloc(1, sizeof(*d));
		if (d == NULL)
			return NULL;
		ca->dec[s] = d;
	}
	free(d->lut);
	d->lut = NULL;
	memcpy(d->hdr, hdr, CODIF_HDR_LEN);
	d->rc = codif_decode(hdr, CODIF_HDR_LEN, &h, NULL, 0);
	if (d->rc == 0)
		d->rc = codif_signal_enc_init(&d->e, &h, NULL, 0) != 0 ? -ENOTSUP : 0;
	if (d->rc == 0)
		d->rc = dec_table(d);
	return d;
}

/* n components of data into out, by the decoder's table (or the 32-bit
 * values). */
static void
dec_run(const struct cons_dec *d, const uint8_t *data, float *out, size_t n)
{
	size_t k, j;

	if (d->e.nbits < 8) {
		for (k = 0; k < n; k += d->per_byte) {
			const float *v = d->lut + (size_t)data[k / d->per_byte] * d->per_byte;

			for (j = 0; j < d->per_byte && k + j < n; j++)
				out[k + j] = v[j];
		}
	} else if (d->e.nbits == 8) {
		for (k = 0; k < n; k++)
			out[k] = d->lut[data[k]];
	} else if (d->e.nbits == 16) {
		for (k = 0; k < n; k++)
			out[k] = d->lut[(uint32_t)data[2 * k] | (uint32_t)data[2 * k + 1] << 8];
	} else {
		for (k = 0; k < n; k++) {
			uint32_t code;

			memcpy(&code, data + 4 * k, 4); /* little-endian, as the host */
			if (d->e.is_float)
				memcpy(&out[k], &code, 4);
			else
				out[k] = (float)codif_signal_value(&d->e, code);
		}
	}
}

IBVCAP_EXPORT int
ibvcap_decode(struct ibvcap *c, const struct ibvcap_block *b, uint32_t k, uint32_t s,
	      uint32_t i, float *out, size_t n)
{
	const struct ibvcap_view *w;
	struct cons_ant *ca;
	struct cons_dec *d;
	size_t ncomp;

	if (!c->held || b != &c->blk || k >= c->nants || s >= c->ant[k].nslots || i >= c->T)
		return -EINVAL;
	ca = &c->ant[k];
	w = &ca->view[s];
	if (w->data_bytes == 0 || w->nbits == 0)
		return -EINVAL;
	ncomp = (size_t)w->samples * w->nchan * (w->complex ? 2 : 1);
	if (n < ncomp)
		return -ENOSPC;
	if (ncomp * w->nbits > (size_t)w->data_bytes * 8)
		return -EINVAL; /* a header that says more than the frame holds */
	d = dec_get(ca, s, ca->hdr[s]);
	if (d == NULL)
		return -ENOMEM;
	if (d->rc != 0)
		return d->rc;
	dec_run(d, w->frame[i], out, ncomp);
	return (int)ncomp;
}
