/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An in-process consumer of dpdk-ibvcap: a shared object the capture loads
 * with `--consumer LIB.so[,key=value...]` and runs on an EAL lcore of its own,
 * handing it the same time-aligned blocks as libibvcap (<ibvcap.h>) gives
 * a consumer in another process.
 *
 * The object exports four symbols (C linkage):
 *
 *   const uint32_t ibvcap_plugin_abi = IBVCAP_PLUGIN_ABI;
 *   int  ibvcap_plugin_init(const struct ibvcap_plugin_args *args, void **state);
 *   int  ibvcap_plugin_block(void *state, const struct ibvcap_block *blk);
 *   void ibvcap_plugin_fini(void *state);
 *
 * The capture refuses to start, naming the file and what is wrong, when
 * the file cannot be loaded, a symbol is missing, ibvcap_plugin_abi is not
 * the capture's IBVCAP_PLUGIN_ABI, or ibvcap_plugin_init returns non-zero
 * (it then says why in args->err).
 *
 * Threading: init, block and fini run on the plugin's own EAL worker lcore
 * (lcore=N, else the last worker lcore free), one thread, one call at a
 * time: init at start-up, block for each block, fini at the end. The
 * plugin must not launch work on lcores, change its thread's affinity or
 * signal handlers, or exit. The capture never waits for the plugin: blocks the rings
 * overwrote before the plugin took them are lost and counted (the block's
 * overrun, the registry entry's overrun), and rows overwritten while block
 * ran are found afterwards (args->check tells the plugin during the call).
 * A plugin that crashes (a bad pointer, abort) takes the capture down with
 * it: it runs in the capture's process.
 *
 * Memory: with the payload in host memory the views' frame pointers are
 * CPU pointers, valid during the block call. With the payload in GPU
 * memory (--gpu; args->gpu = 1) the valid frames' pointers are device
 * pointers of gpudev device args->gpu_dev (a frame not valid points at a
 * zeroed host frame), and args->decode refuses (-ENOTSUP). The GPU path is
 * written against the capture's payload-memory layer and untested: no
 * gpudev driver on the machines this was built on.
 */
#ifndef IBVCAP_PLUGIN_H
#define IBVCAP_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include <ibvcap.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The plugin interface this header describes: a plugin exports it as
 * ibvcap_plugin_abi; the capture loads only its own number. */
#define IBVCAP_PLUGIN_ABI 1

/** A key=value of --consumer LIB.so,key=value,... not the capture's own
 * (its own: name, antennas, frames, lcore, scans). */
struct ibvcap_plugin_kv {
	const char *key;
	const char *value;
};

/** What the capture gives ibvcap_plugin_init; valid until fini returns. */
struct ibvcap_plugin_args {
	uint32_t abi;                       /**< IBVCAP_PLUGIN_ABI */
	uint32_t gpu;                       /**< 1: frame pointers are device pointers */
	int gpu_dev;                        /**< their gpudev device (-1: host) */
	const char *path;                   /**< LIB.so as given */
	const char *name;                   /**< its registry name (name=, default plugin) */
	const char *instance;               /**< the capture's instance (file prefix) */
	unsigned int nkv;
	const struct ibvcap_plugin_kv *kv;  /**< its own key=values, in order */
	uint64_t antennas;                  /**< the blocks' antennas: bit a (antennas=) */
	uint32_t frames;                    /**< T, frames per block (frames=) */
	unsigned int nant;                  /**< the capture's antennas */
	const struct ibvcap_antenna *ant;   /**< ant[a]: antenna a */
	char *err;                          /**< init's refusal, said by the capture */
	size_t errlen;
	/* services, callable from block (host: the first argument of each) */
	void *host;
	/** stream s of antenna a (the capture's numbers), as ibvcap_stream_info */
	int (*stream_info)(void *host, unsigned int a, unsigned int s, struct ibvcap_stream *out);
	/** frame i of view (k, s) of blk as float32, as ibvcap_decode */
	int (*decode)(void *host, const struct ibvcap_block *blk, uint32_t k, uint32_t s,
		      uint32_t i, float *out, size_t n);
	/** whether the ring overwrote part of blk meanwhile, as ibvcap_check */
	int (*check)(void *host, const struct ibvcap_block *blk);
	/** start time (Unix ns) of frame i of blk */
	int64_t (*frame_time_ns)(void *host, const struct ibvcap_block *blk, uint32_t i);
};

/** The symbols' types, for the capture's dlsym. */
typedef int (*ibvcap_plugin_init_fn)(const struct ibvcap_plugin_args *args, void **state);
/** One block: return 0 to go on, non-zero to stop the plugin (said, counted;
 * the capture goes on). */
typedef int (*ibvcap_plugin_block_fn)(void *state, const struct ibvcap_block *blk);
/** The end: the capture stopped and every block was handed over (or the
 * plugin stopped). */
typedef void (*ibvcap_plugin_fini_fn)(void *state);

/** What a plugin defines (declared here with default visibility, so that
 * a plugin built with -fvisibility=hidden still exports them). */
#define IBVCAP_PLUGIN_EXPORT __attribute__((visibility("default")))
IBVCAP_PLUGIN_EXPORT extern const uint32_t ibvcap_plugin_abi;
IBVCAP_PLUGIN_EXPORT int ibvcap_plugin_init(const struct ibvcap_plugin_args *args, void **state);
IBVCAP_PLUGIN_EXPORT int ibvcap_plugin_block(void *state, const struct ibvcap_block *blk);
IBVCAP_PLUGIN_EXPORT void ibvcap_plugin_fini(void *state);

#ifdef __cplusplus
}
#endif

#endif /* IBVCAP_PLUGIN_H */
