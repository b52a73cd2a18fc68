/* SPDX-License-Identifier: BSD-3-Clause */
/* A slow in-process consumer for consumer-plugin: each block call sleeps
 * sleep_ms=MS, then checks the block (args->check: rows the ring overwrote
 * meanwhile lose their valid bits) and counts what is still valid. At fini
 * it writes out=FILE: {"blocks": B, "frames": F, "block_overrun": O}, F
 * the valid frames it was handed intact, O the sum of the blocks' overrun.
 * fail_after=N: its Nth block call returns -EIO (the plugin stops, the
 * capture goes on). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ibvcap_plugin.h>

const uint32_t ibvcap_plugin_abi = IBVCAP_PLUGIN_ABI;

struct slow {
	const struct ibvcap_plugin_args *a;
	char out[512];
	long ms, fail_after;
	uint64_t blocks, frames, overrun;
};

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
		else if (strcmp(a->kv[i].key, "out") == 0)
			snprintf(s->out, sizeof(s->out), "%s", a->kv[i].value);
	}
	if (s->out[0] == '\0') {
		snprintf(a->err, a->errlen, "out=FILE missing");
		free(s);
		return -EINVAL;
	}
	*state = s;
	return 0;
}

int
ibvcap_plugin_block(void *state, const struct ibvcap_block *blk)
{
	struct slow *s = state;
	struct timespec nap = { .tv_sec = s->ms / 1000, .tv_nsec = s->ms % 1000 * 1000000 };
	uint32_t k, v;

	nanosleep(&nap, NULL);
	s->a->check(s->a->host, blk);
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

	if (f != NULL) {
		fprintf(f, "{\"blocks\": %" PRIu64 ", \"frames\": %" PRIu64 ", \"block_overrun\": %"
			PRIu64 "}\n", s->blocks, s->frames, s->overrun);
		fclose(f);
	}
	free(s);
}
