/* SPDX-License-Identifier: BSD-3-Clause */
/* A stream's CODIF parameters as the formats' indexes and codifcheck's
 * reports write them (docs/formats.md, "params"). */

#include "codif.h"
#include "fmt.h"
#include "json.h"

void
fmt_params_json(json_t *o, const char *key, const struct codif_hdr *h)
{
	json_t *p = js_obj(o, key);

	js_u64(p, "nchan", h->nchan);
	js_u64(p, "nbits", h->nbits);
	js_bool(p, "complex", h->complex);
	js_u64(p, "representation", h->representation);
	js_u64(p, "period", h->period);
	js_u64(p, "totalsamples", h->totalsamples);
	js_u64(p, "frames_per_period", codif_frames_per_period(h));
	js_u64(p, "frame_ns", codif_frame_ns(h));
	js_u64(p, "data_bytes", codif_data_bytes(h));
	js_dbl(p, "data_rate_bps", codif_data_rate_bps(h));
	js_u64(p, "epoch", h->epoch);
}
