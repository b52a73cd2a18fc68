/* SPDX-License-Identifier: BSD-3-Clause */
/* codifcheck: command line of the offline inspector, verifier and converter. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bstate.h"
#include "check.h"
#include "err.h"
#include "plot.h"
#include "codif.h"
#include "convert.h"
#include "extract.h"
#include "fringe.h"
#include "opt.h"
#include "parse.h"
#include "ql_bstate_opt.h"
#include "ql_fringe.h"
#include "scan.h"
#include "spectrum.h"

#define ERRLEN 512
#define MAX_PROBLEMS_DEFAULT 100
#define WINDOW_MIN 64
#define WINDOW_MAX (1u << 24)

static const char usage_head[] =
"Usage: codifcheck COMMAND [options] FILE...\n"
"Inspect, verify and convert the files of dpdk-ibvcap and codifgen: CODIF\n"
"v3 frame files, raw data + JSON index, and pcap/pcapng captures. Formats\n"
"are told by content (a raw file by its name NAME.raw and index NAME.raw.json);\n"
"VDIF and legacy CODIF are recognised and refused by name. Files of any size\n"
"are read in constant memory (per stream state; gap lists grow with gaps).\n"
"\n"
"Commands:\n"
"  info FILE|DIR...       streams, parameters, times, counts, gaps, timing\n"
"  verify FILE|DIR...     problems, with file offsets and UTC; exit 1 if any\n"
"  convert FILE... --to F pcap->codif/raw, codif->pcap(ng)/raw, raw->codif/pcap(ng)\n"
"  bstate FILE|DIR...     sampler-state occupancy per stream and channel group,\n"
"                         against the Gaussian; a verdict; exit 1 if not ok\n"
"  spectrum FILE...       power spectra per stream and channel (FFTW), --plot PNG\n"
"  fringe FILE_A FILE_B   cross-correlation of two antennas per channel: the\n"
"                         delay (samples, ns) and coefficient, --plot PNG\n"
"  extract --from T --to T SOURCE... --out DIR\n"
"                         the frames of data time [from, to) from files and\n"
"                         directories (scans included), in their format or --format\n"
"  help                   this text (also: codifcheck COMMAND --help)\n";

static const char about_info[] =
"  Per stream (station/groupid/secondaryid/threadid, and src>dst:port for\n"
"  pcap): parameters (nchan, nbits, complex, representation, period, frames\n"
"  per period, frame duration, data bytes, data rate); first and last frame\n"
"  UTC to the ns; frames, received, lost (each gap as frame indices and a\n"
"  UTC range), late, duplicate, invalid. pcap: per antenna packets and\n"
"  malformed packets by cause, packets from no antenna, and per stream the\n"
"  arrival time minus CODIF frame time (min, median, p99, max) and the\n"
"  jitter |change of that offset between consecutive packets| (same, plus\n"
"  the RFC 3550 estimate). Histograms are fixed-size: exact below 16 ns,\n"
"  16 buckets per power of two above (median/p99 within 3.2%; min/max exact).\n"
"  In codif and raw files a frame written for a gap (invalid bit, all-zero\n"
"  data) counts as lost, not as received or invalid.\n";

static const char about_verify[] =
"  Problems (always): unrecognised or unreadable file, bad sync, bad header,\n"
"  wrong frame length, parameter change, time going backwards (codif, raw),\n"
"  truncated final frame or record, pcap record damage, malformed packets\n"
"  from an antenna, raw index disagreeing with its raw file. Each is listed\n"
"  with file, byte offset and UTC (frame time; arrival time in a pcap).\n"
"  Notes (problems only with --strict): lost frames (gaps), invalid frames,\n"
"  late and duplicate packets in a pcap, packets from no antenna, NAME.part\n"
"  files and unrecognised files in a directory.\n"
"  A DIR is every file directly inside it, and the scan directories of a\n"
"  writer's DIR (DIR/SCAN/, those holding a PREFIX_scan.FORMAT.json): each\n"
"  scan index is checked against the scan's files (frames, placeholders,\n"
"  files per antenna); other subdirectories are not searched. NAME.part\n"
"  files are reported as incomplete and not read.\n";

static const char about_convert[] =
"  pcap/pcapng -> codif, raw  one file per antenna, rows in frame order\n"
"                         whatever the arrival order; lost frames written as\n"
"                         invalid zero-data frames / zeros (formats.md);\n"
"                         duplicates dropped\n"
"  codif, raw -> pcap     Ethernet/IPv4/UDP headers made up (--src, --dst;\n"
"                         a raw index's addresses), frame times as ns\n"
"                         timestamps; gap frames left out\n"
"  codif, raw -> pcapng   the same packets; one interface named after the\n"
"                         antenna (--antenna-name, the input's) with its\n"
"                         source address\n"
"  codif -> raw           NAME.raw + NAME.raw.json (whole rows only)\n"
"  raw -> codif           headers rebuilt from the index\n"
"  Outputs are written as NAME.part and renamed when complete; an existing\n"
"  file is never replaced without --force. Names follow formats.md:\n"
"  OUTDIR/PREFIX_ANTENNA_YYYYMMDDTHHMMSS.nnnnnnnnnZ.EXT (time of the first frame).\n";

static const char about_extract[] =
"  Cuts the frames whose CODIF data time is in [--from, --to) out of\n"
"  recorded files (formats.md names: PREFIX_ANTENNA_UTC.codif|raw|pcap|pcapng)\n"
"  and directories (their files, and their subdirectories' files: scans).\n"
"  Per antenna, its files in time order: file i holds [its time, the next\n"
"  file's time), so only the files the window reaches are read (each whole,\n"
"  in constant memory). codif and raw: rows in frame order across files and\n"
"  rotations, into one output while rows follow each other (a new one at a\n"
"  hole, a resync or new parameters), in the source's format or --format\n"
"  (codif, raw, pcap, pcapng); gap frames as every writer writes them (codif\n"
"  invalid zero-data frames, raw zeros listed in gaps, pcap nothing). pcap\n"
"  and pcapng: the packets whose CODIF frame time is in the window, as they\n"
"  are, to pcap or pcapng; to codif or raw, as rows by frame index across\n"
"  files (a capture converted: lost frames as gap frames, from the window's\n"
"  first frame to its last). OUT/PREFIX_extract.json (PREFIX: --prefix, else\n"
"  codifcheck) reports what the window held and missed, in the shape of a\n"
"  capture's trigger result (operations.md): result complete, partial or\n"
"  empty; files; frames, placeholders; per antenna written_from/_to and the\n"
"  spans before the recording (before_capture_*) and after it (not_arrived_*).\n"
"  A window with no frame of the sources writes no file and exits 1.\n";

static const char about_bstate[] =
"  Every frame as received (not gap frames, not frames with the invalid\n"
"  bit) of each stream: the share of each sampler state (1, 2, 4 bits:\n"
"  each level, most negative first; 8, 16, 32-bit integers: 64 fixed bins\n"
"  over the code range), for the stream and each channel group, beside the\n"
"  share Gaussian noise at the optimal level gives (2 bits 16/34/34/16 %).\n"
"  The RMS is estimated from the states (2, 4 bits) or the samples (8 bits\n"
"  and more), in steps. Verdict, first that holds: nodata (< --min-samples),\n"
"  dead (zero code >= --dead), saturated (extreme codes >= --saturated),\n"
"  stuck bit (a bit of the code never changed), under-driven (rms <\n"
"  --under x optimal), over-driven (rms > --over x optimal), ok. Optimal RMS:\n"
"  2 bits 1 step, 4 bits 2.98, 8 bits and more 2^(nbits-1)/8; 1 bit: none.\n";

static const char about_spectrum[] =
"  Each channel's samples of every frame as received (gap frames and\n"
"  frames with the invalid bit left out), in blocks of --nfft, through\n"
"  FFTW; |X|^2 averaged over the blocks, in dB (steps^2 per bin, / nfft).\n"
"  Frequencies in MHz from the header (fs = totalsamples / period per\n"
"  channel): real channels 0 .. fs/2 (nfft/2 + 1 bins), complex -fs/2 ..\n"
"  +fs/2 about the channel's centre (nfft bins). Per channel: the peak (bin,\n"
"  MHz, dB) and the mean; --json: every bin. --plot FILE.png: the bandpass\n"
"  of each stream, its channels side by side, drawn by gnuplot (pngcairo)\n"
"  with FILE.png.dat, the data it plots, beside it.\n";

static const char about_fringe[] =
"  Frames of the same time (the same thread and frame index, (seconds /\n"
"  period) x frames per period + frame) in FILE_A and FILE_B, as received\n"
"  (gap frames and frames with the invalid bit left out), paired; each\n"
"  channel's samples of a pair, minus the frame's mean, cross-correlated by\n"
"  FFTW (zero-padded: lags up to --max-lag, within the frame) and summed\n"
"  over the pairs (lib/quicklook ql_fringe, as the capture's /ibvcap/fringe).\n"
"  Per thread and channel: the lag of the peak of |coefficient| (samples of\n"
"  B behind A, and ns from the header's sample rate), the normalised\n"
"  coefficient there (real: signed; complex: its magnitude and phase), its\n"
"  noise 1/sqrt(samples) and the pairs used; frames unmatched on each side.\n"
"  The two files must agree on channels, encoding, sample rate and frame\n"
"  length. FILE_A's frames are held in memory, at most --max-frames.\n"
"  --plot FILE.png: the coefficient against lag of each channel (the first\n"
"  thread), drawn by gnuplot, with FILE.png.dat beside it.\n";

static const char usage_tail[] =
"Exit status: 0 clean; 1 problems found (verify), a file unrecognised,\n"
"damaged or unreadable (info), or a conversion failed or its input had\n"
"problems (convert: complete outputs are kept); 2 bad command line.\n";

/* Everything a command line sets, for all commands. */
struct opts {
	struct cc_check_opts chk;
	struct cc_conv_opts conv;
	struct cc_filter filter;
	const char *select;   /* --antenna: among the --antenna-ip antennas */
	bool check_only;      /* --check-config */
	bool have_to;
	struct cc_extract_opts ext;
	bool have_from, have_until;
	struct cc_bstate_opts bs;
	struct cc_spectrum_opts sp;
	struct cc_fringe_opts fr;
	bool outdir_set;
	int first;        /* the first FILE in argv (after the options) */
};

