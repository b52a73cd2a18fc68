/* SPDX-License-Identifier: BSD-3-Clause */
/* info and verify: expand arguments, inspect each file, report, decide the exit status. */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "inspect.h"
#include "names.h"
#include "report.h"

static int
push(struct cc_entries *e, const char *path, enum cc_entry_kind k)
{
	if (e->n == e->cap) {
		size_t nc = e->cap != 0 ? e->cap * 2 : 16;
		struct cc_entry *v = realloc(e->v, nc * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		e->v = v;
		e->cap = nc;
	}
	e->v[e->n].path = strdup(path);
	if (e->v[e->n].path == NULL)
		return -ENOMEM;
	e->v[e->n++].kind = k;
	return 0;
}

void
cc_entries_free(struct cc_entries *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		free(e->v[i].path);
	free(e->v);
	memset(e, 0, sizeof(*e));
}

static bool
known_ext(const char *name)
{
	return cc_ends_with(name, ".codif") || cc_ends_with(name, ".raw") ||
	       cc_ends_with(name, ".pcap") || cc_ends_with(name, ".pcapng") ||
	       cc_ends_with(name, ".raw.json");
}

/* A scan's index, by its name: PREFIX_scan.FORMAT.json (formats.md). */
static bool
is_scan_index(const char *path)
{
	static const char *const tail[] = { "_scan.codif.json", "_scan.raw.json",
					    "_scan.pcap.json" };
	const char *name = strrchr(path, '/');
	unsigned int i;

	name = name != NULL ? name + 1 : path;
	for (i = 0; i < sizeof(tail) / sizeof(tail[0]); i++)
		if (cc_ends_with(name, tail[i]) && strlen(name) > strlen(tail[i]))
			return true;
	return false;
}

/* Whether directory path holds a scan index (a writer's DIR/SCAN/). */
static bool
is_scan_dir(const char *path)
{
	struct dirent **list;
	bool yes = false;
	int n, i;

	n = scandir(path, &list, NULL, alphasort);
	if (n < 0)
		return false;
	for (i = 0; i < n; i++) {
		yes = yes || is_scan_index(list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return yes;
}

static int expand_dir(const char *arg, struct cc_entries *e, unsigned int depth);

/* A directory entry: by name when it says what it is, else by content. */
static int
dir_entry(const char *dir, const char *name, struct cc_entries *e, unsigned int depth)
{
	char path[PATH_MAX], raw[PATH_MAX];
	uint8_t head[CODIF_HDR_LEN * 2];
	struct cc_detect d;
	struct stat st;
	uint64_t size;
	long n;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return 0;
	if (stat(path, &st) != 0)
		return 0;
	if (S_ISDIR(st.st_mode))
		/* a scan's directory: its files and its index */
		return depth == 0 && is_scan_dir(path) ? expand_dir(path, e, depth + 1) : 0;
	if (!S_ISREG(st.st_mode))
		return 0;
	if (cc_ends_with(name, ".part"))
		return push(e, path, CC_E_PART);
	if (is_scan_index(name))
		return push(e, path, CC_E_SCAN);
	if (cc_ends_with(name, ".raw.json")) {
		snprintf(raw, sizeof(raw), "%.*s", (int)(strlen(path) - 5), path);
		if (stat(raw, &st) == 0)
			return 0; /* checked with its raw file */
	}
	if (known_ext(name))
		return push(e, path, CC_E_FILE);
	n = cc_read_head(path, head, sizeof(head), &size);
	if (n < 0)
		return push(e, path, CC_E_UNKNOWN);
	cc_detect(head, (size_t)n, size, name, &d);
	return push(e, path, cc_fmt_readable(d.fmt) ? CC_E_FILE : CC_E_UNKNOWN);
}

static int
expand_dir(const char *arg, struct cc_entries *e, unsigned int depth)
{
	struct dirent **list;
	int n, i, rc = 0;

	n = scandir(arg, &list, NULL, alphasort);
	if (n < 0)
		return push(e, arg, CC_E_FILE); /* inspect says why */
	for (i = 0; i < n; i++) {
		if (rc == 0 && strcmp(list[i]->d_name, ".") != 0 &&
		    strcmp(list[i]->d_name, "..") != 0)
			rc = dir_entry(arg, list[i]->d_name, e, depth);
		free(list[i]);
	}
	free(list);
	return rc;
}

int
cc_expand(const char *arg, struct cc_entries *e)
{
	struct stat st;

	if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode))
		return push(e, arg, is_scan_index(arg) ? CC_E_SCAN : CC_E_FILE);
	/* a scan directory given itself is a writer directory of one scan */
	return expand_dir(arg, e, is_scan_dir(arg) ? 1 : 0);
}

static int
expand_all(char **paths, int n, struct cc_entries *e)
{
	int i;

	memset(e, 0, sizeof(*e));
	for (i = 0; i < n; i++)
		if (cc_expand(paths[i], e) != 0) {
			fprintf(stderr, "codifcheck: out of memory listing %s\n", paths[i]);
			return -ENOMEM;
		}
	return 0;
}

static struct cc_scan_opts
scan_opts(const struct cc_check_opts *o)
{
	struct cc_scan_opts so;

	memset(&so, 0, sizeof(so));
	so.pattern = o->pattern;
	so.tl = o->tl;
	so.max_problems = o->max_problems;
	so.filter = o->filter;
	return so;
}

/* ---- info ---------------------------------------------------------------- */

static int
info_one(const struct cc_entry *en, const struct cc_check_opts *o, json_t *w)
{
	struct cc_scan_opts so = scan_opts(o);
	struct cc_file f;
	int rc, status = CC_EXIT_OK;

	if (en->kind == CC_E_PART) {
		fprintf(stderr, "codifcheck: %s: incomplete (.part: being written, or cut "
			"by a crash of its writer); not read\n", en->path);
		return CC_EXIT_OK;
	}
	if (en->kind == CC_E_UNKNOWN || en->kind == CC_E_SCAN)
		return CC_EXIT_OK; /* a scan index: verify checks it */
	rc = cc_inspect(&f, en->path, &so, NULL, NULL);
	if (rc != 0) {
		fprintf(stderr, "codifcheck: %s: %s\n", en->path, strerror(-rc));
		cc_file_free(&f);
		return CC_EXIT_PROBLEMS;
	}
	cc_scan_sort(f.scan);
	if (!cc_fmt_readable(f.det.fmt)) {
		fprintf(stderr, "codifcheck: %s: %s\n", en->path, f.det.desc);
		status = CC_EXIT_PROBLEMS;
	} else if (f.scan->damaged) {
		fprintf(stderr, "codifcheck: %s: damaged: %s\n", en->path,
			f.scan->npr > 0 ? f.scan->pr[0].msg : "see its problems");
		status = CC_EXIT_PROBLEMS;
	}
	if (w != NULL)
		cc_info_json(w, &f, o->max_gaps);
	else if (cc_fmt_readable(f.det.fmt))
		cc_info_text(stdout, &f, o->max_gaps);
	cc_file_free(&f);
	return status;
}

int
cc_cmd_info(char **paths, int n, const struct cc_check_opts *o)
{
	struct cc_entries e;
	json_t *files = o->json ? json_array() : NULL;
	size_t i, nfile = 0;
	int status = CC_EXIT_OK;

	if (expand_all(paths, n, &e) != 0) {
		cc_entries_free(&e);
		return CC_EXIT_PROBLEMS;
	}
	for (i = 0; i < e.n; i++)
		nfile += e.v[i].kind == CC_E_FILE;
	for (i = 0; i < e.n; i++)
		if (info_one(&e.v[i], o, files) != CC_EXIT_OK)
			status = CC_EXIT_PROBLEMS;
	if (files != NULL) {
		/* one file: its object; else {"files": [...]} */
		if (nfile == 1 && json_array_size(files) == 1) {
			js_write(json_array_get(files, 0), stdout, true);
		} else {
			json_t *root = json_object();

			json_object_set(root, "files", files);
			js_write(root, stdout, true);
			json_decref(root);
		}
		json_decref(files);
	}
	cc_entries_free(&e);
	return status;
}

/* ---- verify -------------------------------------------------------------- */

struct verify_sum {
	uint64_t files, bad_files, problems, older, skipped;
};

static void
skipped(const struct cc_entry *en, const char *why, bool problem, json_t *w,
	struct verify_sum *sum)
{
	sum->skipped++;
	if (problem) {
		sum->bad_files++;
		sum->problems++;
	}
	if (w != NULL) {
		json_t *x = js_obj(w, NULL);

		js_str(x, "file", en->path);
		js_str(x, "skipped", why);
		js_bool(x, "ok", !problem);
	} else {
		printf("%s: %s%s\n", en->path, problem ? "problem (--strict): " : "", why);
	}
}

static bool
older(const struct cc_entry *en, const struct cc_check_opts *o)
{
	int64_t start;

	return o->have_since && cc_file_start_ns(en->path, &start) == 0 &&
	       start < o->since_ns;
}

/* ---- a scan's index against its files ------------------------------------ */

#define SCAN_MAX_ANT 128

struct scan_ant {
	char name[CC_NAME_PART_LEN];
	uint64_t frames, filled, files;     /* in its files */
	uint64_t i_frames, i_filled, i_files; /* as the index says */
	bool in_index;
};

struct scan_check {
	struct scan_ant a[SCAN_MAX_ANT];
	unsigned int n;
	uint64_t problems, files;
	char msg[8][320];
	unsigned int nmsg;
};

static void __attribute__((format(printf, 2, 3)))
scan_problem(struct scan_check *c, const char *fmt, ...)
{
	va_list ap;

	c->problems++;
	if (c->nmsg == sizeof(c->msg) / sizeof(c->msg[0]))
		return;
	va_start(ap, fmt);
	vsnprintf(c->msg[c->nmsg++], sizeof(c->msg[0]), fmt, ap);
	va_end(ap);
}

static struct scan_ant *
scan_ant_of(struct scan_check *c, const char *name)
{
	unsigned int i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->a[i].name, name) == 0)
			return &c->a[i];
	if (c->n == SCAN_MAX_ANT)
		return NULL;
	memset(&c->a[c->n], 0, sizeof(c->a[0]));
	snprintf(c->a[c->n].name, sizeof(c->a[0].name), "%s", name);
	return &c->a[c->n++];
}

