/* SPDX-License-Identifier: BSD-3-Clause */
/* What a path names, and whether a program could write where an option points, checked before the run. */

#ifndef UTIL_FSPROBE_H
#define UTIL_FSPROBE_H

#include <stddef.h>
#include <sys/types.h>

/** "a regular file", "a directory", "a character device", "a FIFO"... for st_mode m. */
const char *fs_kind(mode_t m);

/**
 * Can new files be made in dir? The honest test: beyond stat() and
 * access(W_OK) (which root passes on any mode), a file is created in it
 * with O_CREAT | O_EXCL and removed again, as a writer would, so a
 * read-only mount, an immutable directory (chattr +i) or a full inode
 * table is found too. Nothing is left behind.
 *
 * @param why  on failure, what is wrong, to follow "directory 'DIR' ":
 *   "does not exist", "is a regular file, not a directory", "is not
 *   writable: Read-only file system"...
 * @return 0, or a negative errno (-ENOENT, -ENOTDIR, -EACCES, -EROFS,
 *   -EPERM...) with why set.
 */
int fs_dir_takes_files(const char *dir, char *why, size_t whylen);

/**
 * Can path be written as PATH.part and renamed over PATH (what a summary
 * file writer does)? Its directory must take new files
 * (fs_dir_takes_files); path, where it exists, must be a regular file (or
 * a symbolic link) that may be replaced: not a directory, a device, a
 * FIFO, nor immutable or append-only (chattr +i / +a).
 *
 * @param why  on failure, the whole reason: "directory '/x' does not
 *   exist", "'/dev/null' is a character device: expected a regular file
 *   (it is replaced at the end)"...
 * @return 0 or a negative errno with why set.
 */
int fs_out_file_ok(const char *path, char *why, size_t whylen);

#endif /* UTIL_FSPROBE_H */
