/* SPDX-License-Identifier: BSD-3-Clause */
/* Writers: take final rows from antenna buffers with their own cursors and
 * hand them to a format sink (lib/fmt: raw + index, codif or pcap); runs,
 * gaps, placeholders, rotation, file names, counts, and the loop that
 * drives a writer. Pure C: runs in the primary (--write) or in
 * dpdk-ibvcap-dump. No format's bytes are encoded here. */

#ifndef WRITER_H
#define WRITER_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "antbuf.h"
#include "fmt.h"
#include "opt.h"
#include "wr_sched.h"

#define WR_MAX_ANT 64
#define WR_PREFIX_MAX 63 /**< a file name prefix's length at most */

/** The formats a writer writes (lib/fmt's kinds). */
enum wr_format { WR_RAW = FMT_RAW, WR_CODIF = FMT_CODIF, WR_PCAP = FMT_PCAP,
		 WR_PCAPNG = FMT_PCAPNG };

/** What a writer does when its directory's free space would fall below
 * its min-free (on-full=). */
enum wr_on_full {
	WR_FULL_STOP = 0,      /**< stop: finish its files, end (WR_END_DISK_FULL) */
	WR_FULL_REMOVE_OLDEST, /**< remove its own oldest finished files, go on */
};

struct wr_opts {
	enum wr_format format;
	char dir[PATH_MAX];
	char prefix[WR_PREFIX_MAX + 1]; /**< file name prefix ("ibvcap") */
	uint64_t rotate_bytes;  /**< new file past this size (0: never) */
	uint64_t rotate_ns;     /**< new file past this much data time (0: never) */
	uint32_t snaplen;       /**< pcap: bytes kept per packet */
	bool direct;            /**< try O_DIRECT */
	bool sync;              /**< io=sync: one pwrite at a time (no io_uring) */
	bool all;               /**< pcap, pcapng: every antenna in one file */
	bool from_oldest;       /**< start at the oldest row still in the ring */
	uint64_t count;         /**< stop after this many frames (0: never) */
	size_t bufsize;         /**< staging buffer per open file */
	/* the disk budget (min-free=, on-full=): off unless min-free is given */
	bool budget;            /**< min-free given */
	uint64_t min_free;      /**< bytes to leave free in dir */
	uint32_t min_free_bp;   /**< or (min_free 0) that share of the filesystem,
				     in 1/100 % (500: 5 %) */
	enum wr_on_full on_full;
	/** lcores=N (dpdk-ibvcap's --write): its antennas spread over N writer
	 * lcores, antenna i on the (i mod N)th, each a writer of its own
	 * writing the files one writer would (1: one writer) */
	unsigned int lcores;
	/* a window of data time (a triggered dump; per antenna, not all=yes):
	 * rows before from_ns are passed over (taken, not written); the first
	 * row at or after to_ns ends its antenna (struct wr_window) */
	bool window;            /**< from_ns and to_ns apply */
	int64_t from_ns;        /**< Unix ns, CODIF data time, inclusive */
	int64_t to_ns;          /**< Unix ns, exclusive */
	/** each file completed and kept (may be NULL): its path, its antenna's
	 * index (-1: all=yes) and what it holds on disk */
	void (*file_done)(void *ctx, const char *path, int ant, const struct fmt_tally *t);
	void *file_ctx;
};

/** Defaults: codif, prefix ibvcap, snaplen 65535, O_DIRECT, 8 MiB buffers. */
void wr_opts_defaults(struct wr_opts *o);

/**
 * The keys of "FORMAT:DIR[,KEY=VALUE...]" (prefix, rotate-size, rotate-time,
 * snaplen, all, direct, io, oldest, count, buffer, min-free, on-full,
 * lcores), one row each: wr_opts_parse parses with them, and an option
 * row's .kv points at them so that --help, the man pages and
 * --dump-options list them.
 */
extern const struct opt_kv wr_opts_kv;

/**
 * Parse "FORMAT:DIR[,KEY=VALUE...]" into o (defaults first) with the rows
 * of wr_opts_kv, then check what the keys allow only together (on-full
 * needs min-free; all=yes is for pcap and pcapng; lcores=N is not with
 * all=yes or count=). Each key may be given once.
 * @return 0, -EINVAL or -ERANGE with "OPTION KEY: 'VALUE': expected ..." in err.
 */
int wr_opts_parse(struct wr_opts *o, const char *opt, const char *spec,
		  char *err, size_t len);

