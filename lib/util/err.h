/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * err.h - the one error convention of every library and tool here (DPDK's):
 * a function returns 0 on success or a negative errno, and writes what went
 * wrong, naming the input, the value and what was expected, into the
 * caller's buffer (char *err, size_t len; either may be NULL / 0).
 */
#ifndef IBVCAP_ERR_H
#define IBVCAP_ERR_H

#include <stddef.h>

/**
 * Write a message into err and return rc.
 *
 * @param err  the caller's buffer, or NULL
 * @param len  its size
 * @param rc   a negative errno; anything else is returned as -EINVAL, so an
 *             error can never read as success
 * @return rc (negative)
 */
int err_set(char *err, size_t len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/**
 * Append to the message err holds (one err_set wrote), cut at len as
 * err_set cuts: for a message built in pieces (a list of what was
 * possible). Nothing happens where err is NULL or len is 0.
 */
void err_append(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * Why a request was refused (a telemetry command, a line of a file, a
 * field): the input, the value given and what was expected, each short
 * enough for a telemetry string (DPDK's 128 bytes). The one refusal of the
 * scan, record and trigger commands and of the scan schedule.
 */
struct err_refusal {
	char input[32];
	char value[128];
	char expected[128];
};

/**
 * Fill r: input copied, value escaped (str_escape: no control character
 * reaches a reply or a log line; NULL is ""), expected formatted.
 *
 * @return -EINVAL
 */
int err_refuse(struct err_refusal *r, const char *input, const char *value, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
