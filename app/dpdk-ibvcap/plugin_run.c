/* SPDX-License-Identifier: BSD-3-Clause */
/* --consumer LIB.so[,key=value...]: in-process consumers. Each shared
 * object is loaded (dlopen) and checked at start-up and runs on an EAL
 * worker lcore of its own (lcore=N, or the last one free), init, blocks
 * and fini alike, fed lib/consumer's time-aligned blocks built over antbuf
 * cursors of its own, like a writer's: the rx lcores never wait for it;
 * what the rings overwrote before it took it is counted in its registry
 * entry (format "plugin", its lcore), shown in telemetry and the summary.
 * (Not the capture's "ibvcap.h" here: consumer.h brings libibvcap's.) */

#include <dlfcn.h>
#include <limits.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_launch.h>
#include <rte_lcore.h>

#include "codif.h"
#include "consumer.h"
#include "err.h"
#include "ibvcap_plugin.h"
#include "parse.h"
#include "plugin_run.h"

/* The key=value pairs a --consumer passes to its plugin, at most. */
#define PLUGIN_MAX_KV 32

/* The loaded plugin, its blocks and its lcore. */
struct ibv_plugin {
	struct ibv_plugin *next;   /* the next --consumer */
	void *dl;
	ibvcap_plugin_init_fn init;
	ibvcap_plugin_block_fn block;
	ibvcap_plugin_fini_fn fini;
	void *state;
	bool inited, running;
	struct ibvcap *c;          /* the blocks: lib/consumer's handle, in-process */
	struct ibvcap_plugin_args args;
	struct ibvcap_plugin_kv kv[PLUGIN_MAX_KV];
	struct ibvcap_antenna *ant;
	char spec[PATH_MAX + 256]; /* --consumer, cut at its commas */
	char name[SHM_NAMELEN];
	char err[256];             /* init's refusal */
	int lcore_want;            /* lcore=N; -1: the last free worker lcore */
	bool scans;                /* scans=1: only the data of its scans */
	unsigned int lcore;        /* the EAL lcore it runs on ... */
	bool placed;               /* ... once chosen */
	int init_rc;               /* init's return, on its lcore */
	volatile int quit;         /* teardown before the end: stop now */
	int rc;                    /* the block rc that stopped it (0: none) */
	int64_t beat_ns;
};

static int64_t
wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- the services a plugin calls (args->host is the handle) ------------ */

static int
host_stream_info(void *host, unsigned int a, unsigned int s, struct ibvcap_stream *out)
{
	return cons_stream_info(host, a, s, out);
}

static int
host_decode(void *host, const struct ibvcap_block *blk, uint32_t k, uint32_t s, uint32_t i,
	    float *out, size_t n)
{
	struct ibvcap *c = host;

	if (c->v.ctl->payload_mem == IBV_PAYLOAD_GPU)
		return -ENOTSUP; /* device pointers: decode on the device */
	return ibvcap_decode(c, blk, k, s, i, out, n);
}

static int
host_check(void *host, const struct ibvcap_block *blk)
{
	struct ibvcap *c = host;

	if (!c->held || blk != &c->blk)
		return -EINVAL;
	c->checked = true;
	return cons_block_check(c);
}

static int64_t
host_frame_time_ns(void *host, const struct ibvcap_block *blk, uint32_t i)
{
	const struct ibvcap *c = host;

	return codif_clock_time_ns(&c->clk, blk->index + i);
}

/* ---- set-up ------------------------------------------------------------- */

/* --consumer's spec cut at its commas: the path, the capture's own keys
 * (name, antennas, frames), the plugin's. */