static void
defaults(void *obj, void *ctx)
{
	struct opts *o = obj;

	(void)ctx;
	memset(o, 0, sizeof(*o));
	o->chk.max_problems = MAX_PROBLEMS_DEFAULT;
	o->conv.max_problems = MAX_PROBLEMS_DEFAULT;
	o->conv.outdir = ".";
	o->conv.src = CC_DEFAULT_SRC;
	o->conv.dst = CC_DEFAULT_DST;
	o->conv.port = CC_DEFAULT_PORT;
	o->chk.filter = &o->filter;
	o->conv.filter = &o->filter;
	qlb_cfg_defaults(&o->bs.cfg);
	o->bs.groups = 1;
	o->sp.nfft = 256;
	o->fr.max_frames = 8192;
	o->fr.max_lag = QLF_DEF_MAX_LAG;
	codif_tl_cfg_defaults(&o->chk.tl);
	o->conv.tl = o->chk.tl;
}

/* A file name part: non-empty, no '/', and no '_' when the name is split
 * at '_' (formats.md). */
static int
name_part(const char *opt, const char *a, bool allow_underscore, char *err, size_t errlen)
{
	if (a[0] == '\0' || strlen(a) >= 64 || strchr(a, '/') != NULL ||
	    (!allow_underscore && strchr(a, '_') != NULL)) {
		return err_set(err, errlen, -EINVAL,
			       "%s: '%s': expected 1..63 characters without '/'%s",
			       opt, a, allow_underscore ? "" : " or '_'");
	}
	return 0;
}