static uint64_t
jget_u64(const json_t *o, const char *key, bool *ok)
{
	const json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		*ok = false;
		return 0;
	}
	return (uint64_t)json_integer_value(v);
}

/* The frames of the scan's files (the writer's format and prefix, in the
 * index's directory), per antenna of their names. */
static void
scan_files(const char *dir, const char *format, const char *prefix,
	   const struct cc_check_opts *o, struct scan_check *c)
{
	struct cc_scan_opts so = scan_opts(o);
	struct dirent **list;
	int n, i;

	n = scandir(dir, &list, NULL, alphasort);
	if (n < 0) {
		scan_problem(c, "%s: cannot list: %s", dir, strerror(errno));
		return;
	}
	for (i = 0; i < n; i++) {
		char path[PATH_MAX];
		struct cc_name nm;
		struct cc_file f;
		struct scan_ant *a;
		unsigned int k;

		if (cc_parse_name(list[i]->d_name, &nm) != 0 || nm.part ||
		    strcmp(nm.ext, format) != 0 || strcmp(nm.prefix, prefix) != 0 ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name) >=
			    sizeof(path)) {
			free(list[i]);
			continue;
		}
		free(list[i]);
		a = scan_ant_of(c, nm.antenna);
		if (a == NULL)
			continue;
		a->files++;
		c->files++;
		if (cc_inspect(&f, path, &so, NULL, NULL) != 0) {
			scan_problem(c, "%s: cannot be read", path);
			cc_file_free(&f);
			continue;
		}
		for (k = 0; k < f.scan->nst; k++) {
			a->frames += cc_stream_received(f.scan->st[k]);
			a->filled += f.scan->st[k]->filled;
		}
		cc_file_free(&f);
	}
	free(list);
}

