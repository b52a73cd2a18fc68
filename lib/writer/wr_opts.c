/* SPDX-License-Identifier: BSD-3-Clause */
/* A writer's options: the --write grammar "FORMAT:DIR[,KEY=VALUE...]" as one table of keys. */

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "parse.h"
#include "writer.h"

const char *
wr_format_name(enum wr_format f)
{
	return fmt_name((enum fmt_kind)f); /* lib/fmt owns the names */
}

void
wr_opts_defaults(struct wr_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->format = WR_CODIF;
	snprintf(o->dir, sizeof(o->dir), ".");
	snprintf(o->prefix, sizeof(o->prefix), "ibvcap");
	o->snaplen = 65535;
	o->direct = true;
	o->bufsize = 8u << 20;
	o->lcores = 1;
}

static void
kv_defaults(void *obj)
{
	wr_opts_defaults(obj);
}

char *
wr_prefix_expected(char *buf, size_t len)
{
	char what[96];

	snprintf(buf, len, "a file name prefix: %s",
		 parse_name_expected(WR_PREFIX_MAX, what, sizeof(what)));
	return buf;
}

int
wr_prefix_check(const char *opt, const char *val, char *err, size_t len)
{
	char what[160], v[96];

	if (parse_name(opt, val, WR_PREFIX_MAX, NULL, 0) == 0)
		return 0;
	return err_set(err, len, -EINVAL, "%s: '%s': expected %s", opt,
		       str_escape(val != NULL ? val : "", v, sizeof(v)),
		       wr_prefix_expected(what, sizeof(what)));
}

int
wr_format_parse(const char *name, enum wr_format *f)
{
	static const enum wr_format formats[] = { WR_RAW, WR_CODIF, WR_PCAP, WR_PCAPNG };
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (name != NULL && strcmp(name, wr_format_name(formats[i])) == 0) {
			*f = formats[i];
			return 0;
		}
	return -EINVAL;
}

/* prefix=: a name that goes into file names. */
static int
set_prefix(const struct opt_arg *a, char *err, size_t len)
{
	struct wr_opts *o = a->obj;
	int rc = wr_prefix_check(a->opt, a->val, err, len);

	if (rc == 0)
		str_copy(o->prefix, sizeof(o->prefix), a->val);
	return rc;
}

/* min-free=: bytes, or a share of the filesystem ("5%"). */
static int
set_min_free(const struct opt_arg *a, char *err, size_t len)
{
	struct wr_opts *o = a->obj;
	size_t vl = strlen(a->val);
	char num[32];
	double pct;
	uint64_t v;

	if (vl > 1 && a->val[vl - 1] == '%' && vl - 1 < sizeof(num)) {
		snprintf(num, sizeof(num), "%.*s", (int)(vl - 1), a->val);
		if (parse_double(a->opt, num, 0.01, 99, &pct, NULL, 0) == 0) {
			o->budget = true;
			o->min_free = 0;
			o->min_free_bp = (uint32_t)(pct * 100 + 0.5);
			return 0;
		}
	} else if (parse_size(a->opt, a->val, 0, 1ULL << 60, &v, NULL, 0) == 0) {
		o->budget = true;
		o->min_free = v;
		o->min_free_bp = 0;
		return 0;
	}
	return err_set(err, len, -EINVAL, "%s: '%s': expected a size to keep free in the "
		       "directory (500M, 2G, 1T; K/M/G/T powers of 1024, KB/MB/GB/TB of 1000) or "
		       "a share of its filesystem (5%%, 0.01%% to 99%%)", a->opt, a->val);
}

static const char *const io_names[] = { "uring", "sync", NULL };
static const char *const on_full_names[] = { "stop", "remove-oldest", NULL };
static const int on_full_values[] = { WR_FULL_STOP, WR_FULL_REMOVE_OLDEST };

