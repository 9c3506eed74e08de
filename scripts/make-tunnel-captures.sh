#!/usr/bin/env bash
# Makes testdata/tunnels/*.pcap: one 200,000-byte TCP upload (Linux 6.18
# TCP, CUBIC) inside each of VXLAN (RFC 7348, VNI 42, UDP 4789; the
# kernel's vxlan device), and, run in user space by
# scripts/userspace_tunnel.py since this kernel builds no geneve, ip_gre or
# gtp module: GENEVE (RFC 8926, VNI 7, one option, Ethernet), GRE with key
# and sequence numbers (RFC 2784, RFC 2890; IPv4 in GRE), GRE transparent
# Ethernet bridging (protocol 0x6558, as gretap sends it) and GTP-U (3GPP
# TS 29.281, G-PDU with a sequence number, UDP 2152). Two network
# namespaces joined by a veth (the underlay, 10.88.0.0/24; inner addresses
# 10.89.N.1 -> 10.89.N.2); tcpdump on the sender's underlay veth, snaplen
# 128. TSO/GSO are off on the veth and the vxlan device, so the capture
# shows one packet per segment. The namespaces, and with them every link
# and tunnel process, are removed on exit.
# Needs root, iproute2, ethtool, tcpdump, python3.
# Usage: scripts/make-tunnel-captures.sh OUTDIR
set -euo pipefail
out=${1:?usage: $0 OUTDIR}
mkdir -p "$out"
a=ccta$$; b=cctb$$
here=$(cd "$(dirname "$0")" && pwd)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  ip netns del "$a" 2>/dev/null || true; ip netns del "$b" 2>/dev/null || true
}
trap cleanup EXIT
ip netns add "$a"; ip netns add "$b"
ip link add "ta$$" type veth peer name "tb$$"
ip link set "ta$$" netns "$a"; ip link set "tb$$" netns "$b"
for ns in "$a" "$b"; do
  ip -n "$ns" link set lo up
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
done
ip -n "$a" link set "ta$$" up; ip -n "$b" link set "tb$$" up
ip -n "$a" addr add 10.88.0.1/24 dev "ta$$"; ip -n "$b" addr add 10.88.0.2/24 dev "tb$$"
ip netns exec "$a" ethtool -K "ta$$" tso off gso off >/dev/null

# capture NAME N FILTER: the upload from 10.89.N.1 to 10.89.N.2 (through
# tunnel device tunN, up in both namespaces) into $out/NAME.pcap, the
# underlay packets FILTER passes.
capture() {
  local name=$1 n=$2 filter=$3 port=$((5500 + $2))
  ip netns exec "$b" python3 -c "
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('10.89.$n.2', $port)); s.listen(1); c, _ = s.accept()
while c.recv(65536): pass
c.close()" &
  local server=$!
  sleep 0.5
  ip netns exec "$a" tcpdump -i "ta$$" -s 128 --immediate-mode -U -w "$out/$name.pcap" "$filter" 2>/dev/null &
  local dump=$!
  sleep 0.7
  ip netns exec "$a" python3 -c "
import socket
s = socket.create_connection(('10.89.$n.2', $port))
s.sendall(b'x' * 200000); s.shutdown(socket.SHUT_WR); s.recv(1); s.close()"
  wait "$server"
  sleep 1; kill -INT "$dump"; wait "$dump" 2>/dev/null || true
  ls -l "$out/$name.pcap"
}

ip -n "$a" link add tun1 type vxlan id 42 local 10.88.0.1 remote 10.88.0.2 dstport 4789 dev "ta$$"
ip -n "$b" link add tun1 type vxlan id 42 local 10.88.0.2 remote 10.88.0.1 dstport 4789 dev "tb$$"
ip -n "$a" addr add 10.89.1.1/24 dev tun1; ip -n "$b" addr add 10.89.1.2/24 dev tun1
ip -n "$a" link set tun1 up; ip -n "$b" link set tun1 up
ip netns exec "$a" ethtool -K tun1 tso off gso off >/dev/null
capture vxlan_vni42 1 'udp port 4789'
ip -n "$a" link del tun1; ip -n "$b" link del tun1

# userspace NAME N MODE FILTER: the same through scripts/userspace_tunnel.py,
# whose two ends are stopped afterwards (GRE ends take every GRE packet).
userspace() {
  local name=$1 n=$2 mode=$3 filter=$4
  ip netns exec "$a" python3 "$here/userspace_tunnel.py" "$mode" "tun$n" 10.88.0.1 10.88.0.2 "10.89.$n.1/24" &
  pids+=($!)
  ip netns exec "$b" python3 "$here/userspace_tunnel.py" "$mode" "tun$n" 10.88.0.2 10.88.0.1 "10.89.$n.2/24" &
  pids+=($!)
  sleep 1
  capture "$name" "$n" "$filter"
  kill "${pids[@]}"; wait "${pids[@]}" 2>/dev/null || true; pids=()
}
userspace geneve_vni7 2 geneve 'udp port 6081'
userspace gre_key_seq 3 gre-key-seq 'ip proto 47'
userspace gretap 4 gretap 'ip proto 47'
userspace gtpu 5 gtpu 'udp port 2152'
