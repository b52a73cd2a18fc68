/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/opt: the walkers over an option table: argv, values, --help, the configuration print. */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fsprobe.h"
#include "opt.h"
#include "parse.h"

#define VAL_BASE 256       /* getopt_long's val of row i: VAL_BASE + i */
#define VAL_DUMP 255       /* the built-in --dump-options */
#define VAL_VERSION 254    /* the built-in --version */
#define HELP_COL 25        /* where help text starts */
#define HELP_WIDTH 79
#define NAME_MAX_LEN 64

static unsigned int
rows_in(const struct opt_def *t)
{
	unsigned int n = 0;

	while (t != NULL && t[n].name != NULL)
		n++;
	return n;
}

unsigned int
opt_count(const struct opt_cmd *cmd)
{
	return rows_in(cmd->opts) + rows_in(cmd->more);
}

const struct opt_def *
opt_row(const struct opt_cmd *cmd, unsigned int i)
{
	unsigned int n = rows_in(cmd->opts);

	if (i < n)
		return &cmd->opts[i];
	i -= n;
	if (i < rows_in(cmd->more))
		return &cmd->more[i];
	return NULL;
}

const struct opt_def *
opt_find(const struct opt_cmd *cmd, const char *name)
{
	const struct opt_def *d;
	unsigned int i;

	for (i = 0; (d = opt_row(cmd, i)) != NULL; i++)
		if (strcmp(d->name, name) == 0)
			return d;
	return NULL;
}

/* The row an alias stands for (itself otherwise). */
static const struct opt_def *
target(const struct opt_cmd *cmd, const struct opt_def *d)
{
	const struct opt_def *t;

	if (d->alias_of == NULL)
		return d;
	t = opt_find(cmd, d->alias_of);
	return t != NULL ? t : d;
}

static void *
where(const struct opt_def *d, const void *obj, const void *ctx, size_t off)
{
	const void *base = d->in_ctx ? ctx : obj;

	return base == NULL ? NULL : (char *)(uintptr_t)base + off;
}

static void
store_u(void *p, size_t size, uint64_t v)
{
	switch (size) {
	case 1:
		*(uint8_t *)p = (uint8_t)v;
		break;
	case 2:
		*(uint16_t *)p = (uint16_t)v;
		break;
	case 4:
		*(uint32_t *)p = (uint32_t)v;
		break;
	default:
		*(uint64_t *)p = v;
		break;
	}
}

static uint64_t
load_u(const void *p, size_t size)
{
	switch (size) {
	case 1:
		return *(const uint8_t *)p;
	case 2:
		return *(const uint16_t *)p;
	case 4:
		return *(const uint32_t *)p;
	default:
		return *(const uint64_t *)p;
	}
}

static unsigned int
nnames(const struct opt_def *d)
{
	unsigned int n = 0;

	while (d->names != NULL && d->names[n] != NULL)
		n++;
	return n;
}

static bool
has_value(const struct opt_def *d)
{
	return d->kind != OPT_FLAG && d->kind != OPT_ACTION;
}

int
opt_value_u64(const struct opt_arg *a, uint64_t *out, char *err, size_t errlen)
{
	const struct opt_def *d = a->def;
	uint64_t v;
	int rc;

	if (a->val != NULL && ((d->zero != NULL && strcmp(a->val, d->zero) == 0) ||
			       ((d->flags & OPT_F_ZERO) && strcmp(a->val, "0") == 0))) {
		*out = 0;
		return 0;
	}
	if (d->kind == OPT_SIZE)
		rc = parse_size(a->opt, a->val, d->min, d->max, &v, err, errlen);
	else if (d->kind == OPT_DURATION)
		rc = parse_duration_ns(a->opt, a->val, d->min, d->max, &v, err, errlen);
	else
		rc = parse_u64(a->opt, a->val, d->min, d->max, &v, err, errlen);
	if (rc != 0)
		return rc;
	if ((d->flags & OPT_F_POW2) && (v & (v - 1)) != 0)
		return err_set(err, errlen, -EINVAL, "%s: '%s': expected a power of two between %"
			    PRIu64 " and %" PRIu64, a->opt, a->val, d->min, d->max);
	if (d->mult > 1 && v % d->mult != 0)
		return err_set(err, errlen, -EINVAL, "%s: '%s': expected a multiple of %" PRIu64
			    "%s%s", a->opt, a->val, d->mult, d->unit ? " " : "",
			    d->unit ? d->unit : "");
	*out = v;
	return 0;
}

/* OPT_STRING, OPT_PATH, OPT_LIST items: non-empty, fits. */
static int
set_text(const struct opt_arg *a, char *dst, char *err, size_t errlen)
{
	const struct opt_def *d = a->def;
	size_t max = d->ptr ? SIZE_MAX : d->size - 1;

	if (a->val == NULL || a->val[0] == '\0' || strlen(a->val) > max) {
		if (d->ptr)
			return err_set(err, errlen, -EINVAL, "%s: '%s': expected %s", a->opt,
				    a->val ? a->val : "", d->kind == OPT_PATH ? "a file path" :
				    "a non-empty value");
		return err_set(err, errlen, a->val == NULL || a->val[0] == '\0' ? -EINVAL : -E2BIG,
			    "%s: '%s': expected %s1..%zu characters", a->opt,
			    a->val ? a->val : "", d->kind == OPT_PATH ? "a file path of " : "",
			    max);
	}
	if (d->ptr)
		*(const char **)(void *)dst = a->val;
	else
		str_copy(dst, d->size, a->val);
	return 0;
}

