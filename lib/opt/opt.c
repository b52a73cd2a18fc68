/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/opt: the walkers over an option table that read and print values:
 * key=value lists, each value's parser, the configuration print
 * (opt_argv.c reads a command line; opt_help.c writes --help,
 * --dump-options and checks a table). */

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
#include "opt_int.h"
#include "parse.h"


unsigned int
opt_rows_in(const struct opt_def *t)
{
	unsigned int n = 0;

	while (t != NULL && t[n].name != NULL)
		n++;
	return n;
}

unsigned int
opt_count(const struct opt_cmd *cmd)
{
	return opt_rows_in(cmd->opts) + opt_rows_in(cmd->more);
}

const struct opt_def *
opt_row(const struct opt_cmd *cmd, unsigned int i)
{
	unsigned int n = opt_rows_in(cmd->opts);

	if (i < n)
		return &cmd->opts[i];
	i -= n;
	if (i < opt_rows_in(cmd->more))
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
const struct opt_def *
opt_target(const struct opt_cmd *cmd, const struct opt_def *d)
{
	const struct opt_def *t;

	if (d->alias_of == NULL)
		return d;
	t = opt_find(cmd, d->alias_of);
	return t != NULL ? t : d;
}

void *
opt_where(const struct opt_def *d, const void *obj, const void *ctx, size_t off)
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

unsigned int
opt_nnames(const struct opt_def *d)
{
	unsigned int n = 0;

	while (d->names != NULL && d->names[n] != NULL)
		n++;
	return n;
}

bool
opt_has_value(const struct opt_def *d)
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
		if ((rc = parse_choice(a->opt, a->val, d->names, opt_nnames(d), &k, err, errlen)) != 0)
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
		cnt = opt_where(d, a->obj, a->ctx, d->count - 1);
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
	if (val == NULL && opt_has_value(opt_target(cmd, d)))
		return err_set(err, errlen, -EINVAL, "%s: expected a value", opt);
	if (d->alias_of != NULL) /* an old form: its .set notes and translates */
		return d->set(&a, err, errlen);
	rc = set_value(&a, opt_where(d, obj, ctx, d->off), err, errlen);
	if (rc == 0 && d->seen != 0)
		*(bool *)opt_where(d, obj, ctx, d->seen - 1) = true;
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
		d = opt_target(cmd, d);
	}
	snprintf(opt, sizeof(opt), "--%s", d->name);
	return apply(cmd, d, obj, ctx, opt, val, err, errlen);
}

/* ---- key=value lists ---------------------------------------------------- */

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
	unsigned int i, n = opt_rows_in(kv->keys);
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

/* 1.5 s as "1.5s", 250 ms as "250ms": the shortest exact form. */
void
opt_human_ns(uint64_t ns, char *buf, size_t len)
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
		p = opt_where(d, obj, NULL, d->off);
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
	const void *p = opt_where(d, obj, ctx, d->off);
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
			opt_human_ns(v, buf, len);
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
		for (i = 0; i < opt_nnames(d); i++)
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
		if (*(const unsigned int *)opt_where(d, obj, ctx, d->count - 1) == 0)
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
		unsigned int n = *(const unsigned int *)opt_where(d, obj, NULL, d->count - 1), i;

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
