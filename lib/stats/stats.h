/* SPDX-License-Identifier: BSD-3-Clause */
/* Counters as data: every counter group (a stream's or antenna's frame
 * counts, an antenna buffer's, a writer's) described once as a table --
 * name, column heading, unit, help, merge rule, where it is stored -- and
 * the walkers that merge, print, and write them as JSON. The telemetry
 * walker is in stats_tel.h; the names here are the only names: the
 * summary, JSON, telemetry, Prometheus, codifgen's truth and the tests'
 * comparison all take them from these tables. */

#ifndef STATS_H
#define STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"

struct shm_writer;

/** How a value is stored. */
enum stats_type {
	STATS_U64 = 0,   /**< uint64_t */
	STATS_I64,       /**< int64_t */
	STATS_TIME,      /**< int64_t Unix ns, INT64_MAX (MIN merge) or INT64_MIN
			      (MAX merge) when none: JSON NAME_ns and NAME_utc */
	STATS_ARRAY,     /**< uint64_t[n], element names from elem() */
	STATS_U32,       /**< uint32_t */
	STATS_I32,       /**< int32_t */
	STATS_F64,       /**< double (a figure, not a count: mean, power, fraction);
			      JSON gives it as a number, telemetry as an integer
			      in tel_unit (x tel_scale) */
};

/** How two records combine (an antenna's streams, all antennas). */
enum stats_merge {
	STATS_SUM = 0,   /**< a counter */
	STATS_MIN,       /**< a gauge: the least */
	STATS_MAX,       /**< a gauge: the greatest */
};

/* stats_field.flags: where a field means something (a walker's scope
 * argument selects them) and how it is shown */
#define STATS_STREAM 0x01   /**< a stream's record has it */
#define STATS_ANTENNA 0x02  /**< an antenna's (or all antennas') record has it */
#define STATS_LIVE 0x04     /**< in the compact live views (telemetry lists) */
#define STATS_BRIEF 0x08    /**< in one-line views (the periodic line) */
#define STATS_ALL 0x03

struct stats_field {
	const char *name;    /**< JSON and telemetry key, Prometheus name part */
	const char *head;    /**< text column heading, NULL: not a column */
	const char *unit;    /**< frames, packets, bytes, ns, files, rows, runs... */
	const char *help;    /**< one line (< 128 bytes: telemetry strings) */
	size_t off;          /**< offset in the group's record */
	uint8_t type;        /**< enum stats_type */
	uint8_t merge;       /**< enum stats_merge */
	uint8_t flags;       /**< STATS_STREAM | STATS_ANTENNA | STATS_LIVE */
	uint8_t width;       /**< column width */
	uint16_t n;          /**< STATS_ARRAY: elements */
	uint16_t first;      /**< STATS_ARRAY: first element shown */
	const char *(*elem)(unsigned int i); /**< STATS_ARRAY: element names */
	const char *tel_unit; /**< STATS_F64: the unit of its telemetry integer */
	uint32_t tel_scale;  /**< STATS_F64: telemetry value = llround(value x this) */
};

/** A uint64_t field: name, heading, width, unit, flags, merge, offset, help. */
#define STATS_FIELD_U64(n_, h_, w_, u_, fl_, m_, off_, help_)                  \
	{ .name = n_, .head = h_, .unit = u_, .help = help_, .off = off_,          \
	  .type = STATS_U64, .merge = m_, .flags = fl_, .width = w_ }

/**
 * A double field (a gauge): name, unit, the unit and scale of its
 * telemetry integer (22.11's telemetry has no floating-point value: "ppm",
 * 1000000 gives a ratio in parts per million), flags, offset, help.
 */
#define STATS_FIELD_F64(n_, u_, tu_, ts_, fl_, off_, help_)                     \
	{ .name = n_, .unit = u_, .help = help_, .off = off_, .type = STATS_F64,   \
	  .merge = STATS_MAX, .flags = fl_, .tel_unit = tu_, .tel_scale = ts_ }

struct stats_group {
	const char *name;    /**< "counts", "buffer", "writer" */
	const char *help;
	const char *prom;    /**< its Prometheus names' part: ibvcap_PROM_NAME...; "" for
			          the capture's own (ibvcap_NAME...); NULL: not exported */
	unsigned int scope;  /**< the fields it has (stats_in), 0: every one */
	const struct stats_field *f;
	unsigned int n;
	size_t size;         /**< of the record */
};

