/* SPDX-License-Identifier: BSD-3-Clause */
/* info and verify: expand arguments, inspect each file, report, decide the exit status. */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
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

/* A directory entry: by name when it says what it is, else by content. */
static int
dir_entry(const char *dir, const char *name, struct cc_entries *e)
{
	char path[PATH_MAX], raw[PATH_MAX];
	uint8_t head[CODIF_HDR_LEN * 2];
	struct cc_detect d;
	struct stat st;
	uint64_t size;
	long n;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return 0;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	if (cc_ends_with(name, ".part"))
		return push(e, path, CC_E_PART);
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

int
cc_expand(const char *arg, struct cc_entries *e)
{
	struct dirent **list;
	struct stat st;
	int n, i, rc = 0;

	if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode))
		return push(e, arg, CC_E_FILE);
	n = scandir(arg, &list, NULL, alphasort);
	if (n < 0)
		return push(e, arg, CC_E_FILE); /* inspect says why */
	for (i = 0; i < n; i++) {
		if (rc == 0 && strcmp(list[i]->d_name, ".") != 0 &&
		    strcmp(list[i]->d_name, "..") != 0)
			rc = dir_entry(arg, list[i]->d_name, e);
		free(list[i]);
	}
	free(list);
	return rc;
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
	if (en->kind == CC_E_UNKNOWN)
		return CC_EXIT_OK;
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
