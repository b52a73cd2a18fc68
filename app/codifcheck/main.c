/* SPDX-License-Identifier: BSD-3-Clause */
/* codifcheck: command line of the offline inspector, verifier and converter. */

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "codif.h"
#include "convert.h"
#include "parse.h"
#include "scan.h"

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
"  convert FILE... --to F pcap->codif/raw, codif->pcap/raw, raw->codif/pcap\n"
"  help                   this text (also: codifcheck COMMAND --help)\n";

static const char usage_info[] =
"\n"
"codifcheck info [options] FILE|DIR...\n"
"  Per stream (station/groupid/secondaryid/threadid, and src>dst:port for\n"
"  pcap): parameters (nchan, nbits, complex, representation, period, frames\n"
"  per period, frame duration, data bytes, data rate); first and last frame\n"
"  UTC to the ns; frames, received, lost (each gap as frame indices and a\n"
"  UTC range), late, duplicate, invalid. pcap: per antenna packets and\n"
"  malformed packets by cause, packets from no antenna, and per stream the\n"
"  arrival time minus CODIF frame time (min, median, p99, max) and the\n"
"  jitter |change of that offset between consecutive packets| (same, plus\n"
"  the RFC 3550 estimate). Histograms are fixed-size: exact below 16 ns,\n"
"  16 buckets per power of two above (median/p99 within 3.2%%; min/max exact).\n"
"  In codif and raw files a frame written for a gap (invalid bit, all-zero\n"
"  data) counts as lost, not as received or invalid.\n"
"  --json                 one JSON object (for one file; else {\"files\": [...]})\n"
"                         whose streams/antennas compare.py reads\n"
"  --max-gaps N           list at most N gaps per stream (0 = all; default 0)\n"
"  --max-problems N       list at most N problems per file (100)\n"
"  --window N             frames behind the newest tracked for late and\n"
"                         duplicate, a power of two %u..%u (4096, as the\n"
"                         capture program)\n"
"  --reorder-window N     frames ahead of the newest taken at once (64)\n"
"  --confirm K            agreeing frames that move a timeline (4): a frame\n"
"                         beyond the windows is held until K agree, else\n"
"                         dropped (a bit flip, a stray frame: reported)\n"
"  --max-gap T            a confirmed jump ahead of at most T (1s) is loss;\n"
"                         more is a resync: a new segment (convert: a new\n"
"                         file), never placeholders\n"
"  --antenna-ip IP[,IP..] captures: only these sources are antennas (default:\n"
"                         every IPv4 source is: name them when the capture\n"
"                         holds other traffic); the rest counts as from no\n"
"                         antenna, as in the capture program\n"
"  --group IP:PORT[,...]  captures: only these destinations are groups\n"
"  -h, --help             this text\n";

static const char usage_verify[] =
"\n"
"codifcheck verify [options] FILE|DIR...\n"
"  Problems (always): unrecognised or unreadable file, bad sync, bad header,\n"
"  wrong frame length, parameter change, time going backwards (codif, raw),\n"
"  truncated final frame or record, pcap record damage, malformed packets\n"
"  from an antenna, raw index disagreeing with its raw file. Each is listed\n"
"  with file, byte offset and UTC (frame time; arrival time in a pcap).\n"
"  Notes (problems only with --strict): lost frames (gaps), invalid frames,\n"
"  late and duplicate packets in a pcap, packets from no antenna, NAME.part\n"
"  files and unrecognised files in a directory.\n"
"  A DIR is every file directly inside it (not subdirectories); NAME.part\n"
"  files are reported as incomplete and not read.\n"
"  --json                 {\"files\": [...], \"problems\": N, \"ok\": BOOL}\n"
"  --since TIME           skip files that start before TIME (the UTC in a\n"
"                         formats.md name, else the first frame or record):\n"
"                         2025-03-10T12:00:00Z, @SECONDS\n"
"  --pattern              also check every payload against codifgen's pattern;\n"
"                         the first differing byte's file offset is reported\n"
"  --strict               notes are problems too\n"
"  --max-problems N       list at most N problems per file (100; all counted)\n"
"  --window N, --reorder-window N, --confirm K, --max-gap T,\n"
"  --antenna-ip IP[,IP...], --group IP:PORT[,...]  as for info\n"
"  -h, --help             this text\n";

