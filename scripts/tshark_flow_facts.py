#!/usr/bin/env python3
"""Independent cross-check of `ccreplay flows --json`: the same per-flow facts
computed from tshark's own dissection (tshark -T fields), for the numbers the
tests assert. Usage: scripts/tshark_flow_facts.py CAPTURE

Definitions follow docs/inputs.md: the sender is the side with more unique payload.
`retransmitted_segments` here counts the sender's payload segments that tshark
flags as tcp.analysis.retransmission or tcp.analysis.out_of_order (both mean:
starts below the highest sequence number seen), and `out_of_order_segments`
the second kind alone: ccreplay subtracts those out-of-order segments that
fill a hole sooner than one handshake RTT after it opened (reorderings)."""
import json
import subprocess
import sys

FIELDS = ["tcp.stream", "ip.src", "ipv6.src", "tcp.srcport", "tcp.flags", "tcp.len",
          "ip.dsfield.ecn", "ipv6.tclass", "tcp.seq", "tcp.analysis.retransmission",
          "tcp.analysis.out_of_order", "tcp.options.mss_val", "tcp.options.wscale.shift",
          "frame.time_epoch", "frame.protocols"]


def union_length(ranges):
    total, end = 0, None
    for s, e in sorted(ranges):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def main(path):
    # occurrence=l: in a tunnelled frame (GRE, VXLAN, GENEVE, GTP-U) the
    # innermost IP header's fields, the ones the TCP flow has.
    cmd = ["tshark", "-r", path, "-Y", "tcp", "-T", "fields", "-E", "separator=\t",
           "-E", "occurrence=l",
           "-o", "tcp.relative_sequence_numbers:TRUE"] + sum([["-e", f] for f in FIELDS], [])
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    streams = {}
    for line in out.splitlines():
        v = dict(zip(FIELDS, line.split("\t")))
        st = streams.setdefault(int(v["tcp.stream"]), {"sides": {}, "order": []})
        layers = v["frame.protocols"].split(":")
        inner_v6 = "ipv6" in layers and (
            "ip" not in layers or
            len(layers) - layers[::-1].index("ipv6") > len(layers) - layers[::-1].index("ip"))
        src = (v["ipv6.src"] if inner_v6 else v["ip.src"]) + ":" + v["tcp.srcport"]
        side = st["sides"].get(src)
        if side is None:
            side = st["sides"][src] = {"packets": 0, "ranges": [], "rexmt": 0, "ecn": [0, 0, 0, 0],
                                       "ece": 0, "cwr": 0, "ace_changes": 0, "last_ace": None,
                                       "mss": None, "wscale": None, "t": [], "ooo": 0}
            st["order"].append(src)
        flags = int(v["tcp.flags"], 16)
        length = int(v["tcp.len"] or 0)
        side["packets"] += 1
        if v["ip.dsfield.ecn"] and not inner_v6:
            ecn = int(v["ip.dsfield.ecn"])
        else:
            ecn = int(v["ipv6.tclass"], 16) & 3 if v["ipv6.tclass"] else 0
        side["ecn"][ecn] += 1
        syn = flags & 0x02
        if syn:
            if v["tcp.options.mss_val"]:
                side["mss"] = int(v["tcp.options.mss_val"])
            if v["tcp.options.wscale.shift"]:
                side["wscale"] = int(v["tcp.options.wscale.shift"])
        else:
            side["ece"] += bool(flags & 0x40)
            side["cwr"] += bool(flags & 0x80)
            ace = (flags >> 6) & 0x7  # ECE, CWR, AE -> bits 0,1,2 (AE is 0x100)
            ace = ((flags & 0x100) >> 6) | ((flags & 0x80) >> 6) | ((flags & 0x40) >> 6)
            if side["last_ace"] is not None and ace != side["last_ace"]:
                side["ace_changes"] += 1
            side["last_ace"] = ace
        if length > 0:
            seq = int(v["tcp.seq"])
            side["ranges"].append((seq, seq + length))
            side["t"].append(float(v["frame.time_epoch"]))
            if v["tcp.analysis.retransmission"] or v["tcp.analysis.out_of_order"]:
                side["rexmt"] += 1
            if v["tcp.analysis.out_of_order"] and not v["tcp.analysis.retransmission"]:
                side["ooo"] += 1
    result = []
    for index in sorted(streams):
        st = streams[index]
        sides = [st["sides"][k] for k in st["order"]]
        for s in sides:
            s["unique"] = union_length(s["ranges"])
        snd = max(range(len(sides)), key=lambda i: (sides[i]["unique"], -i))
        s = sides[snd]
        r = sides[1 - snd] if len(sides) > 1 else None
        span = (s["t"][-1] - s["t"][0]) if s["t"] else 0
        result.append({
            "stream": index, "sender": st["order"][snd],
            "packets_data_dir": s["packets"], "packets_ack_dir": r["packets"] if r else 0,
            "data_bytes": s["unique"], "retransmitted_segments": s["rexmt"],
            "out_of_order_segments": s["ooo"],
            "not_ect_packets": s["ecn"][0], "ect1_packets": s["ecn"][1],
            "ect0_packets": s["ecn"][2], "ce_packets": s["ecn"][3],
            "ece_acks": r["ece"] if r else 0, "cwr_packets": s["cwr"],
            "ace_changes_receiver": r["ace_changes"] if r else 0,
            "mss_option_sender": s["mss"], "wscale_sender": s["wscale"],
            "goodput_bps": s["unique"] * 8 / span if span > 0 else 0,
        })
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1])
