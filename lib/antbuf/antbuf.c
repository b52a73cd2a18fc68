/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-antenna frame buffer: layout, and the producer's side, placement of
 * frame descriptors in runs of rows (antbuf_cursor.c: the consumers'). */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <immintrin.h>

#include "antbuf.h"
#include "antbuf_int.h"
#include "err.h"

#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

static size_t
hdr_size(void)
{
	return ALIGN_UP(sizeof(struct antbuf), 64);
}

size_t
antbuf_payload_size(const struct antbuf_geom *g)
{
	return (size_t)g->nrows * g->nslots * g->data_bytes;
}

static void
layout(const struct antbuf_geom *g, bool inline_payload, uint64_t *rows,
       uint64_t *meta, uint64_t *ext, uint64_t *payload, uint64_t *total)
{
	uint64_t o = hdr_size();

	*rows = o;
	o = ALIGN_UP(o + (uint64_t)g->nrows * sizeof(struct antbuf_row), 64);
	*meta = o;
	o = ALIGN_UP(o + (uint64_t)g->nrows * g->nslots * sizeof(struct antbuf_meta), 64);
	*ext = o;
	o = ALIGN_UP(o + (uint64_t)g->nrows * g->nslots * sizeof(uint64_t), ANTBUF_PAGE);
	/* payload slots: one contiguous page-aligned array (O_DIRECT, GPU) */
	*payload = inline_payload ? o : 0;
	if (inline_payload)
		o = ALIGN_UP(o + antbuf_payload_size(g), ANTBUF_PAGE);
	*total = o;
}

size_t
antbuf_size(const struct antbuf_geom *g, bool payload_inline)
{
	uint64_t r, m, e, p, t;

	layout(g, payload_inline, &r, &m, &e, &p, &t);
	return (size_t)t;
}

int
antbuf_geom_check(const struct antbuf_geom *g, char *err, size_t len)
{
	if (g->nslots < 1 || g->nslots > ANTBUF_MAX_SLOTS)
		return err_set(err, len, -EINVAL, "%u streams per antenna (groups x threads), expected 1..%d",
			    g->nslots, ANTBUF_MAX_SLOTS);
	if (g->nrows < 2 || (g->nrows & (g->nrows - 1)) != 0)
		return err_set(err, len, -EINVAL, "ring of %u frames, expected a power of two >= 2",
			    g->nrows);
	if (g->window < 1 || (uint64_t)g->window * 2 > g->nrows)
		return err_set(err, len, -EINVAL,
			    "window of %u frames, expected 1..%u (at most half the ring of %u)",
			    g->window, g->nrows / 2, g->nrows);
	if (g->data_bytes < 8 || g->data_bytes > 65536 || g->data_bytes % 8 != 0)
		return err_set(err, len, -EINVAL, "%u data bytes per frame, expected 8..65536, a multiple of 8",
			    g->data_bytes);
	return 0;
}

int
antbuf_init(void *mem, size_t size, const struct antbuf_geom *g,
	    bool payload_inline, unsigned int index, const char *name,
	    uint32_t src_ip)
{
	struct antbuf *b = mem;
	uint64_t r, m, e, p, t, i;

	if (antbuf_geom_check(g, NULL, 0) != 0)
		return -EINVAL;
	layout(g, payload_inline, &r, &m, &e, &p, &t);
	if (size < t)
		return -ENOSPC;
	memset(b, 0, hdr_size());
	b->magic = ANTBUF_MAGIC;
	b->version = ANTBUF_VERSION;
	b->hdr_size = (uint32_t)sizeof(*b);
	b->index = index;
	b->g = *g;
	b->total_size = t;
	b->rows_off = r;
	b->meta_off = m;
	b->ext_off_off = e;
	b->payload_off = p;
	b->payload_size = antbuf_payload_size(g);
	b->payload_external = payload_inline ? 0 : 1;
	b->src_ip = src_ip;
	snprintf(b->name, sizeof(b->name), "%s", name != NULL ? name : "");
	b->first_row = -1;
	b->newest = -1;
	b->final_row = 0;
	for (i = 0; i < g->nrows; i++) {
		struct antbuf_row *row = (struct antbuf_row *)((uintptr_t)b + r) + i;

		row->seq = -1;
		row->cum_before = 0;
		row->nvalid = 0;
	}
	memset((uint8_t *)b + m, 0, (size_t)g->nrows * g->nslots * sizeof(struct antbuf_meta));
	memset((uint8_t *)b + e, 0, (size_t)g->nrows * g->nslots * sizeof(uint64_t));
	__atomic_store_n(&b->state, 1, __ATOMIC_RELEASE);
	return 0;
}

int
antbuf_check(const struct antbuf *b, size_t size, char *err, size_t len)
{
	uint64_t r, m, e, p, t;

	if (size < sizeof(*b))
		return err_set(err, len, -EINVAL, "buffer of %zu bytes is smaller than its header (%zu)",
			    size, sizeof(*b));
	if (b->magic != ANTBUF_MAGIC)
		return err_set(err, len, -EINVAL, "magic 0x%08x, expected 0x%08x (not an antenna buffer)",
			    b->magic, ANTBUF_MAGIC);
	if (b->version != ANTBUF_VERSION || b->hdr_size != sizeof(*b))
		return err_set(err, len, -EINVAL,
			    "buffer version %u (header %u bytes), this program reads version %d "
			    "(header %zu bytes): use the same dpdk-ibvcap build for primary and writers",
			    b->version, b->hdr_size, ANTBUF_VERSION, sizeof(*b));
	if (antbuf_geom_check(&b->g, err, len) != 0)
		return -EINVAL;
	layout(&b->g, !b->payload_external, &r, &m, &e, &p, &t);
	if (r != b->rows_off || m != b->meta_off || e != b->ext_off_off || p != b->payload_off ||
	    t != b->total_size || t > size)
		return err_set(err, len, -EINVAL, "buffer layout inconsistent (size %zu, expected %llu)",
			    size, (unsigned long long)t);
	return 0;
}

const char *
antbuf_result_name(enum antbuf_result r)
{
	static const char *const names[ANTBUF__RESULTS] = {
		[ANTBUF_PLACED] = "placed",
		[ANTBUF_DUPLICATE] = "duplicate",
		[ANTBUF_TOO_LATE] = "too-late",
		[ANTBUF_NO_SLOT] = "no-slot",
		[ANTBUF_BAD_SIZE] = "wrong-size",
		[ANTBUF_BAD_TIME] = "wrong-timing",
	};

	return (unsigned int)r < ANTBUF__RESULTS ? names[r] : "?";
}

const char *
antbuf_run_kind_name(enum antbuf_run_kind k)
{
	switch (k) {
	case ANTBUF_RUN_START: return "start";
	case ANTBUF_RUN_RESYNC: return "resync";
	case ANTBUF_RUN_PARAMS: return "new-parameters";
	case ANTBUF_RUN_GAP: return "gap";
	}
	return "?";
}

/* ---- runs ----------------------------------------------------------------- */

const struct antbuf_run *
antbuf_run_of(const struct antbuf *b, int64_t row, uint32_t *runno)
{
	uint32_t n = __atomic_load_n(&b->nruns, __ATOMIC_ACQUIRE), k;
	/* run n - RUNS may be being overwritten by run n: not trusted */
	uint32_t lo = n >= ANTBUF_RUNS ? n - (ANTBUF_RUNS - 1) : 0;

	for (k = n; k-- > lo;) {
		const struct antbuf_run *r = &b->run[k % ANTBUF_RUNS];

		if (r->seq0 <= row) {
			if (runno != NULL)
				*runno = k;
			return r;
		}
	}
	return NULL;
}

bool
antbuf_runs_split(const struct antbuf *b, uint32_t from, uint32_t to)
{
	uint32_t n = __atomic_load_n(&b->nruns, __ATOMIC_ACQUIRE), k;

	if (to <= from)
		return false;
	if (from + ANTBUF_RUNS <= n)
		return true; /* runs between are gone: do not guess */
	for (k = from + 1; k <= to; k++) {
		uint32_t kind = b->run[k % ANTBUF_RUNS].kind;

		if (kind != ANTBUF_RUN_GAP)
			return true;
	}
	return false;
}

int64_t
antbuf_row_time_ns(const struct antbuf *b, int64_t row)
{
	const struct antbuf_run *r = antbuf_run_of(b, row, NULL);

	return r != NULL ? codif_clock_time_ns(&r->clk, row - r->delta) : INT64_MIN;
}

/* ---- producer ----------------------------------------------------------- */

/* The payload copy: non-temporal stores where the CPU has AVX2 (the rx core
 * never reads the payload again, a writer on another core does later: no
 * read for ownership, no cache of the rx core filled with it); ordered
 * before a row is published by the sfence in finalize_upto. */
__attribute__((target("avx2"))) static void
copy_stream(uint8_t *dst, const uint8_t *src, size_t n)
{
	size_t head = (32 - ((uintptr_t)dst & 31)) & 31;

	if (head > n)
		head = n;
	memcpy(dst, src, head);
	dst += head;
	src += head;
	n -= head;
	for (; n >= 128; n -= 128, dst += 128, src += 128) {
		__m256i a = _mm256_loadu_si256((const __m256i *)src);
		__m256i b = _mm256_loadu_si256((const __m256i *)(src + 32));
		__m256i c = _mm256_loadu_si256((const __m256i *)(src + 64));
		__m256i d = _mm256_loadu_si256((const __m256i *)(src + 96));

		_mm256_stream_si256((__m256i *)dst, a);
		_mm256_stream_si256((__m256i *)(dst + 32), b);
		_mm256_stream_si256((__m256i *)(dst + 64), c);
		_mm256_stream_si256((__m256i *)(dst + 96), d);
	}
	for (; n >= 32; n -= 32, dst += 32, src += 32)
		_mm256_stream_si256((__m256i *)dst, _mm256_loadu_si256((const __m256i *)src));
	memcpy(dst, src, n);
}

static void
copy_plain(uint8_t *dst, const uint8_t *src, size_t n)
{
	memcpy(dst, src, n);
}

void
antbuf_prod_init(struct antbuf_prod *p, struct antbuf *b, uint8_t *payload, bool shared)
{
	memset(p, 0, sizeof(*p));
	p->b = b;
	p->payload = payload;
	p->shared = shared;
	p->copy = __builtin_cpu_supports("avx2") ? copy_stream : copy_plain;
}

static inline void
lock(struct antbuf_prod *p)
{
	if (!p->shared)
		return;
	while (__atomic_exchange_n(&p->lock, 1, __ATOMIC_ACQUIRE) != 0)
		while (__atomic_load_n(&p->lock, __ATOMIC_RELAXED) != 0)
			__builtin_ia32_pause();
}

static inline void
unlock(struct antbuf_prod *p)
{
	if (!p->shared)
		return;
	/* this producer's non-temporal stores (payload, record) before
	 * another finalizes their row and publishes it: the release store
	 * alone does not order them */
	_mm_sfence();
	__atomic_store_n(&p->lock, 0, __ATOMIC_RELEASE);
}

/* The run holding row r, from the producer's side (no race with itself). */
static struct antbuf_run *
prod_run_of(struct antbuf_prod *p, int64_t r)
{
	struct antbuf *b = p->b;
	uint32_t k;

	if (p->cur != NULL && p->cur->seq0 <= r)
		return p->cur;
	for (k = b->nruns; k-- > (b->nruns > ANTBUF_RUNS ? b->nruns - ANTBUF_RUNS : 0);)
		if (b->run[k % ANTBUF_RUNS].seq0 <= r)
			return &b->run[k % ANTBUF_RUNS];
	return NULL;
}

/* Final: missing frames of slots started in the row's run zeroed and
 * flagged, counts set. */
static void
finalize_row(struct antbuf_prod *p, int64_t r)
{
	struct antbuf *b = p->b;
	uint32_t pos = rpos(b, r), s, nvalid;
	struct antbuf_row *row = antbuf_rowp(b, pos);
	const struct antbuf_run *run;
	uint64_t missing;

	if (row->seq != r)
		return; /* never opened */
	nvalid = (uint32_t)__builtin_popcountll(row->placed);
	missing = ~row->placed & (b->g.nslots == 64 ? ~0ull : (1ull << b->g.nslots) - 1);
	run = missing != 0 ? prod_run_of(p, r) : NULL;
	/* the slots no frame came to: a gap of a started stream (zeros), or
	 * nothing (the record still holds an old lap's flags) */
	for (; missing != 0; missing &= missing - 1) {
		struct antbuf_meta *m;

		s = (uint32_t)__builtin_ctzll(missing);
		m = antbuf_metap(b, pos, s);
		if (run != NULL && run->first[s] <= r) {
			if (b->payload_indexed)
				*antbuf_extp(b, pos, s) = b->zero_off; /* the shared zero frame */
			else
				memset(antbuf_payload(b, p->payload, pos, s), 0, b->g.data_bytes);
			m->flags = ANTBUF_F_GAP;
			b->zero_filled++;
		} else {
			m->flags = 0;
		}
	}
	row->nvalid = nvalid;
	row->cum_before = b->cum_valid;
	b->cum_valid += nvalid;
}

static void
finalize_upto(struct antbuf_prod *p, int64_t upto)
{
	struct antbuf *b = p->b;
	int64_t r;

	if (upto <= b->final_row)
		return;
	/* rows more than a ring back were overwritten: never opened now */
	r = b->final_row;
	if (upto - r > (int64_t)b->g.nrows)
		r = upto - (int64_t)b->g.nrows;
	for (; r < upto; r++)
		finalize_row(p, r);
	/* the rows' non-temporal payload stores before they are published */
	_mm_sfence();
	__atomic_store_n(&b->cum_valid, b->cum_valid, __ATOMIC_RELEASE);
	__atomic_store_n(&b->final_row, upto, __ATOMIC_RELEASE);
}

static void
open_row(struct antbuf_prod *p, int64_t r)
{
	struct antbuf *b = p->b;
	uint32_t pos = rpos(b, r), s;
	struct antbuf_row *row = antbuf_rowp(b, pos);

	/* the new seq first: a consumer still reading the old row sees it
	 * changed when it re-checks, and drops what it read */
	__atomic_store_n(&row->seq, r, __ATOMIC_RELEASE);
	/* ... and before any store to the row after it (a compiler barrier
	 * on x86): a consumer that read cum_before or nvalid of the new row
	 * sees the new seq when it re-checks (antbuf_next) */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	row->nvalid = 0;
	row->placed = 0;
	/* indexed: the next row's references are released when it opens;
	 * bring what release reads of them (an mbuf's two header lines) in
	 * now, a row of frames ahead, so that release does not wait on memory */
	if (p->refs != NULL) {
		const uintptr_t *nref = &p->refs[(uint64_t)rpos(b, r + 1) * b->g.nslots];

		for (s = 0; s < b->g.nslots; s++)
			if (nref[s] != 0) {
				__builtin_prefetch((const void *)nref[s], 1);
				__builtin_prefetch((const char *)nref[s] + 64, 1);
			}
	}
	/* indexed: what held the old frames' payloads goes back */
	for (s = 0; s < b->g.nslots && p->refs != NULL; s++) {
		uintptr_t *ref = &p->refs[(uint64_t)pos * b->g.nslots + s];

		if (*ref != 0)
			p->release(p->release_ctx, *ref);
		*ref = 0;
	}
}

/* Begin run `kind` at row seq0 for descriptor fd (its frame at row
 * seq0 + margin), vgap frames lost before it. */
static struct antbuf_run *
start_run(struct antbuf_prod *p, enum antbuf_run_kind kind, const struct acct_fd *fd,
	  int64_t seq0, int64_t margin, int64_t vgap)
{
	struct antbuf *b = p->b;
	struct antbuf_run *n = &b->run[b->nruns % ANTBUF_RUNS];
	const struct antbuf_run *prev = p->cur;
	bool carry = prev != NULL && (kind == ANTBUF_RUN_GAP || kind == ANTBUF_RUN_PARAMS);
	unsigned int s;

	n->seq0 = seq0;
	n->delta = seq0 + margin - fd->index;
	n->vgap = vgap;
	n->tseg = fd->tseg;
	n->kind = kind;
	n->clk = *fd->clk;
	for (s = 0; s < ANTBUF_MAX_SLOTS; s++) {
		if (carry && prev->first[s] != INT64_MAX) {
			/* the stream goes on through this run */
			n->first[s] = INT64_MIN;
			memcpy(n->ref[s], prev->ref[s], CODIF_HDR_LEN);
			if (vgap > 0)
				b->gap_frames += (uint64_t)vgap;
		} else {
			n->first[s] = INT64_MAX;
		}
	}
	__atomic_store_n(&b->nruns, b->nruns + 1, __ATOMIC_RELEASE);
	p->cur = n;
	return n;
}

void
antbuf_set_indexed(struct antbuf_prod *p, uint64_t zero_off, uintptr_t *refs,
		   void (*release)(void *ctx, uintptr_t ref), void *ctx)
{
	p->b->payload_external = 1;
	p->b->payload_indexed = 1;
	p->b->zero_off = zero_off;
	p->refs = refs;
	p->release = release;
	p->release_ctx = ctx;
}

unsigned int
antbuf_release_all(struct antbuf_prod *p)
{
	struct antbuf *b = p->b;
	uint64_t i, n = (uint64_t)b->g.nrows * b->g.nslots;
	unsigned int k = 0;

	if (p->refs == NULL)
		return 0;
	lock(p);
	for (i = 0; i < n; i++)
		if (p->refs[i] != 0) {
			p->release(p->release_ctx, p->refs[i]);
			p->refs[i] = 0;
			k++;
		}
	unlock(p);
	return k;
}

#define unlikely_(x) __builtin_expect(!!(x), 0)

/* Slot s is fd's stream's: its identity and L2-L4 headers, published. */
static void
slot_set(struct antbuf *b, unsigned int s, const struct acct_fd *fd)
{
	struct antbuf_slot *sl = &b->slot[s];
	uint32_t l2len = fd->codif_off;
	struct codif_hdr h;

	codif_decode(fd->pkt + fd->codif_off, CODIF_HDR_LEN, &h, NULL, 0);
	sl->dst_ip = fd->dst_ip;
	sl->dport = fd->dport;
	sl->stationid = h.stationid;
	sl->groupid = h.groupid;
	sl->secondaryid = h.secondaryid;
	sl->threadid = h.threadid;
	if (l2len > ANTBUF_L2_MAX)
		l2len = ANTBUF_L2_MAX;
	memcpy(sl->l2, fd->pkt, l2len);
	sl->l2len = (uint8_t)l2len;
	__atomic_store_n(&sl->assigned, 1, __ATOMIC_RELEASE);
}

uint16_t
antbuf_slot_assign(struct antbuf_prod *p, const struct acct_fd *fd, uint16_t home)
{
	struct antbuf *b = p->b;
	unsigned int s, nfree = b->g.nslots;
	uint16_t found = ACCT_NO_SLOT;
	struct codif_hdr h;

	codif_decode(fd->pkt + fd->codif_off, CODIF_HDR_LEN, &h, NULL, 0);
	lock(p);
	for (s = 0; s < b->g.nslots; s++) {
		const struct antbuf_slot *sl = &b->slot[s];

		if (!sl->assigned) {
			if (nfree == b->g.nslots)
				nfree = s;
			continue;
		}
		if (sl->dst_ip == fd->dst_ip && sl->dport == fd->dport &&
		    sl->stationid == h.stationid && sl->groupid == h.groupid &&
		    sl->secondaryid == h.secondaryid && sl->threadid == h.threadid) {
			found = (uint16_t)s;
			break;
		}
	}
	if (found == ACCT_NO_SLOT && nfree < b->g.nslots) {
		/* its home when free, else the first free one */
		found = home < b->g.nslots && !b->slot[home].assigned ? home : (uint16_t)nfree;
		slot_set(b, found, fd);
	}
	unlock(p);
	return found;
}

unsigned int
antbuf_slots_used(const struct antbuf *b)
{
	unsigned int s, n = 0;

	for (s = 0; s < b->g.nslots; s++)
		n += __atomic_load_n(&b->slot[s].assigned, __ATOMIC_ACQUIRE) != 0;
	return n;
}

/* A record's two lines stored whole, past the cache (no read for
 * ownership of lines the rx core never reads again; the row's finalize
 * fences them before the row is published). */
_Static_assert(sizeof(struct antbuf_meta) == 128 && _Alignof(struct antbuf_meta) == 64,
	       "a record is two whole cache lines");

static inline void
record_store(struct antbuf_meta *m, const struct antbuf_meta *rec)
{
	__m128i *d = (__m128i *)(void *)m;
	const __m128i *s = (const __m128i *)(const void *)rec;
	unsigned int i;

	for (i = 0; i < sizeof(*m) / sizeof(*d); i++)
		_mm_stream_si128(d + i, _mm_load_si128(s + i));
}

/* The steps of place(), in the order a frame takes them; each is inlined
 * into it (the per-frame path makes no call of its own). */
#define PLACE_STEP static inline __attribute__((always_inline))

/* The run the frame belongs to: the first run, the current one, or a new
 * one where the antenna's timeline resynced. @return it, or NULL with the
 * refusal in *res (a segment that is over, another clock). */
PLACE_STEP struct antbuf_run *
place_run(struct antbuf_prod *p, const struct acct_fd *fd, enum antbuf_result *res)
{
	struct antbuf *b = p->b;
	struct antbuf_run *run = p->cur;

	if (run == NULL) {
		/* the first frame: its row leaves room before it for the
		 * other streams' frames of the same time that come later */
		__atomic_store_n(&b->first_row, 0, __ATOMIC_RELEASE);
		run = start_run(p, ANTBUF_RUN_START, fd, 0, b->g.window - 1, 0);
	} else if (fd->tseg != run->tseg) {
		if (fd->tseg < run->tseg) {
			*res = ANTBUF_TOO_LATE; /* its segment is over */
			return NULL;
		}
		/* the antenna's timeline resynced: the old run ends here */
		finalize_upto(p, b->newest + 1);
		run = start_run(p, ANTBUF_RUN_RESYNC, fd, b->newest + 1, b->g.window - 1, 0);
	} else if (!codif_clock_equal(fd->clk, &run->clk)) {
		*res = ANTBUF_BAD_TIME;
		return NULL;
	}
	return run;
}

/* The frame's row r: rows up to it opened (those leaving the window
 * finalized), a new run after more than the ring lost, a new run where a
 * stream's parameters change. @return false (too late: its row is final). */
PLACE_STEP bool
place_row(struct antbuf_prod *p, const struct acct_fd *fd, struct antbuf_run **runp,
	  int64_t *rp)
{
	struct antbuf *b = p->b;
	struct antbuf_run *run = *runp;
	int64_t r = fd->index + run->delta, ahead = (int64_t)(b->g.nrows - b->g.window);

	if (r > b->newest) {
		int64_t x;

		if (r - b->newest > ahead) {
			/* more than the ring lost, and the timeline took it as
			 * loss: a run goes on after them */
			int64_t vgap = r - b->newest - 1;

			finalize_upto(p, b->newest + 1);
			run = start_run(p, ANTBUF_RUN_GAP, fd, b->newest + 1, 0, vgap);
			r = b->newest + 1;
		}
		for (x = b->newest + 1; x <= r; x++) {
			finalize_upto(p, x - (int64_t)b->g.window + 1);
			open_row(p, x);
		}
		b->newest = r;
	}
	if (r < b->final_row)
		return false;
	if ((fd->flags & CODIF_OUT_NEW_PARAMS) && !(fd->flags & CODIF_OUT_RESYNC)) {
		/* a stream's new parameters on the same clock: files start
		 * anew at this row */
		if (r > run->seq0)
			run = start_run(p, ANTBUF_RUN_PARAMS, fd, r, 0, 0);
		run->first[fd->slot] = INT64_MAX;
	}
	*runp = run;
	*rp = r;
	return true;
}

/* The payload into row r's slot: copied (data) or, by reference, where
 * the NIC put it (ext_off) and the reference (ref). @return false (a
 * duplicate: the slot of that row is taken). */
PLACE_STEP bool
place_payload(struct antbuf_prod *p, int64_t r, unsigned int slot, const uint8_t *data,
	      uint64_t ext_off, uintptr_t ref, uint32_t pay)
{
	struct antbuf *b = p->b;
	struct antbuf_row *row = antbuf_rowp(b, rpos(b, r));

	if (row->placed >> slot & 1)
		return false;
	row->placed |= 1ull << slot;
	if (data != NULL) {
		/* the one touch of the payload on the rx path */
		p->copy(antbuf_payload(b, p->payload, rpos(b, r), slot), data, pay);
	} else {
		*antbuf_extp(b, rpos(b, r), slot) = ext_off; /* where the NIC put it */
		p->refs[(uint64_t)rpos(b, r) * b->g.nslots + slot] = ref;
	}
	return true;
}

/* The record: the packet's headers in one copy, written once. */
PLACE_STEP void
place_record(struct antbuf *b, const struct acct_fd *fd, int64_t r, unsigned int slot)
{
	uint32_t l2len = fd->codif_off;
	struct antbuf_meta rec;
	uint8_t flags;

	flags = ANTBUF_F_VALID | (fd->flags & ACCT_FD_INVALID ? ANTBUF_F_INVALID : 0) |
		(r < b->newest ? ANTBUF_F_LATE : 0);
	if (l2len <= ANTBUF_L2_KEPT) {
		memcpy(rec.hdr, fd->pkt, l2len + CODIF_HDR_LEN);
		memset(rec.hdr + l2len + CODIF_HDR_LEN, 0, ANTBUF_HDR_MAX - l2len - CODIF_HDR_LEN);
		rec.l2len = (uint8_t)l2len;
	} else {
		memset(rec.hdr, 0, ANTBUF_L2_KEPT);
		memcpy(rec.hdr + ANTBUF_L2_KEPT, fd->pkt + fd->codif_off, CODIF_HDR_LEN);
		rec.l2len = 0;
		flags |= ANTBUF_F_L2_LONG;
	}
	rec.wirelen = (uint16_t)(fd->wirelen > UINT16_MAX ? UINT16_MAX : fd->wirelen);
	rec.arrival_ns = fd->arrival_ns;
	rec.flags = flags;
	record_store(antbuf_metap(b, rpos(b, r), slot), &rec);
}

/* Row r as the slot's first in its row's run (where its files start),
 * and, for a caller that gives slots itself (tests, tools), the slot's
 * identity from its first frame. */
PLACE_STEP void
place_first(struct antbuf_prod *p, const struct acct_fd *fd, struct antbuf_run *run,
	    int64_t r, unsigned int slot)
{
	struct antbuf_run *rr = r >= run->seq0 ? run : prod_run_of(p, r);

	if (rr != NULL && rr->first[slot] > r) {
		if (rr->first[slot] == INT64_MAX)
			memcpy(rr->ref[slot], fd->pkt + fd->codif_off, CODIF_HDR_LEN);
		__atomic_store_n(&rr->first[slot], r, __ATOMIC_RELEASE);
	}
	if (unlikely_(!p->b->slot[slot].assigned))
		slot_set(p->b, slot, fd);
}

/* One frame into its row and slot, its payload copied (data) or by
 * reference (ext_off, ref); data_len is what the caller offers of it. */
static enum antbuf_result
place(struct antbuf_prod *p, const struct acct_fd *fd, const uint8_t *data, uint64_t ext_off,
      uintptr_t ref, uint32_t data_len)
{
	struct antbuf *b = p->b;
	enum antbuf_result res = ANTBUF_PLACED;
	struct antbuf_run *run;
	unsigned int slot = fd->slot;
	uint32_t pay = fd->codif_len - CODIF_HDR_LEN;
	int64_t r;

	if (slot >= b->g.nslots) {
		__atomic_fetch_add(&b->result[ANTBUF_NO_SLOT], 1, __ATOMIC_RELAXED);
		return ANTBUF_NO_SLOT;
	}
	/* a frame no larger than a slot is placed (its header says its size:
	 * readers take that many bytes); by reference it must lie whole in
	 * what the caller offers */
	if (pay > b->g.data_bytes || data_len < pay) {
		__atomic_fetch_add(&b->result[ANTBUF_BAD_SIZE], 1, __ATOMIC_RELAXED);
		return ANTBUF_BAD_SIZE;
	}
	lock(p);
	run = place_run(p, fd, &res);
	if (run == NULL)
		goto out;
	if (!place_row(p, fd, &run, &r)) {
		res = ANTBUF_TOO_LATE;
		goto out;
	}
	if (!place_payload(p, r, slot, data, ext_off, ref, pay)) {
		res = ANTBUF_DUPLICATE;
		goto out;
	}
	place_record(b, fd, r, slot);
	b->placed++;
	if (r < b->newest)
		b->late_placed++;
	place_first(p, fd, run, r, slot);
out:
	if (res != ANTBUF_PLACED)
		b->result[res]++;
	unlock(p);
	return res;
}

enum antbuf_result
antbuf_place(struct antbuf_prod *p, const struct acct_fd *fd)
{
	if (p->b->payload_indexed) {
		p->b->result[ANTBUF_BAD_SIZE]++;
		return ANTBUF_BAD_SIZE; /* an indexed buffer takes references */
	}
	return place(p, fd, fd->pkt + fd->codif_off + CODIF_HDR_LEN, 0, 0,
		     fd->codif_len - CODIF_HDR_LEN);
}

enum antbuf_result
antbuf_place_ref(struct antbuf_prod *p, const struct acct_fd *fd, uint64_t ext_off,
		 uintptr_t ref, uint32_t data_len)
{
	if (!p->b->payload_indexed || p->refs == NULL || ref == 0) {
		p->b->result[ANTBUF_BAD_SIZE]++;
		return ANTBUF_BAD_SIZE;
	}
	return place(p, fd, NULL, ext_off, ref, data_len);
}

void
antbuf_flush(struct antbuf_prod *p)
{
	struct antbuf *b = p->b;

	lock(p);
	if (b->first_row >= 0)
		finalize_upto(p, b->newest + 1);
	__atomic_store_n(&b->state, 2, __ATOMIC_RELEASE);
	unlock(p);
}
