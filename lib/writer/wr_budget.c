/* SPDX-License-Identifier: BSD-3-Clause */
/* A writer's disk budget (min-free=, on-full=): the free space of its
 * directory (the one statvfs of a writer, also what it publishes), checked
 * before every row against what it has handed to its files since, and
 * what it does when the space would fall below min-free: stop, or remove
 * its own oldest finished files.
 *
 * The margin. The check costs an integer compare per row; statvfs runs at
 * most every WR_BUDGET_NS (10 ms), and again whenever the bytes handed
 * since the last one would take the space below the threshold. Between two
 * statvfs calls this writer's own bytes are counted exactly (staged bytes
 * the moment they are staged), and what its open files still need on disk
 * is kept aside: bytes staged or in flight, each file's last block, a raw
 * file's index (for a file opened since, from the row check that opened
 * it). So this writer alone never goes below min-free, nor do the lcores
 * of one --write lcores=N together (wr_budget_share: each counts the
 * others' bytes and pending as its own, as they last published them, a
 * row late at most). What other
 * writers (of this process or others) put on the same filesystem shows at
 * the next statvfs: at most their write rate x 10 ms late (125 MB at
 * 12.5 GB/s); min-free must exceed that for ENOSPC never to happen. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "err.h"
#include "parse.h"
#include "tconv.h"
#include "writer.h"

/* statvfs at least this often while a budget is kept */
#define WR_BUDGET_NS 10000000LL

/* The lcores of one --write keeping one min-free (wr_budget_share): what
 * each has handed to its files and what its open files still need, as it
 * last published them (each writes its own, reads the others': atomics). */
struct wr_budget_group {
	unsigned int n, refs;
	struct {
		uint64_t handed, pending;
	} part[WR_MAX_ANT];
};

int
wr_dir_space(const char *dir, uint64_t *avail, uint64_t *total)
{
	struct statvfs sv;

	if (statvfs(dir, &sv) != 0)
		return -errno;
	/* what is left to it (f_bavail: not the blocks kept for root) */
	*avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	if (total != NULL)
		*total = (uint64_t)sv.f_blocks * sv.f_frsize;
	return 0;
}

uint64_t
wr_min_free_bytes(const struct wr_opts *o, uint64_t total)
{
	if (!o->budget)
		return 0;
	if (o->min_free != 0 || o->min_free_bp == 0)
		return o->min_free;
	return (uint64_t)((double)total * o->min_free_bp / 10000.0);
}

int
wr_budget_check(const struct wr_opts *o, char *err, size_t len)
{
	char a[64], t[64], m[64];
	uint64_t avail, total, thr;
	int rc;

	if (!o->budget)
		return 0;
	rc = wr_dir_space(o->dir, &avail, &total);
	if (rc != 0) {
		return err_set(err, len, rc, "min-free: statvfs '%s': %s", o->dir, strerror(-rc));
	}
	thr = wr_min_free_bytes(o, total);
	if (thr >= total) {
		return err_set(err, len, -ENOSPC, "min-free %s: the filesystem of '%s' holds only %s "
			       "(%s free): expected less than its size", bytes_str(thr, m, sizeof(m)),
			       o->dir, bytes_str(total, t, sizeof(t)),
			       bytes_str(avail, a, sizeof(a)));
	}
	return 0;
}

uint64_t
wr_bytes_handed(const struct wr_writer *w)
{
	uint64_t n = w->closed.bytes;
	unsigned int i;

	for (i = 0; i <= w->n; i++) {
		const struct wr_out *out = i < w->n ? &w->src[i].out : &w->all;

		if (out->open)
			n += fmt_size(&out->s);
	}
	return n;
}

/* What its open files may still need on disk beyond the bytes written out:
 * staged, in flight (io_uring writes not complete when refresh settled
 * them: the part of these already on disk makes this high by at most
 * FIO_INFLIGHT buffers a file), their last block and raw's index. */
static uint64_t
pending(const struct wr_writer *w)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i <= w->n; i++) {
		const struct wr_out *out = i < w->n ? &w->src[i].out : &w->all;

		if (out->open)
			n += fmt_size(&out->s) - fio_on_disk(&out->s.f) + fmt_close_bytes_max(&out->s);
	}
	return n;
}

/* Publish this writer's handed and pending to its group; the group's sums
 * (or its own, alone) in *handed and *pend (pend may be NULL: not needed). */
