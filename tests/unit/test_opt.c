/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of lib/opt: kinds parsed and stored; argv, INI, --help, the print, the check. */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "err.h"
#include "opt.h"
#include "opt_ini.h"
#include "parse.h"

struct cfg {
	bool verbose, buffers, isolate;
	uint16_t mtu;
	uint32_t ring;
	uint64_t rotate, period_ns, stop_ns;
	double rate;
	char name[8];
	const char *out;
	int steer;
	uint32_t group_ip;
	char write[3][16];
	unsigned int nwrite;
	unsigned int custom;
	bool mtu_seen;
	char config[64];
	char eal[32];
	uint32_t src_ip;
	char summary[256];
};

struct pstate {
	unsigned int nant;
};

static const char *const steer_words[] = { "auto", "flow", "software", NULL };
static const int steer_values[] = { 10, 20, 30 };

static int
set_custom(const struct opt_arg *a, char *err, size_t errlen)
{
	struct cfg *c = a->obj;
	uint64_t v;
	int rc = opt_value_u64(a, &v, err, errlen);

	if (rc == 0)
		c->custom = (unsigned int)v * 2;
	return rc;
}

/* an old form whose value differs: --old-jumbo yes is --mtu 9000 */
static int
set_old_jumbo(const struct opt_arg *a, char *err, size_t errlen)
{
	bool b;
	int rc = parse_bool(a->opt, a->val, &b, err, errlen);

	if (rc != 0)
		return rc;
	opt_note(a->cmd, "--old-jumbo is an old name: use --mtu %s", b ? "9000" : "1500");
	return opt_set(a->cmd, opt_find(a->cmd, "mtu"), a->obj, a->ctx, b ? "9000" : "1500",
		       err, errlen);
}

static void
print_custom(const struct opt_cmd *cmd, const struct opt_def *d, const void *obj, FILE *f)
{
	(void)cmd;
	fprintf(f, "%s = %u\n", d->name, ((const struct cfg *)obj)->custom / 2);
}

static void
defaults(void *obj, void *ctx)
{
	struct cfg *c = obj;

	memset(c, 0, sizeof(*c));
	c->buffers = true;
	c->mtu = 9000;
	c->ring = 1024;
	c->period_ns = 1000000000ULL;
	c->rate = 2.5;
	c->steer = 10;
	if (ctx != NULL)
		((struct pstate *)ctx)->nant = 6;
}

static const struct opt_section sections[] = {
	{ .name = "eal", .title = "EAL" },
	{ .name = "ports", .title = "Ports", .intro = "the ports used" },
	{ .name = "misc", .title = "Other" },
	{ .name = NULL },
};

#define C struct cfg
static const struct opt_def rows[] = {
	{"config", .kind = OPT_PATH, .flags = OPT_F_CLI | OPT_F_CONFIG, .metavar = "FILE",
	 .section = "misc", .help = "an INI file", .unset = "none", OPT_AT(C, config)},
	{"args", .kind = OPT_STRING, .flags = OPT_F_INI | OPT_F_SECTION, .section = "eal",
	 .help = "EAL arguments", .example = "-l 0", OPT_AT(C, eal)},
	{"verbose", .kind = OPT_FLAG, .letter = 'v', .section = "misc", .help = "talk",
	 OPT_AT(C, verbose)},
	{"no-buffers", .kind = OPT_FLAG, .flags = OPT_F_INVERT, .section = "misc",
	 .help = "count only", OPT_AT(C, buffers)},
	{"isolate", .kind = OPT_BOOL, .section = "ports", .help = "isolate",
	 OPT_AT(C, isolate)},
	{"mtu", .kind = OPT_UINT, .metavar = "N", .min = 1280, .max = 16000, .family = 1,
	 .section = "ports", .help = "MTU", OPT_AT(C, mtu), OPT_SEEN(C, mtu_seen)},
	{"ring", .kind = OPT_UINT, .flags = OPT_F_POW2, .min = 64, .max = 1 << 20,
	 .section = "ports", .metavar = "N", .help = "ring", OPT_AT(C, ring)},
	{"rotate", .kind = OPT_SIZE, .min = 4096, .max = UINT64_MAX, .mult = 4096,
	 .unit = "bytes", .zero = "off", .section = "misc", .metavar = "SIZE",
	 .help = "rotate", OPT_AT(C, rotate)},
	{"period", .kind = OPT_DURATION, .flags = OPT_F_ZERO, .min = 10000000,
	 .max = 86400000000000ULL, .metavar = "T", .section = "misc", .help = "period",
	 OPT_AT(C, period_ns)},
	{"stop", .kind = OPT_DURATION, .min = 1000000, .max = 86400000000000ULL,
	 .unset = "never", .metavar = "T", .section = "misc", .help = "stop after T",
	 OPT_AT(C, stop_ns)},
	{"rate", .kind = OPT_DOUBLE, .dmin = 0.001, .dmax = 1e9, .metavar = "F",
	 .section = "misc", .help = "rate", OPT_AT(C, rate)},
	{"name", .kind = OPT_STRING, .metavar = "NAME", .section = "misc", .help = "name",
	 .example = "x", .unset = "none", OPT_AT(C, name)},
	{"out", .kind = OPT_PATH, .flags = OPT_F_CLI, .metavar = "FILE", .section = "misc",
	 .help = "output", OPT_PTR(C, out)},
	{"steer", .kind = OPT_ENUM, .names = steer_words, .values = steer_values,
	 .section = "ports", .help = "steering", OPT_AT(C, steer)},
	{"group-base", .kind = OPT_IPV4, .flags = OPT_F_MCAST, .family = 1, .metavar = "IP",
	 .section = "ports", .help = "first group", .unset = "none", OPT_AT(C, group_ip)},
	{"write", .kind = OPT_LIST, .metavar = "SPEC", .unit = "writers", .section = "misc",
	 .help = "a writer", .example = "codif:/tmp", .unset = "no writers",
	 OPT_LIST_AT(C, write, nwrite)},
	{"double-it", .kind = OPT_CUSTOM, .min = 1, .max = 100, .metavar = "N",
	 .section = "misc", .help = "twice N", .example = "3", .set = set_custom,
	 .print = print_custom},
	{"antennas", .kind = OPT_UINT, .min = 1, .max = 64, .metavar = "N",
	 .section = "ports", .help = "antennas", .example = "2",
	 OPT_CTX(struct pstate, nant)},
	{"old-mtu", .alias_of = "mtu"},
	{"gone-mtu", .flags = OPT_F_GONE, .alias_of = "mtu"},
	{"old-jumbo", .flags = OPT_F_CLI, .alias_of = "mtu", .set = set_old_jumbo,
	 .help = "use --mtu 9000"},
	{"src", .kind = OPT_IPV4, .flags = OPT_F_UCAST, .metavar = "IP", .section = "ports",
	 .help = "a sender", .unset = "none", OPT_AT(C, src_ip)},
	{"summary", .kind = OPT_PATH, .flags = OPT_F_OUTFILE, .metavar = "FILE",
	 .section = "misc", .help = "summary file", .unset = "none", .example = "/tmp/s.json",
	 OPT_AT(C, summary)},
	{"help", .kind = OPT_ACTION, .letter = 'h', .flags = OPT_F_ACTION, .section = "misc",
	 .help = "this text", .set = opt_act_help},
	{ .name = NULL },
};
#undef C

