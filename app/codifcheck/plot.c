/* SPDX-License-Identifier: BSD-3-Clause */
/* --plot FILE.png: the path before, the figure after (plot.h). */

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "fsprobe.h"
#include "plot.h"

int
cc_plot_path_ok(const char *cmd, const char *png)
{
	char dat[PATH_MAX + 8], why[PATH_MAX + 256];

	if (strpbrk(png, "'\"\n\r") != NULL) {
		fprintf(stderr, "%s: --plot: '%s': expected a path without quotes or line "
			"breaks (gnuplot reads it in quotes)\n", cmd, png);
		return CC_EXIT_USAGE;
	}
	if ((size_t)snprintf(dat, sizeof(dat), "%s.dat", png) >= sizeof(dat)) {
		fprintf(stderr, "%s: --plot: '%s': path too long\n", cmd, png);
		return CC_EXIT_USAGE;
	}
	if (fs_out_file_ok(png, why, sizeof(why)) != 0 ||
	    fs_out_file_ok(dat, why, sizeof(why)) != 0) {
		fprintf(stderr, "%s: --plot: %s\n", cmd, why);
		return CC_EXIT_USAGE;
	}
	return 0;
}

int
cc_plot_drawn(const char *png)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	unsigned char b[8];
	struct stat sb;
	FILE *f;
	int ok;

	if (stat(png, &sb) != 0 || !S_ISREG(sb.st_mode) || (f = fopen(png, "rb")) == NULL)
		return -1;
	ok = fread(b, 1, sizeof(b), f) == sizeof(b) && memcmp(b, sig, sizeof(sig)) == 0;
	fclose(f);
	return ok ? 0 : -1;
}
