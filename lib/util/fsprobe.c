/* SPDX-License-Identifier: BSD-3-Clause */
/* What a path names, and whether a program could write where an option points, checked before the run. */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fsprobe.h"

const char *
fs_kind(mode_t m)
{
	if (S_ISREG(m))
		return "a regular file";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISLNK(m))
		return "a symbolic link";
	return "a special file";
}

/* path does not resolve with ENOTDIR: the first part that is no directory */
static void
not_dir_part(const char *path, char *why, size_t whylen)
{
	char part[PATH_MAX];
	size_t i, n = strlen(path);
	struct stat st;

	if (n >= sizeof(part)) {
		snprintf(why, whylen, "does not exist: %s", strerror(ENOTDIR));
		return;
	}
	for (i = 1; i <= n; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		memcpy(part, path, i);
		part[i] = '\0';
		if (stat(part, &st) == 0 && !S_ISDIR(st.st_mode)) {
			snprintf(why, whylen, "does not exist: '%s' is %s", part,
				 fs_kind(st.st_mode));
			return;
		}
	}
	snprintf(why, whylen, "does not exist: %s", strerror(ENOTDIR));
}

int
fs_dir_takes_files(const char *dir, char *why, size_t whylen)
{
	char probe[PATH_MAX];
	struct stat st;
	unsigned int k;
	int fd = -1, e;

	if (dir == NULL || dir[0] == '\0') {
		snprintf(why, whylen, "is empty");
		return -EINVAL;
	}
	if (stat(dir, &st) != 0) {
		e = errno;
		if (e == ENOENT)
			snprintf(why, whylen, "does not exist");
		else if (e == ENOTDIR)
			not_dir_part(dir, why, whylen);
		else
			snprintf(why, whylen, "cannot be reached: %s", strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "is %s, not a directory", fs_kind(st.st_mode));
		return -ENOTDIR;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		e = errno;
		snprintf(why, whylen, "is not writable: %s", strerror(e));
		return -e;
	}
	/* root passes access() on any mode: make a file as a writer would */
	for (k = 0; k < 100 && fd < 0; k++) {
		if ((size_t)snprintf(probe, sizeof(probe), "%s/.write-test.%d.%u", dir,
				     (int)getpid(), k) >= sizeof(probe)) {
			snprintf(why, whylen, "has a name too long for a file in it");
			return -ENAMETOOLONG;
		}
		fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		e = errno;
		snprintf(why, whylen, "does not take new files: creating a file in it failed: %s",
			 strerror(e));
		return -e;
	}
	close(fd);
	if (unlink(probe) != 0) {
		e = errno;
		snprintf(why, whylen, "took a test file but cannot remove it ('%s': %s)", probe,
			 strerror(e));
		return -e;
	}
	return 0;
}

int
fs_out_file_ok(const char *path, char *why, size_t whylen)
{
	char dir[PATH_MAX], sub[PATH_MAX + 64];
	const char *slash;
	struct stat st;
	int rc;

	if (path == NULL || path[0] == '\0') {
		snprintf(why, whylen, "expected a file name");
		return -EINVAL;
	}
	/* PATH.part, renamed at the end */
	if (strlen(path) + sizeof(".part") > PATH_MAX) {
		snprintf(why, whylen, "'%s': name too long", path);
		return -ENAMETOOLONG;
	}
	if (path[strlen(path) - 1] == '/') {
		snprintf(why, whylen, "'%s' names a directory: expected a file name", path);
		return -EISDIR;
	}
	slash = strrchr(path, '/');
	if (slash == NULL)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	rc = fs_dir_takes_files(dir, sub, sizeof(sub));
	if (rc != 0) {
		snprintf(why, whylen, "directory '%s' %s", dir, sub);
		return rc;
	}
	if (lstat(path, &st) != 0)
		return 0; /* made new */
	if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		snprintf(why, whylen, "'%s' is %s: expected a regular file (it is replaced at "
			 "the end)", path, fs_kind(st.st_mode));
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	if (S_ISREG(st.st_mode)) {
		int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), fl = 0;

		if (fd >= 0 && ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0 &&
		    (fl & (FS_IMMUTABLE_FL | FS_APPEND_FL))) {
			close(fd);
			snprintf(why, whylen, "'%s' is %s (chattr +%c): it cannot be replaced", path,
				 (fl & FS_IMMUTABLE_FL) ? "immutable" : "append-only",
				 (fl & FS_IMMUTABLE_FL) ? 'i' : 'a');
			return -EPERM;
		}
		if (fd >= 0)
			close(fd);
	}
	return 0;
}