static int
spec_parse(struct ibv_plugin *p, unsigned int nant, char *err, size_t len)
{
	char *save = NULL, *tok, *eq, *end;
	unsigned long long v;

	str_copy(p->spec, sizeof(p->spec), p->args.path);
	p->args.path = strtok_r(p->spec, ",", &save);
	if (p->args.path == NULL)
		return err_set(err, len, -EINVAL, "--consumer: expected LIB.so[,key=value...]");
	str_copy(p->name, sizeof(p->name), "plugin");
	p->lcore_want = -1;
	p->args.antennas = nant >= 64 ? UINT64_MAX : (1ULL << nant) - 1;
	p->args.frames = 64;
	while ((tok = strtok_r(NULL, ",", &save)) != NULL) {
		eq = strchr(tok, '=');
		if (eq == NULL || eq == tok)
			return err_set(err, len, -EINVAL, "--consumer %s: '%s': expected key=value",
				       p->args.path, tok);
		*eq++ = '\0';
		errno = 0;
		if (strcmp(tok, "name") == 0) {
			if (eq[0] == '\0' || strlen(eq) >= SHM_NAMELEN)
				return err_set(err, len, -EINVAL, "--consumer %s: name '%s': expected "
					       "1 to %d characters", p->args.path, eq, SHM_NAMELEN - 1);
			str_copy(p->name, sizeof(p->name), eq);
		} else if (strcmp(tok, "antennas") == 0 || strcmp(tok, "frames") == 0) {
			v = strtoull(eq, &end, 0);
			if (errno != 0 || end == eq || *end != '\0' || v == 0 ||
			    (tok[0] == 'a' && nant < 64 && (v >> nant) != 0) ||
			    (tok[0] == 'f' && v > 65536))
				return err_set(err, len, -EINVAL, "--consumer %s: %s=%s: expected %s",
					       p->args.path, tok, eq, tok[0] == 'a' ?
					       "a mask of the capture's antennas (bit a: antenna a)" :
					       "1 to 65536 frames per block");
			if (tok[0] == 'a')
				p->args.antennas = v;
			else
				p->args.frames = (uint32_t)v;
		} else if (strcmp(tok, "scans") == 0) {
			if (strcmp(eq, "0") != 0 && strcmp(eq, "1") != 0)
				return err_set(err, len, -EINVAL, "--consumer %s: scans=%s: expected 1 "
					       "(only the data of its scans, as IBVCAP_OPEN_SCANS) or 0 "
					       "(every frame)", p->args.path, eq);
			p->scans = eq[0] == '1';
		} else if (strcmp(tok, "lcore") == 0) {
			v = strtoull(eq, &end, 10);
			if (errno != 0 || end == eq || *end != '\0' || v >= RTE_MAX_LCORE)
				return err_set(err, len, -EINVAL, "--consumer %s: lcore=%s: expected "
					       "an EAL lcore id, 0 to %d", p->args.path, eq,
					       RTE_MAX_LCORE - 1);
			p->lcore_want = (int)v;
		} else if (p->args.nkv == PLUGIN_MAX_KV) {
			return err_set(err, len, -EINVAL, "--consumer %s: more than %d key=values",
				       p->args.path, PLUGIN_MAX_KV);
		} else {
			p->kv[p->args.nkv++] = (struct ibvcap_plugin_kv){ .key = tok, .value = eq };
		}
	}
	p->args.name = p->name;
	p->args.kv = p->kv;
	return 0;
}

/* dlopen and the four symbols, the ABI checked. */
static int
plugin_load(struct ibv_plugin *p, char *err, size_t len)
{
	static const char *const names[] = { "ibvcap_plugin_abi", "ibvcap_plugin_init",
					     "ibvcap_plugin_block", "ibvcap_plugin_fini" };
	void *sym[4];
	unsigned int i;
	const char *why;

	p->dl = dlopen(p->args.path, RTLD_NOW | RTLD_LOCAL);
	if (p->dl == NULL) {
		why = dlerror();
		return err_set(err, len, -ENOENT, "--consumer %s: cannot load it: %s", p->args.path,
			       why ? why : "dlopen failed");
	}
	for (i = 0; i < 4; i++) {
		sym[i] = dlsym(p->dl, names[i]);
		if (sym[i] == NULL)
			return err_set(err, len, -ENOENT, "--consumer %s: no symbol %s (a plugin "
				       "exports ibvcap_plugin_abi, _init, _block and _fini: "
				       "ibvcap_plugin.h)", p->args.path, names[i]);
	}
	if (*(const uint32_t *)sym[0] != IBVCAP_PLUGIN_ABI)
		return err_set(err, len, -EPROTO, "--consumer %s: plugin ABI %u (its "
			       "ibvcap_plugin_abi), this capture loads ABI %u: rebuild it against "
			       "this capture's ibvcap_plugin.h", p->args.path,
			       *(const uint32_t *)sym[0], IBVCAP_PLUGIN_ABI);
	p->init = (ibvcap_plugin_init_fn)sym[1];
	p->block = (ibvcap_plugin_block_fn)sym[2];
	p->fini = (ibvcap_plugin_fini_fn)sym[3];
	p->args.abi = IBVCAP_PLUGIN_ABI;
	return 0;
}

/* lib/consumer's handle over the primary's own rings, its antennas and
 * block length chosen, its registry entry claimed. */
