// 802.1Q tagging for a veth pair on a kernel without the 8021q module
// (scripts/make-user-captures.sh): tc clsact egress pushes VLAN id 100 on
// every frame (bpf_skb_vlan_push), ingress pops it (bpf_skb_vlan_pop), so
// both ends' captures (taken outside tc: egress after, ingress before it)
// hold tagged frames, as on a trunk port. Helper ids and semantics:
// include/uapi/linux/bpf.h at 6.18.
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>

#define SEC(name) __attribute__((section(name), used))

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_TO_BE16(x) __builtin_bswap16(x)
#else
#define HOST_TO_BE16(x) (x)
#endif

static long (*bpf_skb_vlan_push)(void* skb, __be16 vlan_proto,
                                 __u16 vlan_tci) = (void*)
    BPF_FUNC_skb_vlan_push;
static long (*bpf_skb_vlan_pop)(void* skb) = (void*)BPF_FUNC_skb_vlan_pop;

enum { kVlanId = 100 };

SEC("tc/egress")
int vlan_push(struct __sk_buff* skb) {
  bpf_skb_vlan_push(skb, HOST_TO_BE16(ETH_P_8021Q), kVlanId);
  return TC_ACT_OK;
}

SEC("tc/ingress")
int vlan_pop(struct __sk_buff* skb) {
  if (skb->vlan_present) bpf_skb_vlan_pop(skb);
  return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
