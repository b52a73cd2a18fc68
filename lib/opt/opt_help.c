/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/opt: the text written from an option table for people and tools:
 * --help (help2man makes the man pages from it), a key=value list's keys,
 * --dump-options, and the check of a table's rows. */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "opt.h"
#include "opt_int.h"

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

		for (i = 0; i < opt_nnames(d) && off < len; i++)
			off += (size_t)snprintf(metavar + off, len - off, "%s%s", i ? "|" : "",
						d->names[i]);
	} else if (d->kind == OPT_BOOL) {
		snprintf(metavar, len, "yes|no");
	} else if (opt_has_value(d)) {
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
		opt_human_ns(d->min, buf, len);
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

		if (opt_example(opt_target(cmd, d), ex, sizeof(ex)) != 0)
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
		if (d->kind == OPT_ENUM && opt_nnames(d) == 0)
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

	if (kv->keys == NULL || opt_rows_in(kv->keys) == 0 || opt_rows_in(kv->keys) > KV_MAX_KEYS)
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
