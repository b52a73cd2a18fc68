/* SPDX-License-Identifier: BSD-3-Clause */
/* A slow in-process consumer for consumer-plugin: each block call sleeps
 * sleep_ms=MS, then checks the block (args->check: rows the ring overwrote
 * meanwhile lose their valid bits) and counts what is still valid. At fini
 * it writes out=FILE: {"blocks": B, "frames": F, "block_overrun": O}, F
 * the valid frames it was handed intact, O the sum of the blocks' overrun.
 * fail_after=N: its Nth block call returns -EIO (the plugin stops, the
 * capture goes on). Where it ran: "thread" (init's thread name, EAL's
 * "rte-worker-N" on worker lcore N), "same_thread" (1: init, every block
 * and fini on one thread), "main_thread" (1: that is the process's main
 * thread). times=1: "times", [frame start (Unix ns), valid views] for each
 * block frame with a valid view, in the order handed. */
#define _GNU_SOURCE /* pthread_getname_np */
#include <errno.h>
#include <pthread.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ibvcap_plugin.h>

const uint32_t ibvcap_plugin_abi = IBVCAP_PLUGIN_ABI;

struct slow {
	const struct ibvcap_plugin_args *a;
	char out[512];
	long ms, fail_after;
	uint64_t blocks, frames, overrun;
	char thread[32];
	long tid;
	int same_thread;
	int times;
	FILE *tf;          /* times=1: the pairs, until fini copies them out */
};

static long
tid_now(void)
{
	return (long)syscall(SYS_gettid);
}

int
ibvcap_plugin_init(const struct ibvcap_plugin_args *a, void **state)
{
	struct slow *s = calloc(1, sizeof(*s));
	unsigned int i;

	if (s == NULL)
		return -ENOMEM;
	s->a = a;
	for (i = 0; i < a->nkv; i++) {
		if (strcmp(a->kv[i].key, "sleep_ms") == 0)
			s->ms = strtol(a->kv[i].value, NULL, 10);
		else if (strcmp(a->kv[i].key, "fail_after") == 0)
			s->fail_after = strtol(a->kv[i].value, NULL, 10);
		else if (strcmp(a->kv[i].key, "times") == 0)
			s->times = atoi(a->kv[i].value);
		else if (strcmp(a->kv[i].key, "out") == 0)
			snprintf(s->out, sizeof(s->out), "%s", a->kv[i].value);
	}
	if (s->out[0] == '\0') {
		snprintf(a->err, a->errlen, "out=FILE missing");
		free(s);
		return -EINVAL;
	}
	pthread_getname_np(pthread_self(), s->thread, sizeof(s->thread));
	s->tid = tid_now();
	s->same_thread = 1;
	if (s->times && (s->tf = tmpfile()) == NULL) {
		snprintf(a->err, a->errlen, "times=1: no temporary file");
		free(s);
		return -EIO;
	}
	*state = s;
	return 0;
}

/* times=1: frame i's start and its valid views, for each frame with one. */
static void
times_add(struct slow *s, const struct ibvcap_block *blk)
{
	uint32_t i, k, v, n;

	for (i = 0; i < blk->frames; i++) {
		n = 0;
		for (k = 0; k < blk->nants; k++)
			for (v = 0; v < blk->nstreams[k]; v++)
				n += blk->view[k][v].valid[i / 64] >> (i % 64) & 1;
		if (n > 0)
			fprintf(s->tf, "%s[%" PRId64 ", %u]", ftell(s->tf) ? ", " : "",
				s->a->frame_time_ns(s->a->host, blk, i), n);
	}
}

int
ibvcap_plugin_block(void *state, const struct ibvcap_block *blk)
{
	struct slow *s = state;
	struct timespec nap = { .tv_sec = s->ms / 1000, .tv_nsec = s->ms % 1000 * 1000000 };
	uint32_t k, v;

	if (tid_now() != s->tid)
		s->same_thread = 0;
	nanosleep(&nap, NULL);
	s->a->check(s->a->host, blk);
	if (s->tf != NULL)
		times_add(s, blk);
	for (k = 0; k < blk->nants; k++)
		for (v = 0; v < blk->nstreams[k]; v++)
			s->frames += blk->view[k][v].nvalid;
	s->blocks++;
	s->overrun += blk->overrun;
	return s->fail_after > 0 && s->blocks == (uint64_t)s->fail_after ? -EIO : 0;
}

void
ibvcap_plugin_fini(void *state)
{
	struct slow *s = state;
	FILE *f = fopen(s->out, "w");
	int c;

	if (tid_now() != s->tid)
		s->same_thread = 0;
	if (f != NULL) {
		fprintf(f, "{\"blocks\": %" PRIu64 ", \"frames\": %" PRIu64 ", \"block_overrun\": %"
			PRIu64 ", \"thread\": \"%s\", \"same_thread\": %d, \"main_thread\": %d",
			s->blocks, s->frames, s->overrun, s->thread, s->same_thread,
			s->tid == (long)getpid());
		if (s->tf != NULL) {
			fputs(", \"times\": [", f);
			rewind(s->tf);
			while ((c = fgetc(s->tf)) != EOF)
				fputc(c, f);
			fputs("]", f);
		}
		fputs("}\n", f);
		fclose(f);
	}
	if (s->tf != NULL)
		fclose(s->tf);
	free(s);
}
