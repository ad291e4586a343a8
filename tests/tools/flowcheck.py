#!/usr/bin/env python3
"""tests/tools/flowcheck.py: send numbered UDP datagrams over many flows, and check them.

  flowcheck.py send SRC DST DPORT FLOWS PER_FLOW [--pps N]
      sends PER_FLOW datagrams on each of FLOWS source ports (40000 + i), interleaved, each
      payload = flow index and sequence number; prints {"sent": N} as JSON.
  flowcheck.py recv BIND_IP DPORT EXPECT [--idle S] [--timeout S]
      receives until EXPECT datagrams arrived or nothing came for --idle seconds; prints JSON:
      received, per-flow counts, reordered (a sequence lower than one already seen in the
      flow), duplicates, missing (gaps), and the IP TTLs seen.

Runs inside the tests' network namespaces, against the appliance only.
"""
import argparse
import json
import select
import socket
import struct
import sys
import time

HDR = struct.Struct(">II")  # flow, seq
IP_RECVTTL = getattr(socket, "IP_RECVTTL", 12)  # Linux <netinet/in.h>; Python lacks the name
PAYLOAD_BYTES = 18  # 14 + 20 + 8 + 18 = 60: a minimum-size frame


def send(a):
    socks = []
    for i in range(a.flows):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((a.src, 40000 + i))
        socks.append(s)
    gap = 1.0 / a.pps if a.pps else 0
    sent = 0
    t0 = time.monotonic()
    for seq in range(a.per_flow):
        for i, s in enumerate(socks):
            s.sendto(HDR.pack(i, seq).ljust(PAYLOAD_BYTES, b"\0"), (a.dst, a.dport))
            sent += 1
            if gap:
                delay = t0 + sent * gap - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
    print(json.dumps({"sent": sent, "seconds": round(time.monotonic() - t0, 3)}))


def recv(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    s.setsockopt(socket.IPPROTO_IP, IP_RECVTTL, 1)
    s.bind((a.bind_ip, a.dport))
    last, counts, ttls = {}, {}, {}
    seen = set()
    reordered = duplicates = received = 0
    deadline = time.monotonic() + a.timeout
    print(json.dumps({"ready": True}), flush=True)
    while received < a.expect and time.monotonic() < deadline:
        r, _, _ = select.select([s], [], [], a.idle)
        if not r:
            break
        data, anc, _, _ = s.recvmsg(2048, socket.CMSG_SPACE(4))
        if len(data) < HDR.size:
            continue
        flow, seq = HDR.unpack_from(data)
        for level, kind, val in anc:
            if level == socket.IPPROTO_IP and kind == socket.IP_TTL:
                ttl = struct.unpack("i", val[:4])[0]
                ttls[ttl] = ttls.get(ttl, 0) + 1
        received += 1
        if (flow, seq) in seen:
            duplicates += 1
            continue
        seen.add((flow, seq))
        counts[flow] = counts.get(flow, 0) + 1
        if seq < last.get(flow, -1):
            reordered += 1
        last[flow] = max(seq, last.get(flow, -1))
    missing = sum(last[f] + 1 - counts[f] for f in counts)
    print(json.dumps({"received": received, "flows": len(counts), "reordered": reordered,
                      "duplicates": duplicates, "missing": missing,
                      "per_flow": {str(k): v for k, v in sorted(counts.items())},
                      "ttls": {str(k): v for k, v in ttls.items()}}), flush=True)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("send")
    p.add_argument("src"), p.add_argument("dst"), p.add_argument("dport", type=int)
    p.add_argument("flows", type=int), p.add_argument("per_flow", type=int)
    p.add_argument("--pps", type=float, default=2000)
    p = sub.add_parser("recv")
    p.add_argument("bind_ip"), p.add_argument("dport", type=int), p.add_argument("expect", type=int)
    p.add_argument("--idle", type=float, default=3)
    p.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()
    send(a) if a.cmd == "send" else recv(a)


if __name__ == "__main__":
    sys.exit(main())