static char last_note[256];

static void
note(const struct opt_cmd *c, const char *text)
{
	snprintf(last_note, sizeof(last_note), "%s: %s", c->prog, text);
}

static const struct opt_cmd cmd = {
	.prog = "t", .usage = "Usage: t [options]\n", .about = "A test.\n",
	.epilog = "Exit status: 0.\n", .sections = sections, .opts = rows,
	.flags = OPT_CMD_INI, .defaults = defaults, .obj_size = sizeof(struct cfg),
	.ctx_size = sizeof(struct pstate), .note = note,
};

static int
set1(const char *name, const char *val, struct cfg *c, struct pstate *ps, char *err)
{
	const struct opt_def *d = opt_find(&cmd, name);

	err[0] = '\0';
	return d == NULL ? -99 : opt_set(&cmd, d, c, ps, val, err, 256);
}

static void
test_values(void)
{
	struct cfg c;
	struct pstate ps;
	char err[256];

	defaults(&c, &ps);
	CHECK_EQ_I(set1("verbose", NULL, &c, &ps, err), 0);
	CHECK(c.verbose);
	CHECK_EQ_I(set1("verbose", "no", &c, &ps, err), 0);
	CHECK(!c.verbose);
	CHECK_EQ_I(set1("verbose", "perhaps", &c, &ps, err), -EINVAL);
	CHECK_STR(err, "--verbose: 'perhaps': expected yes or no");
	CHECK_EQ_I(set1("no-buffers", NULL, &c, &ps, err), 0);
	CHECK(!c.buffers);
	CHECK_EQ_I(set1("no-buffers", "off", &c, &ps, err), 0);
	CHECK(c.buffers);
	CHECK_EQ_I(set1("isolate", "", &c, &ps, err), 0);
	CHECK(c.isolate);

	CHECK_EQ_I(set1("mtu", "1500", &c, &ps, err), 0);
	CHECK_EQ_U(c.mtu, 1500);
	CHECK(c.mtu_seen);
	CHECK_EQ_I(set1("mtu", "100", &c, &ps, err), -ERANGE);
	CHECK_STR(err, "--mtu: '100': expected an integer between 1280 and 16000");
	CHECK_EQ_I(set1("mtu", "15k", &c, &ps, err), -EINVAL);
	CHECK_EQ_U(c.mtu, 1500);
	CHECK_EQ_I(set1("old-mtu", "2000", &c, &ps, err), 0);
	CHECK_EQ_U(c.mtu, 2000);
	CHECK_STR(last_note, "t: --old-mtu is an old name: use --mtu");
	CHECK_EQ_I(set1("gone-mtu", "3000", &c, &ps, err), -ENOENT);
	CHECK_STR(err, "--gone-mtu: renamed: use --mtu");
	CHECK_EQ_U(c.mtu, 2000);
	CHECK_EQ_I(set1("old-jumbo", "no", &c, &ps, err), 0);
	CHECK_EQ_U(c.mtu, 1500);
	CHECK_STR(last_note, "t: --old-jumbo is an old name: use --mtu 1500");
	CHECK_EQ_I(set1("old-jumbo", "yes", &c, &ps, err), 0);
	CHECK_EQ_U(c.mtu, 9000);
	CHECK_EQ_I(set1("old-jumbo", "maybe", &c, &ps, err), -EINVAL);
	CHECK_STR(err, "--old-jumbo: 'maybe': expected yes or no");
	CHECK_EQ_I(set1("old-jumbo", NULL, &c, &ps, err), -EINVAL);
	CHECK_STR(err, "--old-jumbo: expected a value");
	CHECK_EQ_U(c.mtu, 9000);
	CHECK_EQ_I(set1("ring", "100", &c, &ps, err), -EINVAL);
	CHECK_STR(err, "--ring: '100': expected a power of two between 64 and 1048576");
	CHECK_EQ_I(set1("ring", "128", &c, &ps, err), 0);
	CHECK_EQ_U(c.ring, 128);

	CHECK_EQ_I(set1("rotate", "1G", &c, &ps, err), 0);
	CHECK_EQ_U(c.rotate, 1ULL << 30);
	CHECK_EQ_I(set1("rotate", "5000", &c, &ps, err), -EINVAL);
	CHECK_STR(err, "--rotate: '5000': expected a multiple of 4096 bytes");
	CHECK_EQ_I(set1("rotate", "off", &c, &ps, err), 0);
	CHECK_EQ_U(c.rotate, 0);

	CHECK_EQ_I(set1("period", "250ms", &c, &ps, err), 0);
	CHECK_EQ_U(c.period_ns, 250000000);
	CHECK_EQ_I(set1("period", "0", &c, &ps, err), 0);
	CHECK_EQ_U(c.period_ns, 0);
	CHECK_EQ_I(set1("period", "1ms", &c, &ps, err), -ERANGE);
	CHECK_EQ_I(set1("period", "10 fortnights", &c, &ps, err), -EINVAL);
	CHECK_HAS(err, "--period: '10 fortnights': expected a duration");

	CHECK_EQ_I(set1("rate", "1e3", &c, &ps, err), 0);
	CHECK(c.rate == 1000.0);
	CHECK_EQ_I(set1("rate", "fast", &c, &ps, err), -EINVAL);

	CHECK_EQ_I(set1("name", "abc", &c, &ps, err), 0);
	CHECK_STR(c.name, "abc");
	CHECK_EQ_I(set1("name", "abcdefgh", &c, &ps, err), -E2BIG);
	CHECK_STR(err, "--name: 'abcdefgh': expected 1..7 characters");
	CHECK_EQ_I(set1("name", "", &c, &ps, err), -EINVAL);
	CHECK_EQ_I(set1("out", "/tmp/x", &c, &ps, err), 0);
	CHECK_STR(c.out, "/tmp/x");

	CHECK_EQ_I(set1("steer", "software", &c, &ps, err), 0);
	CHECK_EQ_I(c.steer, 30);
	CHECK_EQ_I(set1("steer", "hardware", &c, &ps, err), -EINVAL);
	CHECK_STR(err, "--steer: 'hardware': expected auto, flow or software");

	CHECK_EQ_I(set1("group-base", "239.1.2.3", &c, &ps, err), 0);
	CHECK_EQ_U(c.group_ip, 0xEF010203);
	CHECK_EQ_I(set1("group-base", "10.1.2.3", &c, &ps, err), -EINVAL);
	CHECK_STR(err, "--group-base: '10.1.2.3': expected an IPv4 multicast address "
		  "(224.0.0.0/4)");

	CHECK_EQ_I(set1("write", "a", &c, &ps, err), 0);
	CHECK_EQ_I(set1("write", "b", &c, &ps, err), 0);
	CHECK_EQ_I(set1("write", "c", &c, &ps, err), 0);
	CHECK_EQ_I(set1("write", "d", &c, &ps, err), -E2BIG);
	CHECK_STR(err, "--write: at most 3 writers");
	CHECK_EQ_U(c.nwrite, 3);
	CHECK_STR(c.write[2], "c");

	CHECK_EQ_I(set1("double-it", "21", &c, &ps, err), 0);
	CHECK_EQ_U(c.custom, 42);
	CHECK_EQ_I(set1("double-it", "0", &c, &ps, err), -ERANGE);
	CHECK_EQ_I(set1("antennas", "3", &c, &ps, err), 0);
	CHECK_EQ_U(ps.nant, 3);
}

