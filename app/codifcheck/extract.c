/* SPDX-License-Identifier: BSD-3-Clause */
/* codifcheck extract: the sources' files by antenna, in time order (their
 * formats.md names say when each begins); only the files the window
 * reaches are read; codif and raw through convert's rows (cc_xseq), pcap
 * and pcapng packet by packet; a report in a trigger's shape. */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "convert_priv.h"
#include "err.h"
#include "extract.h"
#include "fmt_name.h"
#include "fmt_pcap.h"
#include "json.h"
#include "names.h"
#include "parse.h"

#define ERRLEN (PATH_MAX + 512)
#define MAX_FILES 65536

/* A source file and what its name says. */
struct xfile {
	char path[PATH_MAX];
	struct cc_name nm;
	enum cc_fmt fmt;
	unsigned int group;
};

/* One antenna's files of one format. */
struct xgroup {
	char ant[CC_NAME_PART_LEN];
	enum cc_fmt fmt;
	unsigned int first, n;       /* its files in the sorted list */
	int64_t rec_first;           /* its first file's time: the recording's start */
	struct cc_xres *res;
	uint64_t streams_hint;
	bool read_last;              /* its last file was read: rec_end known */
};

struct xlist {
	struct xfile *f;
	unsigned int n, cap;
};

static enum cc_fmt
fmt_of_ext(const char *ext)
{
	enum fmt_kind k;

	return fmt_parse(ext, &k) == 0 ? cc_fmt_of_kind(k) : CC_FMT_UNKNOWN;
}

/* A file of a recording: a formats.md name of codif, raw, pcap or pcapng,
 * complete (not .part); anything else (indexes, scan indexes, .part) is
 * passed over. */
static int
add_file(struct xlist *l, const char *path, bool named, char *err, size_t errlen)
{
	struct xfile *x;
	struct cc_name nm;

	if (cc_parse_name(path, &nm) != 0 || nm.part || fmt_of_ext(nm.ext) == CC_FMT_UNKNOWN) {
		if (!named)
			return 0;
		return err_set(err, errlen, -EINVAL,
			       "%s: not a recorded file (expected a formats.md name, "
			       "PREFIX_ANTENNA_YYYYMMDDTHHMMSS.nnnnnnnnnZ.codif|raw|pcap|pcapng, complete: "
			       "no .part)", path);
	}
	if (l->n == l->cap) {
		unsigned int nc = l->cap ? l->cap * 2 : 64;
		struct xfile *v;

		if (nc > MAX_FILES)
			return err_set(err, errlen, -E2BIG,
				       "%s: more than %d files", path, MAX_FILES);
		v = realloc(l->f, nc * sizeof(*v));
		if (v == NULL)
			return err_set(err, errlen, -ENOMEM, "out of memory");
		l->f = v;
		l->cap = nc;
	}
	x = &l->f[l->n++];
	memset(x, 0, sizeof(*x));
	str_copy(x->path, sizeof(x->path), path);
	x->nm = nm;
	x->fmt = fmt_of_ext(nm.ext);
	return 0;
}

/* A directory: its files, and its subdirectories' (scans) one level down. */
static int
add_dir(struct xlist *l, const char *dir, int depth, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;

	if (d == NULL)
		return err_set(err, errlen, -errno,
			       "%s: %s", dir, strerror(errno));
	while (rc == 0 && (e = readdir(d)) != NULL) {
		char p[PATH_MAX];
		struct stat sb;

		if (e->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= sizeof(p))
			continue;
		if (stat(p, &sb) != 0)
			continue;
		if (S_ISDIR(sb.st_mode) && depth == 0)
			rc = add_dir(l, p, 1, err, errlen);
		else if (S_ISREG(sb.st_mode))
			rc = add_file(l, p, false, err, errlen);
	}
	closedir(d);
	return rc;
}

