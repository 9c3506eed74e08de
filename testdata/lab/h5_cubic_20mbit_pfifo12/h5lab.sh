#!/bin/bash
# Host-state test material on a private namespace testbed.
# Namespaces h5snd / h5rtr / h5rcv, 10.95.{1,2}.0/24 and fd95:{1,2}::/64,
# HTB $RATE + pfifo 100 on the router egress; iperf3 on port 5299;
# ss samplers in four formats; tcp_probe + tcp_cong_state_set from a private
# tracefs mount's own instance; ngtcp2 gtlsserver/gtlsclient reno and cubic.
set -euo pipefail
OUT=${1:?outdir}; mkdir -p "$OUT"
RATE=20mbit; SECS=3; QLIM=${QLIM:-100}
S=h5snd; R=h5rtr; D=h5rcv; PORT=5299
TRACEFS=/tmp/hs/tracefs; INST=$TRACEFS/instances/h5probe
PIDS=()
cleanup() {
  for p in "${PIDS[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
  sleep 0.3
  [ -d "$INST" ] && { echo 0 > "$INST/tracing_on" 2>/dev/null || true; rmdir "$INST" 2>/dev/null || true; }
  mountpoint -q $TRACEFS && umount $TRACEFS || true
  for n in $S $R $D; do ip netns del $n 2>/dev/null || true; done
  return 0
}
trap cleanup EXIT
for n in $S $R $D; do ip netns list | grep -qw $n && { echo "netns $n exists" >&2; trap - EXIT; exit 1; }; done
for n in $S $R $D; do ip netns add $n; ip -n $n link set lo up; done
ip link add h5s0 netns $S type veth peer name h5r0 netns $R
ip link add h5r1 netns $R type veth peer name h5d1 netns $D
ip -n $S addr add 10.95.1.1/24 dev h5s0;   ip -n $R addr add 10.95.1.254/24 dev h5r0
ip -n $R addr add 10.95.2.254/24 dev h5r1; ip -n $D addr add 10.95.2.1/24 dev h5d1
ip -n $S addr add fd95:1::1/64 dev h5s0 nodad;   ip -n $R addr add fd95:1::fe/64 dev h5r0 nodad
ip -n $R addr add fd95:2::fe/64 dev h5r1 nodad;  ip -n $D addr add fd95:2::1/64 dev h5d1 nodad
for l in "$S h5s0" "$R h5r0" "$R h5r1" "$D h5d1"; do set -- $l; ip -n $1 link set $2 up; done
ip -n $S route add default via 10.95.1.254; ip -n $D route add default via 10.95.2.254
ip -n $S -6 route add default via fd95:1::fe; ip -n $D -6 route add default via fd95:2::fe
ip netns exec $R sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
ip -n $S link set dev h5s0 gso_max_size 1500 gso_max_segs 1
for n in $S $D; do ip netns exec $n sysctl -qw net.ipv4.tcp_ecn=1; done
ip netns exec $R tc qdisc add dev h5r1 root handle 1: htb default 10 r2q 100
ip netns exec $R tc class add dev h5r1 parent 1: classid 1:10 htb rate $RATE ceil $RATE
ip netns exec $R tc qdisc add dev h5r1 parent 1:10 handle 10: pfifo limit ${QLIM:-100}
sleep 0.5

# ---- tracefs instance of our own -----------------------------------------
mkdir -p $TRACEFS; mount -t tracefs nodev $TRACEFS; mkdir $INST
echo mono > $INST/trace_clock; echo 8192 > $INST/buffer_size_kb
for e in tcp_probe tcp_cong_state_set; do
  echo "sport == $PORT || dport == $PORT" > $INST/events/tcp/$e/filter
  echo 1 > $INST/events/tcp/$e/enable
done
echo 1 > $INST/tracing_on

