/* SPDX-License-Identifier: BSD-3-Clause */
/* --plot FILE.png of bstate, spectrum and fringe: the path checked before
 * any input is read, and the figure checked after gnuplot drew it. */
#ifndef CC_PLOT_H
#define CC_PLOT_H

/**
 * Whether png (and png.dat, the data written beside it) may be written:
 * no quote or line break (gnuplot reads the name in quotes), and each a
 * regular file or new in a directory that takes files (fs_out_file_ok).
 * @return 0, or CC_EXIT_USAGE with the reason said on stderr after cmd
 *   ("codifcheck bstate").
 */
int cc_plot_path_ok(const char *cmd, const char *png);

/** Whether gnuplot left a PNG at png (a regular file that starts with the
 * PNG signature). @return 0 or -1. */
int cc_plot_drawn(const char *png);

#endif /* CC_PLOT_H */