static int
set_prefix(const struct opt_arg *a, char *err, size_t errlen)
{
	((struct opts *)a->obj)->conv.prefix = a->val;
	return name_part(a->opt, a->val, true, err, errlen);
}

static int
set_antenna_name(const struct opt_arg *a, char *err, size_t errlen)
{
	((struct opts *)a->obj)->conv.antenna = a->val;
	return name_part(a->opt, a->val, false, err, errlen);
}

static int
set_outdir(const struct opt_arg *a, char *err, size_t errlen)
{
	struct opts *o = a->obj;
	struct stat st;

	if (stat(a->val, &st) != 0 || !S_ISDIR(st.st_mode))
		return err_set(err, errlen, -EINVAL, "%s: '%s': expected an existing directory",
			       a->opt, a->val);
	o->conv.outdir = a->val;
	o->outdir_set = true;
	return 0;
}

static int
set_dst(const struct opt_arg *a, char *err, size_t errlen)
{
	struct opts *o = a->obj;

	return parse_ipv4_port(a->opt, a->val, &o->conv.dst, &o->conv.port, err, errlen);
}

/* extract --from, --to: a UTC time */
static int
set_window(const struct opt_arg *a, char *err, size_t errlen)
{
	struct opts *o = a->obj;
	bool from = strcmp(a->def->name, "from") == 0;

	if (codif_parse_time_arg(a->opt, a->val, from ? &o->ext.from : &o->ext.to, err,
				 errlen) != 0)
		return -EINVAL;
	if (from)
		o->have_from = true;
	else
		o->have_until = true;
	return 0;
}

static int
set_since(const struct opt_arg *a, char *err, size_t errlen)
{
	struct opts *o = a->obj;

	if (codif_parse_time_arg(a->opt, a->val, &o->chk.since_ns, err, errlen) != 0)
		return -EINVAL;
	o->chk.have_since = true;
	return 0;
}