static int
set_value(const struct opt_arg *a, void *p, char *err, size_t errlen)
{
	const struct opt_def *d = a->def;
	uint64_t v;
	double x;
	unsigned int k, *cnt;
	uint32_t ip;
	bool b;
	int rc;

	switch (d->kind) {
	case OPT_FLAG:
	case OPT_BOOL:
		b = true;
		if (a->val != NULL && (rc = parse_bool(a->opt, a->val, &b, err, errlen)) != 0)
			return rc;
		*(bool *)p = (d->flags & OPT_F_INVERT) ? !b : b;
		return 0;
	case OPT_UINT:
	case OPT_SIZE:
	case OPT_DURATION:
		if ((rc = opt_value_u64(a, &v, err, errlen)) != 0)
			return rc;
		store_u(p, d->size, v);
		return 0;
	case OPT_DOUBLE:
		if ((rc = parse_double(a->opt, a->val, d->dmin, d->dmax, &x, err, errlen)) != 0)
			return rc;
		*(double *)p = x;
		return 0;
	case OPT_STRING:
	case OPT_PATH:
		return set_text(a, p, err, errlen);
	case OPT_ENUM:
		if ((rc = parse_choice(a->opt, a->val, d->names, nnames(d), &k, err, errlen)) != 0)
			return rc;
		store_u(p, d->size, d->values != NULL ? (uint64_t)(int64_t)d->values[k] : k);
		return 0;
	case OPT_IPV4:
		if ((rc = parse_ipv4(a->opt, a->val, &ip, err, errlen)) != 0)
			return rc;
		if ((d->flags & OPT_F_MCAST) && (ip >> 28) != 0xE)
			return err_set(err, errlen, -EINVAL, "%s: '%s': expected an IPv4 multicast "
				    "address (224.0.0.0/4)", a->opt, a->val);
		if ((d->flags & OPT_F_UCAST) && ipv4_source_why(ip) != NULL)
			return err_set(err, errlen, -EINVAL, "%s: '%s': expected a sender's unicast "
				    "address: %s", a->opt, a->val, ipv4_source_why(ip));
		store_u(p, d->size, ip);
		return 0;
	case OPT_LIST:
		cnt = where(d, a->obj, a->ctx, d->count - 1);
		if (*cnt >= d->max)
			return err_set(err, errlen, -E2BIG, "%s: at most %" PRIu64 "%s%s", a->opt,
				    d->max, d->unit ? " " : " values", d->unit ? d->unit : "");
		if ((rc = set_text(a, (char *)p + (size_t)*cnt * d->size, err, errlen)) != 0)
			return rc;
		(*cnt)++;
		return 0;
	case OPT_CUSTOM:
	case OPT_ACTION:
		return d->set(a, err, errlen);
	default:
		return err_set(err, errlen, -EINVAL, "%s: no kind in the option table", a->opt);
	}
}

/* Apply one value of row d, naming it opt in messages. */
static int
apply(const struct opt_cmd *cmd, const struct opt_def *d, void *obj, void *ctx, const char *opt,
      const char *val, char *err, size_t errlen)
{
	struct opt_arg a;
	int rc;

	a.cmd = cmd;
	a.def = d;
	a.opt = opt;
	a.val = val;
	a.obj = obj;
	a.ctx = ctx;
	if (val == NULL && has_value(target(cmd, d)))
		return err_set(err, errlen, -EINVAL, "%s: expected a value", opt);
	if (d->alias_of != NULL) /* an old form: its .set notes and translates */
		return d->set(&a, err, errlen);
	rc = set_value(&a, where(d, obj, ctx, d->off), err, errlen);
	if (rc == 0 && d->seen != 0)
		*(bool *)where(d, obj, ctx, d->seen - 1) = true;
	return rc;
}

int
opt_set(const struct opt_cmd *cmd, const struct opt_def *d, void *obj, void *ctx,
	const char *val, char *err, size_t errlen)
{
	char opt[NAME_MAX_LEN + 3];

	if (d->flags & OPT_F_GONE)
		return err_set(err, errlen, -ENOENT, "--%s: renamed: use %s%s", d->name,
			    d->help != NULL ? "" : "--", d->help != NULL ? d->help : d->alias_of);
	if (d->alias_of != NULL && d->set == NULL) {
		opt_note(cmd, "--%s is an old name: use --%s", d->name, d->alias_of);
		d = target(cmd, d);
	}
	snprintf(opt, sizeof(opt), "--%s", d->name);
	return apply(cmd, d, obj, ctx, opt, val, err, errlen);
}

/* ---- key=value lists ---------------------------------------------------- */

#define KV_MAX_KEYS 64

const struct opt_def *
opt_kv_find(const struct opt_kv *kv, const char *name, unsigned int *idx)
{
	unsigned int i;

	for (i = 0; kv->keys[i].name != NULL; i++)
		if (strcmp(kv->keys[i].name, name) == 0) {
			if (idx != NULL)
				*idx = i;
			return &kv->keys[i];
		}
	return NULL;
}

bool
opt_kv_given(const struct opt_kv *kv, uint64_t given, const char *name)
{
	unsigned int i;

	return opt_kv_find(kv, name, &i) != NULL && (given >> i & 1) != 0;
}

void
opt_kv_names(const struct opt_kv *kv, char *buf, size_t len)
{
	unsigned int i, n = rows_in(kv->keys);
	size_t off = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i == 0 ? "" : i + 1 == n ? " or " : ", ", kv->keys[i].name);
}

/* The command a list's rows are applied under (notes name the list). */
static struct opt_cmd
kv_cmd(const struct opt_kv *kv)
{
	struct opt_cmd c = { .prog = kv->name, .opts = kv->keys };

	return c;
}

/* The part of a value's message after "OPT: 'VALUE': expected ", or all of it. */
static const char *
expected_part(const char *msg, const char *opt, const char *val)
{
	char head[NAME_MAX_LEN * 2 + 160];
	int n = snprintf(head, sizeof(head), "%s: '%s': expected ", opt, val);

	if (n > 0 && (size_t)n < sizeof(head) && strncmp(msg, head, (size_t)n) == 0)
		return msg + n;
	return msg;
}

/* Split buf at the next separator: the item's end, or NULL. A run of
 * kv->seps counts as one; leading ones are skipped. */
static char *
next_item(const struct opt_kv *kv, char **item)
{
	char *end;

	if (kv->seps != NULL) {
		*item += strspn(*item, kv->seps);
		end = *item + strcspn(*item, kv->seps);
		return *end != '\0' ? end : NULL;
	}
	return strchr(*item, kv->sep != 0 ? kv->sep : ',');
}