/** A stream's or an antenna's frame counts: struct acct_counts. */
extern const struct stats_group stats_counts;
/** An antenna buffer's placement counters: struct antbuf (shared header). */
extern const struct stats_group stats_buffer;
/** A writer's figures: struct shm_writer. */
extern const struct stats_group stats_writer;
/** A stream's frame counts: struct acct_counts, the counts table's stream
 * fields (its Prometheus names ibvcap_stream_...). */
extern const struct stats_group stats_stream;

/** The rx lcores' packets and polls (app/dpdk-ibvcap): one lcore's, or all
 * of them summed. */
struct stats_rx {
	uint64_t pkts, bytes, polls, empty_polls, misdirected, segmented, held;
	uint64_t busy_cycles;  /**< TSC cycles of the polls that brought packets */
};

/** The capture's own figures, all rx lcores: struct stats_rx. */
extern const struct stats_group stats_capture;
/** One rx lcore's figures: struct stats_rx. */
extern const struct stats_group stats_lcore;

struct ql_snap;
struct ql_figs;

/** An antenna's or stream's quick look (lib/quicklook), as stats_quicklook
 * describes it: counters over the run, figures over a window. */
struct stats_ql {
	uint64_t offered, sampled, used, skipped;  /**< cumulative */
	uint64_t samples;                          /**< in the figures' window */
	double mean_re, mean_im, power, power_db, rms, saturated, zero, window;
	uint32_t verdict, nbits, repr, cplx, nchan;
};

/** The quick-look table: struct stats_ql. */
extern const struct stats_group stats_quicklook;

/**
 * Fill r: the counters from run (a ql_snap as of now), the figures from f
 * (ql_figs of the window), window its length in seconds.
 */
void stats_ql_of(struct stats_ql *r, const struct ql_snap *run, const struct ql_figs *f,
		 double window);

struct qlb_result;

/** Sampler statistics (lib/quicklook ql_bstate.h) as stats_bstate describes
 * them: fixed-point integers (telemetry has only integers), a window's. */
struct stats_qlb {
	uint64_t frames, samples;
	uint64_t rms, rms_optimal;  /**< milli-steps */
	uint64_t zero, saturated;   /**< ppm */
	uint64_t window;            /**< ns */
	uint32_t verdict, rms_known, stuck_mask, states;
};

/** The sampler-statistics table: struct stats_qlb. */
extern const struct stats_group stats_bstate;

/** Fill r from q (qlb_result), frames read, the window's length. */
void stats_qlb_of(struct stats_qlb *r, const struct qlb_result *q, uint64_t frames,
		  uint64_t window_ns);

/** x (a share, 0..1) in parts per million, rounded. */
uint64_t stats_ppm(double x);

/** Whether field f has every flag of scope (scope 0: every field does). */
static inline bool
stats_in(const struct stats_field *f, unsigned int scope)
{
	return (f->flags & scope) == scope;
}

/** A merge rule's name: "sum", "min" or "max". */
const char *stats_merge_name(enum stats_merge m);

/**
 * Field f's Prometheus metric name, the one rule (docs/counters.md):
 * ibvcap_ + the group's prom part + _ + the name, in the figure's base
 * unit: a fixed-point telemetry unit (ns, ppm, milli-steps,
 * micro-steps^2, milli-dB; a double's tel_unit) as seconds, ratio,
 * steps, steps^2, dB; seconds as _seconds (a trailing _ns of the name
 * dropped), X/s as _X_per_second, any other unit (reduced to [a-z0-9_])
 * appended unless the name already holds it; _total for counters. scale:
 * what a telemetry value is multiplied by to give the metric's (1e-9 for
 * ns, ...; 1 for a unit that is its own base).
 * @return 0, -ENOENT when the group is not exported (buf ""), or -ENOSPC
 * when buf is too short.
 */
int stats_prom_name(const struct stats_group *g, const struct stats_field *f, char *buf,
		    size_t len, double *scale);

/** Zero rec, times set to "none". */
void stats_zero(const struct stats_group *g, void *rec);

/** Combine src into dst by each field's merge rule. */
void stats_merge(const struct stats_group *g, void *dst, const void *src);

