/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-file driver: detection, raw index loading, and the scan of each format. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmt_pcap.h"
#include "inspect.h"
#include "names.h"

long
cc_read_head(const char *path, uint8_t *buf, size_t max, uint64_t *size)
{
	struct stat st;
	size_t got = 0;
	/* O_NONBLOCK: a FIFO must not hang the open; it is refused below */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	if (!S_ISREG(st.st_mode)) {
		/* -EINVAL: exists, but is no regular file (a FIFO, a device) */
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	*size = (uint64_t)st.st_size;
	while (got < max) {
		ssize_t k = pread(fd, buf + got, max - got, (off_t)got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		if (k == 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	return (long)got;
}

/* raw data NAME.raw <-> index NAME.raw.json (a .part on either side too) */
static int
raw_paths(struct cc_file *f, const char *path)
{
	size_t n = strlen(path);

	if (f->det.fmt == CC_FMT_RAW_INDEX) {
		if (!cc_ends_with(path, ".json"))
			return -EINVAL;
		snprintf(f->index_path, sizeof(f->index_path), "%s", path);
		snprintf(f->path, sizeof(f->path), "%.*s", (int)(n - 5), path);
		return 0;
	}
	snprintf(f->path, sizeof(f->path), "%s", path);
	if ((size_t)snprintf(f->index_path, sizeof(f->index_path), "%s.json", path) >=
	    sizeof(f->index_path))
		return -EINVAL;
	return 0;
}

static int
inspect_raw(struct cc_file *f, const char *path)
{
	struct cc_scan *s = f->scan;
	const char *base;
	char err[512];
	struct stat st;
	struct cc_rd rd;
	int fd, rc;

	s->fmt = CC_FMT_RAW;
	if (raw_paths(f, path) != 0) {
		cc_scan_problem(s, CC_P_FORMAT, UINT64_MAX, INT64_MIN,
				"a raw index must be named NAME.raw.json");
		s->damaged = true;
		return 0;
	}
	/* given either file, the pair is one raw file */
	f->det.fmt = CC_FMT_RAW;
	base = strrchr(f->index_path, '/');
	snprintf(f->det.desc, sizeof(f->det.desc), "data; its index is %.200s",
		 base != NULL ? base + 1 : f->index_path);
	rc = fmt_raw_index_read(f->index_path, &f->ri, err, sizeof(err));
	if (rc != 0) {
		/* "raw index: PATH: cannot read", "raw index PATH: not valid" */
		cc_scan_problem(s, CC_P_INDEX, UINT64_MAX, INT64_MIN, "raw index%s %s",
				rc == -EINVAL || rc == -ENOMEM ? "" : ":", err);
		s->damaged = true;
		return rc == -ENOMEM ? rc : 0;
	}
	f->have_ri = true;
	fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0) {
		cc_scan_problem(s, CC_P_IO, UINT64_MAX, INT64_MIN, "raw data %s: %s",
				f->path, strerror(errno));
		s->damaged = true;
		if (fd >= 0)
			close(fd);
		return 0;
	}
	f->size = (uint64_t)st.st_size;
	rc = cc_rd_open_fd(&rd, fd, CC_RD_BUF, CC_MAX_DATA + CC_RD_BUF);
	if (rc == 0) {
		rc = cc_scan_raw(s, &f->ri, &rd, f->size);
		cc_rd_close(&rd);
	}
	close(fd);
	return rc == -EIO ? 0 : rc;
}

static int
inspect_codif(struct cc_file *f)
{
	struct cc_rd rd;
	int fd = open(f->path, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0) {
		cc_scan_problem(f->scan, CC_P_IO, UINT64_MAX, INT64_MIN, "%s",
				strerror(errno));
		f->scan->damaged = true;
		return 0;
	}
	/* room for the largest frame plus the next header */
	rc = cc_rd_open_fd(&rd, fd, CC_RD_BUF, CC_MAX_DATA + CC_RD_BUF);
	if (rc == 0) {
		rc = cc_scan_codif(f->scan, &rd);
		cc_rd_close(&rd);
	}
	close(fd);
	return rc == -EIO ? 0 : rc;
}

static int
inspect_pcap(struct cc_file *f)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	pcap_t *p;
	int rc;

	f->scan->fmt = f->det.fmt;
	p = fmt_pcap_open_read(f->path, errbuf, sizeof(errbuf));
	if (p == NULL) {
		cc_scan_problem(f->scan, strstr(errbuf, "truncated") != NULL ?
				CC_P_TRUNCATED : CC_P_PCAP, 0, INT64_MIN, "%s", errbuf);
		f->scan->damaged = true;
		return 0;
	}
	rc = cc_scan_pcap(f->scan, p);
	pcap_close(p);
	return rc;
}

int
cc_inspect(struct cc_file *f, const char *path, const struct cc_scan_opts *o,
	   cc_frame_cb cb, void *ctx)
{
	uint8_t *head;
	long n;
	int rc = 0;

	memset(f, 0, sizeof(*f));
	fmt_raw_index_init(&f->ri);
	snprintf(f->path, sizeof(f->path), "%s", path);
	f->scan = cc_scan_new(o);
	head = malloc(CC_DETECT_HEAD);
	if (f->scan == NULL || head == NULL) {
		free(head);
		return -ENOMEM;
	}
	cc_scan_set_cb(f->scan, cb, ctx);
	n = cc_read_head(path, head, CC_DETECT_HEAD, &f->size);
	if (n < 0) {
		f->det.fmt = CC_FMT_UNKNOWN;
		snprintf(f->det.desc, sizeof(f->det.desc), "cannot read: %s",
			 n == -EINVAL ? "not a regular file" : strerror((int)-n));
		cc_scan_problem(f->scan, CC_P_IO, UINT64_MAX, INT64_MIN, "%s",
				f->det.desc);
		f->scan->damaged = true;
		free(head);
		return 0;
	}
	cc_detect(head, (size_t)n, f->size, path, &f->det);
	free(head);
	f->scan->fmt = f->det.fmt;
	switch (f->det.fmt) {
	case CC_FMT_CODIF:
		rc = inspect_codif(f);
		break;
	case CC_FMT_RAW:
	case CC_FMT_RAW_INDEX:
		rc = inspect_raw(f, path);
		break;
	case CC_FMT_PCAP:
	case CC_FMT_PCAPNG:
		rc = inspect_pcap(f);
		break;
	default:
		cc_scan_problem(f->scan, f->det.fmt == CC_FMT_SHORT_CODIF ?
				CC_P_TRUNCATED : CC_P_FORMAT, UINT64_MAX, INT64_MIN,
				"%s", f->det.desc);
		f->scan->damaged = true;
		break;
	}
	/* the end of the input: held frames dropped, streams closed */
	if (rc == 0)
		rc = cc_scan_finish(f->scan);
	return rc;
}

void
cc_file_free(struct cc_file *f)
{
	cc_scan_free(f->scan);
	f->scan = NULL;
	fmt_raw_index_free(&f->ri);
}

static int
pcap_first_ns(const char *path, int64_t *ns)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct fmt_pcap_rec r;
	pcap_t *p = fmt_pcap_open_read(path, errbuf, sizeof(errbuf));
	int rc = -ENOENT;

	if (p == NULL)
		return -ENOENT;
	if (fmt_pcap_next(p, &r, errbuf, sizeof(errbuf)) == 1) {
		*ns = r.t_ns;
		rc = 0;
	}
	pcap_close(p);
	return rc;
}

int
cc_file_start_ns(const char *path, int64_t *ns)
{
	struct codif_hdr h;
	struct cc_detect d;
	struct cc_name nm;
	struct cc_file f;
	uint8_t head[CODIF_HDR_LEN];
	uint64_t size;
	long n;
	int rc = -ENOENT;

	if (cc_parse_name(path, &nm) == 0) {
		*ns = nm.utc_ns;
		return 0;
	}
	n = cc_read_head(path, head, sizeof(head), &size);
	if (n < 0)
		return -ENOENT;
	cc_detect(head, (size_t)n, size, path, &d);
	if (d.fmt == CC_FMT_CODIF &&
	    codif_decode(head, (size_t)n, &h, NULL, 0) == 0 &&
	    codif_validate(&h, SIZE_MAX, NULL, 0) == 0) {
		*ns = codif_frame_time_ns(&h);
		return 0;
	}
	if (d.fmt == CC_FMT_PCAP || d.fmt == CC_FMT_PCAPNG)
		return pcap_first_ns(path, ns);
	if (d.fmt == CC_FMT_RAW || d.fmt == CC_FMT_RAW_INDEX) {
		char err[PATH_MAX + 256];

		memset(&f, 0, sizeof(f));
		f.det = d;
		if (raw_paths(&f, path) != 0)
			return -ENOENT;
		if (fmt_raw_index_read(f.index_path, &f.ri, err, sizeof(err)) == 0) {
			*ns = codif_clock_time_ns(&f.ri.clk, f.ri.first_index);
			fmt_raw_index_free(&f.ri);
			rc = 0;
		}
	}
	return rc;
}
