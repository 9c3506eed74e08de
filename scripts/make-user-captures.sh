#!/usr/bin/env bash
# Makes the captures of testdata/user/ the way users make them (issue 15
# item 8): an HTTP download (python3 -m http.server, curl) captured with
# tcpdump -s 128 at the client, in private network namespaces made (and
# removed) here:
#   loopback.pcap  client and server on one host: tcpdump -i lo
#                  (MSS 65,483, GSO super-segments on lo);
#   tso_gro.pcap   across a veth pair left with its offloads on (TSO/GSO at
#                  the server, GRO at the client, ethtool -K), through a
#                  100 Mb/s HTB + pfifo 100 bottleneck at the server;
#   vlan.pcap      across a veth pair whose frames carry 802.1Q VLAN 100
#                  (this kernel has no 8021q module: a tc eBPF program,
#                  scripts/vlan_tag.bpf.c, pushes the tag on egress and
#                  pops it on ingress), same bottleneck, no GSO at
#                  the server (one MTU-sized frame per packet).
# Needs root, iproute2, ethtool (apt-get install ethtool), tcpdump, curl, python3, clang (-target
# bpf). Usage: scripts/make-user-captures.sh OUTDIR
set -euo pipefail
out=$(realpath "${1:?usage: $0 OUTDIR}")
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
s=ccus$$; c=ccuc$$
cleanup() {
  ip netns del "$s" 2>/dev/null || true
  ip netns del "$c" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
head -c 2000000 /dev/zero >"$tmp/file.bin"

# download NETNS_SERVER NETNS_CLIENT ADDRESS IFACE OUT: serves file.bin in
# the server namespace, captures IFACE in the client's while curl fetches.
download() {
  ip netns exec "$1" python3 -m http.server 8000 --bind "$3" \
    --directory "$tmp" >/dev/null 2>&1 &
  local server=$!
  sleep 2
  ip netns exec "$2" tcpdump -Z root -i "$4" -s 128 -U --immediate-mode \
    -w "$5" tcp 2>"$tmp/tcpdump.err" &
  local dump=$!
  sleep 3
  ip netns exec "$2" curl -sS -o /dev/null "http://$3:8000/file.bin"
  sleep 2
  kill "$dump"; wait "$dump" || true
  kill "$server"; wait "$server" 2>/dev/null || true
  cat "$tmp/tcpdump.err" >&2
}

# Two namespaces joined by a veth pair vs (server, 10.77.0.1) - vc
# (client, 10.77.0.2), a 100 Mb/s HTB bottleneck with a 100-packet pfifo
# at the server (this kernel has no netem: the queue makes the delay).
pair() {
  ip netns add "$s"; ip netns add "$c"
  ip link add "vs$$" netns "$s" type veth peer name "vc$$" netns "$c"
  ip -n "$s" addr add 10.77.0.1/24 dev "vs$$"
  ip -n "$c" addr add 10.77.0.2/24 dev "vc$$"
  for n in "$s" "$c"; do ip -n "$n" link set lo up; done
  ip -n "$s" link set "vs$$" up; ip -n "$c" link set "vc$$" up
  tc -n "$s" qdisc add dev "vs$$" root handle 1: htb default 1
  tc -n "$s" class add dev "vs$$" parent 1: classid 1:1 htb rate 100mbit
  tc -n "$s" qdisc add dev "vs$$" parent 1:1 pfifo limit 100
}
unpair() { ip netns del "$s"; ip netns del "$c"; }

# (a) Loopback.
ip netns add "$s"; ip -n "$s" link set lo up
download "$s" "$s" 127.0.0.1 lo "$out/loopback.pcap"
ip netns del "$s"

# (b) TSO/GSO at the server, GRO at the client.
pair
ip netns exec "$s" ethtool -K "vs$$" tso on gso on
ip netns exec "$c" ethtool -K "vc$$" gro on
ip netns exec "$c" ethtool -k "vc$$" | grep -E '^generic-receive-offload' >&2
download "$s" "$c" 10.77.0.1 "vc$$" "$out/tso_gro.pcap"
unpair

# (c) VLAN 100 tags on the wire, one packet per frame as on a real link
# (no GSO super-packets passed across the veth, as the lab sets it).
pair
ip -n "$s" link set dev "vs$$" gso_max_size 1500 gso_max_segs 1
clang -O2 -target bpf -I"/usr/include/$(gcc -print-multiarch)" \
  -c "$here/vlan_tag.bpf.c" -o "$tmp/vlan_tag.bpf.o"
for end in "$s vs$$" "$c vc$$"; do
  set -- $end
  tc -n "$1" qdisc add dev "$2" clsact
  tc -n "$1" filter add dev "$2" egress bpf da obj "$tmp/vlan_tag.bpf.o" \
    sec tc/egress
  tc -n "$1" filter add dev "$2" ingress bpf da obj "$tmp/vlan_tag.bpf.o" \
    sec tc/ingress
done
download "$s" "$c" 10.77.0.1 "vc$$" "$out/vlan.pcap"
unpair
ls -l "$out"