/* --antenna-ip and --group: lists for the capture filter. */
static int
set_filter(const struct opt_arg *a, char *err, size_t errlen)
{
	struct cc_filter *f = &((struct opts *)a->obj)->filter;
	bool ant = strcmp(a->def->name, "antenna-ip") == 0;
	char *items[ACCT_MAX_GROUPS], *store;
	int n, i, rc = 0;

	n = parse_list(a->opt, a->val, ',', items, ant ? ACCT_MAX_ANTENNAS : ACCT_MAX_GROUPS,
		       &store, err, errlen);
	if (n < 0)
		return n;
	for (i = 0; i < n && rc == 0; i++) {
		if (ant)
			rc = parse_antenna_ip(a->opt, items[i], &f->ant_ip[i], f->ant_name[i],
					      sizeof(f->ant_name[i]), err, errlen);
		else
			rc = parse_ipv4_port(a->opt, items[i], &f->group[i].ip,
					     &f->group[i].port, err, errlen);
	}
	free(store);
	if (ant)
		f->nant = rc == 0 ? (unsigned int)n : 0;
	else
		f->ngroup = rc == 0 ? (unsigned int)n : 0;
	return rc;
}

static int help_cmd(const struct opt_arg *a, char *err, size_t errlen);

/* --to and --format: lib/fmt's names (fmt_names), as codifcheck's formats
 * (main fills them in) */
static int fmt_values[4];

#define O struct opts
#define BS_CFG(f) bs.cfg.f /* the verdict thresholds' rows: ql_bstate_opt.h */
static const struct opt_def info_opts[] = {
	{"json", .kind = OPT_FLAG, OPT_AT(O, chk.json),
	 .help = "one JSON object (for one file; else {\"files\": [...]}) whose "
		 "streams/antennas compare.py reads"},
	{"max-gaps", .kind = OPT_UINT, .metavar = "N", .min = 0, .max = UINT64_MAX,
	 OPT_AT(O, chk.max_gaps), .help = "list at most N gaps per stream (0 = all)"},
	{"help", .kind = OPT_ACTION, .letter = 'h', .flags = OPT_F_ACTION, .set = help_cmd,
	 .help = "this text"},
	{ .name = NULL },
};

static const struct opt_def verify_opts[] = {
	{"json", .kind = OPT_FLAG, OPT_AT(O, chk.json),
	 .help = "{\"files\": [...], \"problems\": N, \"ok\": BOOL}"},
	{"since", .kind = OPT_CUSTOM, .metavar = "TIME", .set = set_since,
	 .help = "skip files that start before TIME (the UTC in a formats.md name, else the "
		 "first frame or record): 2025-03-10T12:00:00Z, @SECONDS"},
	{"pattern", .kind = OPT_FLAG, OPT_AT(O, chk.pattern),
	 .help = "also check every payload against codifgen's pattern; the first differing "
		 "byte's file offset is reported"},
	{"strict", .kind = OPT_FLAG, OPT_AT(O, chk.strict), .help = "notes are problems too"},
	{"help", .kind = OPT_ACTION, .letter = 'h', .flags = OPT_F_ACTION, .set = help_cmd,
	 .help = "this text"},
	{ .name = NULL },
};

static const struct opt_def convert_opts[] = {
	{"to", .kind = OPT_ENUM, .metavar = "FORMAT", .names = fmt_names, .values = fmt_values,
	 OPT_AT(O, conv.to), OPT_SEEN(O, have_to), .help = "codif, pcap, pcapng or raw (required)"},
	{"output", .kind = OPT_PATH, .letter = 'o', .metavar = "FILE", OPT_PTR(O, conv.output),
	 .help = "write exactly FILE (one input, one output)"},
	{"outdir", .kind = OPT_CUSTOM, .metavar = "DIR", .def = ".", .set = set_outdir,
	 .help = "directory for named outputs"},
	{"prefix", .kind = OPT_CUSTOM, .metavar = "PREFIX", .def = "the input's, else ibvcap",
	 .set = set_prefix, .help = "name prefix"},
	{"antenna-name", .kind = OPT_CUSTOM, .metavar = "NAME", .set = set_antenna_name,
	 .def = "--antenna-ip's NAME, the input's or the index's, else ant<i> with i by source "
		"address",
	 .help = "the antenna part of output file names"},
	{"src", .kind = OPT_IPV4, .metavar = "IP", OPT_AT(O, conv.src),
	 .help = "codif -> pcap/raw: source address"},
	{"dst", .kind = OPT_CUSTOM, .metavar = "IP:PORT", .set = set_dst,
	 .def = "239.17.0.1:36001, codifgen's layout",
	 .help = "destination of secondaryid 0; secondaryid k goes to IP+k, PORT+k"},
	{"force", .kind = OPT_FLAG, OPT_AT(O, conv.force), .help = "replace existing output files"},
	{"help", .kind = OPT_ACTION, .letter = 'h', .flags = OPT_F_ACTION, .set = help_cmd,
	 .help = "this text"},
	{ .name = NULL },
};