#define O struct wr_opts
static const struct opt_def wr_keys[] = {
	{"prefix", .kind = OPT_CUSTOM, .metavar = "NAME", .set = set_prefix, .def = "ibvcap",
	 .example = "ibvcap",
	 .help = "file name prefix: files are DIR/PREFIX_ANTENNA_TIME.FORMAT, so two writers "
		 "share a directory only with different formats or prefixes"},
	{"rotate-size", .kind = OPT_SIZE, .metavar = "SIZE", .min = 4096, .max = UINT64_MAX,
	 .def = "never", .example = "1G", OPT_AT(O, rotate_bytes),
	 .help = "a new file past SIZE, e.g. 1G"},
	{"rotate-time", .kind = OPT_DURATION, .metavar = "T", .min = 1000000,
	 .max = 86400ULL * 1000000000ULL * 366, .def = "never", .example = "60s",
	 OPT_AT(O, rotate_ns), .help = "a new file past T of data (frame) time, e.g. 60s"},
	{"snaplen", .kind = OPT_UINT, .metavar = "N", .min = 64, .max = 262144,
	 OPT_AT(O, snaplen), .help = "pcap, pcapng: bytes kept per packet"},
	{"all", .kind = OPT_BOOL, OPT_AT(O, all),
	 .help = "pcap, pcapng: every antenna in one file (raw and codif are per antenna)"},
	{"direct", .kind = OPT_BOOL, OPT_AT(O, direct),
	 .help = "O_DIRECT where the filesystem takes it"},
	{"io", .kind = OPT_ENUM, .names = io_names, OPT_AT(O, sync),
	 .help = "uring: O_DIRECT writes in flight through io_uring (raw rows then go from the "
		 "ring to the file, no copy); sync: one pwrite at a time"},
	{"oldest", .kind = OPT_BOOL, OPT_AT(O, from_oldest),
	 .help = "start at the oldest frame still in the ring"},
	{"count", .kind = OPT_UINT, .metavar = "N", .min = 1, .max = UINT64_MAX, .def = "none",
	 OPT_AT(O, count), .help = "stop after N frames"},
	{"buffer", .kind = OPT_SIZE, .metavar = "SIZE", .min = 1u << 20, .max = 1ULL << 30,
	 .def = "8M", .example = "8M", OPT_AT(O, bufsize),
	 .help = "staging per open file (at least two rows)"},
	{"min-free", .kind = OPT_CUSTOM, .metavar = "SIZE|P%", .set = set_min_free,
	 .def = "no limit", .example = "2G",
	 .help = "keep SIZE (2G) or P% (0.01% to 99%) of the filesystem free in DIR"},
	{"on-full", .kind = OPT_ENUM, .names = on_full_names, .values = on_full_values,
	 OPT_AT(O, on_full),
	 .help = "at min-free: stop (finish its files and end; dpdk-ibvcap exits 3 at the "
		 "capture's end) or remove-oldest (remove its own oldest finished files and go "
		 "on); needs min-free"},
	{"lcores", .kind = OPT_UINT, .metavar = "N", .min = 1, .max = WR_MAX_ANT,
	 OPT_AT(O, lcores),
	 .help = "dpdk-ibvcap: its antennas spread over N writer lcores, antenna i on the "
		 "(i mod N)th, each a writer entry primary-W-FORMAT-J writing the files one "
		 "writer would; not with all=yes or count="},
	{ .name = NULL },
};
#undef O

const struct opt_kv wr_opts_kv = {
	.name = "--write",
	.keys = wr_keys,
	.defaults = kv_defaults,
	.obj_size = sizeof(struct wr_opts),
};

/* "FORMAT:DIR" of spec, into o; *keys is what follows DIR's ',' (or NULL). */
static int
parse_head(struct wr_opts *o, const char *opt, const char *spec, char *buf, size_t bufsize,
	   char **keys, char *err, size_t len)
{
	char *colon, *comma;

	if (spec == NULL || strlen(spec) >= bufsize || strchr(spec, ':') == NULL)
		return err_set(err, len, -EINVAL, "%s: '%s': expected FORMAT:DIR[,key=value...], "
			       "FORMAT raw, codif, pcap or pcapng", opt, spec ? spec : "");
	str_copy(buf, bufsize, spec);
	colon = strchr(buf, ':');
	*colon = '\0';
	if (wr_format_parse(buf, &o->format) != 0)
		return err_set(err, len, -EINVAL, "%s: '%s': format '%s', expected raw, codif, "
			       "pcap or pcapng", opt, spec, buf);
	comma = strchr(colon + 1, ',');
	if (comma != NULL)
		*comma = '\0';
	*keys = comma != NULL ? comma + 1 : NULL;
	if (colon[1] == '\0' || strchr(colon + 1, '=') != NULL ||
	    strlen(colon + 1) >= sizeof(o->dir))
		return err_set(err, len, -EINVAL, "%s: '%s': expected FORMAT:DIR[,key=value...]",
			       opt, spec);
	str_copy(o->dir, sizeof(o->dir), colon + 1);
	return 0;
}

/* What the keys allow only together. */
static int
cross_check(const struct wr_opts *o, const char *opt, const char *spec, uint64_t given,
	    char *err, size_t len)
{
	if (opt_kv_given(&wr_opts_kv, given, "on-full") && !o->budget)
		return err_set(err, len, -EINVAL, "%s: '%s': on-full needs min-free=SIZE (the free "
			       "space to keep in %s, e.g. min-free=2G or min-free=5%%)", opt, spec,
			       o->dir);
	if (o->all && !fmt_is_packets(o->format))
		return err_set(err, len, -EINVAL, "%s: '%s': all=yes is for pcap and pcapng (raw "
			       "and codif are per antenna)", opt, spec);
	/* What one writer keeps for all its antennas cannot be split over lcores. */
	if (o->lcores > 1 && o->all)
		return err_set(err, len, -EINVAL, "%s lcores: '%u': all=yes writes every antenna "
			       "into one file, which one lcore writes: expected lcores=1 with "
			       "all=yes", opt, o->lcores);
	if (o->lcores > 1 && o->count)
		return err_set(err, len, -EINVAL, "%s lcores: '%u': count=%" PRIu64 " stops the "
			       "writer after that many frames in all, which its lcores cannot count "
			       "together: expected lcores=1 with count=", opt, o->lcores, o->count);
	return 0;
}

int
wr_opts_parse(struct wr_opts *o, const char *opt, const char *spec, char *err, size_t len)
{
	struct opt_kv kv = wr_opts_kv;
	char buf[PATH_MAX + 512], *keys = NULL;
	uint64_t given = 0;
	int rc;

	wr_opts_defaults(o);
	kv.name = opt;
	rc = parse_head(o, opt, spec, buf, sizeof(buf), &keys, err, len);
	if (rc == 0)
		rc = opt_kv_parse(&kv, o, NULL, keys, &given, err, len);
	if (rc == 0)
		rc = cross_check(o, opt, spec, given, err, len);
	return rc;
}