const char *wr_format_name(enum wr_format f);

/** The format named name (raw, codif, pcap, pcapng). @return 0, or -EINVAL
 * when no format has that name. */
int wr_format_parse(const char *name, enum wr_format *f);

/**
 * Check a file name prefix (prefix= of --write and of a trigger): 1 to
 * WR_PREFIX_MAX characters, no control character, no '/'.
 * @return 0, or -EINVAL with "OPT: 'VALUE': expected a file name prefix: ..."
 *   in err (VALUE escaped).
 */
int wr_prefix_check(const char *opt, const char *val, char *err, size_t len);

/** What wr_prefix_check expects, in words, into buf. @return buf. */
char *wr_prefix_expected(char *buf, size_t len);

/** A ring row written from the ring (no copy) whose write is in flight:
 * checked once it completed (antbuf_intact). */
struct wr_inflight {
	struct antbuf_view v;
	uint64_t frow;       /**< its row in the file */
	uint32_t valid;      /**< frames as received in it */
};

/** One output file in progress: a format sink and the rows it holds. */
struct wr_out {
	struct fmt_sink s;
	bool open;
	int64_t first_index; /**< frame index of the file's row 0 (on clk) */
	int64_t t0_ns;       /**< data time of row 0 */
	struct codif_clock clk;  /**< the clock of its rows (one run's) */
	uint32_t runno;      /**< the antenna buffer run it began in */
	uint64_t mask;       /**< raw: the antenna's slots in the file, in order */
	uint64_t row_mask;   /**< the slots of the row written last: where a row
				  this writer lost is written as placeholders */
	uint64_t ref_mask;   /**< slots whose header is in ref */
	uint8_t ref[ANTBUF_MAX_SLOTS][CODIF_HDR_LEN]; /**< each slot's header in
							this file (placeholders) */
	int64_t last_row;    /**< antenna row written last */
	int64_t last_index;  /**< frame index written last */
	uint32_t scan;       /**< the scan id of its rows (WR_ROW_FREE: none) */
	/* raw rows written from the ring (fmt_by_ref): those in flight */
	struct wr_inflight *q;
	size_t qh, qn, qcap;
};

/** What an antenna's cursor met of a window (wr_opts.window). */
struct wr_window {
	int64_t first_ns;      /**< data time of the first row it was handed (the
				    oldest in the ring then), INT64_MIN: none yet */
	int64_t first_index;   /**< its frame index, on first_clk */
	struct codif_clock first_clk;
	int64_t begin_ns;      /**< data time of the first row of the window in
				    its files, INT64_MIN: none */
	int64_t end_ns;        /**< data time just after the last one */
	uint64_t before;       /**< rows before from_ns passed over */
	bool past;             /**< it met a row at or after to_ns: done */
};

struct wr_src {
	const struct antbuf *b;
	uint8_t *payload;          /**< CPU-visible payload (NULL: inline) */
	const char *copy_why;      /**< raw: why its rows are copied through
				        staging (NULL: written from the ring) */
	struct antbuf_cursor cur;
	struct wr_out out;
	bool on;
	struct wr_window win;      /**< with wr_opts.window */
	/* rows (and their valid frames) this writer lost since the last row
	 * of its file: named where that file ends (wr_out's overrun span) */
	uint64_t ovr_rows, ovr_frames;
};

/**
 * A writer's figures. The first six are lib/stats' writer table (the names
 * of docs/counters.md, published through struct shm_writer); files'
 * figures count what is in them on disk, not what is staged. Once the
 * writer ended: written + cut + overrun = the valid frames of the rows it
 * went through (all placed, for a writer attached before the first frame
 * that ran to the capture's end).
 */