static int
kv_parse(const struct opt_kv *kv, void *obj, void *ctx, const char *list, uint64_t *given,
	 char *err, size_t errlen, struct err_refusal *why)
{
	const char *first[KV_MAX_KEYS] = { NULL };
	struct opt_cmd cmd = kv_cmd(kv);
	char names[512], opt[NAME_MAX_LEN * 2 + 2], msg[512];
	char *buf, *item, *next;
	uint64_t got = 0;
	int rc = 0;

	if (given != NULL)
		*given = 0;
	if (list == NULL || list[0] == '\0')
		return 0;
	buf = strdup(list);
	if (buf == NULL) {
		if (why != NULL)
			err_refuse(why, kv->name, "", "memory for a copy");
		return err_set(err, errlen, -ENOMEM, "%s: out of memory", kv->name);
	}
	opt_kv_names(kv, names, sizeof(names));
	for (item = buf; rc == 0 && item != NULL; item = next) {
		const struct opt_def *d;
		unsigned int i;
		char *eq;

		next = next_item(kv, &item);
		if (next != NULL)
			*next++ = '\0';
		if (kv->seps != NULL && item[0] == '\0')
			break; /* only separators were left */
		eq = strchr(item, '=');
		if (eq == NULL || eq == item) {
			if (why != NULL)
				err_refuse(why, kv->name, item, "KEY=VALUE: %s", names);
			rc = err_set(err, errlen, -EINVAL, "%s: '%s': expected KEY=VALUE, KEY one of "
				  "%s", kv->name, item, names);
			break;
		}
		*eq = '\0';
		d = opt_kv_find(kv, item, &i);
		if (d == NULL) {
			if (why != NULL)
				err_refuse(why, kv->name, item, "one of %s", names);
			rc = err_set(err, errlen, -EINVAL, "%s: '%s': unknown key, expected %s",
				  kv->name, item, names);
			break;
		}
		snprintf(opt, sizeof(opt), "%s %s", kv->name, d->name);
		if (got >> i & 1) {
			if (why != NULL)
				err_refuse(why, d->name, eq + 1, "each key once");
			rc = err_set(err, errlen, -EINVAL, "%s: '%s': given twice (first '%s'): "
				  "expected each key once", opt, eq + 1, first[i]);
			break;
		}
		first[i] = eq + 1;
		got |= 1ULL << i;
		rc = apply(&cmd, d, obj, ctx, opt, eq + 1, msg, sizeof(msg));
		if (rc != 0) {
			if (why != NULL)
				err_refuse(why, d->name, eq + 1, "%s",
					   expected_part(msg, opt, eq + 1));
			err_set(err, errlen, rc, "%s", msg);
		}
	}
	free(buf);
	if (given != NULL)
		*given = got;
	return rc;
}

int
opt_kv_parse(const struct opt_kv *kv, void *obj, void *ctx, const char *list, uint64_t *given,
	     char *err, size_t errlen)
{
	return kv_parse(kv, obj, ctx, list, given, err, errlen, NULL);
}

int
opt_kv_parse_why(const struct opt_kv *kv, void *obj, void *ctx, const char *list,
		 uint64_t *given, struct err_refusal *why)
{
	return kv_parse(kv, obj, ctx, list, given, NULL, 0, why);
}

void
opt_note(const struct opt_cmd *cmd, const char *fmt, ...)
{
	char note[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
	if (cmd->note != NULL)
		cmd->note(cmd, note);
	else
		fprintf(stderr, "%s: %s\n", cmd->prog, note);
}

void
opt_version(const struct opt_cmd *cmd, FILE *f)
{
	char prog[64];

	/* "codifcheck info" is codifcheck's */
	snprintf(prog, sizeof(prog), "%.*s", (int)strcspn(cmd->prog, " "), cmd->prog);
	fprintf(f, "%s (dpdk-ibvcap) %s, built with DPDK %s\n", prog, IBVCAP_VERSION,
		IBVCAP_DPDK_VERSION);
}

/* getopt_long's tables from the rows (and --dump-options, --version). */
static int
getopt_tables(const struct opt_cmd *cmd, struct option **lo, char **shorts)
{
	unsigned int n = opt_count(cmd), i, k = 0, s = 0;
	const struct opt_def *d;

	*lo = calloc(n + 3, sizeof(**lo));
	*shorts = calloc(2 * n + 2, 1);
	if (*lo == NULL || *shorts == NULL) {
		free(*lo);
		free(*shorts);
		return -ENOMEM;
	}
	(*shorts)[s++] = ':';
	for (i = 0; (d = opt_row(cmd, i)) != NULL; i++) {
		const struct opt_def *t = target(cmd, d);

		if (d->flags & OPT_F_INI)
			continue;
		(*lo)[k].name = d->name;
		(*lo)[k].has_arg = has_value(t) ? required_argument : no_argument;
		(*lo)[k].val = VAL_BASE + (int)i;
		k++;
		if (d->letter != 0) {
			(*shorts)[s++] = (char)d->letter;
			if (has_value(t))
				(*shorts)[s++] = ':';
		}
	}
	(*lo)[k].name = "dump-options";
	(*lo)[k].has_arg = no_argument;
	(*lo)[k].val = VAL_DUMP;
	k++;
	(*lo)[k].name = "version";
	(*lo)[k].has_arg = no_argument;
	(*lo)[k].val = VAL_VERSION;
	return 0;
}

static const struct opt_def *
row_of_val(const struct opt_cmd *cmd, int c)
{
	const struct opt_def *d;
	unsigned int i;

	if (c >= VAL_BASE)
		return opt_row(cmd, (unsigned int)(c - VAL_BASE));
	for (i = 0; (d = opt_row(cmd, i)) != NULL; i++)
		if (d->letter == c && !(d->flags & OPT_F_INI))
			return d;
	return NULL;
}

void
opt_scan_argv(const struct opt_cmd *cmd, int argc, char **argv,
	      void (*fn)(const struct opt_def *d, const char *val, void *arg), void *arg)
{
	struct option *lo;
	char *shorts;
	int c;

	if (getopt_tables(cmd, &lo, &shorts) != 0)
		return;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct opt_def *d = c == '?' || c == ':' ? NULL : row_of_val(cmd, c);

		if (d != NULL)
			fn(d, optarg, arg);
	}
	free(lo);
	free(shorts);
}

