#!/usr/bin/env bash
# Makes testdata/lossy/syn_resent_rto.pcap: a sender-side capture of a
# 300 KB upload between two network namespaces made (and removed) here,
# whose first SYN and whole first flight (the initial window, 10 segments)
# are dropped once on the receiver's ingress by a cls_bpf program
# (scripts/drop_syn_and_flight.bpf.c). The client resends its SYN after
# 1 s, takes its only handshake RTT sample from the SYN-ACK's timestamp
# echo (Karn's rule forbids the sequence sample; Linux
# tcp_ack_update_rtt()), and resends the first flight from its
# retransmission timer. TLP is off (net.ipv4.tcp_early_retrans=0), so the
# first data retransmission is a timeout; the client's TcpTimeouts and
# TCPLossProbes counters (nstat) are printed as the kernel's own account.
# Needs root, iproute2, tc with libbpf, clang, tcpdump, python3.
# Usage: scripts/make-syn-rto-capture.sh OUTDIR
set -euo pipefail
out=${1:?usage: $0 OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
a=ccra$$; b=ccrb$$; work=$(mktemp -d)
cleanup() {
  ip netns del "$a" 2>/dev/null || true; ip netns del "$b" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
clang -O2 -g -target bpf -I"/usr/include/$(gcc -print-multiarch)" \
  -c "$here/drop_syn_and_flight.bpf.c" -o "$work/drop.o"
ip netns add "$a"; ip netns add "$b"
ip link add "ra$$" type veth peer name "rb$$"
ip link set "ra$$" netns "$a"; ip link set "rb$$" netns "$b"
ip -n "$a" link set lo up; ip -n "$b" link set lo up
ip -n "$a" link set "ra$$" up; ip -n "$b" link set "rb$$" up
ip -n "$a" addr add 10.77.0.1/24 dev "ra$$"; ip -n "$b" addr add 10.77.0.2/24 dev "rb$$"
# One packet per MSS on the wire (no TSO/GSO super-segments).
ip netns exec "$a" ethtool -K "ra$$" tso off gso off >/dev/null
ip netns exec "$a" sysctl -qw net.ipv4.tcp_early_retrans=0
tc -n "$b" qdisc add dev "rb$$" clsact
tc -n "$b" filter add dev "rb$$" ingress bpf direct-action obj "$work/drop.o" sec classifier
ip netns exec "$b" python3 -c '
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.77.0.2", 5401)); s.listen(1); c, _ = s.accept()
while c.recv(65536): pass
c.close()' &
server=$!
sleep 0.5
ip netns exec "$a" tcpdump -i "ra$$" -s 128 --immediate-mode -w "$out/syn_resent_rto.pcap" -U tcp 2>/dev/null &
dump=$!
sleep 0.7
ip netns exec "$a" nstat -n
ip netns exec "$a" python3 -c '
import socket
s = socket.create_connection(("10.77.0.2", 5401))
s.sendall(b"x" * 300000); s.shutdown(socket.SHUT_WR); s.recv(1); s.close()'
wait "$server"
sleep 1; kill -INT "$dump"; wait "$dump" 2>/dev/null || true
ip netns exec "$a" nstat -a | grep -E 'TcpRetransSegs|TcpExtTCPTimeouts|TcpExtTCPLossProbes|TcpExtTCPSynRetrans' || true
ls -l "$out/syn_resent_rto.pcap"
