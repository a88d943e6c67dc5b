// SPDX-License-Identifier: GPL-2.0
/*
 * Smart QoS download shaping on IFB devices, for kernels without tc's `ctinfo` action: the
 * tc classifier on a WAN's ingress (qos-tc.ts) that copies the Smart QoS bits of the packet's
 * connection mark into the packet mark, before `mirred` redirects the packet to the WAN's IFB
 * device. The IFB tree's filters read the download code from there (qos-plan.ts).
 *
 * A packet on a WAN's ingress has not met conntrack yet, and a reply still carries the WAN's
 * own address (NAT is undone later), so the connection is looked up by the packet's tuple
 * through the kernel's conntrack kfuncs (bpf_skb_ct_lookup, Linux 6.0+, with BTF): the reply
 * tuple of a NATed connection is in the table as it arrives.
 *
 * Every packet matches (the return value -1 picks the filter's default class), so every
 * packet is redirected; one without a connection keeps mark 0 and lands in Normal.
 * Built by apps/daemon/bpf-build.mjs with clang's BPF target; loaded by `tc` (libbpf).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>

#define SEC(name) __attribute__((section(name), used))
#define __ksym __attribute__((section(".ksyms")))

/* qos-plan.ts CONNECTION_QOS_MASK: the connection mark's download code bits. */
#define CONNECTION_QOS_MASK 0xffff0000u
/* Every packet matches; the filter's action (mirred) runs on it. */
#define MATCH_DEFAULT_CLASS -1
/* The options' first size, which every kernel with the kfunc accepts. */
#define CT_OPTS_SIZE 12
#define IP_OFFSET_MASK 0x1fff

/* Only the field read here; its offset comes from the running kernel's BTF (CO-RE). */
struct nf_conn {
	__u32 mark;
} __attribute__((preserve_access_index));

struct bpf_ct_opts {
	__s32 netns_id;
	__s32 error;
	__u8 l4proto;
	__u8 dir;
	__u8 reserved[2];
};

extern struct nf_conn *bpf_skb_ct_lookup(struct __sk_buff *skb, struct bpf_sock_tuple *tuple, __u32 tuple_size,
					 struct bpf_ct_opts *opts, __u32 opts_size) __ksym;
extern void bpf_ct_release(struct nf_conn *ct) __ksym;

static long (*const skb_load_bytes_relative)(const void *skb, __u32 offset, void *to, __u32 len,
					     __u32 start_header) = (void *)BPF_FUNC_skb_load_bytes_relative;

/* Offsets are from the network header, so the program is the same on Ethernet and L3 WANs. */
static __always_inline int tuple_of(struct __sk_buff *skb, struct bpf_sock_tuple *tuple, __u32 *size, __u8 *proto)
{
	__u32 l4;
	if (skb->protocol == __builtin_bswap16(ETH_P_IP)) {
		struct iphdr ip;
		if (skb_load_bytes_relative(skb, 0, &ip, sizeof(ip), BPF_HDR_START_NET))
			return -1;
		// A fragment after the first has no ports to look up by.
		if (ip.ihl < 5 || (ip.frag_off & __builtin_bswap16(IP_OFFSET_MASK)))
			return -1;
		tuple->ipv4.saddr = ip.saddr;
		tuple->ipv4.daddr = ip.daddr;
		*proto = ip.protocol;
		*size = sizeof(tuple->ipv4);
		l4 = ip.ihl * 4;
	} else if (skb->protocol == __builtin_bswap16(ETH_P_IPV6)) {
		struct ipv6hdr ip6;
		if (skb_load_bytes_relative(skb, 0, &ip6, sizeof(ip6), BPF_HDR_START_NET))
			return -1;
		__builtin_memcpy(tuple->ipv6.saddr, &ip6.saddr, sizeof(tuple->ipv6.saddr));
		__builtin_memcpy(tuple->ipv6.daddr, &ip6.daddr, sizeof(tuple->ipv6.daddr));
		// Extension headers are not walked: such packets keep mark 0 (Normal).
		*proto = ip6.nexthdr;
		*size = sizeof(tuple->ipv6);
		l4 = sizeof(ip6);
	} else {
		return -1;
	}
	if (*proto != IPPROTO_TCP && *proto != IPPROTO_UDP)
		return -1;
	__be16 ports[2];
	if (skb_load_bytes_relative(skb, l4, ports, sizeof(ports), BPF_HDR_START_NET))
		return -1;
	if (*size == sizeof(tuple->ipv4)) {
		tuple->ipv4.sport = ports[0];
		tuple->ipv4.dport = ports[1];
	} else {
		tuple->ipv6.sport = ports[0];
		tuple->ipv6.dport = ports[1];
	}
	return 0;
}

SEC("classifier")
int qos_ingress_mark(struct __sk_buff *skb)
{
	struct bpf_sock_tuple tuple = {};
	__u32 size = 0;
	__u8 proto = 0;
	if (tuple_of(skb, &tuple, &size, &proto))
		return MATCH_DEFAULT_CLASS;
	struct bpf_ct_opts opts = { .netns_id = BPF_F_CURRENT_NETNS, .l4proto = proto };
	struct nf_conn *ct = bpf_skb_ct_lookup(skb, &tuple, size, &opts, CT_OPTS_SIZE);
	if (!ct)
		return MATCH_DEFAULT_CLASS;
	__u32 mark = (skb->mark & ~CONNECTION_QOS_MASK) | (ct->mark & CONNECTION_QOS_MASK);
	// The verifier takes only whole-field writes to the context; keep the store 32 bits wide.
	asm volatile("" : "+r"(mark));
	skb->mark = mark;
	bpf_ct_release(ct);
	return MATCH_DEFAULT_CLASS;
}

char _license[] SEC("license") = "GPL";
