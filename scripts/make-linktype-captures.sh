#!/usr/bin/env bash
# Makes testdata/pcap-format/ccreplay_sll2_ipv6.pcap: a real capture in the
# Linux "cooked v2" link type (what `tcpdump -i any` writes on current
# kernels) of one short IPv6 TCP transfer with RFC 3168 ECN between two
# private network namespaces made (and removed) here. (This kernel has no
# 8021q module, so VLAN-tagged frames are covered by hand-built frames in
# parsers/packet_decoder_test.cc instead.) Needs root, iproute2, tcpdump,
# iperf3. Usage: scripts/make-linktype-captures.sh OUTDIR
set -euo pipefail
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out"
a=ccla$$; b=cclb$$
cleanup() { ip netns del "$a" 2>/dev/null || true; ip netns del "$b" 2>/dev/null || true; }
trap cleanup EXIT
ip netns add "$a"; ip netns add "$b"
ip link add "va$$" type veth peer name "vb$$"
ip link set "va$$" netns "$a"; ip link set "vb$$" netns "$b"
ip -n "$a" link set lo up; ip -n "$b" link set lo up
ip -n "$a" link set "va$$" up; ip -n "$b" link set "vb$$" up
ip -n "$a" addr add fd77::1/64 dev "va$$" nodad; ip -n "$b" addr add fd77::2/64 dev "vb$$" nodad
ip netns exec "$a" sysctl -qw net.ipv4.tcp_ecn=1; ip netns exec "$b" sysctl -qw net.ipv4.tcp_ecn=1
ip netns exec "$b" iperf3 -s -D -1 -p 5302 >/dev/null
sleep 0.5
ip netns exec "$a" tcpdump -i any -s 128 -w "$out/ccreplay_sll2_ipv6.pcap" -U 'tcp' 2>/dev/null &
pid=$!
sleep 0.7
ip netns exec "$a" iperf3 -6 -c fd77::2 -p 5302 -n 64K >/dev/null
sleep 0.3; kill "$pid"; wait "$pid" 2>/dev/null || true
ls -l "$out/ccreplay_sll2_ipv6.pcap"