static const struct opt_def extract_opts[] = {
	{"from", .kind = OPT_CUSTOM, .metavar = "TIME", .set = set_window,
	 .help = "the window's start (data time, UTC; in it): 2025-03-10T12:00:00.5Z, "
		 "@SECONDS (required)"},
	{"to", .kind = OPT_CUSTOM, .metavar = "TIME", .set = set_window,
	 .help = "the window's end (not in it), after --from (required)"},
	{"out", .kind = OPT_CUSTOM, .metavar = "DIR", .set = set_outdir,
	 .help = "an existing directory for the outputs and the report (required)"},
	{"format", .kind = OPT_ENUM, .metavar = "FORMAT", .names = fmt_names,
	 .values = fmt_values, .def = "each source's own", OPT_AT(O, ext.conv.to),
	 OPT_SEEN(O, ext.have_format),
	 .help = "codif, pcap, pcapng or raw"},
	{"prefix", .kind = OPT_CUSTOM, .metavar = "PREFIX", .def = "the sources'",
	 .set = set_prefix, .help = "name prefix of the outputs and of PREFIX_extract.json "
		 "(default codifcheck_extract.json)"},
	{"force", .kind = OPT_FLAG, OPT_AT(O, conv.force), .help = "replace existing output files"},
	{"help", .kind = OPT_ACTION, .letter = 'h', .flags = OPT_F_ACTION, .set = help_cmd,
	 .help = "this text"},
	{ .name = NULL },
};

static const struct opt_def bstate_opts[] = {
	{"json", .kind = OPT_FLAG, OPT_AT(O, bs.json),
	 .help = "{\"files\": [{\"streams\": [{\"verdict\", \"rms\", \"occupancy\", "
		 "\"expected\", \"groups\": [...]}]}], \"ok\": BOOL}"},
	{"groups", .kind = OPT_UINT, .metavar = "N", .min = 1, .max = QLB_MAX_GROUPS,
	 OPT_AT(O, bs.groups), .help = "channel groups per stream (channels in groups of "
		 "ceil(nchan / N))"},
	QLB_CFG_OPT_ROWS(O, BS_CFG),
	{"plot", .kind = OPT_PATH, .metavar = "FILE.png", OPT_PTR(O, bs.plot),
	 .help = "draw each stream's occupancy (of the last FILE; at most 8 streams) with the "
		 "expected levels into FILE.png with gnuplot"},
	{"help", .kind = OPT_ACTION, .letter = 'h', .flags = OPT_F_ACTION, .set = help_cmd,
	 .help = "this text"},
	{ .name = NULL },
};

static const struct opt_def spectrum_opts[] = {
	{"nfft", .kind = OPT_UINT, .flags = OPT_F_POW2, .metavar = "N", .min = 16,
	 .max = 65536, OPT_AT(O, sp.nfft), .help = "points per FFT: the resolution is fs / N"},
	{"json", .kind = OPT_FLAG, OPT_AT(O, sp.json),
	 .help = "{\"files\": [{\"streams\": [{\"freq_mhz\", \"channels\": [{\"peak_bin\", "
		 "\"peak_mhz\", \"peak_db\", \"power_db\"}]}]}]}"},
	{"plot", .kind = OPT_PATH, .metavar = "FILE.png", OPT_PTR(O, sp.plot),
	 .help = "draw the bandpasses (of the last FILE) into FILE.png with gnuplot"},
	{"help", .kind = OPT_ACTION, .letter = 'h', .flags = OPT_F_ACTION, .set = help_cmd,
	 .help = "this text"},
	{ .name = NULL },
};

static const struct opt_def fringe_opts[] = {
	{"channels", .kind = OPT_STRING, .metavar = "LIST", .def = "all",
	 OPT_PTR(O, fr.channels), .help = "correlate only these channels, e.g. 0,2-3"},
	{"max-lag", .kind = OPT_UINT, .metavar = "N", .min = 1, .max = QLF_MAX_LAG,
	 .unit = "samples", OPT_AT(O, fr.max_lag),
	 .help = "search lags -N..N (at most the samples per frame - 1)"},
	{"max-frames", .kind = OPT_UINT, .metavar = "N", .min = 1, .max = 10000000,
	 OPT_AT(O, fr.max_frames),
	 .help = "frames of FILE_A held for pairing (the rest counted, not paired)"},
	{"json", .kind = OPT_FLAG, OPT_AT(O, fr.json),
	 .help = "{\"pairs\", \"unmatched_a\", \"unmatched_b\", \"streams\": [{\"thread\", "
		 "\"channels\": [{\"lag_samples\", \"lag_ns\", \"coefficient\", "
		 "\"phase_deg\", \"sigma\"}]}]}"},
	{"plot", .kind = OPT_PATH, .metavar = "FILE.png", OPT_PTR(O, fr.plot),
	 .help = "draw the coefficient against lag per channel into FILE.png with gnuplot"},
	{"help", .kind = OPT_ACTION, .letter = 'h', .flags = OPT_F_ACTION, .set = help_cmd,
	 .help = "this text"},
	{ .name = NULL },
};

