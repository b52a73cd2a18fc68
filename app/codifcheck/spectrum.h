/* SPDX-License-Identifier: BSD-3-Clause */
/* The spectrum command: power spectra (bandpasses) per stream and channel,
 * FFTW over every frame as received, averaged; a PNG through gnuplot. */

#ifndef CC_SPECTRUM_H
#define CC_SPECTRUM_H

#include <stdbool.h>

#include "scan.h"

struct cc_spectrum_opts {
	unsigned int nfft;           /**< points per FFT (a power of two) */
	bool json;
	const char *plot;            /**< PNG path, or NULL */
	struct cc_scan_opts so;
};

/** @return an exit status: 0, 1 (a file unreadable, nothing to show, a plot failed). */
int cc_cmd_spectrum(char **paths, int n, const struct cc_spectrum_opts *o);

#endif /* CC_SPECTRUM_H */