struct wr_stats {
	uint64_t written;      /**< valid frames in its files */
	uint64_t placeholders; /**< gap frames in its files: where the capture
				    lost frames (codif invalid zero frames, raw
				    zeros listed in "gaps"; pcap writes none) */
	uint64_t bytes;        /**< bytes of its files (raw: data, not indexes) */
	uint64_t files;        /**< files completed */
	uint64_t overrun;      /**< valid frames lost: the ring overwrote them
				    before this writer took them */
	uint64_t cut;          /**< valid frames taken but not kept: an I/O
				    error (a full disk) cut them off its files */
	uint64_t overrun_placeholders; /**< frames written as gaps for rows it
					    lost: only a raw row overwritten while
					    written from the ring (zeros, listed in
					    its index's "overrun"); rows it fell
					    behind on end the file instead */
	uint64_t taken;        /**< valid frames handed to its files (count=) */
	uint64_t rows;         /**< rows taken */
	uint64_t lost_rows;    /**< rows lost to overrun */
	uint64_t catchups;     /**< times it fell more than a ring behind and
				    resumed a quarter of the ring past the
				    oldest row (a new file each; not with a
				    window) */
	uint64_t torn_rows;    /**< rows overwritten while being written */
	uint64_t discontinuities; /**< new files after an index went back (never
				       on one clock: a safety net) */
	uint64_t run_files;    /**< new files at a resync or new parameters */
	uint64_t files_removed; /**< its own finished files removed to keep
				     min-free (on-full=remove-oldest) */
	uint64_t bytes_removed; /**< their bytes as bytes counted them (raw: data,
				     not indexes): bytes - this is on disk */
};

struct wr_budget_group;

/** A finished file of this writer (on-full=remove-oldest may remove it). */
struct wr_done_file {
	char *path;          /**< its name (raw: the data; NAME.json beside it) */
	uint64_t dev, ino;   /**< what it was when closed: another file of that
				  name is never removed */
};

/**
 * The disk budget (min-free): the space left above the threshold as the
 * last statvfs saw it, less what this writer has handed to its files since
 * (bytes_handed), so that it cannot overshoot between two statvfs calls.
 */
struct wr_budget {
	int64_t t_ns;          /**< monotonic time of the last statvfs (0: none) */
	uint64_t avail;        /**< bytes free to it then (f_bavail) */
	uint64_t threshold;    /**< min-free in bytes (min-free=P%: of f_blocks) */
	uint64_t allow;        /**< bytes it may hand to its files after handed0 */
	uint64_t handed0;      /**< bytes_handed at that statvfs */
	uint64_t files0;       /**< what files opened since may take beyond
				    their rows (their last block, raw index) */
	struct wr_done_file *done; /**< its finished files, oldest first
				      (on-full=remove-oldest) */
	size_t ndone, capdone, first;
	struct wr_budget_group *grp; /**< shared with the other lcores of its
				          --write (wr_budget_share), NULL: alone */
	unsigned int part;         /**< its index in grp */
};

/** A writer: its antennas' cursors and files, its figures. */
struct wr_writer {
	struct wr_opts o;
	unsigned int n;
	struct wr_src src[WR_MAX_ANT];
	struct wr_out all;         /**< pcap all=yes */
	int64_t all_max_t;         /**< all=yes: latest data time written */
	struct wr_stats st;
	struct fmt_tally closed;   /**< what the files closed so far hold */
	uint64_t closed_cut;       /**< valid frames cut off them */
	bool done;                 /**< --count reached */
	bool full;                 /**< stopped at min-free (on-full=stop, or
					nothing left to remove) */
	struct wr_budget bud;
	int error;                 /**< first fatal errno */
	char err[512];
	char last_file[PATH_MAX];  /**< the most recent completed file */
	/* wr_publish's write rate: bytes at the start of its window, when */
	uint64_t rate_bytes0;
	int64_t rate_t0;           /**< monotonic ns, 0: not started */
	uint64_t rate;             /**< bytes/s over the last whole window */
	/* what it has to say while it runs (min-free's removals and stop):
	 * one line each, no newline; NULL: stderr */
	void (*note)(void *ctx, const char *line);
	void *note_ctx;
	struct wr_gate *gate;      /**< under a schedule (wr_scan.c), NULL: not */
	/* raw from the ring: files written so, files copied (and the last
	 * reason why) */
	uint64_t ring_files, copy_files;
	const char *copy_why;
	/** tests only: called before a ring row written from the ring is
	 * checked, its write over (may overwrite it in the ring) */
	void (*test_before_check)(void *ctx, int64_t ring_row);
	void *test_ctx;
	/* its I/O queue (wr_io): io_uring writes in flight over its files, and
	 * how its files write, as last seen with a file open */
	struct fio_depth depth;
	bool io_seen;              /**< a file was open at a wr_io */
	bool io_uring;
	unsigned int io_limit;
	char io_why[96];
};

