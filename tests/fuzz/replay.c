/* SPDX-License-Identifier: BSD-3-Clause */
/* Replays fuzz corpus files (or directories of them) through a fuzz target,
 * so the corpus runs as an ordinary test, under ASan/UBSan when built so. */

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (f == NULL) {
		perror(path);
		return -1;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (buf == NULL || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
		fprintf(stderr, "%s: read failed\n", path);
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

int
main(int argc, char **argv)
{
	int i, files = 0;

	for (i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			struct dirent **list;
			int n = scandir(argv[i], &list, NULL, alphasort), k;

			for (k = 0; k < n; k++) {
				char p[4096];

				if (list[k]->d_name[0] != '.') {
					snprintf(p, sizeof(p), "%s/%s", argv[i], list[k]->d_name);
					if (run_file(p) != 0)
						return 1;
					files++;
				}
				free(list[k]);
			}
			free(list);
		} else {
			if (run_file(argv[i]) != 0)
				return 1;
			files++;
		}
	}
	if (files == 0) {
		fprintf(stderr, "replay: no corpus files given\n");
		return 1;
	}
	printf("replay: %d inputs ran clean\n", files);
	return 0;
}