/* Read the index's antennas (their names and counts) into c. */
static void
index_read(struct scan_check *c, const json_t *ants)
{
	bool ok = true;
	size_t i;

	for (i = 0; i < json_array_size(ants); i++) {
		const json_t *x = json_array_get(ants, i);
		const char *name = json_string_value(json_object_get(x, "antenna"));
		struct scan_ant *a;

		if (name == NULL || (a = scan_ant_of(c, name)) == NULL) {
			scan_problem(c, "antennas[%zu]: no antenna name", i);
			continue;
		}
		a->in_index = true;
		a->i_frames = jget_u64(x, "frames", &ok);
		a->i_filled = jget_u64(x, "placeholders", &ok) +
			      jget_u64(x, "overrun_placeholders", &ok);
		a->i_files = jget_u64(x, "files", &ok);
		if (!ok) {
			scan_problem(c, "antennas[%zu] (%s): frames, placeholders, "
				     "overrun_placeholders and files must be counts", i, name);
			ok = true;
		}
	}
}

/* Compare each antenna's counts in the index with what its files hold
 * (placeholders: not in pcap). */
static void
index_compare(struct scan_check *c, bool pcap)
{
	unsigned int i;

	for (i = 0; i < c->n; i++) {
		const struct scan_ant *a = &c->a[i];

		if (!a->in_index) {
			scan_problem(c, "antenna %s: %" PRIu64 " file%s in the scan's "
				     "directory, none in its index", a->name, a->files,
				     a->files == 1 ? "" : "s");
			continue;
		}
		if (a->files != a->i_files)
			scan_problem(c, "antenna %s: %" PRIu64 " files in the index, %" PRIu64
				     " in the scan's directory", a->name, a->i_files, a->files);
		if (a->frames != a->i_frames)
			scan_problem(c, "antenna %s: %" PRIu64 " frames in the index, %"
				     PRIu64 " in its files", a->name, a->i_frames, a->frames);
		if (!pcap && a->filled != a->i_filled)
			scan_problem(c, "antenna %s: %" PRIu64 " placeholders in the index "
				     "(gaps and overrun), %" PRIu64 " in its files", a->name,
				     a->i_filled, a->filled);
	}
}