/* the rows of every command (the timelines, the capture filter, the
 * problem list); after the parse, conv takes chk's */
static const struct opt_def common_opts[] = {
	{"max-problems", .kind = OPT_UINT, .metavar = "N", .min = 1, .max = 1000000,
	 OPT_AT(O, chk.max_problems), .help = "list at most N problems per file (all counted)"},
	{"window", .kind = OPT_UINT, .flags = OPT_F_POW2, .metavar = "N", .min = WINDOW_MIN,
	 .max = WINDOW_MAX, OPT_AT(O, chk.tl.window),
	 .help = "frames behind the newest tracked for late and duplicate (as the capture "
		 "program)"},
	{"reorder-window", .kind = OPT_UINT, .metavar = "N", .min = 1, .max = WINDOW_MAX,
	 OPT_AT(O, chk.tl.ahead), .help = "frames ahead of the newest taken at once"},
	{"confirm", .kind = OPT_UINT, .metavar = "K", .min = 2, .max = CODIF_MAX_CONFIRM,
	 OPT_AT(O, chk.tl.confirm),
	 .help = "agreeing frames that move a timeline: a frame beyond the windows is held "
		 "until K agree, else dropped (a bit flip, a stray frame: reported)"},
	{"max-gap", .kind = OPT_DURATION, .metavar = "T", .min = 1000,
	 .max = 3600ULL * 1000000000ULL, OPT_AT(O, chk.tl.max_gap_ns),
	 .help = "a confirmed jump ahead of at most T is loss; a longer one too (an outage) "
		 "when its data time and the time between the pcap records agree within T "
		 "(+100 ppm; codif/raw files have no such times); else a resync: a new segment "
		 "(convert: a new file), never placeholders"},
	{"antenna-ip", .kind = OPT_CUSTOM, .metavar = "IP[=NAME][,...]", .set = set_filter,
	 .def = "every IPv4 source is: name them when the capture holds other traffic",
	 .help = "captures: only these sources are antennas; the rest counts as from no "
		 "antenna, as in the capture program; NAME (default ant<i>) names convert's "
		 "outputs and --antenna takes it"},
	{"antenna", .kind = OPT_STRING, .metavar = "A[,A...]", .def = "all", OPT_PTR(O, select),
	 .help = "captures: only these of the --antenna-ip antennas (names or indices); the "
		 "others count as from no antenna; extract: only the files of these antennas "
		 "(the ANTENNA of their names)"},
	{"group", .kind = OPT_CUSTOM, .metavar = "IP:PORT[,...]", .set = set_filter,
	 .help = "captures: only these destinations are groups"},
	{"check-config", .kind = OPT_FLAG, .flags = OPT_F_ACTION, OPT_AT(O, check_only),
	 .help = "check the options, print the effective configuration and exit 0, or exit 2 "
		 "naming the option; no FILE is read (nor needed)"},
	{ .name = NULL },
};
#undef O

enum cmd { CMD_INFO, CMD_VERIFY, CMD_CONVERT, CMD_EXTRACT, CMD_BSTATE, CMD_SPECTRUM,
	   CMD_FRINGE };

static const char *const cmd_name[] = { "info", "verify", "convert", "extract", "bstate",
					"spectrum", "fringe" };

#define CC_CMD(NAME, USAGE, ABOUT, TAB) {                                   \
	.prog = "codifcheck " NAME, .usage = USAGE, .about = ABOUT,         \
	.opts = TAB, .more = common_opts, .flags = OPT_CMD_ARGS,            \
	.unknown = "unrecognized", /* getopt's word, as before the table */ \
	.defaults = defaults, .obj_size = sizeof(struct opts) }