static const char usage_convert[] =
"\n"
"codifcheck convert --to FORMAT [options] FILE...\n"
"  pcap/pcapng -> codif, raw  one file per antenna, rows in frame order\n"
"                         whatever the arrival order; lost frames written as\n"
"                         invalid zero-data frames / zeros (formats.md);\n"
"                         duplicates dropped\n"
"  codif, raw -> pcap     Ethernet/IPv4/UDP headers made up (--src, --dst;\n"
"                         a raw index's addresses), frame times as ns\n"
"                         timestamps; gap frames left out\n"
"  codif -> raw           NAME.raw + NAME.raw.json (whole rows only)\n"
"  raw -> codif           headers rebuilt from the index\n"
"  Outputs are written as NAME.part and renamed when complete; an existing\n"
"  file is never replaced without --force. Names follow formats.md:\n"
"  OUTDIR/PREFIX_ANTENNA_YYYYMMDDTHHMMSS.nnnnnnnnnZ.EXT (time of the first frame).\n"
"  --to FORMAT            codif, pcap or raw (required)\n"
"  -o, --output FILE      write exactly FILE (one input, one output)\n"
"  --outdir DIR           directory for named outputs (.)\n"
"  --prefix PREFIX        name prefix (the input's, else ibvcap)\n"
"  --antenna NAME         antenna name (the input's or the index's, else ant<i>\n"
"                         with i by source address)\n"
"  --src IP               codif -> pcap/raw: source address (10.17.0.211)\n"
"  --dst IP:PORT          destination of secondaryid 0; secondaryid k goes to\n"
"                         IP+k, PORT+k (239.17.0.1:36001, codifgen's layout)\n"
"  --force                replace existing output files\n"
"  --max-problems N       list at most N input problems (100)\n"
"  --window N, --reorder-window N, --confirm K, --max-gap T,\n"
"  --antenna-ip IP[,IP...], --group IP:PORT[,...]  as for info\n"
"  -h, --help             this text\n";

static const char usage_tail[] =
"\n"
"Exit status: 0 clean; 1 problems found (verify), a file unrecognised,\n"
"damaged or unreadable (info), or a conversion failed or its input had\n"
"problems (convert: complete outputs are kept); 2 bad command line.\n";

enum {
	O_JSON = 256, O_MAX_GAPS, O_MAX_PROBLEMS, O_WINDOW, O_REORDER, O_CONFIRM,
	O_MAX_GAP, O_SINCE, O_PATTERN,
	O_STRICT, O_TO, O_OUTDIR, O_PREFIX, O_ANTENNA, O_SRC, O_DST, O_FORCE,
	O_ANT_IP, O_GROUP,
};

