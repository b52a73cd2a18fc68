/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/opt's INI files: rte_cfgfile's sections and keys applied through the option table. */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_cfgfile.h>

#include "err.h"
#include "fsprobe.h"
#include "opt_ini.h"

/* The option that names INI files, for messages about the file itself. */
static const char *
config_name(const struct opt_cmd *cmd)
{
	const struct opt_def *d;
	unsigned int i;

	for (i = 0; (d = opt_row(cmd, i)) != NULL; i++)
		if (d->flags & OPT_F_CONFIG)
			return d->name;
	return "config";
}

static const struct opt_def *
target(const struct opt_cmd *cmd, const struct opt_def *d)
{
	const struct opt_def *t = d->alias_of ? opt_find(cmd, d->alias_of) : NULL;

	return t != NULL ? t : d;
}

static bool
cli_only(const struct opt_def *d)
{
	return (d->flags & OPT_F_CLI) || d->kind == OPT_ACTION;
}

/* A section closed to all but its own OPT_F_SECTION keys ([eal]). */
static bool
closed_section(const struct opt_cmd *cmd, const char *sec)
{
	const struct opt_def *d;
	unsigned int i;

	for (i = 0; (d = opt_row(cmd, i)) != NULL; i++)
		if ((d->flags & OPT_F_SECTION) && d->section != NULL &&
		    strcmp(d->section, sec) == 0)
			return true;
	return false;
}

static const struct opt_def *
find_key(const struct opt_cmd *cmd, const char *sec, const char *key, bool closed)
{
	const struct opt_def *d;
	unsigned int i;

	for (i = 0; (d = opt_row(cmd, i)) != NULL; i++) {
		if (strcmp(d->name, key) != 0)
			continue;
		if (closed ? (d->flags & OPT_F_SECTION) && strcmp(d->section, sec) == 0 :
			     !(d->flags & OPT_F_SECTION))
			return d;
	}
	return NULL;
}

/* rte_cfgfile reads a line into CFG_NAME_LEN + CFG_VALUE_LEN + 4 bytes
 * (fgets: at most 322 characters before the newline) and keeps a key of
 * CFG_NAME_LEN - 1 and a value of CFG_VALUE_LEN - 1 characters, cutting
 * the rest silently; it reads a line only up to a NUL byte. */
#define INI_LINE_MAX (CFG_NAME_LEN + CFG_VALUE_LEN + 2)

