/* SPDX-License-Identifier: BSD-3-Clause */
/* Plugins --consumer must refuse, naming the file and the fault:
 * -DPLUGIN_ABI=N: every symbol, but ABI N; without it: ibvcap_plugin_abi
 * and ibvcap_plugin_init only (no _block, no _fini). */
#include <ibvcap_plugin.h>

#ifdef PLUGIN_ABI
const uint32_t ibvcap_plugin_abi = PLUGIN_ABI;
#else
const uint32_t ibvcap_plugin_abi = IBVCAP_PLUGIN_ABI;
#endif

int
ibvcap_plugin_init(const struct ibvcap_plugin_args *args, void **state)
{
	(void)args;
	*state = 0;
	return 0;
}

#ifdef PLUGIN_ABI
int
ibvcap_plugin_block(void *state, const struct ibvcap_block *blk)
{
	(void)state;
	(void)blk;
	return 0;
}

void
ibvcap_plugin_fini(void *state)
{
	(void)state;
}
#endif
