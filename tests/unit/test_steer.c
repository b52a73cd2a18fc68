/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the rte_flow rule builder: the exact item and action arrays. */

#include <rte_byteorder.h>

#include "check.h"
#include "steer.h"

static void
test_rule(bool count)
{
	struct steer_rule_spec s = {
		.src_ip = 0x0A1100D3, /* 10.17.0.211 */
		.dst_ip = 0xEF110002, /* 239.17.0.2 */
		.dport = 36002,
		.queue = 3,
		.group = 0,
		.priority = 0,
		.count = count,
	};
	struct steer_flow f;
	const struct rte_flow_item_ipv4 *ip;
	const struct rte_flow_item_udp *udp, *udpm;
	const struct rte_flow_item_ipv4 *ipm;
	unsigned int a = 0;

	steer_build(&s, &f);
	CHECK(f.attr.ingress == 1);
	CHECK(f.attr.egress == 0);
	CHECK(f.attr.transfer == 0);
	CHECK_EQ_U(f.attr.group, 0);
	CHECK_EQ_U(f.attr.priority, 0);

	/* pattern: ETH (any) / IPV4 src+dst exact / UDP dst port exact / END */
	CHECK(f.items[0].type == RTE_FLOW_ITEM_TYPE_ETH);
	CHECK(f.items[0].spec == NULL && f.items[0].mask == NULL && f.items[0].last == NULL);
	CHECK(f.items[1].type == RTE_FLOW_ITEM_TYPE_IPV4);
	CHECK(f.items[1].last == NULL);
	ip = f.items[1].spec;
	ipm = f.items[1].mask;
	CHECK(ip != NULL && ipm != NULL);
	/* network byte order on the wire: 10.17.0.211 is 0a 11 00 d3 */
	CHECK_EQ_U(((const uint8_t *)&ip->hdr.src_addr)[0], 10);
	CHECK_EQ_U(((const uint8_t *)&ip->hdr.src_addr)[3], 211);
	CHECK_EQ_U(ip->hdr.src_addr, rte_cpu_to_be_32(0x0A1100D3));
	CHECK_EQ_U(ip->hdr.dst_addr, rte_cpu_to_be_32(0xEF110002));
	CHECK_EQ_U(ipm->hdr.src_addr, 0xffffffff);
	CHECK_EQ_U(ipm->hdr.dst_addr, 0xffffffff);
	/* nothing else of IPv4 is matched */
	CHECK_EQ_U(ipm->hdr.next_proto_id, 0);
	CHECK_EQ_U(ipm->hdr.version_ihl, 0);
	CHECK_EQ_U(ipm->hdr.total_length, 0);
	CHECK(f.items[2].type == RTE_FLOW_ITEM_TYPE_UDP);
	udp = f.items[2].spec;
	udpm = f.items[2].mask;
	CHECK_EQ_U(udp->hdr.dst_port, rte_cpu_to_be_16(36002));
	CHECK_EQ_U(((const uint8_t *)&udp->hdr.dst_port)[0], 36002 >> 8);
	CHECK_EQ_U(udpm->hdr.dst_port, 0xffff);
	CHECK_EQ_U(udpm->hdr.src_port, 0);
	CHECK(f.items[3].type == RTE_FLOW_ITEM_TYPE_END);

	/* actions: [COUNT] / QUEUE 3 / END */
	if (count) {
		CHECK(f.actions[a].type == RTE_FLOW_ACTION_TYPE_COUNT);
		CHECK(f.actions[a].conf == &f.count);
		a++;
	}
	CHECK(f.actions[a].type == RTE_FLOW_ACTION_TYPE_QUEUE);
	CHECK_EQ_U(((const struct rte_flow_action_queue *)f.actions[a].conf)->index, 3);
	a++;
	CHECK(f.actions[a].type == RTE_FLOW_ACTION_TYPE_END);
	CHECK(f.actions[a].conf == NULL);
}

static void
test_default(void)
{
	struct steer_flow f;

	steer_build_default(6, 1, &f);
	CHECK(f.attr.ingress == 1);
	CHECK_EQ_U(f.attr.priority, 1);
	CHECK(f.items[0].type == RTE_FLOW_ITEM_TYPE_ETH);
	CHECK(f.items[0].spec == NULL);
	CHECK(f.items[1].type == RTE_FLOW_ITEM_TYPE_END);
	CHECK(f.actions[0].type == RTE_FLOW_ACTION_TYPE_QUEUE);
	CHECK_EQ_U(((const struct rte_flow_action_queue *)f.actions[0].conf)->index, 6);
	CHECK(f.actions[1].type == RTE_FLOW_ACTION_TYPE_END);
}

/* The arrays point into the struct itself: two builds do not share. */
static void
test_independent(void)
{
	struct steer_rule_spec a = { .src_ip = 1, .dst_ip = 0xEF000001, .dport = 1, .queue = 0 };
	struct steer_rule_spec b = { .src_ip = 2, .dst_ip = 0xEF000002, .dport = 2, .queue = 1 };
	struct steer_flow fa, fb;

	steer_build(&a, &fa);
	steer_build(&b, &fb);
	CHECK(fa.items[1].spec == &fa.ip_spec);
	CHECK(fb.items[1].spec == &fb.ip_spec);
	CHECK_EQ_U(((const struct rte_flow_item_ipv4 *)fa.items[1].spec)->hdr.src_addr,
		   rte_cpu_to_be_32(1));
	CHECK_EQ_U(((const struct rte_flow_action_queue *)fb.actions[0].conf)->index, 1);
}

int
main(void)
{
	test_rule(false);
	test_rule(true);
	test_default();
	test_independent();
	return check_report("test_steer");
}