/** Value of field f in rec (element i of an array); signed types as int64
 * bits (cast the result to int64_t). */
uint64_t stats_get(const struct stats_field *f, const void *rec, unsigned int i);

/** Value of a STATS_F64 field f in rec. */
double stats_get_f64(const struct stats_field *f, const void *rec);

/**
 * A STATS_F64 field's value in its telemetry unit, rounded, into *v.
 * @return false when the value is not finite (no data, or -inf dB): the
 * telemetry leaves such a value out.
 */
bool stats_tel_fixed(const struct stats_field *f, const void *rec, int64_t *v);

/** Field f's scalar value as text (a number; times as Unix ns, "" none). */
void stats_text_value(const struct stats_field *f, const void *rec, char *buf, size_t len);

/** Whether field f is signed (I64, I32, TIME). */
static inline bool
stats_signed(const struct stats_field *f)
{
	return f->type == STATS_I64 || f->type == STATS_I32 || f->type == STATS_TIME;
}

/** Whether a time field holds a time. */
bool stats_time_set(const struct stats_field *f, const void *rec);

/** The field named name, or NULL. */
const struct stats_field *stats_find(const struct stats_group *g, const char *name);

/** Add rec's fields in scope as members of object o. */
void stats_json(const struct stats_group *g, const void *rec, unsigned int scope, json_t *o);

struct acct_layout;
struct acct_stream;

/**
 * One stream as JSON, the one form of it (the capture's summary `streams`,
 * the test tools' counts): its antenna, addresses, station and ids, then
 * the stream's counts (STATS_STREAM), as members of object o.
 */
void stats_stream_json(const struct acct_layout *l, unsigned int ant,
		       const struct acct_stream *s, json_t *o);

/**
 * A writer as JSON, the one form of it (the capture's summary `writers`,
 * dpdk-ibvcap-dump's summary): name, format, pid, then the writer table's
 * figures (docs/counters.md), members of object o.
 */
void stats_writer_json(const struct shm_writer *w, json_t *o);

/**
 * The fields in scope as a JSON object: name -> {unit, kind (counter or
 * gauge), help}.
 */
json_t *stats_describe(const struct stats_group *g, unsigned int scope);

/** The column headings of the fields in scope that have one, each after a space. */
void stats_text_head(const struct stats_group *g, unsigned int scope, FILE *f);

/** The values under stats_text_head's headings. */
void stats_text_row(const struct stats_group *g, const void *rec, unsigned int scope,
		    FILE *f);

/** The narrowest width stats_text_columns takes. */
#define STATS_MIN_COLUMNS 40

/**
 * The width a table printed to f may take: $COLUMNS when set (a number of
 * STATS_MIN_COLUMNS or more), else f's terminal's width when f is a
 * terminal, else 0 (no limit: a log keeps a row on one line).
 */
unsigned int stats_text_columns(FILE *f);

/** A table of group g's fields in scope: a row per record, each after its
 * lead (the row's own columns, as wide as lead_head). */
struct stats_table {
	const struct stats_group *g;
	unsigned int scope;
	unsigned int width;          /**< at most this many columns a line; 0 no limit */
	const char *lead_head;       /**< the lead columns' headings */
	unsigned int n;              /**< rows */
	const char *const *lead;     /**< each row's lead */
	const void *const *rec;      /**< each row's record */
	const char *const *tail;     /**< after each row's last column, or NULL */
	/** Lines that follow row i (after its newline), or NULL. */
	void (*after)(const void *ctx, unsigned int i, FILE *out);
	const void *ctx;
};

/**
 * Print table t: its headings and rows, as stats_text_head and
 * stats_text_row would after each lead; when they do not fit t->width,
 * in blocks of the columns that fit, one under the other (a blank line
 * between), each block with the leads again. Tails and after-lines go with
 * the last block.
 */
void stats_text_table(const struct stats_table *t, FILE *out);

/**
 * The counters (STATS_SUM) in scope without a column, "name value" where
 * not zero,
 * after lead, comma-separated, then a newline; nothing when all are zero.
 * @return whether a line was printed.
 */
bool stats_text_rest(const struct stats_group *g, const void *rec, unsigned int scope,
		     const char *lead, FILE *f);

#endif /* STATS_H */