static int
handle_make(const struct ibv_plugin_src *src, struct ibv_plugin *p, char *err, size_t len)
{
	struct ibvcap *c = calloc(1, sizeof(*c));
	char e[256];
	unsigned int a, k;
	int rc, holder = 0;

	if (c == NULL)
		return err_set(err, len, -ENOMEM, "--consumer: out of memory");
	p->c = c;
	c->reg = -1;
	c->flags = IBVCAP_OPEN_OLDEST; /* it starts with the capture: every frame */
	str_copy(c->v.instance, sizeof(c->v.instance), src->instance);
	c->v.ctl = src->ctl;
	c->v.nant = src->nant;
	for (a = 0; a < c->v.nant && a < SHM_MAX_ANT; a++) {
		c->v.b[a] = src->b[a];
		if ((p->args.antennas >> a & 1) && p->args.frames > c->v.b[a]->g.nrows / 4)
			return err_set(err, len, -EINVAL, "--consumer %s: frames=%u: more than a "
				       "quarter of antenna %u's ring of %u frames (--ring)",
				       p->args.path, p->args.frames, a, c->v.b[a]->g.nrows);
	}
	c->ants = p->args.antennas;
	c->T = p->args.frames;
	c->words = (c->T + 63) / 64;
	rc = cons_select_alloc(c, err, len);
	if (rc != 0)
		return rc;
	for (k = 0; k < c->nants; k++)
		c->ant[k].payload = src->base[c->antno[k]];
	c->selected = true;
	rc = shm_writer_claim(c->v.ctl, (int)getpid(), p->name, SHM_FORMAT_PLUGIN, &holder);
	if (rc < 0)
		return err_set(err, len, rc, "--consumer %s: name '%s': %s", p->args.path,
			       p->name, rc == -EEXIST ? "in use by another writer or consumer" :
			       "no free entry in the writer registry");
	c->reg = rc;
	c->v.ctl->writer[rc].cpu = -1;
	/* scans=1: the capture's schedule, followed as libibvcap's
	 * IBVCAP_OPEN_SCANS follows it (lib/consumer's rule) */
	c->flags |= p->scans ? IBVCAP_OPEN_SCANS : 0;
	c->v.sched = src->sched;
	c->v.sched_len = sizeof(*src->sched);
	rc = cons_scans_attach(c, e, sizeof(e));
	if (rc != 0)
		return err_set(err, len, rc, "--consumer %s: scans=1: %s", p->args.path, e);
	return 0;
}

/* ---- its lcore ------------------------------------------------------------ */

/* Whether lcore l is taken: the main lcore's, a writer's, an --lcore-map
 * rx lcore, or an earlier plugin's (list: those before p). */
static bool
lcore_taken(const struct ibv_plugin_src *src, const struct ibv_plugin *list,
	    const struct ibv_plugin *p, unsigned int l)
{
	const struct ibv_plugin *q;

	if (l == rte_get_main_lcore() || src->writer_lcore[l] || src->rx_lcore[l])
		return true;
	for (q = list; q != NULL && q != p; q = q->next)
		if (q->placed && q->lcore == l)
			return true;
	return false;
}

/* lcores l (worker lcores with mark set, or every EAL lcore with mark
 * NULL) as "1,2", "none" when there is none. */
static const char *
lcore_list(const bool *mark, char *buf, size_t len)
{
	unsigned int l;
	size_t o = 0;

	buf[0] = '\0';
	RTE_LCORE_FOREACH(l) {
		if (mark != NULL && !mark[l])
			continue;
		int k = snprintf(buf + o, len - o, "%s%u", o ? "," : "", l);

		if (k < 0 || (size_t)k >= len - o)
			break;
		o += (size_t)k;
	}
	return o ? buf : "none";
}

/* The lcore p runs on: lcore=N checked (an EAL worker lcore, not taken),
 * else the last worker lcore free; either way one free worker lcore is
 * left for rx (the rx lcores are every worker lcore not taken). */
static int
lcore_choose(const struct ibv_plugin_src *src, const struct ibv_plugin *list,
	     struct ibv_plugin *p, char *err, size_t len)
{
	unsigned int l, nfree = 0, pick = RTE_MAX_LCORE;
	bool theirs[RTE_MAX_LCORE] = { false };
	const struct ibv_plugin *q;
	char eal[256], wr[256], pl[256];

