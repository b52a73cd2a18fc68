/* SPDX-License-Identifier: BSD-3-Clause */
/* The one strict parser for numbers, sizes, durations and addresses. */

#ifndef UTIL_PARSE_H
#define UTIL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Every function takes the option's name (e.g. "--loss") and the text, and
 * on failure writes "OPTION: 'TEXT': expected WHAT" into err and returns
 * -EINVAL (-ERANGE when out of [min, max]). Nothing is written to *out then.
 */

/**
 * One of n words (names[i] gives *out = i); the error lists them all:
 * "OPTION: 'TEXT': expected a, b or c".
 */
int parse_choice(const char *opt, const char *s, const char *const *names,
		 unsigned int n, unsigned int *out, char *err, size_t errlen);

/**
 * yes or no: yes, true, on, 1 or "" (a flag given without a value) set
 * *out; no, false, off or 0 clear it (case-insensitive words).
 * "OPTION: 'TEXT': expected yes or no" and -EINVAL otherwise.
 */
int parse_bool(const char *opt, const char *s, bool *out, char *err, size_t errlen);

/** Unsigned integer, decimal or 0x hex, no sign, no suffix. */
int parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
	      uint64_t *out, char *err, size_t errlen);

/** Size in bytes: integer with optional K, M, G, T (powers of 1024), KB/MB/GB/TB (1000). */
int parse_size(const char *opt, const char *s, uint64_t min, uint64_t max,
	       uint64_t *out, char *err, size_t errlen);

/** Finite real number in [min, max]. */
int parse_double(const char *opt, const char *s, double min, double max,
		 double *out, char *err, size_t errlen);

/** Duration: number with optional unit ns, us, ms, s (default), m, h. */
int parse_duration_ns(const char *opt, const char *s, uint64_t min_ns,
		      uint64_t max_ns, uint64_t *out, char *err, size_t errlen);

/** Dotted-quad IPv4 address (inet_pton), host byte order in *out. */
int parse_ipv4(const char *opt, const char *s, uint32_t *out, char *err,
	       size_t errlen);

/**
 * Why a host-order IPv4 address cannot be a packet's source on the wire
 * (0.0.0.0/8, loopback 127/8, multicast 224/4, reserved 240/4 and the
 * limited broadcast 255.255.255.255), or NULL when it can be.
 */
const char *ipv4_source_why(uint32_t ip);

/** "A.B.C.D:PORT", host order. */
int parse_ipv4_port(const char *opt, const char *s, uint32_t *ip,
		    uint16_t *port, char *err, size_t errlen);

/**
 * Copy src into dst (len bytes incl. the NUL), truncating. (snprintf "%s"
 * between members of one struct trips GCC's -Wrestrict under ASan.)
 */
void str_copy(char *dst, size_t len, const char *src);

/**
 * s for a log line or a reply: printable ASCII as is, '\\' and control
 * characters escaped (\n, \r, \t, \\, other bytes below 0x20 and from
 * 0x7f as \xNN), truncated (with "...") to fit len. @return buf.
 */
char *str_escape(const char *s, char *buf, size_t len);

/**
 * A name that goes into file and directory names and log lines (a trigger's
 * prefix, a scan's name, a writer's --name): 1 to maxlen bytes, none a
 * control character (below 0x20, 0x7f) and no '/' (a path separator).
 * Bytes from 0x80 (UTF-8) pass. @return 0, or -EINVAL with
 * "OPTION: 'VALUE': expected a name of 1 to MAXLEN characters, without
 * control characters or '/'" in err, VALUE escaped (str_escape).
 */
int parse_name(const char *opt, const char *s, size_t maxlen, char *err, size_t errlen);

/** What parse_name expects, in words ("a name of 1 to MAXLEN ..."). */
char *parse_name_expected(size_t maxlen, char *buf, size_t len);

/** n bytes as 2n lower-case hex digits and a NUL into out (2n + 1 bytes). */
void str_hex(const uint8_t *p, size_t n, char *out);

/**
 * Bytes for people: "1,074,790,400 bytes (1.0 GiB)" (exact, then in the
 * largest binary unit that gives at least 1). @return buf.
 */
char *bytes_str(uint64_t bytes, char *buf, size_t len);

/** Format a host-order IPv4 address into buf (>= 16 bytes). */
char *ipv4_str(uint32_t ip, char *buf, size_t len);

/**
 * Split s at sep into at most max pieces in a copy (*storage, freed by the
 * caller). Empty pieces are an error.
 * @return number of pieces, or -EINVAL / -E2BIG / -ENOMEM with err set.
 */
int parse_list(const char *opt, const char *s, char sep, char **pieces,
	       int max, char **storage, char *err, size_t errlen);

/**
 * One antenna's definition, as every tool spells it (--antenna-ip):
 * "IP" or "IP=NAME". IP must be a sender's unicast address; NAME (it
 * names files and DPDK telemetry keys) 1..namelen-1 letters, digits or
 * '_'. name gets NAME, or "" when none is given.
 */
int parse_antenna_ip(const char *opt, const char *s, uint32_t *ip, char *name,
		     size_t namelen, char *err, size_t errlen);

/**
 * An antenna selection, as every tool spells it (--antenna A[,A...]): each
 * A the name of one of n antennas (names[i], NULL for none) or its index
 * 0..n-1 (a name wins where a name is digits). n <= 64.
 * @return 0 with *mask (bit i: antenna i), or -EINVAL (-E2BIG, -ENOMEM)
 *   with "OPTION: 'A': expected an antenna name or index (0=ak01,
 *   1=ak02, ...)" in err.
 */
int parse_antenna_select(const char *opt, const char *s, const char *const *names,
			 unsigned int n, uint64_t *mask, char *err, size_t errlen);

#endif /* UTIL_PARSE_H */
