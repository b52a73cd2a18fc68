/* SPDX-License-Identifier: BSD-3-Clause */
/* What lib/gen's files share among themselves, and no caller sees. */

#ifndef GEN_PRIV_H
#define GEN_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen.h"

/* Pending packets of one future slot of one stream. */
struct gen_pend {
	struct gen_pkt *v;
	unsigned int n, cap;
};

/* How a receiver counts an odd frame, in lib/acct's order of checks. */
enum gen_odd_class { ODD_MALFORMED, ODD_IMPLAUSIBLE, ODD_PARAMS };

/* Whether stream s is among those --antenna emits. */
static inline bool
gen_selected(const struct gen *g, const struct gen_stream *s)
{
	return g->cfg.select == 0 || (g->cfg.select >> s->ant & 1);
}

/* Whether event e touches stream s (its antenna and its n-th stream). */
static inline bool
gen_ev_applies(const struct gen_event *e, const struct gen_stream *s)
{
	return (e->ant < 0 || (unsigned int)e->ant == s->ant) &&
	       (e->stream < 0 || (unsigned int)e->stream == s->nth);
}

/* gen_event.c: the timeline events. */

/* The parameters of stream s from frame k on: its header's, after the param
 * events before k. */
void gen_stream_params_at(const struct gen *g, const struct gen_stream *s, int64_t k,
			  struct codif_hdr *h);

/* The odd frame's header of flip or stray event e for stream si (frame e->at). */
void gen_ev_odd_hdr(const struct gen *g, unsigned int si, const struct gen_event *e,
		    struct codif_hdr *h);

/* How a receiver counts the odd frame of event e on stream si (enum
 * gen_odd_class), or -1 with the reason in why when a receiver cannot tell it
 * from a good frame. */
int gen_odd_class(const struct gen *g, unsigned int si, const struct gen_event *e,
		  char *why, size_t len);

/* Check the events against the streams and derive what they need (frames of
 * an outage and of a shift, the clock after a param event). Called by
 * gen_init once the streams and the clock are set. @return 0, or -EINVAL
 * with the reason in g->err. */
int gen_events_init(struct gen *g);

/* Whether param event e changes stream s's clock (frames per period, period
 * or epoch): the antenna's timeline then resyncs. */
bool gen_param_moves_clock(const struct gen *g, const struct gen_stream *s,
			   const struct gen_event *e);

/* Whether frame k of stream s is near an event (no random fault there). */
bool gen_near_event(const struct gen *g, const struct gen_stream *s, int64_t k);

/* gen_frame.c: a packet's bytes. */

/* The Ethernet length of packet p, its fault included. */
uint32_t gen_frame_len(const struct gen *g, const struct gen_pkt *p);

#endif /* GEN_PRIV_H */