	RTE_LCORE_FOREACH_WORKER(l)
		if (!lcore_taken(src, list, p, l)) {
			nfree++;
			pick = l; /* the last free one */
		}
	for (q = list; q != NULL && q != p; q = q->next)
		theirs[q->lcore] = q->placed;
	lcore_list(NULL, eal, sizeof(eal));
	if (p->lcore_want >= 0) {
		l = (unsigned int)p->lcore_want;
		if (!rte_lcore_is_enabled(l))
			return err_set(err, len, -EINVAL, "--consumer %s: lcore=%u: not an EAL lcore "
				       "of this process (its lcores: %s; -l or --lcores)",
				       p->args.path, l, eal);
		if (l == rte_get_main_lcore())
			return err_set(err, len, -EINVAL, "--consumer %s: lcore=%u: the main lcore "
				       "(it runs the capture's control loop): expected a worker "
				       "lcore", p->args.path, l);
		if (src->rx_lcore[l])
			return err_set(err, len, -EINVAL, "--consumer %s: lcore=%u: an rx lcore "
				       "(--lcore-map gives it a queue)", p->args.path, l);
		if (src->writer_lcore[l] || theirs[l])
			return err_set(err, len, -EINVAL, "--consumer %s: lcore=%u: taken by %s",
				       p->args.path, l, theirs[l] ? "another --consumer" :
				       "a --write writer");
		pick = l;
	}
	if (nfree < 2 || pick == RTE_MAX_LCORE)
		return err_set(err, len, -EINVAL, "--consumer %s: no free lcore among the EAL "
			       "lcores %s (main %u, --write writers %s, other consumers %s; rx "
			       "needs at least one): give EAL one more lcore (-l, or --lcores, "
			       "e.g. --lcores 0@0,1@1,2@0), or lcore=N", p->args.path, eal,
			       rte_get_main_lcore(), lcore_list(src->writer_lcore, wr, sizeof(wr)),
			       lcore_list(theirs, pl, sizeof(pl)));
	p->lcore = pick;
	p->placed = true;
	return 0;
}

/* init, on the plugin's lcore (a GPU context it makes is its thread's). */
static int
plugin_init_main(void *arg)
{
	struct ibv_plugin *p = arg;

	p->init_rc = p->init(&p->args, &p->state);
	return 0;
}

/* fini, on its lcore, when the capture ends before its loop ran. */
static int
plugin_fini_main(void *arg)
{
	struct ibv_plugin *p = arg;

	p->fini(p->state);
	return 0;
}

/* What init is given (args): the antennas, memory and services. */
static int
args_fill(const struct ibv_plugin_src *src, struct ibv_plugin *p, char *err, size_t len)
{
	unsigned int a;

	p->ant = calloc(src->nant, sizeof(*p->ant));
	if (p->ant == NULL)
		return err_set(err, len, -ENOMEM, "--consumer: out of memory");
	for (a = 0; a < src->nant; a++) {
		const struct antbuf *b = src->b[a];

		str_copy(p->ant[a].name, sizeof(p->ant[a].name), src->ant_name[a]);
		p->ant[a].src_ip = src->ctl->ant[a].src_ip;
		p->ant[a].max_streams = b->g.nslots;
		p->ant[a].slot_bytes = b->g.data_bytes;
		p->ant[a].ring_frames = b->g.nrows;
		p->ant[a].window = b->g.window;
	}
	p->args.gpu = src->ctl->payload_mem == IBV_PAYLOAD_GPU;
	p->args.gpu_dev = p->args.gpu ? src->gpu_dev : -1;
	p->args.instance = p->c->v.instance;
	p->args.nant = src->nant;
	p->args.ant = p->ant;
	p->args.err = p->err;
	p->args.errlen = sizeof(p->err);
	p->args.host = p->c;
	p->args.stream_info = host_stream_info;
	p->args.decode = host_decode;
	p->args.check = host_check;
	p->args.frame_time_ns = host_frame_time_ns;
	return 0;
}

int
ibv_plugin_open(const struct ibv_plugin_src *src, struct ibv_plugin **list, char *err,
		size_t len)
{
	struct ibv_plugin *p = calloc(1, sizeof(*p)), **tail = list;
	int rc;

	while (*tail != NULL)
		tail = &(*tail)->next;
	*tail = p; /* also on failure, for ibv_plugin_close */
	if (p == NULL)
		return err_set(err, len, -1, "--consumer: out of memory");
	p->args.path = src->spec;
	rc = spec_parse(p, src->nant, err, len);
	if (rc == 0)
		rc = lcore_choose(src, *list, p, err, len);
	if (rc == 0)
		rc = plugin_load(p, err, len);
	if (rc == 0)
		rc = handle_make(src, p, err, len);
	if (rc == 0)
		rc = args_fill(src, p, err, len);
	if (rc != 0)
		return -1;
	p->c->v.ctl->writer[p->c->reg].lcore = (int32_t)p->lcore;
	rc = rte_eal_remote_launch(plugin_init_main, p, p->lcore);
	if (rc != 0)
		return err_set(err, len, rc, "--consumer %s: lcore %u: cannot launch its init "
			       "there (%s)", p->args.path, p->lcore, strerror(-rc));
	rte_eal_wait_lcore(p->lcore);
	if (p->init_rc != 0)
		return err_set(err, len, -1, "--consumer %s: its init refused (%d): %s",
			       p->args.path, p->init_rc, p->err[0] ? p->err : "(it said nothing)");
	p->inited = true;
	cons_publish(p->c);
	printf("dpdk-ibvcap: --consumer %s on lcore %u%s: %s\n", p->name, p->lcore,
	       p->scans ? ", following its scans" : "", p->args.path);
	return 0;
}

