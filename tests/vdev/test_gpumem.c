/* SPDX-License-Identifier: BSD-3-Clause */
/* The GPUDirect registration path with host memory standing in for GPU
 * memory (no GPU here): rte_extmem registration, DMA mapping per port with
 * vdevs refusing (ENOTSUP, counted), re-registration, bad ranges. */

#include <stdlib.h>

#include <rte_eal.h>
#include <rte_ethdev.h>

#include "../unit/check.h"
#include "gpumem.h"

int
main(int argc, char **argv)
{
	size_t page = 4096, size = 64 * page;
	uint16_t ports[1] = { 0 };
	unsigned int unmapped = 99;
	char err[256];
	void *mem;

	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	CHECK(rte_eth_dev_count_avail() == 1);
	mem = aligned_alloc(page, size);
	CHECK(mem != NULL);
	CHECK(gpumem_register(mem, size, page, ports, 1, &unmapped, err, sizeof(err)) == 0);
	/* the vdev bus maps nothing and says so (or not): either way no error */
	CHECK(unmapped <= 1);
	printf("net_null0: %s\n", unmapped ? "cannot DMA-map (counted)" : "DMA map is a no-op");
	/* registered twice: accepted (EEXIST) */
	CHECK(gpumem_register(mem, size, page, ports, 1, &unmapped, err, sizeof(err)) == 0);
	gpumem_unregister(mem, size, ports, 1);
	/* not page multiples: refused, with the range named */
	CHECK(gpumem_register((char *)mem + 100, size, page, ports, 1, &unmapped, err,
			      sizeof(err)) != 0);
	CHECK_HAS(err, "is not a whole number of 4096-byte pages");
	CHECK(gpumem_register(mem, size - 1, page, ports, 1, &unmapped, err, sizeof(err)) != 0);
	/* a port that does not exist */
	ports[0] = 7;
	CHECK(gpumem_register(mem, size, page, ports, 1, &unmapped, err, sizeof(err)) != 0);
	CHECK_HAS(err, "port 7");
	free(mem);
	rte_eal_cleanup();
	return check_report("test_gpumem");
}