static const struct opt_cmd cmds[] = {
	[CMD_INFO] = CC_CMD("info", "codifcheck info [options] FILE|DIR...\n", about_info,
			    info_opts),
	[CMD_VERIFY] = CC_CMD("verify", "codifcheck verify [options] FILE|DIR...\n",
			      about_verify, verify_opts),
	[CMD_CONVERT] = CC_CMD("convert", "codifcheck convert --to FORMAT [options] FILE...\n",
			       about_convert, convert_opts),
	[CMD_EXTRACT] = CC_CMD("extract", "codifcheck extract --from TIME --to TIME --out DIR "
			       "[options] FILE|DIR...\n", about_extract, extract_opts),
	[CMD_BSTATE] = CC_CMD("bstate", "codifcheck bstate [options] FILE...\n", about_bstate,
			      bstate_opts),
	[CMD_SPECTRUM] = CC_CMD("spectrum", "codifcheck spectrum [options] FILE...\n",
				about_spectrum, spectrum_opts),
	[CMD_FRINGE] = CC_CMD("fringe", "codifcheck fringe [options] FILE_A FILE_B\n",
			      about_fringe, fringe_opts),
};

static void
usage(FILE *f, int cmd)
{
	int c;

	if (cmd < 0)
		fputs(usage_head, f);
	for (c = 0; c < (int)(sizeof(cmds) / sizeof(cmds[0])); c++)
		if (cmd < 0 || cmd == c) {
			fputc('\n', f);
			opt_help(&cmds[c], f);
		}
	fputc('\n', f);
	fputs(usage_tail, f);
}

static int
help_cmd(const struct opt_arg *a, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	usage(stdout, (int)(a->cmd - cmds));
	return 1;
}

/* --antenna A[,A...]: the filter keeps only those of its antennas. */
static int
select_filter(struct cc_filter *f, const char *list, char *err, size_t errlen)
{
	const char *names[ACCT_MAX_ANTENNAS];
	char dflt[ACCT_MAX_ANTENNAS][16];
	uint64_t mask;
	unsigned int i, k = 0;
	int rc;

	if (f->nant == 0)
		return err_set(err, errlen, -EINVAL, "--antenna '%s': selects among the --antenna-ip "
			       "antennas: give them (e.g. --antenna-ip 10.17.0.211=ak01,"
			       "10.17.0.212=ak02); an output file's antenna name is --antenna-name",
			       list);
	for (i = 0; i < f->nant; i++) {
		snprintf(dflt[i], sizeof(dflt[i]), "ant%u", i);
		names[i] = f->ant_name[i][0] != '\0' ? f->ant_name[i] : dflt[i];
	}
	rc = parse_antenna_select("--antenna", list, names, f->nant, &mask, err, errlen);
	if (rc != 0)
		return rc;
	for (i = 0; i < f->nant; i++) {
		if (!(mask >> i & 1))
			continue;
		/* the kept antenna keeps its name: ant<i> of the whole list */
		f->ant_ip[k] = f->ant_ip[i];
		if (names[i] == dflt[i] || k != i)
			snprintf(f->ant_name[k], sizeof(f->ant_name[k]), "%s", names[i]);
		k++;
	}
	f->nant = k;
	return 0;
}

/* @return 0, 1 (help printed: exit 0) or -1 (error printed: exit 2). */
static int
parse_args(int cmd, int argc, char **argv, struct opts *o)
{
	char err[ERRLEN];
	int rc;

	defaults(o, NULL);
	rc = opt_parse_argv(&cmds[cmd], o, NULL, argc, argv, &o->first, err, sizeof(err));
	if (rc != 0) {
		if (rc < 0)
			fprintf(stderr, "codifcheck %s: %s\n", cmd_name[cmd], err);
		return rc > 0 ? 1 : -1;
	}
	o->conv.tl = o->chk.tl;
	o->conv.max_problems = o->chk.max_problems;
	if (codif_tl_cfg_check(&o->chk.tl, err, sizeof(err)) != 0) {
		fprintf(stderr, "codifcheck %s: --window, --reorder-window, --confirm, "
			"--max-gap: %s\n", cmd_name[cmd], err);
		return -1;
	}
	if (cmd != CMD_EXTRACT && o->select != NULL &&
	    select_filter(&o->filter, o->select, err, sizeof(err)) != 0) {
		fprintf(stderr, "codifcheck %s: %s\n", cmd_name[cmd], err);
		return -1;
	}
	if (o->check_only) {
		opt_print(&cmds[cmd], o, stdout);
		return 1;
	}
	if (o->first >= argc) {
		fprintf(stderr, "codifcheck %s: no FILE given (try codifcheck %s --help)\n",
			cmd_name[cmd], cmd_name[cmd]);
		return -1;
	}
	if (cmd == CMD_EXTRACT) {
		if (!o->have_from || !o->have_until || !o->outdir_set) {
			fprintf(stderr, "codifcheck extract: --from, --to and --out are required "
				"(try codifcheck extract --help)\n");
			return -1;
		}
		if (o->ext.to <= o->ext.from) {
			char a[CODIF_TIMESTR_LEN], b[CODIF_TIMESTR_LEN];

			fprintf(stderr, "codifcheck extract: --to: '%s': expected a time after "
				"--from (%s): the window is [from, to)\n",
				codif_time_str(o->ext.to, b, sizeof(b)),
				codif_time_str(o->ext.from, a, sizeof(a)));
			return -1;
		}
	}
	if (cmd == CMD_CONVERT) {
		if (!o->have_to) {
			fprintf(stderr, "codifcheck convert: --to is required: codif, pcap, "
				"pcapng or raw\n");
			return -1;
		}
		if (o->conv.output != NULL && argc - o->first > 1) {
			fprintf(stderr, "codifcheck convert: --output names one output; "
				"%d inputs given (use --outdir)\n", argc - o->first);
			return -1;
		}
		if (o->conv.output != NULL && o->outdir_set) {
			fprintf(stderr, "codifcheck convert: --output and --outdir exclude "
				"each other\n");
			return -1;
		}
	}
	return 0;
}