bool
ibv_plugin_on_lcore(const struct ibv_plugin *list, unsigned int lcore)
{
	for (; list != NULL; list = list->next)
		if (list->placed && list->lcore == lcore)
			return true;
	return false;
}

/* ---- its loop ------------------------------------------------------------- */

/* Blocks to the plugin until the capture stopped and every one was handed
 * over (or the plugin stops, or teardown asks), then its fini: on its own
 * lcore. */
static int
plugin_main(void *arg)
{
	struct ibv_plugin *p = arg;
	struct ibvcap *c = p->c;
	struct timespec nap = { .tv_sec = 0, .tv_nsec = 200000 };
	int rc;

	while (!p->quit) {
		rc = cons_block_try(c);
		if (rc == 0) {
			c->held = true;
			rc = p->block(p->state, &c->blk);
			cons_block_release(c, c->checked);
			c->held = c->checked = false;
			cons_publish(p->c);
			if (rc != 0) {
				p->rc = rc;
				break;
			}
			continue;
		}
		if (rc == -ENODATA)
			break;
		if (wall_ns() - p->beat_ns > 100000000) {
			cons_publish(p->c);
			p->beat_ns = wall_ns();
		}
		nanosleep(&nap, NULL);
	}
	cons_publish(p->c);
	p->fini(p->state);
	p->inited = false;
	return 0;
}

void
ibv_plugin_start(struct ibv_plugin *list)
{
	struct ibv_plugin *p;

	for (p = list; p != NULL; p = p->next) {
		int rc = rte_eal_remote_launch(plugin_main, p, p->lcore);

		if (rc != 0) /* not expected: its lcore waited since its init */
			fprintf(stderr, "dpdk-ibvcap: --consumer %s: lcore %u: cannot launch it "
				"(%s): it reads nothing\n", p->args.path, p->lcore, strerror(-rc));
		p->running = rc == 0;
	}
}

/* Wait for p's lcore to end its loop, its line on stdout. @return 0, -1
 * it stopped itself (said). */
static int
plugin_join(struct ibv_plugin *p)
{
	const struct ibvcap_stats *st = &p->c->st;

	rte_eal_wait_lcore(p->lcore);
	p->running = false;
	printf("dpdk-ibvcap: --consumer %s: %llu blocks, %llu frames, %llu overrun%s\n", p->name,
	       (unsigned long long)st->blocks, (unsigned long long)st->frames,
	       (unsigned long long)st->overrun, p->rc ? " (it stopped itself)" : "");
	if (p->rc != 0) {
		fprintf(stderr, "dpdk-ibvcap: --consumer %s: its block call returned %d: it "
			"stopped, the capture went on\n", p->args.path, p->rc);
		return -1;
	}
	return 0;
}

int
ibv_plugin_join(struct ibv_plugin *list)
{
	struct ibv_plugin *p;
	int rc = 0;

	for (p = list; p != NULL; p = p->next)
		if (p->running && plugin_join(p) < 0)
			rc = -1;
	return rc;
}

void
ibv_plugin_close(struct ibv_plugin *list)
{
	struct ibv_plugin *p, *next;

	for (p = list; p != NULL; p = next) {
		next = p->next;
		if (p->running) {
			p->quit = 1;
			rte_eal_wait_lcore(p->lcore);
			p->running = false;
		}
		if (p->inited && rte_eal_remote_launch(plugin_fini_main, p, p->lcore) == 0)
			rte_eal_wait_lcore(p->lcore);
		if (p->c != NULL) {
			if (p->c->reg >= 0)
				shm_writer_release(p->c->v.ctl, p->c->reg);
			cons_select_free(p->c);
			free(p->c->snap);
			free(p->c);
		}
		free(p->ant);
		if (p->dl != NULL)
			dlclose(p->dl);
		free(p);
	}
}
