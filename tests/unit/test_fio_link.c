/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/fio where renameat2(RENAME_NOREPLACE) is refused (a filesystem or a
 * kernel without it: EINVAL, ENOSYS): the link + unlink fallback renames a
 * finished file and never replaces a file of that name that appeared while
 * it was written. fio.c is built here with renameat2 refusing. */

#define renameat2 refusing_renameat2
#include "../../lib/fio/fio.c"
#undef renameat2

#include "check.h"

static int refusals;

int
refusing_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath,
		   unsigned int flags)
{
	(void)olddirfd;
	(void)oldpath;
	(void)newdirfd;
	(void)newpath;
	(void)flags;
	refusals++;
	errno = refusals % 2 ? EINVAL : ENOSYS;
	return -1;
}

int
main(void)
{
	char dir[] = "/tmp/test_fio_link.XXXXXX", path[300], err[600], got[16] = "";
	struct fio_file f;
	struct stat st;
	uint64_t kept = 1;
	FILE *o;

	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	/* renamed by link + unlink */
	snprintf(path, sizeof(path), "%s/a.bin", dir);
	CHECK_EQ_I(fio_open(&f, path, 0, 0, err, sizeof(err)), 0);
	CHECK_EQ_I(fio_append(&f, "abc", 3), 0);
	fio_record_end(&f);
	CHECK_EQ_I(fio_close(&f, true, &kept, err, sizeof(err)), 0);
	CHECK_EQ_U(kept, 3);
	CHECK(stat(path, &st) == 0 && st.st_size == 3 && st.st_nlink == 1);
	CHECK(access(f.part, F_OK) != 0);
	CHECK_EQ_I(refusals, 1);
	/* a file of the name appears before the close: it survives */
	snprintf(path, sizeof(path), "%s/b.bin", dir);
	CHECK_EQ_I(fio_open(&f, path, 0, 0, err, sizeof(err)), 0);
	CHECK_EQ_I(fio_append(&f, "ours", 4), 0);
	fio_record_end(&f);
	o = fopen(path, "wx");
	CHECK(o != NULL && fputs("theirs", o) >= 0);
	if (o != NULL)
		fclose(o);
	CHECK_EQ_I(fio_close(&f, true, &kept, err, sizeof(err)), -EEXIST);
	CHECK_EQ_I(refusals, 2);
	CHECK(strstr(err, "appeared meanwhile") != NULL);
	CHECK_EQ_U(kept, 0);
	o = fopen(path, "r");
	CHECK(o != NULL && fgets(got, sizeof(got), o) != NULL);
	if (o != NULL)
		fclose(o);
	CHECK(strcmp(got, "theirs") == 0);
	CHECK(stat(f.part, &st) == 0 && st.st_size == 4);
	unlink(f.part);
	unlink(path);
	snprintf(path, sizeof(path), "%s/a.bin", dir);
	unlink(path);
	rmdir(dir);
	return check_report("test_fio_link");
}