/* Say the scan index's verdict: as an object of w (--json), else as text. */
static void
scan_result(const struct cc_entry *en, const char *scan, const struct scan_check *c,
	    json_t *w)
{
	unsigned int i;

	if (w != NULL) {
		json_t *x = js_obj(w, NULL), *pr;

		js_str(x, "file", en->path);
		js_str(x, "format", "scan-index");
		js_str(x, "scan", scan != NULL ? scan : "");
		js_u64(x, "scan_files", c->files);
		js_bool(x, "ok", c->problems == 0);
		js_u64(x, "problems_total", c->problems);
		pr = js_arr(x, "problems");
		for (i = 0; i < c->nmsg; i++) {
			json_t *p = js_obj(pr, NULL);

			js_str(p, "kind", "scan-index");
			js_str(p, "message", c->msg[i]);
		}
	} else if (c->problems == 0) {
		uint64_t fr = 0;

		for (i = 0; i < c->n; i++)
			fr += c->a[i].frames;
		printf("%s: OK (scan index of %s: %u antenna%s, %" PRIu64 " files, %" PRIu64
		       " frames, as its files hold)\n", en->path, scan, c->n, c->n == 1 ? "" : "s",
		       c->files, fr);
	} else {
		printf("%s: %" PRIu64 " problem%s (scan index)\n", en->path, c->problems,
		       c->problems == 1 ? "" : "s");
		for (i = 0; i < c->nmsg; i++)
			printf("  %s\n", c->msg[i]);
	}
}

/* A scan's index: its antennas' frames, placeholders and files must be
 * those of the files beside it (formats.md "Scan index"). */
static void
verify_scan(const struct cc_entry *en, const struct cc_check_opts *o, json_t *w,
	    struct verify_sum *sum)
{
	static struct scan_check c;
	char dir[PATH_MAX], *slash;
	json_error_t je;
	json_t *root, *ants;
	const char *format, *prefix, *scan;