static const struct option info_opts[] = {
	{"json", no_argument, NULL, O_JSON},
	{"max-gaps", required_argument, NULL, O_MAX_GAPS},
	{"max-problems", required_argument, NULL, O_MAX_PROBLEMS},
	{"window", required_argument, NULL, O_WINDOW},
	{"reorder-window", required_argument, NULL, O_REORDER},
	{"confirm", required_argument, NULL, O_CONFIRM},
	{"max-gap", required_argument, NULL, O_MAX_GAP},
	{"antenna-ip", required_argument, NULL, O_ANT_IP},
	{"group", required_argument, NULL, O_GROUP},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static const struct option verify_opts[] = {
	{"json", no_argument, NULL, O_JSON},
	{"since", required_argument, NULL, O_SINCE},
	{"pattern", no_argument, NULL, O_PATTERN},
	{"strict", no_argument, NULL, O_STRICT},
	{"max-problems", required_argument, NULL, O_MAX_PROBLEMS},
	{"window", required_argument, NULL, O_WINDOW},
	{"reorder-window", required_argument, NULL, O_REORDER},
	{"confirm", required_argument, NULL, O_CONFIRM},
	{"max-gap", required_argument, NULL, O_MAX_GAP},
	{"antenna-ip", required_argument, NULL, O_ANT_IP},
	{"group", required_argument, NULL, O_GROUP},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static const struct option convert_opts[] = {
	{"to", required_argument, NULL, O_TO},
	{"output", required_argument, NULL, 'o'},
	{"outdir", required_argument, NULL, O_OUTDIR},
	{"prefix", required_argument, NULL, O_PREFIX},
	{"antenna", required_argument, NULL, O_ANTENNA},
	{"src", required_argument, NULL, O_SRC},
	{"dst", required_argument, NULL, O_DST},
	{"force", no_argument, NULL, O_FORCE},
	{"max-problems", required_argument, NULL, O_MAX_PROBLEMS},
	{"window", required_argument, NULL, O_WINDOW},
	{"reorder-window", required_argument, NULL, O_REORDER},
	{"confirm", required_argument, NULL, O_CONFIRM},
	{"max-gap", required_argument, NULL, O_MAX_GAP},
	{"antenna-ip", required_argument, NULL, O_ANT_IP},
	{"group", required_argument, NULL, O_GROUP},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

enum cmd { CMD_INFO, CMD_VERIFY, CMD_CONVERT };

static const char *const cmd_name[] = { "info", "verify", "convert" };

static void
usage(FILE *f, int cmd)
{
	if (cmd < 0)
		fputs(usage_head, f);
	if (cmd < 0 || cmd == CMD_INFO)
		fprintf(f, usage_info, WINDOW_MIN, WINDOW_MAX);
	if (cmd < 0 || cmd == CMD_VERIFY)
		fputs(usage_verify, f);
	if (cmd < 0 || cmd == CMD_CONVERT)
		fputs(usage_convert, f);
	fputs(usage_tail, f);
}

/* Everything a command line sets, for all commands. */
struct opts {
	struct cc_check_opts chk;
	struct cc_conv_opts conv;
	struct cc_filter filter;
	bool have_to;
	bool outdir_set;
};

static const char *
opt_name(const struct option *tab, int val, char *buf, size_t len)
{
	unsigned int i;

	for (i = 0; tab[i].name != NULL; i++)
		if (tab[i].val == val) {
			snprintf(buf, len, "--%s", tab[i].name);
			return buf;
		}
	snprintf(buf, len, "-%c", val);
	return buf;
}

/* A file name part: non-empty, no '/', and no '_' when the name is split
 * at '_' (formats.md). */
static int
name_part(const char *opt, const char *a, bool allow_underscore, char *err)
{
	if (a[0] == '\0' || strlen(a) >= 64 || strchr(a, '/') != NULL ||
	    (!allow_underscore && strchr(a, '_') != NULL)) {
		snprintf(err, ERRLEN, "%s: '%s': expected 1..63 characters without '/'%s",
			 opt, a, allow_underscore ? "" : " or '_'");
		return -1;
	}
	return 0;
}

/* --antenna-ip and --group: lists for the capture filter. */
static int
set_filter(int c, const char *opt, const char *a, struct cc_filter *f, char *err)
{
	char *items[ACCT_MAX_GROUPS], *store;
	int n, i, rc = 0;

	n = parse_list(opt, a, ',', items, c == O_ANT_IP ? ACCT_MAX_ANTENNAS :
		       ACCT_MAX_GROUPS, &store, err, ERRLEN);
	if (n < 0)
		return -1;
	for (i = 0; i < n && rc == 0; i++) {
		if (c == O_ANT_IP)
			rc = parse_ipv4(opt, items[i], &f->ant_ip[i], err, ERRLEN);
		else
			rc = parse_ipv4_port(opt, items[i], &f->group[i].ip,
					     &f->group[i].port, err, ERRLEN);
	}
	free(store);
	if (c == O_ANT_IP)
		f->nant = rc == 0 ? (unsigned int)n : 0;
	else
		f->ngroup = rc == 0 ? (unsigned int)n : 0;
	return rc == 0 ? 0 : -1;
}

static int
set_opt(int c, const char *opt, const char *a, struct opts *o, char *err)
{
	uint64_t v;
	struct stat st;

	switch (c) {
	case O_JSON:
		o->chk.json = true;
		return 0;
	case O_MAX_GAPS:
		return parse_u64(opt, a, 0, UINT64_MAX, &o->chk.max_gaps, err, ERRLEN);
	case O_MAX_PROBLEMS:
		if (parse_u64(opt, a, 1, 1000000, &v, err, ERRLEN) != 0)
			return -1;
		o->chk.max_problems = o->conv.max_problems = (unsigned int)v;
		return 0;
	case O_WINDOW:
		if (parse_u64(opt, a, WINDOW_MIN, WINDOW_MAX, &v, err, ERRLEN) != 0)
			return -1;
		if (v & (v - 1)) {
			snprintf(err, ERRLEN, "%s: '%s': expected a power of two", opt, a);
			return -1;
		}
		o->chk.tl.window = o->conv.tl.window = (uint32_t)v;
		return 0;
	case O_REORDER:
		if (parse_u64(opt, a, 1, WINDOW_MAX, &v, err, ERRLEN) != 0)
			return -1;
		o->chk.tl.ahead = o->conv.tl.ahead = (uint32_t)v;
		return 0;
	case O_CONFIRM:
		if (parse_u64(opt, a, 2, CODIF_MAX_CONFIRM, &v, err, ERRLEN) != 0)
			return -1;
		o->chk.tl.confirm = o->conv.tl.confirm = (uint32_t)v;
		return 0;
	case O_MAX_GAP:
		if (parse_duration_ns(opt, a, 1000, 3600ULL * 1000000000ULL, &v, err, ERRLEN) != 0)
			return -1;
		o->chk.tl.max_gap_ns = o->conv.tl.max_gap_ns = v;
		return 0;
	case O_SINCE:
		if (codif_parse_time(a, &o->chk.since_ns) != 0) {
			snprintf(err, ERRLEN, "%s: '%s': expected a UTC time such as "
				 "2025-03-10T12:00:00Z or @1741608000", opt, a);
			return -1;
		}
		o->chk.have_since = true;
		return 0;
	case O_PATTERN:
		o->chk.pattern = true;
		return 0;
	case O_STRICT:
		o->chk.strict = true;
		return 0;
	case O_TO:
		o->have_to = true;
		if (strcmp(a, "codif") == 0)
			o->conv.to = CC_FMT_CODIF;
		else if (strcmp(a, "pcap") == 0)
			o->conv.to = CC_FMT_PCAP;
		else if (strcmp(a, "raw") == 0)
			o->conv.to = CC_FMT_RAW;
		else {
			snprintf(err, ERRLEN, "%s: '%s': expected codif, pcap or raw", opt, a);
			return -1;
		}
		return 0;
	case 'o':
		o->conv.output = a;
		return 0;
	case O_OUTDIR:
		if (stat(a, &st) != 0 || !S_ISDIR(st.st_mode)) {
			snprintf(err, ERRLEN, "%s: '%s': expected an existing directory", opt, a);
			return -1;
		}
		o->conv.outdir = a;
		o->outdir_set = true;
		return 0;
	case O_PREFIX:
		o->conv.prefix = a;
		return name_part(opt, a, true, err);
	case O_ANTENNA:
		o->conv.antenna = a;
		return name_part(opt, a, false, err);
	case O_SRC:
		return parse_ipv4(opt, a, &o->conv.src, err, ERRLEN);
	case O_DST:
		return parse_ipv4_port(opt, a, &o->conv.dst, &o->conv.port, err, ERRLEN);
	case O_FORCE:
		o->conv.force = true;
		return 0;
	case O_ANT_IP:
	case O_GROUP:
		return set_filter(c, opt, a, &o->filter, err);
	default:
		snprintf(err, ERRLEN, "internal: option %d", c);
		return -1;
	}
}

static void
defaults(struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->chk.max_problems = MAX_PROBLEMS_DEFAULT;
	o->conv.max_problems = MAX_PROBLEMS_DEFAULT;
	o->conv.outdir = ".";
	o->conv.src = CC_DEFAULT_SRC;
	o->conv.dst = CC_DEFAULT_DST;
	o->conv.port = CC_DEFAULT_PORT;
	o->chk.filter = &o->filter;
	o->conv.filter = &o->filter;
	codif_tl_cfg_defaults(&o->chk.tl);
	o->conv.tl = o->chk.tl;
}

/* @return 0, 1 (help printed: exit 0) or -1 (error printed: exit 2). */
static int
parse_args(int cmd, int argc, char **argv, struct opts *o)
{
	static const struct option *const tabs[] = { info_opts, verify_opts, convert_opts };
	const struct option *tab = tabs[cmd];
	char err[ERRLEN], name[64];
	int c;

	defaults(o);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, cmd == CMD_CONVERT ? ":ho:" : ":h", tab,
				NULL)) != -1) {
		if (c == 'h') {
			usage(stdout, cmd);
			return 1;
		}
		if (c == '?' || c == ':') {
			if (c == ':')
				fprintf(stderr, "codifcheck %s: option '%s' needs a value "
					"(try codifcheck %s --help)\n", cmd_name[cmd],
					argv[optind - 1], cmd_name[cmd]);
			else
				fprintf(stderr, "codifcheck %s: unrecognized option '%s' "
					"(try codifcheck %s --help)\n", cmd_name[cmd],
					argv[optind - 1], cmd_name[cmd]);
			return -1;
		}
		if (set_opt(c, opt_name(tab, c, name, sizeof(name)), optarg, o, err) != 0) {
			fprintf(stderr, "codifcheck %s: %s\n", cmd_name[cmd], err);
			return -1;
		}
	}
	if (codif_tl_cfg_check(&o->chk.tl, err, sizeof(err)) != 0) {
		fprintf(stderr, "codifcheck %s: --window, --reorder-window, --confirm, "
			"--max-gap: %s\n", cmd_name[cmd], err);
		return -1;
	}
	if (optind >= argc) {
		fprintf(stderr, "codifcheck %s: no FILE given (try codifcheck %s --help)\n",
			cmd_name[cmd], cmd_name[cmd]);
		return -1;
	}
	if (cmd == CMD_CONVERT) {
		if (!o->have_to) {
			fprintf(stderr, "codifcheck convert: --to is required: codif, pcap "
				"or raw\n");
			return -1;
		}
		if (o->conv.output != NULL && argc - optind > 1) {
			fprintf(stderr, "codifcheck convert: --output names one output; "
				"%d inputs given (use --outdir)\n", argc - optind);
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

	if (argc < 2) {
		usage(stderr, -1);
		return CC_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout, -1);
		return CC_EXIT_OK;
	}
	cmd = find_cmd(argv[1]);
	if (cmd < 0) {
		fprintf(stderr, "codifcheck: unknown command '%s': expected info, verify "
			"or convert (try codifcheck --help)\n", argv[1]);
		return CC_EXIT_USAGE;
	}
	rc = parse_args(cmd, argc - 1, argv + 1, &o);
	if (rc != 0)
		return rc > 0 ? CC_EXIT_OK : CC_EXIT_USAGE;
	argc -= 1;
	argv += 1;
	switch (cmd) {
	case CMD_INFO:
		return cc_cmd_info(argv + optind, argc - optind, &o.chk);
	case CMD_VERIFY:
		return cc_cmd_verify(argv + optind, argc - optind, &o.chk);
	default:
		for (i = optind; i < argc; i++)
			if (cc_cmd_convert(argv[i], &o.conv) != CC_EXIT_OK)
				status = CC_EXIT_PROBLEMS;
		return status;
	}
}
