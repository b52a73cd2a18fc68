/* SPDX-License-Identifier: BSD-3-Clause */
/* Output files: exclusive create of NAME.part, careful writes, no-replace rename. */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out.h"

int
cc_out_open(struct cc_out *o, const char *path, bool force, char *err,
	    size_t errlen)
{
	struct stat st;
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (force ? O_TRUNC : O_EXCL);

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	o->force = force;
	if ((size_t)snprintf(o->path, sizeof(o->path), "%s", path) >= sizeof(o->path) ||
	    (size_t)snprintf(o->part, sizeof(o->part), "%s.part", path) >= sizeof(o->part)) {
		snprintf(err, errlen, "%s: name too long", path);
		return -ENAMETOOLONG;
	}
	if (!force && lstat(path, &st) == 0) {
		snprintf(err, errlen, "%s: exists (give --force to replace it)", path);
		return -EEXIST;
	}
	o->fd = open(o->part, flags, 0644);
	if (o->fd < 0) {
		int e = errno;

		if (e == EEXIST)
			snprintf(err, errlen, "%s: exists: another writer, or a cut run "
				 "(remove it, or give --force)", o->part);
		else
			snprintf(err, errlen, "%s: %s", o->part, strerror(e));
		return -e;
	}
	return 0;
}

FILE *
cc_out_stream(struct cc_out *o)
{
	if (o->f == NULL)
		o->f = fdopen(o->fd, "w");
	return o->f;
}

int
cc_out_pwrite(struct cc_out *o, const void *buf, size_t len, uint64_t off,
	      char *err, size_t errlen)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t k = pwrite(o->fd, p, len, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int e = k < 0 ? errno : EIO;

			snprintf(err, errlen, "%s: write at offset %llu: %s", o->part,
				 (unsigned long long)off, strerror(e));
			return -e;
		}
		p += k;
		len -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

int
cc_out_write(struct cc_out *o, const void *buf, size_t len, char *err,
	     size_t errlen)
{
	const uint8_t *p = buf;

	while (len > 0) {
		ssize_t k = write(o->fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int e = k < 0 ? errno : EIO;

			snprintf(err, errlen, "%s: write: %s", o->part, strerror(e));
			return -e;
		}
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

/* Rename without replacing: renameat2(RENAME_NOREPLACE), or link+unlink
 * where the file system lacks it. */
static int
rename_noreplace(const char *from, const char *to)
{
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	if (link(from, to) != 0)
		return -errno;
	unlink(from);
	return 0;
}

int
cc_out_commit(struct cc_out *o, char *err, size_t errlen)
{
	int rc = 0;

	if (o->f != NULL) {
		if (fflush(o->f) != 0 || ferror(o->f))
			rc = -(errno != 0 ? errno : EIO);
		if (fclose(o->f) != 0 && rc == 0)
			rc = -errno;
		o->f = NULL;
		o->fd = -1;
	} else if (o->fd >= 0) {
		if (close(o->fd) != 0)
			rc = -errno;
		o->fd = -1;
	}
	if (rc != 0) {
		snprintf(err, errlen, "%s: write: %s", o->part, strerror(-rc));
		unlink(o->part);
		return rc;
	}
	rc = o->force ? (rename(o->part, o->path) == 0 ? 0 : -errno) :
			rename_noreplace(o->part, o->path);
	if (rc != 0) {
		snprintf(err, errlen, "%s: rename to %s: %s", o->part, o->path,
			 strerror(-rc));
		unlink(o->part);
	}
	return rc;
}

void
cc_out_abort(struct cc_out *o)
{
	if (o->f != NULL)
		fclose(o->f);
	else if (o->fd >= 0)
		close(o->fd);
	o->f = NULL;
	o->fd = -1;
	unlink(o->part);
}