/**
 * How a raw writer writes its rows, in words for its start line and
 * summary: "rows written from the ring (no copy)", or "rows copied through
 * staging: WHY" (payload by reference (--zero-copy), the file not O_DIRECT
 * (tmpfs), io=sync, ...). NULL for codif and pcap (always staged). Before
 * its first file it says what the antennas allow.
 */
const char *wr_ring_direct(const struct wr_writer *w, char *buf, size_t len);

/**
 * Attach a writer to n antenna buffers (bufs[i] with CPU-visible payload
 * payloads[i], NULL = inline); only antennas in ant_mask are written.
 * @return 0, -EINVAL (more than WR_MAX_ANT antennas) or the negative errno
 *   of access(2) on the output directory, with the reason in err.
 */
int wr_init(struct wr_writer *w, const struct wr_opts *o,
	    const struct antbuf *const *bufs, uint8_t *const *payloads,
	    unsigned int n, uint64_t ant_mask, char *err, size_t errlen);

/**
 * Write what is final, at most max_rows rows per antenna.
 * @return rows written (0: nothing to do), or a negative errno on a fatal
 *   error (w->err says what; files already closed stay valid).
 */
int wr_poll(struct wr_writer *w, unsigned int max_rows);

/** Rows final but not yet written, over all antennas. */
uint64_t wr_backlog(const struct wr_writer *w);

/** With wr_opts.window: every antenna written has met a row at or after
 * to_ns (its part of the window is complete). */
bool wr_window_done(const struct wr_writer *w);

/**
 * Close every open file (valid, renamed from .part).
 * @return 0 or the negative errno of the first error.
 */
int wr_finish(struct wr_writer *w);

/** How a writer's files write (wr_io). */
struct wr_io {
	unsigned int inflight;   /**< io_uring writes in flight now, all its files */
	unsigned int peak;       /**< the most in flight at once so far */
	unsigned int limit;      /**< FIO_INFLIGHT x its io_uring files open (or,
				      none open, when it last had one) */
	bool uring;              /**< its files write through io_uring */
	const char *why;         /**< not: why synchronous (io=sync, direct=no,
				      O_DIRECT refused, io_uring refused) */
};

/**
 * w's I/O queue: its open files as they write now; with none open, as its
 * last files did (or, before its first, as its options and this process
 * say). The writer's own thread.
 */
void wr_io(struct wr_writer *w, struct wr_io *io);

/* ---- the disk budget (wr_budget.c) ---------------------------------------- */

/**
 * Free space of dir as statvfs says: avail the bytes left to an unprivileged
 * writer (f_bavail), total (may be NULL) the filesystem's size. The one
 * statvfs of a writer: its budget and its published disk_free.
 * @return 0 or the negative errno of statvfs(3).
 */
int wr_dir_space(const char *dir, uint64_t *avail, uint64_t *total);

/** min-free in bytes on a filesystem of total bytes (0: no budget). */
uint64_t wr_min_free_bytes(const struct wr_opts *o, uint64_t total);

/**
 * Whether o's min-free can be kept in o->dir at all (less than its
 * filesystem's size). @return 0; -ENOSPC (err: the threshold, the
 * filesystem's size and free space), or statvfs's negative errno.
 */
int wr_budget_check(const struct wr_opts *o, char *err, size_t len);

/** Bytes handed to its files so far, staged or written out. */
uint64_t wr_bytes_handed(const struct wr_writer *w);

/** A statvfs when WR_BUDGET_NS has passed since the last (wr_poll). */
void wr_budget_tick(struct wr_writer *w);

/**
 * Whether a row of row bytes (and, file > 0, a new file that may take file
 * bytes beyond its rows: kept aside from then on) may be handed to its
 * files and leave min-free: with on-full=remove-oldest, after removing as
 * many of its oldest finished files as that takes. false: the writer is
 * to stop (w->full, w->err says the directory, free space and threshold;
 * or w->error when statvfs failed).
 */
bool wr_budget_room(struct wr_writer *w, size_t row, size_t file);

/** A file it finished and kept (path): one it may remove later. */
void wr_budget_file_done(struct wr_writer *w, const char *path);

/** Forget its finished files (wr_finish); leave its budget group. */
void wr_budget_free(struct wr_writer *w);

/**
 * Writers ws[0..n-1] writing into one directory (dpdk-ibvcap's --write
 * lcores=N, one thread each) keep its min-free together: each counts the
 * others' bytes handed to their files and what their open files still
 * need (published by each at every row check) as its own, so that together
 * they leave min-free as one writer would. Before they run.
 * @return 0 or -ENOMEM (err says so).
 */