static int
by_group_time(const void *a, const void *b)
{
	const struct xfile *x = a, *y = b;
	int c = strcmp(x->nm.antenna, y->nm.antenna);

	if (c != 0)
		return c;
	if (x->fmt != y->fmt)
		return x->fmt < y->fmt ? -1 : 1;
	if (x->nm.utc_ns != y->nm.utc_ns)
		return x->nm.utc_ns < y->nm.utc_ns ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* Whether antenna is in the --antenna list (NULL: all). */
static bool
wanted(const char *list, const char *ant)
{
	size_t n = strlen(ant);
	const char *p = list;

	if (list == NULL)
		return true;
	while ((p = strstr(p, ant)) != NULL) {
		if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return true;
		p += n;
	}
	return false;
}

/* pcap, pcapng: the packets whose frame time (fmt_name_time: the CODIF
 * frame's, else the arrival) is in the window, as they are. */
struct pkt_out {
	struct fmt_sink s;
	bool open;
	enum fmt_kind kind;
	struct fmt_iface ifc;
	uint64_t frames;
	bool tmp;                    /* a step towards codif or raw: not said */
};

static int
pkt_file(const struct cc_extract_opts *o, struct xgroup *g, struct pkt_out *po,
	 const struct xfile *xf, char *err, size_t errlen)
{
	struct cc_xres *x = g->res;
	struct fmt_pcap_rec r;
	pcap_t *p = fmt_pcap_open_read(xf->path, err, errlen);
	int rc;

	if (p == NULL)
		return -1;
	x->inputs++;
	while ((rc = fmt_pcap_next(p, &r, err, errlen)) == 1) {
		int64_t t = fmt_name_time(r.data, r.caplen, r.len, r.t_ns);
		uint8_t *d;

		if (x->rec_first == INT64_MIN || t < x->rec_first)
			x->rec_first = t;
		if (x->rec_end == INT64_MIN || t >= x->rec_end)
			x->rec_end = t + 1;
		if (t < x->from || t >= x->to)
			continue;
		if (!po->open) {
			struct fmt_opts fo = { .bufsize = 4u << 20, .snaplen = 65535,
					       .fio_flags = o->conv.force ? FIO_REPLACE : 0,
					       .ifaces = &po->ifc, .nifaces = 1,
					       .app = "codifcheck " IBVCAP_VERSION };
			char path[PATH_MAX];

			str_copy(po->ifc.name, sizeof(po->ifc.name), g->ant);
			if (fmt_file_name(path, sizeof(path), o->conv.outdir,
					  o->conv.prefix != NULL ? o->conv.prefix : xf->nm.prefix,
					  g->ant, t, fmt_name(po->kind)) != 0) {
				err_set(err, errlen, -ENAMETOOLONG, "output name too long");
				rc = -1;
				break;
			}
			if (fmt_open(&po->s, po->kind, path, &fo, NULL, err, errlen) != 0) {
				rc = -1;
				break;
			}
			po->open = true;
		}
		d = fmt_pcap_record(&po->s, r.t_ns, r.caplen, r.len);
		if (d == NULL) {
			err_set(err, errlen, -EIO, "%s: %s", fio_part(&po->s.f),
				strerror(fio_error(&po->s.f) ? fio_error(&po->s.f) : E2BIG));
			rc = -1;
			break;
		}
		memcpy(d, r.data, r.caplen);
		if (fmt_pcap_record_end(&po->s) != 0) {
			err_set(err, errlen, -EIO, "%s: %s", fio_part(&po->s.f),
				strerror(fio_error(&po->s.f)));
			rc = -1;
			break;
		}
		po->frames++;
		if (x->first == INT64_MIN || t < x->first)
			x->first = t;
		if (x->end == INT64_MIN || t >= x->end)
			x->end = t + 1;
	}
	pcap_close(p);
	return rc < 0 ? -1 : 0;
}

static int
pkt_end(struct cc_xres *x, struct pkt_out *po, char *err, size_t errlen)
{
	if (!po->open)
		return 0;
	po->open = false;
	if (fmt_close(&po->s, true, NULL, err, errlen) != 0)
		return -1;
	if (!po->tmp)
		printf("codifcheck: wrote %s (%" PRIu64 " packets)\n", fio_path(&po->s.f),
		       po->frames);
	str_copy(x->file[0], sizeof(x->file[0]), fio_path(&po->s.f));
	x->nfiles = 1;
	x->frames = po->frames;
	x->bytes = fmt_disk(&po->s)->bytes;
	return 0;
}

/* pcap or pcapng sources to codif or raw: the window's packets were written
 * to one pcap in a directory of its own (tmp), so rotations join; that
 * pcap is converted as a capture (convert_capture.c: rows by frame index,
 * gaps as placeholders) into the outputs, which replace it in x. The
 * directory is removed. @return 0 (1: the conversion met problems, said on
 * stderr), or -1 with the message in err. */
static int
pkt_rows(const struct cc_conv_opts *co, const struct cc_scan_opts *so, struct cc_xres *x,
	 const char *tmp, char *err, size_t errlen)
{
	char in[PATH_MAX];
	int st = CC_EXIT_OK;

	if (x->nfiles == 1) {
		str_copy(in, sizeof(in), x->file[0]);
		x->nfiles = 0;
		x->frames = x->bytes = 0;
		x->first = x->end = INT64_MIN;
		st = cc_convert_capture(in, co, so, co->to == CC_FMT_RAW ? FMT_RAW : FMT_CODIF, x);
		unlink(in);
	}
	rmdir(tmp);
	if (st != CC_EXIT_OK && x->nfiles == 0)
		return err_set(err, errlen, -EINVAL, "the window's packets could not be "
			       "converted to %s (said above)", cc_fmt_name(co->to));
	return st != CC_EXIT_OK;
}

/* rows x streams of [from, to), as a trigger counts its spans */
static uint64_t
span_frames(const struct cc_xres *x, int64_t from, int64_t to)
{
	if (to <= from || x->frame_ns == 0)
		return 0;
	return (uint64_t)((to - from + (int64_t)x->frame_ns - 1) / (int64_t)x->frame_ns) *
	       (x->nstreams ? x->nstreams : 1);
}

static void
span(json_t *o, const char *what, int64_t from, int64_t to, uint64_t frames)
{
	char k[64], t[CODIF_TIMESTR_LEN];

	if (to <= from)
		return;
	snprintf(k, sizeof(k), "%s_from", what);
	js_str(o, k, codif_time_str(from, t, sizeof(t)));
	snprintf(k, sizeof(k), "%s_to", what);
	js_str(o, k, codif_time_str(to, t, sizeof(t)));
	snprintf(k, sizeof(k), "%s_frames", what);
	js_u64(o, k, frames);
}

/* What the window held over every antenna: the report's totals. */
struct xtotals {
	uint64_t frames, ph, bytes, nfiles, before, after;
	unsigned int nread;
	const char *fmt_out;         /* the first antenna's output format */
	bool empty, complete;
};

/* List the sources' recorded files (directories walked), sorted by antenna,
 * format and time. @return 0, or nonzero with the message in err. */
static int
sources_list(char **src, int n, struct xlist *l, char *err, size_t errlen)
{
	unsigned int i;
	int rc = 0;

	for (i = 0; i < (unsigned int)n && rc == 0; i++) {
		struct stat sb;

		if (stat(src[i], &sb) != 0)
			rc = err_set(err, errlen, -errno, "%s: %s", src[i], strerror(errno));
		else if (S_ISDIR(sb.st_mode))
			rc = add_dir(l, src[i], 0, err, errlen);
		else
			rc = add_file(l, src[i], true, err, errlen);
	}
	if (rc == 0 && l->n > 1)
		qsort(l->f, l->n, sizeof(*l->f), by_group_time);
	return rc;
}

/* Group the listed files: each antenna asked for, its files of one format
 * in time order. @return the number of groups in *gp (allocated), or -1
 * with the message in err. */
static int
groups_make(const struct xlist *l, const char *antennas, struct xgroup **gp, char *err,
	    size_t errlen)
{
	struct xgroup *g = calloc(l->n ? l->n : 1, sizeof(*g));
	unsigned int i, ng = 0;

	*gp = g;
	if (g == NULL)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	for (i = 0; i < l->n; i++) {
		if (!wanted(antennas, l->f[i].nm.antenna))
			continue;
		if (ng > 0 && strcmp(g[ng - 1].ant, l->f[i].nm.antenna) == 0) {
			if (g[ng - 1].fmt != l->f[i].fmt)
				return err_set(err, errlen, -EINVAL, "antenna %s: files of two "
					       "formats (%s and %s, e.g. %s): give the sources of "
					       "one", g[ng - 1].ant, cc_fmt_name(g[ng - 1].fmt),
					       cc_fmt_name(l->f[i].fmt), l->f[i].path);
			g[ng - 1].n++;
			continue;
		}
		str_copy(g[ng].ant, sizeof(g[ng].ant), l->f[i].nm.antenna);
		g[ng].fmt = l->f[i].fmt;
		g[ng].first = i;
		g[ng].n = 1;
		g[ng].rec_first = l->f[i].nm.utc_ns;
		ng++;
	}
	if (ng == 0)
		return err_set(err, errlen, -ENOENT, "no recorded file%s in the sources "
			       "(formats.md names: PREFIX_ANTENNA_UTC.codif|raw|pcap|pcapng)",
			       antennas != NULL ? " of the antennas asked for" : "");
	return (int)ng;
}

/* Extract the window from group gr's files: only those the window reaches
 * are read (file i holds [its time, the next file's time)); codif and raw
 * through convert's rows, pcap and pcapng packet by packet. Sets gr->res.
 * @return 0 (1: an input had problems), or -1 with the message in err. */
static int
group_extract(const struct cc_extract_opts *o, const struct xlist *l, struct xgroup *gr,
	      struct xtotals *tot, char *err, size_t errlen)
{
	bool pkt_in = gr->fmt == CC_FMT_PCAP || gr->fmt == CC_FMT_PCAPNG;
	bool to_rows;
	struct cc_conv_opts co = o->conv;
	struct cc_extract_opts po_o = *o;   /* where the packets go */
	char tmp[PATH_MAX];
	struct cc_xres *x = calloc(1, sizeof(*x));
	struct cc_scan_opts so;
	struct cc_xseq *q = NULL;
	struct pkt_out po;
	unsigned int i;
	int problems = 0;

	if (x == NULL)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	gr->res = x;
	x->from = o->from;
	x->to = o->to;
	x->first = x->end = x->rec_first = x->rec_end = INT64_MIN;
	co.to = o->have_format ? o->conv.to : gr->fmt;
	if (tot->fmt_out == NULL)
		tot->fmt_out = cc_fmt_name(co.to);
	to_rows = pkt_in && co.to != CC_FMT_PCAP && co.to != CC_FMT_PCAPNG;
	if (to_rows) {
		if ((size_t)snprintf(tmp, sizeof(tmp), "%s/.codifcheck_extract.XXXXXX",
				     o->conv.outdir) >= sizeof(tmp) || mkdtemp(tmp) == NULL)
			return err_set(err, errlen, -errno, "%s: a directory for the window's "
				       "packets: %s", o->conv.outdir, strerror(errno));
		po_o.conv.outdir = tmp;
		po_o.conv.force = false;
	}
	memset(&so, 0, sizeof(so));
	so.tl = o->conv.tl;
	so.max_problems = o->conv.max_problems;
	memset(&po, 0, sizeof(po));
	po.kind = co.to == CC_FMT_PCAPNG ? FMT_PCAPNG : FMT_PCAP;
	po.tmp = to_rows;
	if (!pkt_in && (q = cc_xseq_new(&co, x)) == NULL)
		return err_set(err, errlen, -ENOMEM, "out of memory");
	for (i = gr->first; i < gr->first + gr->n; i++) {
		bool last = i + 1 == gr->first + gr->n;
		int64_t t_next = last ? INT64_MAX : l->f[i + 1].nm.utc_ns;
		int r;

		if (l->f[i].nm.utc_ns >= o->to || t_next <= o->from)
			continue;
		tot->nread++;
		if (last)
			gr->read_last = true;
		if (pkt_in)
			r = pkt_file(&po_o, gr, &po, &l->f[i], err, errlen);
		else
			r = cc_xseq_file(q, l->f[i].path, &so, err, errlen);
		if (r < 0) {
			char ignored[8]; /* the first error is the one said */

			if (q != NULL)
				cc_xseq_end(q, ignored, 0);
			else if (po.open)
				fmt_close(&po.s, false, NULL, ignored, 0);
			if (to_rows)
				rmdir(tmp);
			return -1;
		}
		if (r > 0)
			problems = 1;
	}
	if (q != NULL ? cc_xseq_end(q, err, errlen) != 0 : pkt_end(x, &po, err, errlen) != 0) {
		if (to_rows)
			rmdir(tmp);
		return -1;
	}
	if (to_rows && pkt_rows(&co, &so, x, tmp, err, errlen) != 0)
		return x->nfiles == 0 ? -1 : 1;
	return problems;
}

/* Group gr's part of the report, in a trigger's shape (what the window held
 * and missed) into ants, its files into files; added to tot. */
static void
group_report(const struct cc_extract_opts *o, const struct xgroup *gr, json_t *ants,
	     json_t *files, struct xtotals *tot)
{
	const struct cc_xres *x = gr->res;
	json_t *a = js_obj(ants, gr->ant);
	char t[CODIF_TIMESTR_LEN];
	int64_t rec_end = gr->read_last ? x->rec_end : INT64_MAX;
	int64_t bf = o->from, bt = gr->rec_first < o->to ? gr->rec_first : o->to;
	int64_t af = rec_end > o->from ? rec_end : o->from, at = o->to;
	uint64_t nb = span_frames(x, bf, bt), na = span_frames(x, af, at);
	bool complete = x->frames > 0 && bt <= bf && (rec_end == INT64_MIN || at <= af);
	unsigned int i;

	js_u64(a, "files", x->nfiles);
	js_u64(a, "frames", x->frames);
	js_u64(a, "placeholders", x->placeholders);
	js_u64(a, "streams", x->nstreams);
	js_u64(a, "inputs_read", x->inputs);
	js_u64(a, "inputs", gr->n);
	if (x->first != INT64_MIN) {
		js_str(a, "written_from", codif_time_str(x->first, t, sizeof(t)));
		js_str(a, "written_to", codif_time_str(x->end, t, sizeof(t)));
	}
	js_str(a, "recording_first", codif_time_str(gr->rec_first, t, sizeof(t)));
	if (rec_end != INT64_MAX && rec_end != INT64_MIN)
		js_str(a, "recording_end", codif_time_str(rec_end, t, sizeof(t)));
	span(a, "before_capture", bf, bt, nb);
	if (rec_end != INT64_MIN)
		span(a, "not_arrived", af, at, na);
	js_bool(a, "complete", complete);
	for (i = 0; i < x->nfiles && i < CC_XRES_FILES; i++)
		json_array_append_new(files, json_string(x->file[i]));
	tot->before += nb;
	tot->after += na;
	tot->complete = tot->complete && complete;
	tot->frames += x->frames;
	tot->ph += x->placeholders;
	tot->bytes += x->bytes;
	tot->nfiles += x->nfiles;
	if (x->frames + x->placeholders > 0)
		tot->empty = false;
}

/* Write the report PREFIX_extract.json into --out: the totals, the files
 * written and the antennas' parts (files and ants taken). @return 0, or
 * nonzero with the message in err and the path in rpath. */
static int
report_write(const struct cc_extract_opts *o, const struct xtotals *tot, unsigned int ninputs,
	     json_t *files, json_t *ants, char *rpath, size_t rlen, char *err, size_t errlen)
{
	json_t *root = json_object();
	char t[CODIF_TIMESTR_LEN];
	int rc = 0;

	js_str(root, "result", tot->empty ? "empty" : tot->complete ? "complete" : "partial");
	js_str(root, "from", codif_time_str(o->from, t, sizeof(t)));
	js_str(root, "to", codif_time_str(o->to, t, sizeof(t)));
	js_str(root, "dir", o->conv.outdir);
	js_str(root, "format", tot->fmt_out != NULL ? tot->fmt_out : "?");
	js_u64(root, "files_written", tot->nfiles);
	js_u64(root, "frames", tot->frames);
	js_u64(root, "placeholders", tot->ph);
	js_u64(root, "bytes", tot->bytes);
	js_u64(root, "overwritten_frames", 0);
	js_u64(root, "before_capture_frames", tot->before);
	js_u64(root, "not_arrived_frames", tot->after);
	js_u64(root, "lost_while_dumping", 0);
	js_u64(root, "inputs_read", tot->nread);
	js_u64(root, "inputs", ninputs);
	json_object_set_new(root, "files", files);
	json_object_set_new(root, "antennas", ants);
	if ((size_t)snprintf(rpath, rlen, "%s/%s_extract.json", o->conv.outdir,
			     o->conv.prefix != NULL ? o->conv.prefix : "codifcheck") >= rlen)
		rc = err_set(err, errlen, -ENAMETOOLONG, "report name too long");
	else if (js_write_file(root, rpath, err, errlen) != 0)
		rc = -EIO;
	json_decref(root);
	return rc;
}

int
cc_cmd_extract(char **src, int n, const struct cc_extract_opts *o)
{
	struct xtotals tot = { .empty = true, .complete = true };
	struct xlist l = { 0 };
	struct xgroup *g = NULL;
	char err[ERRLEN], t0[CODIF_TIMESTR_LEN], t1[CODIF_TIMESTR_LEN], rpath[PATH_MAX];
	json_t *files = json_array(), *ants = json_object();
	int status = CC_EXIT_OK, ng = 0, k, r;

	err[0] = '\0';
	codif_time_str(o->from, t0, sizeof(t0));
	codif_time_str(o->to, t1, sizeof(t1));
	if (sources_list(src, n, &l, err, sizeof(err)) != 0)
		goto fail;
	ng = groups_make(&l, o->antennas, &g, err, sizeof(err));
	if (ng < 0) {
		ng = 0;
		goto fail;
	}
	for (k = 0; k < ng; k++) {
		r = group_extract(o, &l, &g[k], &tot, err, sizeof(err));
		if (r < 0)
			goto fail;
		if (r > 0)
			status = CC_EXIT_PROBLEMS;
		group_report(o, &g[k], ants, files, &tot);
	}
	r = report_write(o, &tot, l.n, files, ants, rpath, sizeof(rpath), err, sizeof(err));
	files = ants = NULL; /* the report's now */
	if (r != 0)
		goto fail;
	if (tot.empty) {
		fprintf(stderr, "codifcheck extract: the window [%s, %s) holds no frame of the "
			"sources (%u files read of %u): nothing written; report %s\n", t0, t1,
			tot.nread, l.n, rpath);
		status = CC_EXIT_PROBLEMS;
	} else {
		printf("codifcheck: extract [%s, %s): %s: %" PRIu64 " files, %" PRIu64 " frames, %"
		       PRIu64 " gap frames, %" PRIu64 " frames of the window before the recording, %"
		       PRIu64 " after it; %u of %u input files read; report %s\n", t0, t1,
		       tot.complete ? "complete" : "partial", tot.nfiles, tot.frames, tot.ph,
		       tot.before, tot.after, tot.nread, l.n, rpath);
	}
	goto out;
fail:
	fprintf(stderr, "codifcheck extract: %s\n", err);
	status = CC_EXIT_PROBLEMS;
out:
	for (k = 0; k < ng; k++)
		free(g[k].res);
	free(g);
	free(l.f);
	json_decref(files); /* not yet in the report: a failure on the way */
	json_decref(ants);
	return status;
}
