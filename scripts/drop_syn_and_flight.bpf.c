// Drops, on tc clsact ingress (cls_bpf, direct action), the first SYN and
// the first DROP_DATA_SEGMENTS TCP segments carrying data, once each: a
// connection whose SYN is resent and whose first flight is lost, so the
// sender's first data retransmission comes from its retransmission timer
// (RFC 6298 section 5). Used by scripts/make-syn-rto-capture.sh only.
#include <linux/bpf.h>
#include <linux/pkt_cls.h>

#define SEC(name) __attribute__((section(name), used))
#define __uint(name, val) int(*name)[val]
#define __type(name, val) typeof(val)* name

#ifndef DROP_DATA_SEGMENTS
#define DROP_DATA_SEGMENTS 10
#endif

static void* (*bpf_map_lookup_elem)(void* map, const void* key) = (void*)
    BPF_FUNC_map_lookup_elem;
static long (*bpf_skb_load_bytes)(const void* skb, __u32 offset, void* to,
                                  __u32 len) = (void*)BPF_FUNC_skb_load_bytes;

// [0]: SYNs dropped, [1]: data segments dropped.
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 2);
  __type(key, __u32);
  __type(value, __u32);
} drop_counts SEC(".maps");

SEC("classifier")
int drop_syn_and_flight(struct __sk_buff* skb) {
  __u8 ip[20];
  __u8 tcp[14];
  // Ethernet II (14 bytes) carrying IPv4 (RFC 791 section 3.1).
  if (skb->protocol != __builtin_bswap16(0x0800)) return TC_ACT_OK;
  if (bpf_skb_load_bytes(skb, 14, ip, sizeof(ip)) < 0) return TC_ACT_OK;
  if (ip[9] != 6) return TC_ACT_OK;
  const __u32 ihl = (ip[0] & 0x0f) * 4;
  const __u32 total = (__u32)ip[2] << 8 | ip[3];
  if (bpf_skb_load_bytes(skb, 14 + ihl, tcp, sizeof(tcp)) < 0)
    return TC_ACT_OK;
  const __u32 doff = (tcp[12] >> 4) * 4;
  const __u8 flags = tcp[13];
  __u32 key = 0;
  if ((flags & 0x12) == 0x02) {  // SYN without ACK.
    __u32* syns = bpf_map_lookup_elem(&drop_counts, &key);
    if (syns && *syns == 0) {
      *syns = 1;
      return TC_ACT_SHOT;
    }
    return TC_ACT_OK;
  }
  if (total <= ihl + doff) return TC_ACT_OK;
  key = 1;
  __u32* data = bpf_map_lookup_elem(&drop_counts, &key);
  if (data && *data < DROP_DATA_SEGMENTS) {
    *data += 1;
    return TC_ACT_SHOT;
  }
  return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