static void
group_sums(struct wr_writer *w, uint64_t *handed, uint64_t *pend)
{
	struct wr_budget_group *g = w->bud.grp;
	uint64_t h = wr_bytes_handed(w), p = pend != NULL || g != NULL ? pending(w) : 0;
	unsigned int i;

	if (g == NULL) {
		*handed = h;
		if (pend != NULL)
			*pend = p;
		return;
	}
	__atomic_store_n(&g->part[w->bud.part].handed, h, __ATOMIC_RELAXED);
	__atomic_store_n(&g->part[w->bud.part].pending, p, __ATOMIC_RELAXED);
	*handed = 0;
	if (pend != NULL)
		*pend = 0;
	for (i = 0; i < g->n; i++) {
		*handed += i == w->bud.part ? h :
			   __atomic_load_n(&g->part[i].handed, __ATOMIC_RELAXED);
		if (pend != NULL)
			*pend += i == w->bud.part ? p :
				 __atomic_load_n(&g->part[i].pending, __ATOMIC_RELAXED);
	}
}

int
wr_budget_share(struct wr_writer *const *ws, unsigned int n, char *err, size_t len)
{
	struct wr_budget_group *g;
	unsigned int i;

	if (n < 2 || !ws[0]->o.budget)
		return 0;
	g = calloc(1, sizeof(*g));
	if (g == NULL || n > WR_MAX_ANT) {
		free(g);
		return err_set(err, len, -ENOMEM, "out of memory for the disk budget of %u writers",
			       n);
	}
	g->n = n;
	g->refs = n;
	for (i = 0; i < n; i++) {
		ws[i]->bud.grp = g;
		ws[i]->bud.part = i;
	}
	return 0;
}

static void
note(struct wr_writer *w, const char *line)
{
	if (w->note != NULL)
		w->note(w->note_ctx, line);
	else
		fprintf(stderr, "%s\n", line);
}

/* A fresh statvfs: what it may hand to its files from now on. */
static int
refresh(struct wr_writer *w)
{
	struct wr_budget *b = &w->bud;
	uint64_t total, keep;
	unsigned int i;
	int rc;

	/* writes io_uring has completed are on disk: statvfs counts them */
	for (i = 0; i <= w->n; i++) {
		struct wr_out *out = i < w->n ? &w->src[i].out : &w->all;

		if (out->open)
			fio_settle(&out->s.f);
	}
	rc = wr_dir_space(w->o.dir, &b->avail, &total);
	if (rc != 0)
		return rc;
	b->t_ns = clock_ns(CLOCK_MONOTONIC);
	b->threshold = wr_min_free_bytes(&w->o, total);
	group_sums(w, &b->handed0, &keep);
	b->files0 = 0; /* the open files' are in pending now */
	keep += b->threshold;
	b->allow = b->avail > keep ? b->avail - keep : 0;
	return 0;
}

static void
statvfs_failed(struct wr_writer *w, int rc)
{
	char e[PATH_MAX + 128];

	if (w->error != 0)
		return;
	w->error = -rc;
	snprintf(e, sizeof(e), "min-free: statvfs '%s': %s", w->o.dir, strerror(-rc));
	str_copy(w->err, sizeof(w->err), e);
}

void
wr_budget_tick(struct wr_writer *w)
{
	int rc;

	if (!w->o.budget || w->full || w->error)
		return;
	if (w->bud.t_ns != 0 && clock_ns(CLOCK_MONOTONIC) - w->bud.t_ns < WR_BUDGET_NS)
		return;
	rc = refresh(w);
	if (rc != 0)
		statvfs_failed(w, rc);
}

/* Remove the oldest finished file of this writer still as it left it.
 * @return 0 one removed, -ENOENT none left to remove. */
static int
remove_oldest(struct wr_writer *w)
{
	struct wr_budget *b = &w->bud;

	while (b->first < b->ndone) {
		struct wr_done_file *d = &b->done[b->first++];
		char line[PATH_MAX + 384], idx[PATH_MAX + 8], sz[64], th[64];
		struct stat st;
		uint64_t bytes, ibytes = 0;
		int e = 0;

		if (lstat(d->path, &st) != 0 || !S_ISREG(st.st_mode) ||
		    (uint64_t)st.st_dev != d->dev || (uint64_t)st.st_ino != d->ino) {
			/* gone, or another file now has its name: not ours */
			free(d->path);
			d->path = NULL;
			continue;
		}
		if (st.st_nlink > 1) {
			/* linked elsewhere too (an archiver's copy?): removing
			 * our name frees nothing, and the data is not ours alone */
			snprintf(line, sizeof(line), "min-free: left %s: it has %lu other links, "
				 "removing it would free nothing", d->path,
				 (unsigned long)st.st_nlink - 1);
			note(w, line);
			free(d->path);
			d->path = NULL;
			continue;
		}
		/* what its `bytes` counted of it: the file (a raw file's data,
		 * not its index), so that bytes - bytes_removed is on disk */
		bytes = (uint64_t)st.st_size;
		if (unlink(d->path) != 0)
			e = errno;
		if (e == 0 && w->o.format == WR_RAW) {
			/* its index goes with it (a raw file is never left
			 * without one, nor an index without its data) */
			snprintf(idx, sizeof(idx), "%s.json", d->path);
			if (lstat(idx, &st) == 0 && S_ISREG(st.st_mode) && unlink(idx) == 0)
				ibytes = (uint64_t)st.st_size;
		}
		if (e != 0) {
			snprintf(line, sizeof(line), "min-free: cannot remove %s: %s (left as it is)",
				 d->path, strerror(e));
		} else {
			w->st.files_removed++;
			w->st.bytes_removed += bytes;
			char ib[64] = "";

			if (ibytes != 0)
				snprintf(ib, sizeof(ib), ", its index %" PRIu64 " bytes", ibytes);
			snprintf(line, sizeof(line), "min-free: removed %s (%" PRIu64 " bytes%s) to "
				 "keep %s free in %s (%s free)", d->path, bytes, ib,
				 bytes_str(b->threshold, th, sizeof(th)), w->o.dir,
				 bytes_str(b->avail, sz, sizeof(sz)));
		}
		note(w, line);
		free(d->path);
		d->path = NULL;
		if (e == 0)
			return 0;
	}
	return -ENOENT;
}