int wr_budget_share(struct wr_writer *const *ws, unsigned int n, char *err, size_t len);
/* ---- scans (wr_scan.c) ----------------------------------------------------- */

struct codif_clock;
typedef struct json_t json_t;

/**
 * Put w under schedule sc as its writer wi: each row is then recorded, or
 * not, as wr_sched_lookup says for its data time; a scan's rows go to
 * DIR/SCAN/ (same file names), and each scan's index, what the scan holds
 * per antenna, to DIR/SCAN/PREFIX_scan.FORMAT.json (rewritten as each of
 * its files closes). @return 0 or -ENOMEM (err says so).
 */
int wr_gate_attach(struct wr_writer *w, const struct wr_sched *sc, unsigned int wi,
		   char *err, size_t len);
void wr_gate_free(struct wr_writer *w);
/**
 * Writers ws[0..n-1], attached as one schedule writer (dpdk-ibvcap's
 * --write lcores=N: disjoint antennas, one thread each), keep one index per
 * scan: each index they write lists every antenna of them, as one writer's
 * would. Before they run. @return 0 or -ENOMEM (err says so).
 */
int wr_gate_share(struct wr_writer *const *ws, unsigned int n, char *err, size_t len);
/** The scan of a row of ant at t_ns: an id, WR_ROW_FREE or WR_ROW_SKIP
 * (counted). The scan stays current for wr_gate_dir. */
uint32_t wr_gate_row(struct wr_writer *w, unsigned int ant, int64_t t_ns);
/** The directory of a new file of the current row (made), its scan id. */
int wr_gate_dir(struct wr_writer *w, char *dir, size_t len, uint32_t *scan);
/** The name of the scan wr_gate_dir chose last (NULL: none, or no schedule). */
const char *wr_gate_scan(const struct wr_writer *w);
/** Whether data time t is inside scan (as the writer last saw it). */
bool wr_gate_in(const struct wr_writer *w, uint32_t scan, int64_t t);
/** A row of ant (WR_MAX_ANT: all=yes) written in scan at frame index of clk. */
void wr_gate_wrote(struct wr_writer *w, unsigned int ant, uint32_t scan,
		   const struct codif_clock *clk, int64_t index);
/** A file of ant (WR_MAX_ANT: all=yes) of scan closed with these frames;
 * the scan's index rewritten. @return 0 or a negative errno. */
int wr_gate_closed(struct wr_writer *w, unsigned int ant, uint32_t scan, uint64_t frames,
		   uint64_t gaps, uint64_t overrun, uint64_t cut, bool kept);
/** What w's closed files of one scan hold, all its antennas together. */
struct wr_scan_tally {
	uint64_t frames;   /**< frames received */
	uint64_t gaps;     /**< placeholders for frames lost on the wire */
	uint64_t overrun;  /**< frames w lost (behind the ring): where its files
			        ended (wr_gate_lost), and placeholders (raw rows
			        overwritten while written from the ring) */
	uint64_t cut;      /**< frames an I/O error cut off */
	uint64_t files, rows;
	bool open;         /**< a file of the scan is still open */
};
/** The tally of scan id in w (read from another thread: figures as of the
 * last file closed). @return false when w has no record of the scan. */
bool wr_gate_tally(const struct wr_writer *w, uint32_t id, struct wr_scan_tally *t);
/** The same for one antenna of w (WR_MAX_ANT: an all=yes pcap's antennas
 * together): its part of the scan's tally. */
bool wr_gate_tally_ant(const struct wr_writer *w, uint32_t id, unsigned int ant,
		       struct wr_scan_tally *t);
struct shm_scan_tally;
/** w's newest (by id) max scans' tallies into out (a scan keeps its entry;
 * unused entries id 0): what it publishes for the primary's scan ledger. */
void wr_gate_publish(const struct wr_writer *w, struct shm_scan_tally *out, unsigned int max);
/** rows of ant, with frames valid frames, that w lost (it fell behind the
 * ring) right after its file of scan ended: the scan's overrun. */
void wr_gate_lost(struct wr_writer *w, unsigned int ant, uint32_t scan, uint64_t rows,
		  uint64_t frames);
/** Each scan w wrote, as its index has it, appended to array arr. */
void wr_gate_json(const struct wr_writer *w, json_t *arr);
/** Rows outside every scan (not recorded). */
uint64_t wr_gate_skipped(const struct wr_writer *w);