static int
find_cmd(const char *s)
{
	unsigned int i;

	for (i = 0; i < sizeof(cmd_name) / sizeof(cmd_name[0]); i++)
		if (strcmp(s, cmd_name[i]) == 0)
			return (int)i;
	return -1;
}

int
main(int argc, char **argv)
{
	struct opts o;
	int cmd, rc, i, status = CC_EXIT_OK;

	for (i = 0; fmt_names[i] != NULL && i < (int)(sizeof(fmt_values) / sizeof(fmt_values[0]));
	     i++)
		fmt_values[i] = cc_fmt_of_kind(fmt_kinds[i]);
	if (argc < 2) {
		usage(stderr, -1);
		return CC_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout, -1);
		return CC_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		opt_version(&cmds[0], stdout);
		return CC_EXIT_OK;
	}
	cmd = find_cmd(argv[1]);
	if (cmd < 0) {
		fprintf(stderr, "codifcheck: unknown command '%s': expected info, verify, "
			"convert, extract, bstate, spectrum or fringe (try codifcheck --help)\n", argv[1]);
		return CC_EXIT_USAGE;
	}
	rc = parse_args(cmd, argc - 1, argv + 1, &o);
	if (rc != 0)
		return rc > 0 ? CC_EXIT_OK : CC_EXIT_USAGE;
	argc -= 1;
	argv += 1;
	switch (cmd) {
	case CMD_INFO:
		return cc_cmd_info(argv + o.first, argc - o.first, &o.chk);
	case CMD_VERIFY:
		return cc_cmd_verify(argv + o.first, argc - o.first, &o.chk);
	case CMD_BSTATE:
		o.bs.so.tl = o.chk.tl;
		o.bs.so.max_problems = o.chk.max_problems;
		o.bs.so.filter = &o.filter;
		if (o.bs.plot != NULL && cc_plot_path_ok("codifcheck bstate", o.bs.plot) != 0)
			return CC_EXIT_USAGE;
		return cc_cmd_bstate(argv + o.first, argc - o.first, &o.bs);
	case CMD_SPECTRUM:
		o.sp.so.tl = o.chk.tl;
		o.sp.so.max_problems = o.chk.max_problems;
		o.sp.so.filter = &o.filter;
		if (o.sp.plot != NULL && cc_plot_path_ok("codifcheck spectrum", o.sp.plot) != 0)
			return CC_EXIT_USAGE;
		return cc_cmd_spectrum(argv + o.first, argc - o.first, &o.sp);
	case CMD_FRINGE:
		o.fr.so.tl = o.chk.tl;
		o.fr.so.max_problems = o.chk.max_problems;
		o.fr.so.filter = &o.filter;
		if (argc - o.first != 2) {
			fprintf(stderr, "codifcheck fringe: expected two files, FILE_A FILE_B; got "
				"%d (try codifcheck fringe --help)\n", argc - o.first);
			return CC_EXIT_USAGE;
		}
		if (o.fr.plot != NULL && cc_plot_path_ok("codifcheck fringe", o.fr.plot) != 0)
			return CC_EXIT_USAGE;
		return cc_cmd_fringe(argv[o.first], argv[o.first + 1], &o.fr);
	case CMD_EXTRACT: {
		struct opts *p = &o;
		struct cc_conv_opts to_fmt = p->ext.conv;

		p->ext.conv = p->conv;
		p->ext.conv.to = to_fmt.to;
		p->ext.antennas = p->select;
		return cc_cmd_extract(argv + o.first, argc - o.first, &p->ext);
	}
	default:
		for (i = o.first; i < argc; i++)
			if (cc_cmd_convert(argv[i], &o.conv) != CC_EXIT_OK)
				status = CC_EXIT_PROBLEMS;
		return status;
	}
}