int
opt_parse_argv(const struct opt_cmd *cmd, void *obj, void *ctx, int argc, char **argv,
	       int *first_arg, char *err, size_t errlen)
{
	struct option *lo;
	char *shorts;
	int c, rc = 0;

	if (getopt_tables(cmd, &lo, &shorts) != 0)
		return err_set(err, errlen, -ENOMEM, "%s: out of memory", cmd->prog);
	optind = 0;
	opterr = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, shorts, lo, NULL)) != -1) {
		const struct opt_def *d;
		char shortopt[3] = { '-', (char)optopt, '\0' };
		/* getopt_long names no unknown long option; a short one is optopt */
		const char *arg = c == '?' && optopt > 0 && optopt < VAL_VERSION ? shortopt :
				  argv[optind - 1];

		if (c == '?') {
			rc = err_set(err, errlen, -ENOENT, "%s option '%s' (try %s --help)",
				  cmd->unknown ? cmd->unknown : "unknown", arg, cmd->prog);
		} else if (c == ':') {
			rc = err_set(err, errlen, -EINVAL, "option '%s' needs a value (try %s --help)",
				  argv[optind - 1], cmd->prog);
		} else if (c == VAL_VERSION) {
			opt_version(cmd, stdout);
			rc = 1;
		} else if (c == VAL_DUMP) {
			/* the table is checked first: a test that reads it fails */
			rc = opt_cmd_check(cmd, err, errlen);
			if (rc == 0) {
				opt_dump(cmd, stdout);
				rc = 1;
			}
		} else if ((d = row_of_val(cmd, c)) != NULL) {
			rc = opt_set(cmd, d, obj, ctx, optarg, err, errlen);
		}
	}
	free(lo);
	free(shorts);
	if (first_arg != NULL)
		*first_arg = optind;
	if (rc == 0 && !(cmd->flags & OPT_CMD_ARGS) && optind < argc)
		rc = err_set(err, errlen, -EINVAL, "unexpected argument '%s' (options start with --; "
			  "try %s --help)", argv[optind], cmd->prog);
	return rc;
}

/* 1.5 s as "1.5s", 250 ms as "250ms": the shortest exact form. */
static void
human_ns(uint64_t ns, char *buf, size_t len)
{
	static const struct {
		uint64_t ns;
		const char *unit;
	} u[] = {
		{ 3600000000000ULL, "h" }, { 60000000000ULL, "m" }, { 1000000000ULL, "s" },
		{ 1000000ULL, "ms" }, { 1000ULL, "us" },
	};
	size_t i;

	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (ns != 0 && ns % u[i].ns == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", ns / u[i].ns, u[i].unit);
			return;
		}
	if (ns == 0)
		snprintf(buf, len, "0s");
	else
		snprintf(buf, len, "%" PRIu64 "ns", ns);
}

int
opt_check_files(const struct opt_cmd *cmd, const void *obj, char *err, size_t errlen)
{
	const struct opt_def *d;
	unsigned int i;
	char why[PATH_MAX + 256];
	int rc;

	for (i = 0; (d = opt_row(cmd, i)) != NULL; i++) {
		const char *path;
		const void *p;

		if (!(d->flags & OPT_F_OUTFILE) || d->in_ctx || d->alias_of != NULL)
			continue;
		p = where(d, obj, NULL, d->off);
		path = d->ptr ? *(const char *const *)p : p;
		if (path == NULL || path[0] == '\0')
			continue;
		rc = fs_out_file_ok(path, why, sizeof(why));
		if (rc != 0)
			return err_set(err, errlen, rc, "--%s %s: %s", d->name, path, why);
	}
	return 0;
}

int
opt_format(const struct opt_def *d, const void *obj, const void *ctx, bool human, char *buf,
	   size_t len)
{
	const void *p = where(d, obj, ctx, d->off);
	uint64_t v;
	unsigned int i;

	if (p == NULL || d->alias_of != NULL)
		return -ENOENT;
	switch (d->kind) {
	case OPT_FLAG:
	case OPT_BOOL:
		snprintf(buf, len, "%s", *(const bool *)p != !!(d->flags & OPT_F_INVERT) ?
			 "yes" : "no");
		return 0;
	case OPT_UINT:
	case OPT_SIZE:
	case OPT_DURATION:
		v = load_u(p, d->size);
		if (v == 0 && d->zero != NULL) {
			snprintf(buf, len, "%s", d->zero);
			return 0;
		}
		if (v == 0 && d->unset != NULL)
			return -ENOENT;
		if (d->kind != OPT_DURATION)
			snprintf(buf, len, "%" PRIu64, v);
		else if (human)
			human_ns(v, buf, len);
		else
			snprintf(buf, len, "%.3fs", (double)v / 1e9);
		return 0;
	case OPT_DOUBLE:
		if (*(const double *)p == 0 && d->unset != NULL)
			return -ENOENT;
		snprintf(buf, len, "%g", *(const double *)p);
		return 0;
	case OPT_STRING:
	case OPT_PATH:
		if (d->ptr)
			p = *(const char *const *)p;
		if (p == NULL || *(const char *)p == '\0')
			return -ENOENT;
		snprintf(buf, len, "%s", (const char *)p);
		return 0;
	case OPT_ENUM:
		v = load_u(p, d->size);
		for (i = 0; i < nnames(d); i++)
			if ((d->values != NULL ? (uint64_t)(int64_t)d->values[i] : i) == v) {
				snprintf(buf, len, "%s", d->names[i]);
				return 0;
			}
		return -ENOENT;
	case OPT_IPV4:
		v = load_u(p, d->size);
		if (v == 0 && d->unset != NULL)
			return -ENOENT;
		ipv4_str((uint32_t)v, buf, len);
		return 0;
	case OPT_LIST:
		if (*(const unsigned int *)where(d, obj, ctx, d->count - 1) == 0)
			return -ENOENT;
		snprintf(buf, len, "%s", (const char *)p);
		return 0;
	default:
		return -ENOENT;
	}
}