/* The length of s[0..n) without leading and trailing blanks. */
static size_t
stripped_len(const char *s, size_t n)
{
	while (n > 0 && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return n;
}

/* One line of f into line (at most INI_LINE_MAX characters kept, the
 * newline dropped). @return its length (more than INI_LINE_MAX: too
 * long, the rest unread), or -1 at the end; *nul: column of the first NUL
 * byte (1-based), 0 if none. */
static long
read_line(FILE *f, char line[INI_LINE_MAX + 1], unsigned int *nul)
{
	long len = 0;
	int ch;

	*nul = 0;
	while ((ch = getc(f)) != EOF && ch != '\n') {
		if (ch == '\0' && *nul == 0)
			*nul = (unsigned int)len + 1;
		if (len < INI_LINE_MAX)
			line[len] = (char)ch;
		if (++len > INI_LINE_MAX)
			break;
	}
	if (ch == EOF && len == 0)
		return -1;
	line[len <= INI_LINE_MAX ? len : INI_LINE_MAX] = '\0';
	return len;
}

/*
 * Before rte_cfgfile reads the file: only a regular file (a FIFO, a
 * device or /dev/zero would block or never end; a directory reads as
 * empty), no NUL byte (rte_cfgfile would read "antennas = 4\0junk" as
 * 4), no line or value longer than rte_cfgfile keeps, and no line that is
 * neither a section nor key = value (rte_cfgfile skips those: an
 * operator's typo must not be silently ignored).
 */
static int
lint(const struct opt_cmd *cmd, const char *path, char *err, size_t errlen)
{
	char line[INI_LINE_MAX + 1];
	unsigned int n = 0, nul;
	bool section = false;
	struct stat st;
	int fd, rc = 0;
	long len;
	FILE *f;

	/* not blocking on a FIFO that has no writer */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return err_set(err, errlen, -errno, "--%s: '%s': %s", config_name(cmd), path,
			    strerror(errno));
	if (fstat(fd, &st) != 0) {
		rc = err_set(err, errlen, -errno, "--%s: '%s': %s", config_name(cmd), path,
			  strerror(errno));
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = err_set(err, errlen, -EINVAL, "--%s: '%s' is %s: expected a regular file (an "
			  "INI file)", config_name(cmd), path, fs_kind(st.st_mode));
		close(fd);
		return rc;
	}
	f = fdopen(fd, "r");
	if (f == NULL) {
		rc = err_set(err, errlen, -errno, "--%s: '%s': %s", config_name(cmd), path,
			  strerror(errno));
		close(fd);
		return rc;
	}
	while (rc == 0 && (len = read_line(f, line, &nul)) >= 0) {
		char *p = line + strspn(line, " \t"), *eq, *semi;
		size_t kl, vl;

		n++;
		if (nul != 0) {
			rc = err_set(err, errlen, -EINVAL, "%s: line %u: a NUL byte (column %u): not a "
				  "text file", path, n, nul);
			break;
		}
		if (len > INI_LINE_MAX) {
			rc = err_set(err, errlen, -E2BIG, "%s: line %u: longer than %d characters, "
				  "the most an INI line may have (rte_cfgfile)", path, n, INI_LINE_MAX);
			break;
		}
		p[strcspn(p, "\r\n")] = '\0';
		if (*p == '\0' || *p == ';' || *p == '#')
			continue;
		if (*p == '[' && strchr(p, ']') != NULL) {
			section = true;
			continue;
		}
		eq = strchr(p, '=');
		if (eq == NULL || *p == '=' || !section) {
			rc = err_set(err, errlen, -EINVAL,
				  "%s: line %u: '%s': expected [section] or key = value "
				  "(inside a section); not a valid INI file", path, n, p);
			break;
		}
		/* the value ends at a comment (';' not escaped) */
		for (semi = eq + 1; (semi = strchr(semi, ';')) != NULL; semi++)
			if (semi[-1] != '\\')
				break;
		kl = stripped_len(p, (size_t)(eq - p));
		vl = stripped_len(eq + 1, semi != NULL ? (size_t)(semi - eq - 1) : strlen(eq + 1));
		if (kl >= CFG_NAME_LEN || vl >= CFG_VALUE_LEN)
			rc = err_set(err, errlen, -E2BIG, "%s: line %u: a %s of %zu characters: at most "
				  "%d are read (rte_cfgfile would cut the rest)", path, n,
				  kl >= CFG_NAME_LEN ? "key" : "value", kl >= CFG_NAME_LEN ? kl : vl,
				  kl >= CFG_NAME_LEN ? CFG_NAME_LEN - 1 : CFG_VALUE_LEN - 1);
	}
	if (rc == 0 && ferror(f))
		rc = err_set(err, errlen, -EIO, "--%s: '%s': read error", config_name(cmd), path);
	fclose(f);
	return rc;
}

/* Does the command line (cli[row], NULL: none) give d or one of its family? */
static bool
on_cli(const struct opt_cmd *cmd, const bool *cli, const struct opt_def *d)
{
	const struct opt_def *e;
	unsigned int i;

	if (cli == NULL)
		return false;
	d = target(cmd, d);
	for (i = 0; (e = opt_row(cmd, i)) != NULL; i++)
		if (cli[i] && (e == d || (d->family != 0 && e->family == d->family)))
			return true;
	return false;
}

struct scratch {
	void *obj, *ctx;
};

/* Where a key the command line overrides is checked: a default copy. */
static int
scratch_get(const struct opt_cmd *cmd, struct scratch *s)
{
	if (s->obj != NULL)
		return 0;
	s->obj = calloc(1, cmd->obj_size ? cmd->obj_size : 1);
	s->ctx = calloc(1, cmd->ctx_size ? cmd->ctx_size : 1);
	if (s->obj == NULL || s->ctx == NULL) {
		free(s->obj);
		free(s->ctx);
		s->obj = s->ctx = NULL;
		return -ENOMEM;
	}
	if (cmd->defaults != NULL)
		cmd->defaults(s->obj, s->ctx);
	return 0;
}

static int
section(const struct opt_cmd *cmd, struct rte_cfgfile *cf, const char *path, const char *sec,
	void *obj, void *ctx, const bool *cli, struct scratch *scr, char *err, size_t errlen)
{
	int ne = rte_cfgfile_section_num_entries(cf, sec), e, rc = 0;
	bool closed = closed_section(cmd, sec);
	struct rte_cfgfile_entry *ent;
	char sub[1024];

	ent = calloc(ne > 0 ? (size_t)ne : 1, sizeof(*ent));
	if (ent == NULL)
		return err_set(err, errlen, -ENOMEM, "--%s: out of memory", config_name(cmd));
	rte_cfgfile_section_entries(cf, sec, ent, ne);
	for (e = 0; e < ne && rc == 0; e++) {
		const struct opt_def *d = find_key(cmd, sec, ent[e].name, closed);

		if (d == NULL && closed)
			rc = err_set(err, errlen, -EINVAL, "%s: [%s] %s = %s: unknown key (section "
				  "[%s] holds only its own keys, see --help)", path, sec,
				  ent[e].name, ent[e].value, sec);
		else if (d == NULL)
			rc = err_set(err, errlen, -EINVAL, "%s: [%s] %s = %s: unknown key (keys are "
				  "the long option names of --help)", path, sec, ent[e].name,
				  ent[e].value);
		else if (cli_only(d) || cli_only(target(cmd, d)))
			rc = err_set(err, errlen, -EINVAL, "%s: [%s] %s: not a configuration key (a "
				  "command-line action)", path, sec, ent[e].name);
		else if (target(cmd, d)->kind != OPT_FLAG && ent[e].value[0] == '\0')
			rc = err_set(err, errlen, -EINVAL, "%s: [%s] %s: expected a value", path, sec,
				  ent[e].name);
		else if (on_cli(cmd, cli, d)) {
			rc = scratch_get(cmd, scr);
			if (rc != 0)
				err_set(err, errlen, rc, "--%s: out of memory", config_name(cmd));
			else if ((rc = opt_set(cmd, d, scr->obj, scr->ctx, ent[e].value, sub,
					       sizeof(sub))) < 0)
				err_set(err, errlen, rc, "%s: [%s] %s", path, sec, sub);
		} else if ((rc = opt_set(cmd, d, obj, ctx, ent[e].value, sub, sizeof(sub))) < 0) {
			err_set(err, errlen, rc, "%s: [%s] %s", path, sec, sub);
		}
	}
	free(ent);
	return rc < 0 ? rc : 0;
}

static int
load(const struct opt_cmd *cmd, void *obj, void *ctx, const char *path, const bool *cli,
     char *err, size_t errlen)
{
	struct scratch scr = { NULL, NULL };
	struct rte_cfgfile *cf;
	int nsec, s, rc = 0;
	char **secs;

	if (access(path, R_OK) != 0)
		return err_set(err, errlen, -errno, "--%s: '%s': %s", config_name(cmd), path,
			    strerror(errno));
	rc = lint(cmd, path, err, errlen);
	if (rc != 0)
		return rc;
	cf = rte_cfgfile_load(path, CFG_FLAG_EMPTY_VALUES);
	if (cf == NULL)
		return err_set(err, errlen, -EINVAL, "--%s: '%s': not a valid INI file (expected "
			    "[section] lines and key = value lines)", config_name(cmd), path);
	nsec = rte_cfgfile_num_sections(cf, NULL, 0);
	secs = calloc(nsec > 0 ? (size_t)nsec : 1, sizeof(*secs));
	for (s = 0; secs != NULL && s < nsec; s++)
		if ((secs[s] = malloc(CFG_NAME_LEN)) == NULL)
			rc = -ENOMEM;
	if (secs == NULL || rc != 0) {
		rc = err_set(err, errlen, -ENOMEM, "--%s: out of memory", config_name(cmd));
		goto out;
	}
	rte_cfgfile_sections(cf, secs, nsec);
	for (s = 0; s < nsec && rc == 0; s++)
		rc = section(cmd, cf, path, secs[s], obj, ctx, cli, &scr, err, errlen);
out:
	for (s = 0; secs != NULL && s < nsec; s++)
		free(secs[s]);
	free(secs);
	rte_cfgfile_close(cf);
	free(scr.obj);
	free(scr.ctx);
	return rc;
}

int
opt_ini_load(const struct opt_cmd *cmd, void *obj, void *ctx, const char *path, char *err,
	     size_t errlen)
{
	return load(cmd, obj, ctx, path, NULL, err, errlen);
}

struct argv_scan {
	const struct opt_cmd *cmd;
	bool *cli;              /* per row: given on the command line */
	const char **files;     /* the OPT_F_CONFIG values, in order */
	unsigned int nfile;
};

static void
scan_one(const struct opt_def *d, const char *val, void *arg)
{
	struct argv_scan *sc = arg;
	const struct opt_def *e, *t = target(sc->cmd, d);
	unsigned int i;

	for (i = 0; (e = opt_row(sc->cmd, i)) != NULL; i++)
		if (e == t)
			sc->cli[i] = true;
	if ((t->flags & OPT_F_CONFIG) && val != NULL)
		sc->files[sc->nfile++] = val;
}

int
opt_ini_parse_argv(const struct opt_cmd *cmd, void *obj, void *ctx, int argc, char **argv,
		   int *first_arg, char *err, size_t errlen)
{
	struct argv_scan sc;
	unsigned int i;
	int rc = 0;

	sc.cmd = cmd;
	sc.nfile = 0;
	sc.cli = calloc(opt_count(cmd) + 1, sizeof(*sc.cli));
	sc.files = calloc(argc > 0 ? (size_t)argc : 1, sizeof(*sc.files));
	if (sc.cli == NULL || sc.files == NULL) {
		rc = err_set(err, errlen, -ENOMEM, "%s: out of memory", cmd->prog);
		goto out;
	}
	/* what the command line gives (errors are reported by the parse below) */
	opt_scan_argv(cmd, argc, argv, scan_one, &sc);
	/* the files first, wherever they are named: the command line wins */
	for (i = 0; i < sc.nfile && rc == 0; i++)
		rc = load(cmd, obj, ctx, sc.files[i], sc.cli, err, errlen);
	if (rc == 0)
		rc = opt_parse_argv(cmd, obj, ctx, argc, argv, first_arg, err, errlen);
out:
	free(sc.cli);
	free(sc.files);
	return rc;
}