# ---- TCP over IPv4 with four ss formats ------------------------------------
ip netns exec $D iperf3 -s -B 10.95.2.1 -p $PORT >/dev/null 2>&1 & PIDS+=($!)
sleep 0.5
F="dst 10.95.2.1 dport = :$PORT"
ip netns exec $S bash -c "end=\$((SECONDS+$SECS+2)); while [ \$SECONDS -lt \$end ]; do t=\$EPOCHREALTIME; ss -tinOH $F | sed \"s/^/\$t /\"; sleep 0.05; done" > "$OUT/ss-tinO-epochcol.log" & PIDS+=($!)
ip netns exec $S bash -c "end=\$((SECONDS+$SECS+2)); while [ \$SECONDS -lt \$end ]; do echo \"Time: \$EPOCHREALTIME\"; ss -tin $F; sleep 0.05; done" > "$OUT/ss-tin-flent.log" & PIDS+=($!)
ip netns exec $S bash -c "end=\$((SECONDS+$SECS+2)); while [ \$SECONDS -lt \$end ]; do echo \"# t=\$EPOCHREALTIME\"; ss -tinmH $F; sleep 0.05; done" > "$OUT/ss-tinm.log" & PIDS+=($!)
sleep 0.3
ip netns exec $S iperf3 -c 10.95.2.1 -p $PORT -t $SECS -C cubic > "$OUT/iperf3-v4.txt" || true
sleep 2.5
# ---- TCP over IPv6, ss -tinoe two-line with ==== Time N ==== blocks ---------
ip netns exec $D iperf3 -s -B fd95:2::1 -p $((PORT+1)) -1 >/dev/null 2>&1 & PIDS+=($!)
sleep 0.5
F6="dst [fd95:2::1] dport = :$((PORT+1))"
ip netns exec $S bash -c "end=\$((SECONDS+4)); while [ \$SECONDS -lt \$end ]; do echo \"==== Time \$EPOCHREALTIME ====\"; ss -tinoe $F6; sleep 0.05; done" > "$OUT/ss-tinoe-ipv6.log" & PIDS+=($!)
sleep 0.3
ip netns exec $S iperf3 -6 -c fd95:2::1 -p $((PORT+1)) -t 2 -C reno > "$OUT/iperf3-v6.txt" || true
sleep 1.5
echo 0 > $INST/tracing_on
cp $INST/trace "$OUT/tcp_probe.txt"
{ for c in $INST/per_cpu/cpu*; do echo "== $(basename $c)"; cat $c/stats; done; } > "$OUT/trace-stats.txt"

# ---- QUIC: ngtcp2 reno and cubic ------------------------------------------
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$OUT/key.pem" -out "$OUT/cert.pem" -days 1 -subj /CN=h5 2>/dev/null
mkdir -p "$OUT/htdocs"; head -c 3000000 /dev/urandom > "$OUT/htdocs/blob.bin"
for cc in reno cubic; do
  mkdir -p "$OUT/q-$cc/server" "$OUT/q-$cc/client"
  ip netns exec $S gtlsserver --qlog-dir="$OUT/q-$cc/server" --cc=$cc -d "$OUT/htdocs" -q 10.95.1.1 4433 "$OUT/key.pem" "$OUT/cert.pem" >/dev/null 2>&1 & SRV=$!; PIDS+=($SRV)
  sleep 0.5
  ip netns exec $D timeout 20 gtlsclient --qlog-dir="$OUT/q-$cc/client" --cc=$cc --exit-on-all-streams-close --download="$OUT/q-$cc/dl" -q 10.95.1.1 4433 https://10.95.1.1:4433/blob.bin >/dev/null 2>&1 || echo "client $cc exit $?"
  sleep 0.3; kill $SRV 2>/dev/null || true; wait $SRV 2>/dev/null || true
done
{ echo "date_utc: $(date -u +%FT%TZ)"; echo "kernel: $(uname -r)"; echo "rate: $RATE pfifo $QLIM, no delay"; echo "tools: $(ss -V); $(iperf3 --version | head -1); $(dpkg-query -W ngtcp2-client ngtcp2-server | tr '\n' ' ')"; } > "$OUT/meta.txt"
echo done