void
opt_print_note(const struct opt_def *d, FILE *f, const char *fmt, ...)
{
	va_list ap;

	if (d->flags & OPT_F_SECTION)
		fprintf(f, "# [%s] %s: ", d->section, d->name);
	else
		fprintf(f, "# %s: ", d->name);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

void
opt_print_row(const struct opt_cmd *cmd, const struct opt_def *d, const void *obj, FILE *f)
{
	char buf[4200];
	const char *pre = (d->flags & OPT_F_SECTION) ? "# " : "";
	const char *sec = (d->flags & OPT_F_SECTION) ? d->section : NULL;

	(void)cmd;
	if (d->kind == OPT_LIST && !d->in_ctx) {
		unsigned int n = *(const unsigned int *)where(d, obj, NULL, d->count - 1), i;

		for (i = 0; i < n; i++)
			fprintf(f, "%s = %s\n", d->name,
				(const char *)obj + d->off + (size_t)i * d->size);
		if (n == 0)
			opt_print_note(d, f, "%s", d->unset ? d->unset : "none");
		return;
	}
	if (d->in_ctx || opt_format(d, obj, NULL, false, buf, sizeof(buf)) != 0) {
		opt_print_note(d, f, "%s", d->unset ? d->unset : "not set");
		return;
	}
	if (sec != NULL)
		fprintf(f, "%s[%s] %s = %s\n", pre, sec, d->name, buf);
	else
		fprintf(f, "%s = %s\n", d->name, buf);
}

void
opt_print(const struct opt_cmd *cmd, const void *obj, FILE *f)
{
	const struct opt_def *d;
	unsigned int i;

	for (i = 0; (d = opt_row(cmd, i)) != NULL; i++) {
		if ((d->flags & OPT_F_NOPRINT) || d->alias_of != NULL || d->kind == OPT_ACTION)
			continue;
		if (d->print != NULL)
			d->print(cmd, d, obj, f);
		else
			opt_print_row(cmd, d, obj, f);
	}
}

/* Write text from column col, wrapped at HELP_WIDTH, every line after the
 * first (and after each '\n' in text) indented to indent. A line of text
 * keeps its leading spaces, and one laid out as "key   what" wraps under
 * "what". */
static void
wrap(FILE *f, const char *text, unsigned int col, unsigned int indent)
{
	const char *p = text;

	while (*p != '\0') {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		unsigned int lead = 0, hang;
		const char *gap;

		while (lead < n && p[lead] == ' ')
			lead++;
		hang = lead;
		gap = strstr(p + lead, "  ");
		if (gap != NULL && gap < p + n) {
			while (*gap == ' ')
				gap++;
			if (gap < p + n && (size_t)(gap - p) < n / 2 + 1)
				hang = (unsigned int)(gap - p);
		}
		while (n > 0) {
			size_t room = HELP_WIDTH > col ? HELP_WIDTH - col : 20, take = n;

			if (take > room) {
				size_t k = room;

				while (k > 0 && p[k] != ' ')
					k--;
				take = k > 0 ? k : room;
			}
			fprintf(f, "%.*s\n", (int)take, p);
			p += take;
			n -= take;
			while (n > 0 && *p == ' ') {
				p++;
				n--;
			}
			if (n > 0) {
				fprintf(f, "%*s%*s", (int)indent, "", (int)hang, "");
				col = indent + hang;
			}
		}
		if (eol == NULL)
			break;
		p = eol + 1;
		if (*p != '\0') {
			fprintf(f, "%*s", (int)indent, "");
			col = indent;
		}
	}
}

/* "(1..64; default: 6)" and the like, from the row and the defaults. */
static void
help_suffix(const struct opt_def *d, const void *obj, const void *ctx, char *buf, size_t len)
{
	char dv[256];
	size_t off = 0;
	const char *sep = "";

	buf[0] = '\0';
	if (d->kind == OPT_UINT && d->max < UINT32_MAX) {
		if (d->flags & OPT_F_POW2)
			off += (size_t)snprintf(buf + off, len - off, "a power of two in ");
		if (d->mult > 1)
			off += (size_t)snprintf(buf + off, len - off, "a multiple of %" PRIu64
						" in ", d->mult);
		off += (size_t)snprintf(buf + off, len - off, "%" PRIu64 "..%" PRIu64, d->min,
					d->max);
		sep = "; ";
	}
	if (off < len && (d->kind == OPT_LIST || (d->flags & OPT_F_REPEAT))) {
		off += (size_t)snprintf(buf + off, len - off, "%srepeatable", sep);
		sep = "; ";
	}
	if (off < len && d->kind != OPT_FLAG && d->kind != OPT_ACTION &&
	    (d->def != NULL || (obj != NULL && opt_format(d, obj, ctx, true, dv, sizeof(dv)) == 0)))
		off += (size_t)snprintf(buf + off, len - off, "%sdefault: %s", sep,
					d->def != NULL ? d->def : dv);
	if (off >= len)
		buf[len - 1] = '\0';
}

static bool in_help(const struct opt_def *d);

/* The value's syntax for --help: .metavar, an enum's words, yes|no, VALUE. */
static void
metavar_of(const struct opt_def *d, char *metavar, size_t len)
{
	metavar[0] = '\0';
	if (d->metavar != NULL) {
		snprintf(metavar, len, "%s", d->metavar);
	} else if (d->kind == OPT_ENUM) {
		unsigned int i;
		size_t off = 0;

		for (i = 0; i < nnames(d) && off < len; i++)
			off += (size_t)snprintf(metavar + off, len - off, "%s%s", i ? "|" : "",
						d->names[i]);
	} else if (d->kind == OPT_BOOL) {
		snprintf(metavar, len, "yes|no");
	} else if (has_value(d)) {
		snprintf(metavar, len, "VALUE");
	}
}

#define KV_KEY_COL 20 /* where a key's help starts, after "  KEY=VALUE" */

char *
opt_kv_help(const struct opt_kv *kv)
{
	void *obj = NULL;
	char *text = NULL, left[160], mv[128], suffix[320];
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	unsigned int i;

	if (f == NULL)
		return NULL;
	if (kv->defaults != NULL && kv->obj_size > 0 && (obj = calloc(1, kv->obj_size)) != NULL)
		kv->defaults(obj);
	for (i = 0; kv->keys[i].name != NULL; i++) {
		const struct opt_def *d = &kv->keys[i];

		if (!in_help(d))
			continue;
		metavar_of(d, mv, sizeof(mv));
		snprintf(left, sizeof(left), "  %s=%s", d->name, mv);
		help_suffix(d, obj, NULL, suffix, sizeof(suffix));
		/* a long KEY=VALUE on a line of its own, its help under the others' */
		if (strlen(left) > KV_KEY_COL - 2)
			fprintf(f, "%s\n%*s", left, KV_KEY_COL, "");
		else
			fprintf(f, "%-*s  ", KV_KEY_COL - 2, left);
		fprintf(f, "%s%s%s%s\n", d->help, suffix[0] ? " (" : "", suffix,
			suffix[0] ? ")" : "");
	}
	free(obj);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static void
help_row(const struct opt_cmd *cmd, const struct opt_def *d, const void *obj, const void *ctx,
	 FILE *f)
{
	char left[256], suffix[320], metavar[128], *text, *keys = NULL;
	size_t n;
	int len;

	metavar_of(d, metavar, sizeof(metavar));
	if (d->flags & OPT_F_INI) /* a key of the file only */
		len = snprintf(left, sizeof(left), "  %s =%s%s", d->name, metavar[0] ? " " : "",
			       metavar);
	else if (d->letter != 0)
		len = snprintf(left, sizeof(left), "  -%c, --%s%s%s", d->letter, d->name,
			       metavar[0] ? " " : "", metavar);
	else
		len = snprintf(left, sizeof(left), "  --%s%s%s", d->name, metavar[0] ? " " : "",
			       metavar);
	help_suffix(d, obj, ctx, suffix, sizeof(suffix));
	if (d->kv != NULL && (keys = opt_kv_help(d->kv)) == NULL)
		return;
	n = strlen(d->help ? d->help : "") + strlen(suffix) + (keys ? strlen(keys) : 0) + 16;
	text = malloc(n);
	if (text == NULL) {
		free(keys);
		return;
	}
	snprintf(text, n, "%s%s%s%s%s%s", d->help ? d->help : "", suffix[0] ? " (" : "", suffix,
		 suffix[0] ? ")" : "", keys ? "; keys:\n" : "", keys ? keys : "");
	(void)cmd;
	if (len < HELP_COL - 1) {
		fprintf(f, "%-*s", HELP_COL, left);
	} else {
		fprintf(f, "%s\n%*s", left, HELP_COL, "");
	}
	wrap(f, text, HELP_COL, HELP_COL);
	free(text);
	free(keys);
}

static bool
in_help(const struct opt_def *d)
{
	return !(d->flags & (OPT_F_HIDDEN | OPT_F_GONE)) && d->alias_of == NULL;
}

static bool
section_known(const struct opt_cmd *cmd, const char *name)
{
	unsigned int s;

	for (s = 0; cmd->sections != NULL && cmd->sections[s].name != NULL; s++)
		if (strcmp(cmd->sections[s].name, name) == 0)
			return true;
	return false;
}

static bool
in_group(const struct opt_cmd *cmd, const struct opt_def *d, const char *name)
{
	if (name == NULL) /* the rows of no (known) section */
		return d->section == NULL || !section_known(cmd, d->section);
	return d->section != NULL && strcmp(d->section, name) == 0;
}

/* One group of --help: a section's heading and rows, or (sec NULL) the
 * rows of no section. @return whether anything was printed. */
static bool
help_section(const struct opt_cmd *cmd, const struct opt_section *sec, bool first,
	     const void *obj, const void *ctx, FILE *f)
{
	const char *name = sec != NULL ? sec->name : NULL;
	const struct opt_def *d;
	unsigned int i, nrow = 0;
	bool ini = false;

	for (i = 0; (d = opt_row(cmd, i)) != NULL; i++) {
		if (!in_group(cmd, d, name))
			continue;
		if (in_help(d))
			nrow++;
		if (!(d->flags & OPT_F_CLI) && d->kind != OPT_ACTION)
			ini = true;
	}
	if (nrow == 0)
		return false;
	if (!first)
		fputc('\n', f);
	if (sec != NULL && sec->title != NULL) {
		if ((cmd->flags & OPT_CMD_INI) && ini)
			fprintf(f, "%s [%s]:\n", sec->title, sec->name);
		else
			fprintf(f, "%s:\n", sec->title);
		if (sec->intro != NULL) {
			/* a paragraph of its own (help2man) */
			fprintf(f, "  ");
			wrap(f, sec->intro, 2, 2);
			fputc('\n', f);
		}
	}
	/* actions (--help) last */
	for (i = 0; (d = opt_row(cmd, i)) != NULL; i++)
		if (in_help(d) && in_group(cmd, d, name) && d->kind != OPT_ACTION)
			help_row(cmd, d, obj, ctx, f);
	for (i = 0; (d = opt_row(cmd, i)) != NULL; i++)
		if (in_help(d) && in_group(cmd, d, name) && d->kind == OPT_ACTION)
			help_row(cmd, d, obj, ctx, f);
	return true;
}

void
opt_help(const struct opt_cmd *cmd, FILE *f)
{
	void *obj = NULL, *ctx = NULL;
	const struct opt_def *d;
	unsigned int s, i, nalias = 0;
	bool first = true;

	if (cmd->defaults != NULL && cmd->obj_size > 0) {
		obj = calloc(1, cmd->obj_size);
		ctx = cmd->ctx_size ? calloc(1, cmd->ctx_size) : NULL;
		if (obj != NULL && (ctx != NULL || cmd->ctx_size == 0)) {
			cmd->defaults(obj, ctx);
		} else {
			free(obj);
			obj = NULL;
		}
	}
	if (cmd->usage != NULL)
		fputs(cmd->usage, f);
	if (cmd->about != NULL)
		fputs(cmd->about, f);
	if (cmd->usage != NULL || cmd->about != NULL)
		fputc('\n', f);
	for (s = 0; cmd->sections != NULL && cmd->sections[s].name != NULL; s++)
		if (help_section(cmd, &cmd->sections[s], first, obj, ctx, f))
			first = false;
	help_section(cmd, NULL, first, obj, ctx, f);
	fprintf(f, "      --%-*s the version of this program and of DPDK\n", HELP_COL - 9,
		"version");
	for (i = 0; (d = opt_row(cmd, i)) != NULL; i++)
		if (d->alias_of != NULL && !(d->flags & (OPT_F_HIDDEN | OPT_F_GONE))) {
			if (nalias++ == 0)
				fprintf(f, "\nOld names (taken, with a note):\n");
			if (d->help != NULL)
				fprintf(f, "  --%-*s %s\n", HELP_COL - 5, d->name, d->help);
			else
				fprintf(f, "  --%-*s use --%s\n", HELP_COL - 5, d->name,
					d->alias_of);
		}
	if (cmd->epilog != NULL) {
		fputc('\n', f);
		fputs(cmd->epilog, f);
	}
	free(obj);
	free(ctx);
}

int
opt_act_help(const struct opt_arg *a, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	opt_help(a->cmd, stdout);
	return 1;
}

static const char *const kind_names[] = {
	[OPT_NONE] = "alias", [OPT_FLAG] = "flag", [OPT_BOOL] = "bool", [OPT_UINT] = "uint",
	[OPT_SIZE] = "size", [OPT_DURATION] = "duration", [OPT_DOUBLE] = "double",
	[OPT_STRING] = "string", [OPT_PATH] = "path", [OPT_ENUM] = "enum",
	[OPT_IPV4] = "ipv4", [OPT_LIST] = "list", [OPT_CUSTOM] = "custom",
	[OPT_ACTION] = "action",
};

int
opt_example(const struct opt_def *d, char *buf, size_t len)
{
	if (d->example != NULL) {
		snprintf(buf, len, "%s", d->example);
		return 0;
	}
	switch (d->kind) {
	case OPT_FLAG:
	case OPT_BOOL:
		snprintf(buf, len, "yes");
		return 0;
	case OPT_UINT:
	case OPT_SIZE:
		snprintf(buf, len, "%" PRIu64, d->min);
		return 0;
	case OPT_DURATION:
		human_ns(d->min, buf, len);
		return 0;
	case OPT_DOUBLE:
		snprintf(buf, len, "%.17g", d->dmin);
		return 0;
	case OPT_ENUM:
		snprintf(buf, len, "%s", d->names != NULL && d->names[0] ? d->names[0] : "");
		return d->names != NULL && d->names[0] ? 0 : -ENOENT;
	case OPT_IPV4:
		snprintf(buf, len, "%s", (d->flags & OPT_F_MCAST) ? "239.1.2.3" : "10.1.2.3");
		return 0;
	default:
		return -ENOENT;
	}
}

/* Help text on one line: its line breaks and tabs as spaces. */
static void
dump_text(const char *text, FILE *f)
{
	for (const char *p = text ? text : ""; *p; p++)
		fputc(*p == '\n' || *p == '\t' ? ' ' : *p, f);
	fputc('\n', f);
}

/* The keys of row d's list, one row each, named "OPTION.KEY". */
static void
dump_keys(const struct opt_def *d, FILE *f)
{
	const struct opt_def *k;
	char ex[256];

	for (k = d->kv->keys; k->name != NULL; k++) {
		if (opt_example(k, ex, sizeof(ex)) != 0)
			snprintf(ex, sizeof(ex), "-");
		fprintf(f, "%s.%s\t-\t%s\tkey\t%s\t%s\t%s\t", d->name, k->name,
			kind_names[k->kind], d->section ? d->section : "-",
			in_help(k) ? "no" : "yes", ex);
		dump_text(k->help, f);
	}
}

void
opt_dump(const struct opt_cmd *cmd, FILE *f)
{
	const struct opt_def *d;
	unsigned int i;
	char ex[256];

	fprintf(f, "# %s: name\tletter\tkind\twhere\tsection\thidden\texample\thelp\n", cmd->prog);
	for (i = 0; (d = opt_row(cmd, i)) != NULL; i++) {
		const char *w = (d->flags & OPT_F_GONE) ? "gone" :
				d->kind == OPT_ACTION || (d->flags & OPT_F_ACTION) == OPT_F_ACTION ?
				"action" : (d->flags & OPT_F_CLI) ? "cli" :
				(d->flags & OPT_F_INI) ? "ini" :
				(cmd->flags & OPT_CMD_INI) ? "cli+ini" : "cli";

		if (opt_example(target(cmd, d), ex, sizeof(ex)) != 0)
			snprintf(ex, sizeof(ex), "-");
		fprintf(f, "%s\t%c\t%s\t%s\t%s\t%s\t%s\t", d->name, d->letter ? d->letter : '-',
			kind_names[d->kind], w, d->section ? d->section : "-",
			in_help(d) ? "no" : "yes", ex);
		if (d->alias_of != NULL && d->help == NULL) /* an old name's */
			fprintf(f, "%suse --%s", (d->flags & OPT_F_GONE) ? "renamed: " : "",
				d->alias_of);
		dump_text(d->help, f);
		if (d->kv != NULL)
			dump_keys(d, f);
	}
}

static int
bad_row(char *err, size_t errlen, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
bad_row(char *err, size_t errlen, const char *name, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return err_set(err, errlen, -EINVAL, "option table: --%s: %s", name, what);
}

/* What a row's kind needs: @return 0 or bad_row's -EINVAL. */
static int
check_kind(const struct opt_def *d, char *err, size_t errlen)
{
	const char *n = d->name;

	switch (d->kind) {
	case OPT_NONE:
		return bad_row(err, errlen, n, "no kind");
	case OPT_FLAG:
	case OPT_BOOL:
		if (d->size != sizeof(bool))
			return bad_row(err, errlen, n, "expected a bool member");
		break;
	case OPT_UINT:
	case OPT_SIZE:
	case OPT_DURATION:
	case OPT_IPV4:
	case OPT_ENUM:
		if (d->size != 1 && d->size != 2 && d->size != 4 && d->size != 8)
			return bad_row(err, errlen, n, "expected an integer member");
		if (d->kind == OPT_ENUM && nnames(d) == 0)
			return bad_row(err, errlen, n, "no words");
		if (d->kind != OPT_ENUM && d->kind != OPT_IPV4 &&
		    (d->min > d->max || (d->size < 8 && d->max >> (8 * d->size) != 0)))
			return bad_row(err, errlen, n, "range %" PRIu64 "..%" PRIu64 " does not "
				       "fit its member", d->min, d->max);
		break;
	case OPT_DOUBLE:
		if (d->size != sizeof(double) || d->dmin > d->dmax)
			return bad_row(err, errlen, n, "expected a double and a range");
		break;
	case OPT_STRING:
	case OPT_PATH:
		if (d->ptr ? d->size != sizeof(char *) : d->size < 2)
			return bad_row(err, errlen, n, "expected a char array or pointer");
		break;
	case OPT_LIST:
		if (d->count == 0 || d->max == 0 || d->size < 2)
			return bad_row(err, errlen, n, "expected OPT_LIST_AT");
		break;
	case OPT_CUSTOM:
	case OPT_ACTION:
		if (d->set == NULL)
			return bad_row(err, errlen, n, "no .set");
		break;
	}
	if (d->kind != OPT_ACTION && d->kind != OPT_CUSTOM && d->size == 0)
		return bad_row(err, errlen, n, "nowhere stored");
	if ((d->flags & (OPT_F_MCAST | OPT_F_UCAST)) && d->kind != OPT_IPV4)
		return bad_row(err, errlen, n, "multicast or unicast: for an IPv4 address");
	if ((d->flags & OPT_F_MCAST) && (d->flags & OPT_F_UCAST))
		return bad_row(err, errlen, n, "multicast and unicast at once");
	if ((d->flags & OPT_F_OUTFILE) && d->kind != OPT_PATH)
		return bad_row(err, errlen, n, "an output file: for a path");
	return 0;
}

int
opt_cmd_check(const struct opt_cmd *cmd, char *err, size_t errlen)
{
	const struct opt_def *d, *e;
	unsigned int i, j;
	char ex[256];
	int rc;

	for (i = 0; (d = opt_row(cmd, i)) != NULL; i++) {
		const char *n = d->name;

		if (n[0] == '\0' || n[0] == '-' || strlen(n) > NAME_MAX_LEN ||
		    strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(n))
			return err_set(err, errlen, -EINVAL, "option table: row %u '%s': expected a "
				    "name of lower-case letters, digits and '-'", i, n);
		for (j = 0; j < i; j++) {
			e = opt_row(cmd, j);
			if (strcmp(e->name, n) == 0 && !((e->flags ^ d->flags) & OPT_F_SECTION))
				return bad_row(err, errlen, n, "two rows");
			if (d->letter != 0 && e->letter == d->letter)
				return bad_row(err, errlen, n, "letter -%c of --%s too", d->letter,
					       e->name);
		}
		if (d->alias_of != NULL) {
			e = opt_find(cmd, d->alias_of);
			if (e == NULL || e->alias_of != NULL)
				return bad_row(err, errlen, n, "alias of no option '%s'",
					       d->alias_of);
			continue;
		}
		if (d->help == NULL || d->help[0] == '\0')
			return bad_row(err, errlen, n, "no help text");
		if (d->section != NULL && cmd->sections != NULL && !section_known(cmd, d->section))
			return bad_row(err, errlen, n, "unknown section '%s'", d->section);
		if ((rc = check_kind(d, err, errlen)) != 0)
			return rc;
		if (d->kv != NULL && (rc = opt_kv_check(d->kv, err, errlen)) != 0)
			return rc;
		if (!(cmd->flags & OPT_CMD_INI) || (d->flags & OPT_F_CLI) || d->kind == OPT_ACTION)
			continue;
		/* an INI key */
		if (opt_example(d, ex, sizeof(ex)) != 0)
			return bad_row(err, errlen, n, "an INI key needs an .example");
		if (d->kind == OPT_CUSTOM && d->print == NULL && !(d->flags & OPT_F_NOPRINT))
			return bad_row(err, errlen, n, "a custom key needs a .print");
		if (d->ptr)
			return bad_row(err, errlen, n, "an INI key cannot keep a pointer to the "
				       "file's text (.ptr)");
	}
	if ((cmd->flags & OPT_CMD_INI) && (cmd->defaults == NULL || cmd->obj_size == 0))
		return err_set(err, errlen, -EINVAL, "option table: INI keys need .defaults and "
			    ".obj_size (overridden keys are checked on a scratch copy)");
	return 0;
}

int
opt_kv_check(const struct opt_kv *kv, char *err, size_t errlen)
{
	const struct opt_def *d;
	unsigned int i, j;
	int rc;

	if (kv->keys == NULL || rows_in(kv->keys) == 0 || rows_in(kv->keys) > KV_MAX_KEYS)
		return err_set(err, errlen, -EINVAL, "key list %s: expected 1 to %d keys",
			    kv->name, KV_MAX_KEYS);
	for (i = 0; (d = &kv->keys[i])->name != NULL; i++) {
		const char *n = d->name;

		if (n[0] == '\0' || strlen(n) > NAME_MAX_LEN ||
		    strspn(n, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(n))
			return err_set(err, errlen, -EINVAL, "key list %s: row %u '%s': expected a "
				    "name of lower-case letters, digits and '-'", kv->name, i, n);
		for (j = 0; j < i; j++)
			if (strcmp(kv->keys[j].name, n) == 0)
				return err_set(err, errlen, -EINVAL, "key list %s: '%s': two rows",
					    kv->name, n);
		if (d->help == NULL || d->help[0] == '\0')
			return err_set(err, errlen, -EINVAL, "key list %s: '%s': no help text",
				    kv->name, n);
		if (d->kind == OPT_ACTION || d->kind == OPT_FLAG || d->kind == OPT_LIST ||
		    d->alias_of != NULL || d->ptr)
			return err_set(err, errlen, -EINVAL, "key list %s: '%s': expected a value "
				    "stored in the list's struct (no action, flag, list, alias or "
				    "pointer)", kv->name, n);
		if ((rc = check_kind(d, err, errlen)) != 0)
			return rc;
	}
	return 0;
}
