#!/usr/bin/env python3
"""tests/fuzz/crash2pcap.py: turn inputs of the frame harnesses into a pcap file, to look at a
crash (or a seed) in Wireshark/tcpdump, or to replay it at the appliance with tcpreplay.

    tests/fuzz/crash2pcap.py fuzz_net_local|fuzz_route out.pcap input...

The frames are cut out of each input exactly as the harness does (see the top of
tests/fuzz/fuzz_net_local.c and fuzz_route.c); header bytes that only steer the harness
(buffer sizes, variants) are not part of any frame and are dropped. The checksums the harness
may rewrite before use are left as they are in the input.
"""
import struct
import sys

MAX_FRAME = 2048 + 64  # FL_MAX_FRAME_BYTES / FR_MAX_FRAME_BYTES
MAX_FRAMES = 24        # FL_MAX_FRAMES


def net_local_frames(data):
    if len(data) < 2:
        return [b""]
    variant, rest = data[0], data[2:]
    if not variant & 0x80:
        return [rest[:MAX_FRAME]]
    frames = []
    while len(rest) >= 2 and len(frames) < MAX_FRAMES:
        want = struct.unpack("!H", rest[:2])[0] % (MAX_FRAME + 1)
        rest = rest[2:]
        frames.append(rest[:want])
        rest = rest[want:]
    return frames


def route_frames(data):
    return [data[5:5 + MAX_FRAME]]


def main():
    cutters = {"fuzz_net_local": net_local_frames, "fuzz_route": route_frames}
    if len(sys.argv) < 4 or sys.argv[1] not in cutters:
        sys.exit(__doc__.strip().split("\n\n")[1])
    cut = cutters[sys.argv[1]]
    with open(sys.argv[2], "wb") as out:
        # pcap global header: magic, v2.4, UTC, accuracy, snaplen, LINKTYPE_ETHERNET
        out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        t = 0
        for path in sys.argv[3:]:
            with open(path, "rb") as f:
                for frame in cut(f.read()):
                    out.write(struct.pack("<IIII", t // 1000000, t % 1000000, len(frame),
                                          len(frame)) + frame)
                    t += 1000  # 1 ms apart, like the harness's clock
    print("%s: %d input(s)" % (sys.argv[2], len(sys.argv) - 3))


if __name__ == "__main__":
    main()
