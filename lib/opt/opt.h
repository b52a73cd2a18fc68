/* SPDX-License-Identifier: BSD-3-Clause */
/* Options as data: one row per option drives the command line, INI, --help and the print. */

#ifndef OPT_H
#define OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A program (or one subcommand) describes its options as a table of
 * struct opt_def rows, ended by a row whose name is NULL. From the table
 * alone lib/opt builds getopt_long's option array, parses and checks
 * every value with lib/util's strict parsers, stores it (offsetof into the
 * program's configuration struct, or a callback for the complex ones),
 * reads the INI file (opt_ini.h), writes --help and prints the effective
 * configuration.
 *
 * Values are stored in an object (the program's configuration) or in a
 * context (state of one parse: what was given, counts to check later), at
 * a row's offset. Errors follow DPDK: 0 or a negative errno, with the
 * message in the caller's buffer (err, errlen), naming the option, the
 * value and what was expected ("--mtu: '100': expected an integer between
 * 1280 and 16000").
 */

/** What a row's value is. */
enum opt_kind {
	OPT_NONE = 0,  /**< only for an alias row (.alias_of): the target's */
	OPT_FLAG,      /**< no value on the command line; yes/no in a file; bool */
	OPT_BOOL,      /**< yes/no (true/false, on/off, 1/0); bool */
	OPT_UINT,      /**< integer in [min, max] (decimal or 0x); any unsigned size */
	OPT_SIZE,      /**< bytes in [min, max]: K/M/G/T (1024) or KB/MB/GB/TB (1000) */
	OPT_DURATION,  /**< ns in [min, max]: a number with unit ns, us, ms, s, m, h, d */
	OPT_DOUBLE,    /**< real number in [dmin, dmax]; double */
	OPT_STRING,    /**< text, copied into char[size] (or its pointer, .ptr) */
	OPT_PATH,      /**< a file or directory name, as OPT_STRING */
	OPT_ENUM,      /**< one of names[]: its index, or values[index], stored */
	OPT_IPV4,      /**< dotted quad, host order uint32_t */
	OPT_LIST,      /**< repeatable text: appended to char[max][size], count at count */
	OPT_CUSTOM,    /**< .set parses and stores (lists of addresses, maps...) */
	OPT_ACTION,    /**< command line only; .set acts (--help): parsing stops */
};

/** Row flags. */
#define OPT_F_CLI     (1u << 0) /**< command line only: not an INI key (--config) */
#define OPT_F_INI     (1u << 1) /**< INI key only: no command-line option */
#define OPT_F_NOPRINT (1u << 2) /**< not in the effective configuration */
#define OPT_F_ACTION  (OPT_F_CLI | OPT_F_NOPRINT) /**< an act, not configuration */
#define OPT_F_REPEAT  (1u << 3) /**< may be given again: each adds (lists) */
#define OPT_F_HIDDEN  (1u << 4) /**< left out of --help (aliases) */
#define OPT_F_POW2    (1u << 5) /**< OPT_UINT, OPT_SIZE: a power of two */
#define OPT_F_INVERT  (1u << 6) /**< OPT_FLAG, OPT_BOOL: stores the negation */
#define OPT_F_ZERO    (1u << 7) /**< "0" is also taken (off), below min */
#define OPT_F_MCAST   (1u << 8) /**< OPT_IPV4: a multicast address (224.0.0.0/4) */
#define OPT_F_SECTION (1u << 9) /**< INI: only in its own section, which holds
				     only such keys ([eal] args) */
#define OPT_F_CONFIG  (1u << 10) /**< its value is an INI file of these options
				      (opt_ini_parse_argv loads it first) */
#define OPT_F_UCAST   (1u << 11) /**< OPT_IPV4: a sender's address on the wire
				      (not 0/8, 127/8, 224/4, 240/4, broadcast) */
#define OPT_F_OUTFILE (1u << 12) /**< OPT_PATH: a file the program writes as
				      NAME.part and renames at the end; checked
				      by opt_check_files, not when parsed */
#define OPT_F_GONE    (1u << 13) /**< an alias row of a name no longer taken: refused
				      (-ENOENT) with "--old: renamed: use --new"
				      (.help, if any, after "use"); hidden */

/** Command flags. */
#define OPT_CMD_ARGS (1u << 0) /**< arguments after the options (FILE...) */
#define OPT_CMD_INI  (1u << 1) /**< options are INI keys too: --help names sections */

struct opt_def;
struct opt_cmd;
struct opt_kv;

/** One value being applied: what a .set callback gets. */
struct opt_arg {
	const struct opt_cmd *cmd;
	const struct opt_def *def;
	const char *opt;   /**< "--name", for messages */
	const char *val;   /**< the value; NULL for a flag on the command line */
	void *obj;         /**< the configuration */
	void *ctx;         /**< the parse context (may be NULL) */
};

/**
 * Parse a->val and store it. @return 0, 1 (OPT_ACTION: done, stop
 * parsing), or a negative errno with the message in err.
 */
typedef int (*opt_set_fn)(const struct opt_arg *a, char *err, size_t errlen);

/** Print the row's effective-configuration line(s) ("key = value"). */
typedef void (*opt_print_fn)(const struct opt_cmd *cmd, const struct opt_def *d,
			     const void *obj, FILE *f);

/** One option. Fields a kind does not use stay 0. */
struct opt_def {
	const char *name;       /**< long option and INI key, without "--" */
	enum opt_kind kind;
	int letter;             /**< short option ('h'), or 0 */
	unsigned int flags;     /**< OPT_F_* */
	const char *section;    /**< INI section and --help group (opt_section.name) */
	const char *metavar;    /**< "N", "IP[,IP...]" (default: an enum's words) */
	const char *help;       /**< one sentence or more; '\n' breaks a line */
	const char *def;        /**< default as --help shows it, where the default
				     configuration's printed value would not do */
	const char *unset;      /**< what 0 / "" / no items mean ("no limit"):
				     printed as "# key: UNSET" */
	const char *zero;       /**< a word that means 0, taken and printed ("auto") */
	const char *unit;       /**< of the value, for messages ("bytes") */
	const char *example;    /**< a valid value (files and tests made from the table) */
	uint64_t min, max;      /**< OPT_UINT, OPT_SIZE, OPT_DURATION (ns); OPT_LIST:
				     max items */
	double dmin, dmax;      /**< OPT_DOUBLE */
	uint64_t mult;          /**< OPT_UINT, OPT_SIZE: a multiple of this */
	const char *const *names; /**< OPT_ENUM: the words, NULL-terminated */
	const int *values;      /**< OPT_ENUM: the value of each word (default: index) */
	size_t off, size;       /**< where it is stored, and its size (OPT_AT) */
	bool in_ctx;            /**< ... in the context, not the object (OPT_CTX) */
	bool ptr;               /**< OPT_STRING, OPT_PATH: store the value's pointer
				     (argv only: an INI's strings do not last) */
	size_t seen;            /**< 1 + offset of a bool set when given (OPT_SEEN) */
	size_t count;           /**< OPT_LIST: 1 + offset of the unsigned int count */
	int family;             /**< rows that describe one thing: where the command
				     line gives any of them, an INI's are not used */
	const char *alias_of;   /**< an old name of that option: taken with a note
				     ("--old is an old name: use --new"); with a
				     .set, an old form whose value differs: .set
				     says the note (opt_note) and applies the new
				     form (opt_set on the target); .help, if any,
				     replaces "use --new" in --help */
	opt_set_fn set;         /**< OPT_CUSTOM, OPT_ACTION */
	opt_print_fn print;     /**< the effective configuration, if not generic */
	const struct opt_kv *kv; /**< The value holds this key=value list. --help
				      lists its keys under the row, and
				      --dump-options gives each key a row. */
};

/** Where a member of T is: a row's .off and .size. */
#define OPT_AT(T, m) .off = offsetof(T, m), .size = sizeof(((T *)0)->m)
/** ... of the parse context's type T. */
#define OPT_CTX(T, m) OPT_AT(T, m), .in_ctx = true
/** ... and the pointer to the value is stored (const char *m). */
#define OPT_PTR(T, m) OPT_AT(T, m), .ptr = true
/** A bool of the same struct set when the option is given. */
#define OPT_SEEN(T, m) .seen = offsetof(T, m) + 1
/** OPT_LIST: char m[N][LEN] and its count cnt. */
#define OPT_LIST_AT(T, m, cnt) .off = offsetof(T, m), .size = sizeof(((T *)0)->m[0]), \
	.max = sizeof(((T *)0)->m) / sizeof(((T *)0)->m[0]), .count = offsetof(T, cnt) + 1

/** A --help group and INI section. */
struct opt_section {
	const char *name;   /**< INI section name, and the rows' .section */
	const char *title;  /**< --help heading ("Ports and queues") */
	const char *intro;  /**< a few words under the heading, or NULL */
};

/** A program or subcommand: its rows and its --help frame. */
struct opt_cmd {
	const char *prog;      /**< "dpdk-ibvcap", "codifcheck info" */
	const char *usage;     /**< "Usage: ..." line(s), '\n'-ended */
	const char *about;     /**< what it does, before the options */
	const char *epilog;    /**< after the options (exit status...) */
	const struct opt_section *sections; /**< ended by name NULL; may be NULL */
	const struct opt_def *opts;         /**< the rows */
	const struct opt_def *more;         /**< rows shared with other commands */
	unsigned int flags;    /**< OPT_CMD_* */
	const char *unknown;   /**< the word for an unknown option (default "unknown") */
	/** Default configuration and context (help shows defaults; an INI's
	 * overridden keys are checked against a scratch copy). May be NULL. */
	void (*defaults)(void *obj, void *ctx);
	size_t obj_size, ctx_size;
	/** Where a note goes (an old name used): NULL = "PROG: NOTE" on stderr. */
	void (*note)(const struct opt_cmd *cmd, const char *note);
};

/**
 * A key=value list: the keys of one option's value (--write's prefix=,
 * rotate-size=...) or a command's fields. Each key is a struct opt_def row
 * as an option is (name, kind, range, storage, help, example), ended by a
 * row whose name is NULL; rows store into the list's own struct. A list is
 * parsed once, by opt_kv_parse, into that struct, and the caller passes
 * the struct on.
 */
struct opt_kv {
	const char *name;        /**< The input it is, for messages ("--write"):
				      a key's errors name "--write KEY". */
	const struct opt_def *keys; /**< The rows, at most 64. */
	char sep;                /**< Between items (0 means ','). */
	const char *seps;        /**< Or several separators, where a run of them
				      counts as one (" \t" for words). */
	/** The list's struct with its defaults, so that --help can show them.
	 * May be NULL. */
	void (*defaults)(void *obj);
	size_t obj_size;
};

/**
 * Parse "KEY=VALUE[,KEY=VALUE...]" (list NULL or "" is no items) with the
 * rows of kv: each value parsed, checked and stored as opt_set does for an
 * option, its errors naming "NAME KEY". Each key may be given once.
 *
 * @param given  Set to the rows given (bit i for row i); may be NULL.
 * @return 0; -EINVAL (an item without '=', an unknown key, a key given
 *   twice, a bad value; unknown keys are answered with the list of keys),
 *   -ERANGE, -E2BIG or -ENOMEM, with the message in err.
 */
int opt_kv_parse(const struct opt_kv *kv, void *obj, void *ctx, const char *list,
		 uint64_t *given, char *err, size_t errlen);

struct err_refusal;

/**
 * opt_kv_parse for a command's fields, whose refusal is a struct
 * err_refusal (lib/util err.h) rather than a message: an item without '='
 * or an unknown key refuses input kv->name with the item or key as the
 * value; a key given twice or a bad value refuses the key with its value,
 * expecting what the row's parser expects.
 *
 * @return 0, or a negative errno with why set.
 */
int opt_kv_parse_why(const struct opt_kv *kv, void *obj, void *ctx, const char *list,
		     uint64_t *given, struct err_refusal *why);

/** The row of key name in kv, or NULL. @param idx Its index (may be NULL). */
const struct opt_def *opt_kv_find(const struct opt_kv *kv, const char *name, unsigned int *idx);

/** Whether row name of kv is among the rows given (opt_kv_parse's given). */
bool opt_kv_given(const struct opt_kv *kv, uint64_t given, const char *name);

/** The keys of kv as "a, b or c" in buf (truncated to len). */
void opt_kv_names(const struct opt_kv *kv, char *buf, size_t len);

/**
 * Check the rows of kv as opt_cmd_check checks an option table: names well
 * formed and unique, help present, what each kind needs, at most 64 rows.
 *
 * @return 0, or -EINVAL with the row and the fault in err.
 */
int opt_kv_check(const struct opt_kv *kv, char *err, size_t errlen);

/**
 * The keys of kv for --help, one a line: "  KEY=VALUE  help (range;
 * default: D)" (each '\n'-ended), into a string the caller frees.
 *
 * @return The text, or NULL when out of memory.
 */
char *opt_kv_help(const struct opt_kv *kv);

/** A one-line note (an old name used) to cmd->note, else "PROG: NOTE" on stderr. */
void opt_note(const struct opt_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** "PROG (dpdk-ibvcap) VERSION, built with DPDK X" on f: every command's
 * built-in --version (opt_parse_argv returns 1 after it). */
void opt_version(const struct opt_cmd *cmd, FILE *f);

/** Number of rows of cmd (opts, then more). */
unsigned int opt_count(const struct opt_cmd *cmd);

/** Row i of cmd (opts, then more), or NULL past the end. */
const struct opt_def *opt_row(const struct opt_cmd *cmd, unsigned int i);

/** The row named name (an alias row itself, not its target), or NULL. */
const struct opt_def *opt_find(const struct opt_cmd *cmd, const char *name);

/**
 * Check a table: names unique and well formed, help present, a kind with
 * what it needs (ranges, storage, words, a .set), aliases pointing at a
 * row, sections known, every INI row with a value to try (.example or one
 * its kind gives).
 *
 * @return 0, or -EINVAL with the row and the fault in err.
 */
int opt_cmd_check(const struct opt_cmd *cmd, char *err, size_t errlen);

/**
 * Apply one value of row d (an alias applies its target, with a note to
 * cmd->note): parse, check and store it. val is NULL for a flag given on the
 * command line.
 *
 * @return 0; 1 when an OPT_ACTION is done; -EINVAL (malformed, or a
 *   check failed), -ERANGE (out of range), -E2BIG (too many items, too
 *   long) or -ENOMEM, with the message in err.
 */
int opt_set(const struct opt_cmd *cmd, const struct opt_def *d, void *obj, void *ctx,
	    const char *val, char *err, size_t errlen);

/**
 * An integer, size or duration as row a->def describes it (its kind,
 * [min, max], zero word, power of two, multiple), not stored: for .set
 * callbacks that store a number their own way.
 *
 * @return 0, -EINVAL or -ERANGE with the message in err.
 */
int opt_value_u64(const struct opt_arg *a, uint64_t *out, char *err, size_t errlen);

/**
 * Check where the parsed options point (the file system as it is now, not
 * the syntax): every OPT_F_OUTFILE row with a value must name a file its
 * program can write as NAME.part and rename into place (fs_out_file_ok:
 * the directory exists and takes new files; an existing file is a regular
 * one that may be replaced). Not done when a value is parsed, so that an
 * INI value the command line overrides is not held against the host.
 *
 * @return 0, or a negative errno with "--name VALUE: what is wrong" in err.
 */
int opt_check_files(const struct opt_cmd *cmd, const void *obj, char *err, size_t errlen);

/**
 * Parse a command line (argv[0] is the program) with getopt_long: each
 * option's value applied in order with opt_set. The hidden option
 * --dump-options checks the table (opt_cmd_check), prints it (opt_dump)
 * and stops like an action.
 * getopt_long permutes argv: arguments that are not options end up from
 * *first_arg on (where cmd allows them, OPT_CMD_ARGS).
 *
 * @param first_arg  where the arguments begin (may be NULL).
 * @return 0; 1 when an action (--help) ended the parse; -ENOENT for an
 *   unknown option; -EINVAL for a missing value or an argument cmd does
 *   not take; or opt_set's error, with the message in err.
 */
int opt_parse_argv(const struct opt_cmd *cmd, void *obj, void *ctx, int argc, char **argv,
		   int *first_arg, char *err, size_t errlen);

/**
 * The command line's options, not applied: fn(row, value, arg) for each
 * in order (an alias as itself); unknown options and missing values are
 * skipped (opt_parse_argv reports them).
 */
void opt_scan_argv(const struct opt_cmd *cmd, int argc, char **argv,
		   void (*fn)(const struct opt_def *d, const char *val, void *arg), void *arg);

/**
 * Row d's value in obj (or ctx) as text: "yes", "9000", "auto", "1.000s"
 * (human: "1s"), "239.17.0.1"; a list's first item.
 *
 * @return 0; -ENOENT when unset (0, "" or no items, with .unset or
 *   .zero words aside), or for a kind without a generic form.
 */
int opt_format(const struct opt_def *d, const void *obj, const void *ctx, bool human,
	       char *buf, size_t len);

/** Row d's generic effective-configuration line(s) (no .print). */
void opt_print_row(const struct opt_cmd *cmd, const struct opt_def *d, const void *obj,
		   FILE *f);

/** A comment line for row d: "# key: text" (printf format). */
void opt_print_note(const struct opt_def *d, FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/**
 * The effective configuration: every row not OPT_F_NOPRINT, in table
 * order, as "key = value" lines (several for lists), or "# key: ..." for
 * what is not set.
 */
void opt_print(const struct opt_cmd *cmd, const void *obj, FILE *f);

/**
 * --help: usage, about, the options by section (short and long name,
 * metavar, help; range and default shown), aliases, epilog.
 */
void opt_help(const struct opt_cmd *cmd, FILE *f);

/**
 * The table, one row per line, tab-separated, for tests and generated
 * files: name, letter ('-'), kind, where (cli+ini, cli, ini, action, or gone:
 * an old name refused, OPT_F_GONE),
 * section ('-'), hidden (yes/no), example value ('-'), help.
 * After a row with a key list (.kv) come its keys, one row each, named
 * "OPTION.KEY" with where "key" and the option's section.
 */
void opt_dump(const struct opt_cmd *cmd, FILE *f);

/** A valid value of row d: .example, or one its kind and range give. @return 0 or -ENOENT. */
int opt_example(const struct opt_def *d, char *buf, size_t len);

/** OPT_ACTION .set: print opt_help to stdout; @return 1. */
int opt_act_help(const struct opt_arg *a, char *err, size_t errlen);

#endif /* OPT_H */