bool
wr_budget_room(struct wr_writer *w, size_t row, size_t file)
{
	struct wr_budget *b = &w->bud;
	char fr[64], th[64], pe[64], line[PATH_MAX + 512];
	uint64_t handed;
	int rc;

	if (!w->o.budget)
		return true;
	if (w->full)
		return false;
	group_sums(w, &handed, NULL);
	if (b->t_ns != 0 &&
	    (handed < b->handed0 ? 0 : handed - b->handed0) + b->files0 + row + file <= b->allow) {
		b->files0 += file;
		return true;
	}
	for (;;) {
		rc = refresh(w);
		if (rc != 0) {
			statvfs_failed(w, rc);
			return false;
		}
		if (row + file <= b->allow) {
			b->files0 += file;
			return true;
		}
		if (w->o.on_full != WR_FULL_REMOVE_OLDEST || remove_oldest(w) != 0)
			break;
	}
	w->full = true;
	snprintf(line, sizeof(line), "%s: %s free, up to %s of it for its open files to finish, "
		 "min-free %s: stopped writing at a whole row, its files complete (on-full=%s%s)",
		 w->o.dir, bytes_str(b->avail, fr, sizeof(fr)), bytes_str(pending(w), pe, sizeof(pe)),
		 bytes_str(b->threshold, th, sizeof(th)),
		 w->o.on_full == WR_FULL_STOP ? "stop" : "remove-oldest",
		 w->o.on_full == WR_FULL_STOP ? "" : ": none of its own finished files left to "
		 "remove");
	str_copy(w->err, sizeof(w->err), line);
	note(w, line);
	return false;
}

void
wr_budget_file_done(struct wr_writer *w, const char *path)
{
	struct wr_budget *b = &w->bud;
	struct stat st;

	if (!w->o.budget || w->o.on_full != WR_FULL_REMOVE_OLDEST || stat(path, &st) != 0)
		return;
	if (b->first > 0 && b->first == b->ndone)
		b->first = b->ndone = 0; /* every one taken: start over */
	if (b->ndone == b->capdone) {
		size_t cap = b->capdone ? 2 * b->capdone : 64;
		struct wr_done_file *v;

		if (b->first > 0) { /* room at the front first */
			memmove(b->done, b->done + b->first, (b->ndone - b->first) * sizeof(*v));
			b->ndone -= b->first;
			b->first = 0;
		} else {
			v = realloc(b->done, cap * sizeof(*v));
			if (v == NULL)
				return; /* then it is not one it may remove */
			b->done = v;
			b->capdone = cap;
		}
	}
	b->done[b->ndone].path = strdup(path);
	if (b->done[b->ndone].path == NULL)
		return;
	b->done[b->ndone].dev = (uint64_t)st.st_dev;
	b->done[b->ndone].ino = (uint64_t)st.st_ino;
	b->ndone++;
}

void
wr_budget_free(struct wr_writer *w)
{
	struct wr_budget *b = &w->bud;
	size_t i;

	for (i = b->first; i < b->ndone; i++)
		free(b->done[i].path);
	free(b->done);
	b->done = NULL;
	b->ndone = b->capdone = b->first = 0;
	if (b->grp != NULL) {
		/* its files are closed: on disk, nothing more pending */
		__atomic_store_n(&b->grp->part[b->part].pending, 0, __ATOMIC_RELAXED);
		if (__atomic_sub_fetch(&b->grp->refs, 1, __ATOMIC_ACQ_REL) == 0)
			free(b->grp);
		b->grp = NULL;
	}
}