static char *
capture(void (*fn)(FILE *f, const void *arg), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, arg);
	fclose(f);
	return buf;
}

static void
help_to(FILE *f, const void *arg)
{
	(void)arg;
	opt_help(&cmd, f);
}

static void
print_to(FILE *f, const void *arg)
{
	opt_print(&cmd, arg, f);
}

static void
test_argv(void)
{
	struct cfg c;
	struct pstate ps;
	char err[256];
	int first;
	char *a1[] = { "t", "-v", "--mtu", "1500", "--steer=flow", "--write", "x", "--write", "y",
		       NULL };
	char *a2[] = { "t", "--mtux", "1", NULL };
	char *a3[] = { "t", "--mtu", NULL };
	char *a4[] = { "t", "--mtu", "1500", "stray", NULL };
	char *a5[] = { "t", "-x", NULL };
	char *a6[] = { "t", "--args", "x", NULL };

	defaults(&c, &ps);
	CHECK_EQ_I(opt_parse_argv(&cmd, &c, &ps, 9, a1, &first, err, sizeof(err)), 0);
	CHECK(c.verbose);
	CHECK_EQ_U(c.mtu, 1500);
	CHECK_EQ_I(c.steer, 20);
	CHECK_EQ_U(c.nwrite, 2);
	CHECK_EQ_I(first, 9);
	CHECK_EQ_I(opt_parse_argv(&cmd, &c, &ps, 3, a2, NULL, err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "unknown option '--mtux' (try t --help)");
	CHECK_EQ_I(opt_parse_argv(&cmd, &c, &ps, 2, a3, NULL, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "option '--mtu' needs a value (try t --help)");
	CHECK_EQ_I(opt_parse_argv(&cmd, &c, &ps, 4, a4, NULL, err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, "unexpected argument 'stray'");
	CHECK_EQ_I(opt_parse_argv(&cmd, &c, &ps, 2, a5, NULL, err, sizeof(err)), -ENOENT);
	CHECK_STR(err, "unknown option '-x' (try t --help)");
	/* an INI-only key is no option */
	CHECK_EQ_I(opt_parse_argv(&cmd, &c, &ps, 3, a6, NULL, err, sizeof(err)), -ENOENT);
}

static void
test_help_print(void)
{
	struct cfg c;
	struct pstate ps;
	char *h, *p, err[256];

	h = capture(help_to, NULL);
	CHECK_HAS(h, "Usage: t [options]\nA test.\n");
	CHECK_HAS(h, "Ports [ports]:\n  the ports used\n\n");
	CHECK_HAS(h, "  --mtu N                MTU (1280..16000; default: 9000)\n");
	CHECK_HAS(h, "  --ring N               ring (a power of two in 64..1048576; "
		  "default: 1024)\n");
	CHECK_HAS(h, "  -v, --verbose          talk\n");
	CHECK_HAS(h, "  --steer auto|flow|software\n");
	CHECK_HAS(h, "steering (default: auto)");
	CHECK_HAS(h, "--period T             period (default: 1s)");
	CHECK_HAS(h, "--antennas N           antennas (1..64; default: 6)");
	CHECK_HAS(h, "--write SPEC           a writer (repeatable)");
	CHECK_HAS(h, "Other [misc]:\n");
	CHECK_HAS(h, "  --old-mtu              use --mtu\n");
	CHECK_HAS(h, "  --old-jumbo            use --mtu 9000\n");
	CHECK(strstr(h, "gone-mtu") == NULL);
	CHECK_HAS(h, "\nExit status: 0.\n");
	CHECK(strstr(h, "--args") == NULL);
	CHECK_HAS(h, "  args = VALUE           EAL arguments\n");
	free(h);

	defaults(&c, &ps);
	CHECK_EQ_I(set1("write", "codif:/x", &c, &ps, err), 0);
	CHECK_EQ_I(set1("double-it", "4", &c, &ps, err), 0);
	p = capture(print_to, &c);
	CHECK_HAS(p, "# config: none\n");
	CHECK_HAS(p, "# [eal] args: not set\n");
	CHECK_HAS(p, "verbose = no\n");
	CHECK_HAS(p, "no-buffers = no\n");
	CHECK_HAS(p, "mtu = 9000\n");
	CHECK_HAS(p, "rotate = off\n");
	CHECK_HAS(p, "period = 1.000s\n");
	CHECK_HAS(p, "# stop: never\n");
	CHECK_HAS(p, "rate = 2.5\n");
	CHECK_HAS(p, "steer = auto\n");
	CHECK_HAS(p, "# group-base: none\n");
	CHECK_HAS(p, "write = codif:/x\n");
	CHECK_HAS(p, "double-it = 4\n");
	CHECK_HAS(p, "# antennas: not set\n");
	CHECK(strstr(p, "help") == NULL && strstr(p, "old-mtu") == NULL);
	free(p);
}

static void
test_check(void)
{
	struct opt_def bad[3];
	struct opt_cmd c2 = cmd;
	char err[256];

	CHECK_EQ_I(opt_cmd_check(&cmd, err, sizeof(err)), 0);
	memcpy(bad, rows + 5, sizeof(struct opt_def)); /* mtu */
	memset(&bad[1], 0, sizeof(bad[1]));
	c2.opts = bad;
	CHECK_EQ_I(opt_cmd_check(&c2, err, sizeof(err)), 0);
	bad[0].help = NULL;
	CHECK_EQ_I(opt_cmd_check(&c2, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "option table: --mtu: no help text");
	bad[0].help = "x";
	bad[0].max = 70000; /* a uint16_t member */
	CHECK_EQ_I(opt_cmd_check(&c2, err, sizeof(err)), -EINVAL);
	bad[0].max = 16000;
	memcpy(&bad[1], &bad[0], sizeof(bad[0]));
	memset(&bad[2], 0, sizeof(bad[2]));
	CHECK_EQ_I(opt_cmd_check(&c2, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "option table: --mtu: two rows");
	bad[1] = rows[16]; /* custom */
	bad[1].example = NULL;
	CHECK_EQ_I(opt_cmd_check(&c2, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "option table: --double-it: an INI key needs an .example");
}

static void
test_ini(void)
{
	char path[] = "/tmp/test_opt_XXXXXX", err[512];
	struct cfg c;
	struct pstate ps;
	FILE *f;
	int fd;
	char *a1[] = { "t", "--mtu", "1500", "--config", path, NULL };
	char *a2[] = { "t", "--config", path, "--write", "z", NULL };

	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	fprintf(f, "; comment\n[eal]\nargs = -l 0-3\n[ports]\nmtu = 2000\nisolate = yes\n"
		"group-base = 239.0.0.1\n[misc]\nwrite = a\nwrite = b\nverbose =\n");
	fclose(f);
	defaults(&c, &ps);
	CHECK_EQ_I(opt_ini_load(&cmd, &c, &ps, path, err, sizeof(err)), 0);
	CHECK_STR(c.eal, "-l 0-3");
	CHECK_EQ_U(c.mtu, 2000);
	CHECK(c.isolate && c.verbose);
	CHECK_EQ_U(c.nwrite, 2);

	/* the command line wins, for the whole family (mtu, group-base) */
	defaults(&c, &ps);
	CHECK_EQ_I(opt_ini_parse_argv(&cmd, &c, &ps, 5, a1, NULL, err, sizeof(err)), 0);
	CHECK_EQ_U(c.mtu, 1500);
	CHECK_EQ_U(c.group_ip, 0);
	CHECK(c.isolate);
	CHECK_STR(c.config, path);
	/* a command-line list replaces the file's */
	defaults(&c, &ps);
	CHECK_EQ_I(opt_ini_parse_argv(&cmd, &c, &ps, 5, a2, NULL, err, sizeof(err)), 0);
	CHECK_EQ_U(c.nwrite, 1);
	CHECK_STR(c.write[0], "z");

	f = fopen(path, "w");
	fprintf(f, "[ports]\nmtu = 99\n");
	fclose(f);
	defaults(&c, &ps);
	CHECK_EQ_I(opt_ini_load(&cmd, &c, &ps, path, err, sizeof(err)), -ERANGE);
	CHECK_HAS(err, ": [ports] --mtu: '99': expected an integer between 1280 and 16000");
	/* an overridden key is still checked */
	CHECK_EQ_I(opt_ini_parse_argv(&cmd, &c, &ps, 5, a1, NULL, err, sizeof(err)), -ERANGE);

	f = fopen(path, "w");
	fprintf(f, "[ports]\ncolour = blue\n");
	fclose(f);
	CHECK_EQ_I(opt_ini_load(&cmd, &c, &ps, path, err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, ": [ports] colour = blue: unknown key");
	f = fopen(path, "w");
	fprintf(f, "[eal]\nmtu = 1500\n");
	fclose(f);
	CHECK_EQ_I(opt_ini_load(&cmd, &c, &ps, path, err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, ": [eal] mtu = 1500: unknown key");
	f = fopen(path, "w");
	fprintf(f, "[ports]\nargs = x\n");
	fclose(f);
	CHECK_EQ_I(opt_ini_load(&cmd, &c, &ps, path, err, sizeof(err)), -EINVAL);
	f = fopen(path, "w");
	fprintf(f, "[x]\nhelp = yes\n");
	fclose(f);
	CHECK_EQ_I(opt_ini_load(&cmd, &c, &ps, path, err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, ": [x] help: not a configuration key (a command-line action)");
	f = fopen(path, "w");
	fprintf(f, "[x]\nmtu =\n");
	fclose(f);
	CHECK_EQ_I(opt_ini_load(&cmd, &c, &ps, path, err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, ": [x] mtu: expected a value");
	f = fopen(path, "w");
	fprintf(f, "mtu = 1500\n");
	fclose(f);
	CHECK_EQ_I(opt_ini_load(&cmd, &c, &ps, path, err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, ": line 1: 'mtu = 1500': expected [section] or key = value");
	/* rte_cfgfile would read "mtu = 2000\0junk" as 2000: the file is refused */
	f = fopen(path, "w");
	fprintf(f, "[ports]\nmtu = 2000");
	fputc('\0', f);
	fprintf(f, "junk\n");
	fclose(f);
	CHECK_EQ_I(opt_ini_load(&cmd, &c, &ps, path, err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, ": line 2: a NUL byte (column 11): not a text file");
	/* ... and would cut a long value, or fail on a long line, saying nothing */
	f = fopen(path, "w");
	fprintf(f, "[misc]\nname = %0300d\n", 1);
	fclose(f);
	CHECK_EQ_I(opt_ini_load(&cmd, &c, &ps, path, err, sizeof(err)), -E2BIG);
	CHECK_HAS(err, ": line 2: a value of 300 characters: at most 255 are read");
	f = fopen(path, "w");
	fprintf(f, "[misc]\n; %0400d\n", 1);
	fclose(f);
	CHECK_EQ_I(opt_ini_load(&cmd, &c, &ps, path, err, sizeof(err)), -E2BIG);
	CHECK_HAS(err, ": line 2: longer than 322 characters");
	f = fopen(path, "w");
	fprintf(f, "[misc]\nname = %0250d ; a comment that does not count\n", 1);
	fclose(f);
	CHECK_EQ_I(opt_ini_load(&cmd, &c, &ps, path, err, sizeof(err)), -E2BIG);
	unlink(path);
	CHECK_EQ_I(opt_ini_load(&cmd, &c, &ps, path, err, sizeof(err)), -ENOENT);
	CHECK_HAS(err, "--config: '/tmp/test_opt_");
	CHECK_HAS(err, "': No such file or directory");
	/* only a regular file is read: /dev/zero never ends, a FIFO blocks */
	CHECK_EQ_I(opt_ini_load(&cmd, &c, &ps, "/dev/zero", err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--config: '/dev/zero' is a character device: expected a regular file "
		  "(an INI file)");
	CHECK_EQ_I(opt_ini_load(&cmd, &c, &ps, "/tmp", err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, "'/tmp' is a directory");
	CHECK(mkfifo(path, 0600) == 0);
	CHECK_EQ_I(opt_ini_load(&cmd, &c, &ps, path, err, sizeof(err)), -EINVAL);
	CHECK_HAS(err, "' is a FIFO: expected a regular file");
	unlink(path);
}

/* OPT_F_UCAST, OPT_F_OUTFILE */
static void
test_addresses_files(void)
{
	char dir[] = "/tmp/test_opt_dir_XXXXXX", err[512], sub[600];
	struct cfg c;
	struct pstate ps;
	FILE *f;

	defaults(&c, &ps);
	CHECK_EQ_I(opt_set(&cmd, opt_find(&cmd, "src"), &c, &ps, "10.1.2.3", err, sizeof(err)),
		   0);
	CHECK_EQ_U(c.src_ip, 0x0a010203);
	CHECK_EQ_I(opt_set(&cmd, opt_find(&cmd, "src"), &c, &ps, "255.255.255.255", err,
			   sizeof(err)), -EINVAL);
	CHECK_STR(err, "--src: '255.255.255.255': expected a sender's unicast address: "
		  "255.255.255.255 is the limited broadcast address, never a sender's");
	CHECK_EQ_I(opt_set(&cmd, opt_find(&cmd, "src"), &c, &ps, "0.0.0.0", err, sizeof(err)),
		   -EINVAL);
	CHECK_EQ_I(opt_set(&cmd, opt_find(&cmd, "src"), &c, &ps, "239.1.1.1", err, sizeof(err)),
		   -EINVAL);
	CHECK_HAS(err, "224.0.0.0/4 is multicast");
	CHECK_EQ_I(opt_set(&cmd, opt_find(&cmd, "src"), &c, &ps, "127.0.0.1", err, sizeof(err)),
		   -EINVAL);
	CHECK_EQ_I(opt_set(&cmd, opt_find(&cmd, "src"), &c, &ps, "240.0.0.1", err, sizeof(err)),
		   -EINVAL);
	CHECK_EQ_U(c.src_ip, 0x0a010203);

	/* where it points: checked on demand, the value kept as given */
	CHECK(mkdtemp(dir) != NULL);
	CHECK_EQ_I(opt_check_files(&cmd, &c, err, sizeof(err)), 0); /* unset */
	snprintf(sub, sizeof(sub), "%s/none/s.json", dir);
	CHECK_EQ_I(opt_set(&cmd, opt_find(&cmd, "summary"), &c, &ps, sub, err, sizeof(err)), 0);
	CHECK_EQ_I(opt_check_files(&cmd, &c, err, sizeof(err)), -ENOENT);
	CHECK_HAS(err, "--summary ");
	CHECK_HAS(err, "/none/s.json: directory '");
	CHECK_HAS(err, "/none' does not exist");
	snprintf(sub, sizeof(sub), "%s/s.json", dir);
	CHECK_EQ_I(opt_set(&cmd, opt_find(&cmd, "summary"), &c, &ps, sub, err, sizeof(err)), 0);
	CHECK_EQ_I(opt_check_files(&cmd, &c, err, sizeof(err)), 0);
	f = fopen(sub, "w");
	fclose(f);
	CHECK_EQ_I(opt_check_files(&cmd, &c, err, sizeof(err)), 0); /* replaced */
	snprintf(sub, sizeof(sub), "%s/s.json/x.json", dir);
	CHECK_EQ_I(opt_set(&cmd, opt_find(&cmd, "summary"), &c, &ps, sub, err, sizeof(err)), 0);
	CHECK_EQ_I(opt_check_files(&cmd, &c, err, sizeof(err)), -ENOTDIR);
	CHECK_HAS(err, "/s.json' is a regular file, not a directory");
	snprintf(sub, sizeof(sub), "%s/s.json/y/x.json", dir);
	CHECK_EQ_I(opt_set(&cmd, opt_find(&cmd, "summary"), &c, &ps, sub, err, sizeof(err)), 0);
	CHECK_EQ_I(opt_check_files(&cmd, &c, err, sizeof(err)), -ENOTDIR);
	CHECK_HAS(err, "/s.json/y' does not exist: '");
	CHECK_HAS(err, "/s.json' is a regular file");
	snprintf(sub, sizeof(sub), "%s/s.json", dir);
	unlink(sub);
	CHECK_EQ_I(opt_set(&cmd, opt_find(&cmd, "summary"), &c, &ps, dir, err, sizeof(err)), 0);
	CHECK_EQ_I(opt_check_files(&cmd, &c, err, sizeof(err)), -EISDIR);
	CHECK_HAS(err, "' is a directory: expected a regular file");
	CHECK_EQ_I(opt_set(&cmd, opt_find(&cmd, "summary"), &c, &ps, "/dev/null", err,
			   sizeof(err)), 0);
	CHECK_EQ_I(opt_check_files(&cmd, &c, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--summary /dev/null: '/dev/null' is a character device: expected a "
		  "regular file (it is replaced at the end)");
	/* nothing was left in the directory */
	CHECK(rmdir(dir) == 0);
}

/* Key=value lists: a table of keys parsed into its own struct, refusals
 * generated from the rows, --help and --dump-options listing the keys. */
struct kvs {
	bool fast;
	uint32_t depth;
	int mode;
	char tag[8];
};

static const char *const mode_words[] = { "a", "b", NULL };

static void
kvs_defaults(void *obj)
{
	struct kvs *k = obj;

	memset(k, 0, sizeof(*k));
	k->depth = 4;
}

static const struct opt_def kv_rows[] = {
	{"fast", .kind = OPT_BOOL, OPT_AT(struct kvs, fast), .help = "go fast"},
	{"depth", .kind = OPT_UINT, .metavar = "N", .min = 1, .max = 9,
	 OPT_AT(struct kvs, depth), .help = "how deep"},
	{"mode", .kind = OPT_ENUM, .names = mode_words, OPT_AT(struct kvs, mode),
	 .help = "which mode"},
	{"tag", .kind = OPT_STRING, .metavar = "T", OPT_AT(struct kvs, tag), .help = "a tag"},
	{ .name = NULL },
};

static const struct opt_kv kv_list = {
	.name = "--thing", .keys = kv_rows, .defaults = kvs_defaults,
	.obj_size = sizeof(struct kvs),
};

static const struct opt_def kv_opts[] = {
	{"thing", .kind = OPT_STRING, .metavar = "KEY=VALUE[,...]", OPT_AT(struct cfg, summary),
	 .kv = &kv_list, .help = "a thing"},
	{ .name = NULL },
};

static const struct opt_cmd kv_cmd = { .prog = "k", .opts = kv_opts };

static void
kv_help_to(FILE *f, const void *arg)
{
	(void)arg;
	opt_help(&kv_cmd, f);
}

static void
kv_dump_to(FILE *f, const void *arg)
{
	(void)arg;
	opt_dump(&kv_cmd, f);
}

static void
test_kv(void)
{
	struct kvs k;
	struct opt_kv semi = kv_list;
	char err[512], names[128];
	uint64_t given;
	char *h;

	kvs_defaults(&k);
	CHECK_EQ_I(opt_kv_parse(&kv_list, &k, NULL, "fast=on,depth=7,mode=b,tag=x1", &given, err,
				sizeof(err)), 0);
	CHECK(k.fast && k.depth == 7 && k.mode == 1);
	CHECK_STR(k.tag, "x1");
	CHECK_EQ_U(given, 0xf);
	CHECK(opt_kv_given(&kv_list, given, "mode") && !opt_kv_given(&kv_list, 0x1, "mode"));
	kvs_defaults(&k);
	CHECK_EQ_I(opt_kv_parse(&kv_list, &k, NULL, "depth=2", &given, err, sizeof(err)), 0);
	CHECK(!k.fast && k.depth == 2 && given == 0x2);
	CHECK_EQ_I(opt_kv_parse(&kv_list, &k, NULL, "", &given, err, sizeof(err)), 0);
	CHECK_EQ_I(opt_kv_parse(&kv_list, &k, NULL, NULL, &given, err, sizeof(err)), 0);
	CHECK_EQ_U(given, 0);
	/* parse_bool's words, every one */
	CHECK_EQ_I(opt_kv_parse(&kv_list, &k, NULL, "fast=off", NULL, err, sizeof(err)), 0);
	CHECK(!k.fast);
	CHECK_EQ_I(opt_kv_parse(&kv_list, &k, NULL, "fast=TRUE", NULL, err, sizeof(err)), 0);
	CHECK(k.fast);
	/* another separator */
	semi.sep = ';';
	CHECK_EQ_I(opt_kv_parse(&semi, &k, NULL, "depth=3;mode=a", NULL, err, sizeof(err)), 0);
	CHECK(k.depth == 3 && k.mode == 0);

	CHECK_EQ_I(opt_kv_parse(&kv_list, &k, NULL, "fast=perhaps", NULL, err, sizeof(err)),
		   -EINVAL);
	CHECK_STR(err, "--thing fast: 'perhaps': expected yes or no");
	CHECK_EQ_I(opt_kv_parse(&kv_list, &k, NULL, "depth=10", NULL, err, sizeof(err)), -ERANGE);
	CHECK_STR(err, "--thing depth: '10': expected an integer between 1 and 9");
	CHECK_EQ_I(opt_kv_parse(&kv_list, &k, NULL, "mode=c", NULL, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--thing mode: 'c': expected a or b");
	CHECK(opt_kv_parse(&kv_list, &k, NULL, "tag=toolongtag", NULL, err, sizeof(err)) < 0);
	CHECK_HAS(err, "--thing tag: 'toolongtag': expected 1..7 characters");
	opt_kv_names(&kv_list, names, sizeof(names));
	CHECK_STR(names, "fast, depth, mode or tag");
	CHECK_EQ_I(opt_kv_parse(&kv_list, &k, NULL, "depth=2,colour=red", &given, err, sizeof(err)),
		   -EINVAL);
	CHECK_STR(err, "--thing: 'colour': unknown key, expected fast, depth, mode or tag");
	CHECK_EQ_I(opt_kv_parse(&kv_list, &k, NULL, "depth", NULL, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "--thing: 'depth': expected KEY=VALUE, KEY one of fast, depth, mode or tag");
	CHECK_EQ_I(opt_kv_parse(&kv_list, &k, NULL, "=3", NULL, err, sizeof(err)), -EINVAL);
	CHECK_EQ_I(opt_kv_parse(&kv_list, &k, NULL, "depth=2,,mode=a", NULL, err, sizeof(err)),
		   -EINVAL);
	CHECK_HAS(err, "--thing: '': expected KEY=VALUE");
	CHECK_EQ_I(opt_kv_parse(&kv_list, &k, NULL, "depth=2,mode=a,depth=3", NULL, err,
				sizeof(err)), -EINVAL);
	CHECK_STR(err, "--thing depth: '3': given twice (first '2'): expected each key once");

	/* a command's words: runs of spaces and tabs, refusals as struct err_refusal */
	{
		struct opt_kv words = kv_list;
		struct err_refusal why;

		words.name = "parameter";
		words.seps = " \t";
		kvs_defaults(&k);
		CHECK_EQ_I(opt_kv_parse_why(&words, &k, NULL, "  depth=5 \t mode=b  ", &given, &why),
			   0);
		CHECK(k.depth == 5 && k.mode == 1 && given == 0x6);
		CHECK_EQ_I(opt_kv_parse_why(&words, &k, NULL, " \t ", &given, &why), 0);
		CHECK_EQ_U(given, 0);
		CHECK_EQ_I(opt_kv_parse_why(&words, &k, NULL, "depth=5 colour=red", NULL, &why),
			   -EINVAL);
		CHECK_STR(why.input, "parameter");
		CHECK_STR(why.value, "colour");
		CHECK_STR(why.expected, "one of fast, depth, mode or tag");
		CHECK_EQ_I(opt_kv_parse_why(&words, &k, NULL, "depth", NULL, &why), -EINVAL);
		CHECK_STR(why.input, "parameter");
		CHECK_STR(why.value, "depth");
		CHECK_STR(why.expected, "KEY=VALUE: fast, depth, mode or tag");
		CHECK_EQ_I(opt_kv_parse_why(&words, &k, NULL, "mode=a mode=b", NULL, &why), -EINVAL);
		CHECK_STR(why.input, "mode");
		CHECK_STR(why.value, "b");
		CHECK_STR(why.expected, "each key once");
		CHECK_EQ_I(opt_kv_parse_why(&words, &k, NULL, "depth=12", NULL, &why), -ERANGE);
		CHECK_STR(why.input, "depth");
		CHECK_STR(why.value, "12");
		CHECK_STR(why.expected, "an integer between 1 and 9");
		CHECK_EQ_I(opt_kv_parse_why(&words, &k, NULL, "tag=a\nb", NULL, &why), 0);
		CHECK_EQ_I(opt_kv_parse_why(&words, &k, NULL, "fast=maybe\x01", NULL, &why), -EINVAL);
		CHECK_STR(why.value, "maybe\\x01");
		CHECK_STR(why.expected, "yes or no");
	}

	/* the table is checked as an option table is */
	CHECK_EQ_I(opt_kv_check(&kv_list, err, sizeof(err)), 0);
	CHECK_EQ_I(opt_cmd_check(&kv_cmd, err, sizeof(err)), 0);
	{
		struct opt_def bad[3] = { kv_rows[0], kv_rows[0], { .name = NULL } };
		struct opt_kv b = { .name = "--bad", .keys = bad };

		CHECK_EQ_I(opt_kv_check(&b, err, sizeof(err)), -EINVAL);
		CHECK_HAS(err, "'fast': two rows");
		bad[1].name = "Fast";
		CHECK_EQ_I(opt_kv_check(&b, err, sizeof(err)), -EINVAL);
		bad[1].name = "slow";
		bad[1].help = NULL;
		CHECK_EQ_I(opt_kv_check(&b, err, sizeof(err)), -EINVAL);
		CHECK_HAS(err, "'slow': no help text");
	}

	/* --help: the keys under the option, with their ranges and defaults */
	h = capture(kv_help_to, NULL);
	CHECK_HAS(h, "a thing; keys:\n");
	CHECK_HAS(h, "  fast=yes|no");
	CHECK_HAS(h, "  depth=N           how deep (1..9; default: 4)\n");
	CHECK_HAS(h, "  mode=a|b          which mode (default: a)\n");
	CHECK_HAS(h, "  tag=T             a tag\n");
	free(h);
	/* --dump-options: a row per key after its option's */
	h = capture(kv_dump_to, NULL);
	CHECK_HAS(h, "\nthing\t-\tstring\tcli\t-\tno\t-\ta thing\n"
		  "thing.fast\t-\tbool\tkey\t-\tno\tyes\tgo fast\n"
		  "thing.depth\t-\tuint\tkey\t-\tno\t1\thow deep\n"
		  "thing.mode\t-\tenum\tkey\t-\tno\ta\twhich mode\n"
		  "thing.tag\t-\tstring\tkey\t-\tno\t-\ta tag\n");
	free(h);
}

int
main(void)
{
	test_values();
	test_argv();
	test_help_print();
	test_check();
	test_ini();
	test_addresses_files();
	test_kv();
	return check_report("opt");
}