	memset(&c, 0, sizeof(c));
	snprintf(dir, sizeof(dir), "%s", en->path);
	slash = strrchr(dir, '/');
	if (slash != NULL)
		*slash = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	root = json_load_file(en->path, 0, &je);
	format = root != NULL ? json_string_value(json_object_get(root, "format")) : NULL;
	prefix = root != NULL ? json_string_value(json_object_get(root, "prefix")) : NULL;
	scan = root != NULL ? json_string_value(json_object_get(root, "scan")) : NULL;
	ants = root != NULL ? json_object_get(root, "antennas") : NULL;
	if (root == NULL)
		scan_problem(&c, "not JSON: line %d: %s", je.line, je.text);
	else if (format == NULL || prefix == NULL || scan == NULL || !json_is_array(ants))
		scan_problem(&c, "not a scan index: expected \"scan\", \"format\", "
			     "\"prefix\" and \"antennas\" (formats.md)");
	if (c.problems == 0) {
		index_read(&c, ants);
		scan_files(dir, format, prefix, o, &c);
		index_compare(&c, strcmp(format, "pcap") == 0);
	}
	sum->files++;
	sum->problems += c.problems;
	sum->bad_files += c.problems != 0;
	scan_result(en, scan, &c, w);
	if (root != NULL)
		json_decref(root);
}

static int
verify_one(const struct cc_entry *en, const struct cc_check_opts *o, json_t *w,
	   struct verify_sum *sum)
{
	struct cc_scan_opts so = scan_opts(o);
	struct cc_notes notes;
	struct cc_file f;
	uint64_t total;
	int rc;

	if (older(en, o)) {
		sum->older++;
		return 0;
	}
	if (en->kind == CC_E_PART) {
		skipped(en, "incomplete (.part: being written, or cut by a crash of its "
			"writer); not checked", o->strict, w, sum);
		return 0;
	}
	if (en->kind == CC_E_UNKNOWN) {
		skipped(en, "not a recognised format; skipped", o->strict, w, sum);
		return 0;
	}
	if (en->kind == CC_E_SCAN) {
		verify_scan(en, o, w, sum);
		return 0;
	}
	rc = cc_inspect(&f, en->path, &so, NULL, NULL);
	if (rc != 0) {
		fprintf(stderr, "codifcheck: %s: %s\n", en->path, strerror(-rc));
		cc_file_free(&f);
		return rc;
	}
	cc_scan_sort(f.scan);
	cc_notes_of(&f, &notes);
	total = f.scan->problems + (o->strict ? cc_notes_count(&notes) : 0);
	sum->files++;
	sum->problems += total;
	sum->bad_files += total != 0;
	if (w != NULL)
		cc_verify_json(w, &f, o->strict);
	else
		cc_verify_text(stdout, &f, o->strict);
	cc_file_free(&f);
	return 0;
}

int
cc_cmd_verify(char **paths, int n, const struct cc_check_opts *o)
{
	struct verify_sum sum;
	struct cc_entries e;
	json_t *root = NULL, *files = NULL;
	size_t i;
	int rc = 0;

	memset(&sum, 0, sizeof(sum));
	if (expand_all(paths, n, &e) != 0) {
		cc_entries_free(&e);
		return CC_EXIT_PROBLEMS;
	}
	if (o->json) {
		root = json_object();
		files = js_arr(root, "files");
	}
	for (i = 0; i < e.n && rc == 0; i++)
		rc = verify_one(&e.v[i], o, files, &sum);
	if (o->json) {
		js_u64(root, "files_checked", sum.files);
		js_u64(root, "files_with_problems", sum.bad_files);
		js_u64(root, "files_skipped", sum.skipped);
		js_u64(root, "files_older_than_since", sum.older);
		js_u64(root, "problems", sum.problems);
		js_bool(root, "ok", sum.problems == 0 && rc == 0);
		js_write(root, stdout, true);
		json_decref(root);
	} else {
		printf("verify: %" PRIu64 " files checked, %" PRIu64 " with problems, %"
		       PRIu64 " problems", sum.files, sum.bad_files, sum.problems);
		if (sum.skipped != 0)
			printf(", %" PRIu64 " skipped", sum.skipped);
		if (sum.older != 0)
			printf(", %" PRIu64 " older than --since", sum.older);
		printf("\n");
	}
	cc_entries_free(&e);
	return sum.problems == 0 && rc == 0 ? CC_EXIT_OK : CC_EXIT_PROBLEMS;
}
