#!/usr/bin/env python3
"""One end of a tunnel in user space, for scripts/make-tunnel-captures.sh.

This kernel builds VXLAN but not GENEVE, GRE or GTP-U, so those tunnels are
run here: packets the kernel routes into a TUN (IP) or TAP (Ethernet)
device are wrapped in the tunnel's header and sent to the peer over the
underlay (a raw IP socket for GRE, a UDP socket for GENEVE and GTP-U); what
arrives from the peer is unwrapped and written back into the device. The
headers follow RFC 2784 / RFC 2890 (GRE, with key and sequence number),
RFC 8926 section 3.4 (GENEVE, here with one 4-byte option) and 3GPP TS
29.281 section 5.1 (GTP-U G-PDU with the S flag and a sequence number).

Usage: userspace_tunnel.py MODE DEV LOCAL REMOTE INNER_CIDR
MODE: gre-key-seq (IPv4 in GRE), gretap (Ethernet in GRE, 0x6558),
geneve (Ethernet, VNI 7), gtpu (IPv4, TEID 0x1234).
"""
import fcntl
import os
import select
import socket
import struct
import subprocess
import sys

TUNSETIFF = 0x400454CA
IFF_TUN, IFF_TAP, IFF_NO_PI = 0x0001, 0x0002, 0x1000
GRE_KEY = 5
GENEVE_VNI = 7
GTP_TEID = 0x1234


def open_device(name, tap):
    fd = os.open("/dev/net/tun", os.O_RDWR)
    flags = (IFF_TAP if tap else IFF_TUN) | IFF_NO_PI
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), flags))
    return fd


class Gre:
    """RFC 2784 section 2.1 with RFC 2890 section 2's key and sequence."""

    def __init__(self, local, remote, tap):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, 47)
        self.sock.bind((local, 0))
        self.remote = remote
        self.protocol = 0x6558 if tap else 0x0800
        self.keyed = not tap
        self.seq = 0

    def send(self, inner):
        if self.keyed:
            header = struct.pack("!HHII", 0x3000, self.protocol, GRE_KEY,
                                 self.seq)
            self.seq += 1
        else:
            header = struct.pack("!HH", 0, self.protocol)
        self.sock.sendto(header + inner, (self.remote, 0))

    def receive(self):
        packet = self.sock.recv(65535)
        gre = packet[(packet[0] & 0x0F) * 4:]
        flags = gre[0]
        offset = 4 + 4 * bool(flags & 0x80) + 4 * bool(flags & 0x20) + \
            4 * bool(flags & 0x10)
        return gre[offset:]


class Udp:
    """GENEVE (RFC 8926) or GTP-U (3GPP TS 29.281) over UDP."""

    def __init__(self, local, remote, port, wrap, header_length):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((local, port))
        self.remote = (remote, port)
        self.wrap = wrap
        self.header_length = header_length
        self.seq = 0

    def send(self, inner):
        self.sock.sendto(self.wrap(self, inner) + inner, self.remote)

    def receive(self):
        return self.sock.recv(65535)[self.header_length:]


def geneve_header(tunnel, inner):
    # Version 0, options length 2 words; protocol Transparent Ethernet
    # Bridging; VNI; then one option: class 0xFFFF (experimental), type 1,
    # 1 word of data.
    del tunnel, inner
    return struct.pack("!BBHI", 2, 0, 0x6558, GENEVE_VNI << 8) + \
        struct.pack("!HBBI", 0xFFFF, 1, 1, 0xC0FFEE)


def gtpu_header(tunnel, inner):
    # Version 1, PT 1, S set: 12 bytes; message type 255 (G-PDU); length
    # counts what follows the first 8 bytes.
    header = struct.pack("!BBHIHBB", 0x32, 0xFF, len(inner) + 4, GTP_TEID,
                         tunnel.seq & 0xFFFF, 0, 0)
    tunnel.seq += 1
    return header


def main():
    mode, dev, local, remote, inner_cidr = sys.argv[1:6]
    tap = mode in ("gretap", "geneve")
    fd = open_device(dev, tap)
    if mode in ("gre-key-seq", "gretap"):
        tunnel = Gre(local, remote, tap)
    elif mode == "geneve":
        tunnel = Udp(local, remote, 6081, geneve_header, 16)
    else:
        tunnel = Udp(local, remote, 2152, gtpu_header, 12)
    subprocess.run(["ip", "link", "set", dev, "mtu", "1400", "up"], check=True)
    subprocess.run(["ip", "addr", "add", inner_cidr, "dev", dev], check=True)
    print("ready", flush=True)
    while True:
        ready, _, _ = select.select([fd, tunnel.sock], [], [])
        if fd in ready:
            tunnel.send(os.read(fd, 65535))
        if tunnel.sock in ready:
            inner = tunnel.receive()
            if inner:
                os.write(fd, inner)


if __name__ == "__main__":
    main()