/* ---- the loop (wr_loop.c) ------------------------------------------------ */

struct shm_writer;

/** Why wr_run returned. */
enum wr_end {
	WR_END_STOP = 0,       /**< asked to (o->stop) */
	WR_END_ERROR,          /**< an I/O error (w->err says what) */
	WR_END_COUNT,          /**< count= frames written (w->done) */
	WR_END_DURATION,       /**< o->duration_ns passed */
	WR_END_SOURCE_STOPPED, /**< the producer stopped and every row is written */
	WR_END_SOURCE_GONE,    /**< the producer died; every final row is written */
	WR_END_DISK_FULL,      /**< free space reached min-free (w->full; w->err
				    says the directory, free space, threshold) */
};

/** How wr_run drives a writer. Every member may be 0 / NULL. */
struct wr_run_opts {
	unsigned int batch;          /**< rows per antenna a poll (0: 256) */
	double max_rate;             /**< frames per second at most (0: no limit) */
	uint64_t duration_ns;        /**< end after this long (0: never) */
	uint64_t stats_ns;           /**< progress() this often (0: never) */
	struct shm_writer *reg;  /**< the writer registry entry (lib/shm) its
					  figures are published to, NULL: none */
	bool (*stop)(void *ctx);           /**< end now (a signal) */
	bool (*source_stopped)(void *ctx); /**< the producer stopped: end once
						every row is written */
	bool (*source_gone)(void *ctx);    /**< the producer died (asked at most
						every 100 ms while idle) */
	void (*progress)(void *ctx, struct wr_writer *w); /**< (its I/O queue: wr_io) */
	void (*note)(void *ctx, const char *line); /**< its lines while it runs
						      (wr_writer.note) */
	void *ctx;
};

/**
 * A writer's figures as lib/stats' writer table has them (struct
 * shm_writer's figures; error: a positive errno, 0 none): what
 * wr_publish publishes and a writer's summary prints.
 */
void wr_figures(const struct wr_stats *st, int error, struct shm_writer *r);

/** w's I/O queue (wr_io) as struct shm_writer's io_* figures: what
 * wr_publish publishes and a writer's summary prints. */
void wr_io_figures(struct wr_writer *w, struct shm_writer *r);

/**
 * Publish w's figures, its live gauges (lag behind the newest placed row
 * in rows and data time, its worst antenna; bytes/s handed to its files,
 * staged or written, over the last second; bytes free in its directory, statvfs) and a heartbeat
 * into a writer registry entry. Called by the writer's own thread, a few
 * times a second (wr_run), never per frame.
 */
void wr_publish(struct wr_writer *w, struct shm_writer *r);
/** Whether w still has final rows of antenna ant with data time before
 * t_ns to take (newest_ns: the antenna's newest frame time): what a scan's
 * end waits for. Read from another thread than w's (its cursor's aligned
 * words). */
bool wr_behind(const struct wr_writer *w, unsigned int ant, int64_t newest_ns, int64_t t_ns);

/**
 * Drive w: write what is final, sleep 0.5 ms when there is nothing, publish
 * its figures every 200 ms whatever the load (busy, held back by max_rate,
 * idle), until one of o's reasons to end; then every file is finished
 * (wr_finish) and the figures published a last time. why (may be NULL): why
 * it ended (WR_END_ERROR when finishing failed).
 * @return 0, or the negative errno of the first I/O error (w->err says
 *   what; files already closed stay valid).
 */
int wr_run(struct wr_writer *w, const struct wr_run_opts *o, enum wr_end *why);

/** "I/O error", "count", "the primary stopped", ... */
const char *wr_end_name(enum wr_end e);

/** A file of size bytes, spanning elapsed_ns, is due for rotation. */
static inline bool
wr_rotate_due(const struct wr_opts *o, uint64_t size, int64_t elapsed_ns)
{
	return (o->rotate_bytes && size >= o->rotate_bytes) ||
	       (o->rotate_ns && elapsed_ns >= (int64_t)o->rotate_ns);
}

/** "<dir>/<prefix>_<antenna>_<YYYYMMDDTHHMMSS.nnnnnnnnnZ>.<ext>". */
int wr_file_name(char *out, size_t len, const struct wr_opts *o,
		 const char *antenna, int64_t t_ns, const char *ext);

#endif /* WRITER_H */
