// Step CE marker for tc clsact egress (cls_bpf, direct action).
//
// A virtual queue drains at the bottleneck rate; each IPv4 packet adds its
// length. When the virtual backlog exceeds the threshold, ECT(0)/ECT(1)
// packets are set to CE (RFC 3168 section 5: CE = 0b11 in the ECN field)
// with the IPv4 header checksum updated (RFC 1624 incremental update, done
// by bpf_l3_csum_replace). Not-ECT packets pass unmarked; nothing is dropped
// here: drops happen in the pfifo/bfifo behind HTB. With the drain rate equal
// to the HTB rate the virtual backlog tracks the real queue, so the
// threshold acts like DCTCP's K (RFC 8257 section 3.1) on the real queue.
//
// The rate and the threshold are read-only globals: libbpf (which tc uses
// to load the object) puts them in a .rodata map initialised from the ELF
// section, and the lab writes the run's values into that section before
// loading (step_marker.cc).
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>

#define SEC(name) __attribute__((section(name), used))
#define __uint(name, val) int(*name)[val]
#define __type(name, val) typeof(val)* name

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_TO_BE16(x) __builtin_bswap16(x)
#else
#define HOST_TO_BE16(x) (x)
#endif

// Helper ids from include/uapi/linux/bpf.h.
static void* (*bpf_map_lookup_elem)(void* map, const void* key) = (void*)
    BPF_FUNC_map_lookup_elem;
static __u64 (*bpf_ktime_get_ns)(void) = (void*)BPF_FUNC_ktime_get_ns;
static long (*bpf_skb_load_bytes)(const void* skb, __u32 offset, void* to,
                                  __u32 len) = (void*)BPF_FUNC_skb_load_bytes;
static long (*bpf_skb_store_bytes)(void* skb, __u32 offset, const void* from,
                                   __u32 len, __u64 flags) = (void*)
    BPF_FUNC_skb_store_bytes;
static long (*bpf_l3_csum_replace)(void* skb, __u32 offset, __u64 from,
                                   __u64 to, __u64 size) = (void*)
    BPF_FUNC_l3_csum_replace;

// Patched per run (non-zero defaults keep them in .rodata, not .bss).
const volatile __u64 step_marker_rate_bits_per_s = 1;
const volatile __u64 step_marker_threshold_bytes = 1;

struct virtual_queue {
  __u64 backlog_bytes;
  __u64 last_ns;
  __u64 packets_seen;
  __u64 packets_marked;
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct virtual_queue);
} step_marker_state SEC(".maps");

SEC("tc")
int step_mark(struct __sk_buff* skb) {
  __u32 key = 0;
  struct virtual_queue* queue = bpf_map_lookup_elem(&step_marker_state, &key);
  if (!queue || skb->protocol != HOST_TO_BE16(ETH_P_IP)) return TC_ACT_OK;
  __u64 now_ns = bpf_ktime_get_ns();
  __u64 elapsed_ns = now_ns - queue->last_ns;
  if (elapsed_ns > 1000000000ULL)
    elapsed_ns = 1000000000ULL;  // idle: empty anyway
  __u64 drained_bytes =
      elapsed_ns * (step_marker_rate_bits_per_s / 8) / 1000000000ULL;
  queue->backlog_bytes = drained_bytes >= queue->backlog_bytes
                             ? 0
                             : queue->backlog_bytes - drained_bytes;
  queue->last_ns = now_ns;
  queue->backlog_bytes += skb->len;
  queue->packets_seen++;
  if (queue->backlog_bytes <= step_marker_threshold_bytes) return TC_ACT_OK;

  __u16 first_two;  // IPv4 version/IHL byte, then the TOS byte
  if (bpf_skb_load_bytes(skb, ETH_HLEN, &first_two, 2) < 0) return TC_ACT_OK;
  __u8 tos = ((__u8*)&first_two)[1];
  if ((tos & 3) == 0 || (tos & 3) == 3)
    return TC_ACT_OK;  // Not-ECT, or CE already
  __u16 marked = first_two;
  ((__u8*)&marked)[1] = tos | 3;
  bpf_l3_csum_replace(skb, ETH_HLEN + 10, first_two, marked, 2);
  bpf_skb_store_bytes(skb, ETH_HLEN, &marked, 2, 0);
  queue->packets_marked++;
  return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
