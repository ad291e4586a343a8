"""tests/system/sinkclient.py: a test client for the appliance's discard and echo services, run
inside a host namespace (`ip netns exec NS python3 sinkclient.py MODE ...`). Prints one JSON
line with what it sent and received, so the test can compare it with the appliance's counters.

Modes:
  tcp-discard HOST BYTES          stream BYTES to TCP 9, close
  tcp-echo HOST BYTES             send BYTES to TCP 7 while reading them back; verify them
  udp-discard HOST COUNT SIZE     COUNT datagrams of SIZE bytes to UDP 9, paced
  udp-echo HOST COUNT SIZE        COUNT datagrams to UDP 7, each answered and verified
  tcp-hold HOST N SECONDS         open N connections to TCP 9, report which were accepted,
                                  send a little on each accepted one after SECONDS, close
"""
import json
import os
import socket
import sys
import time

CHUNK = 65536


def pattern(n, seed=0):
    block = bytes((i * 7 + seed) & 0xFF for i in range(CHUNK))
    out = bytearray()
    while len(out) < n:
        out += block
    return bytes(out[:n])


def tcp_discard(host, nbytes):
    t0 = time.monotonic()
    s = socket.create_connection((host, 9), timeout=30)
    data = pattern(CHUNK)
    sent = 0
    while sent < nbytes:
        n = s.send(data[:min(CHUNK, nbytes - sent)])
        sent += n
    s.shutdown(socket.SHUT_WR)
    rest = s.recv(1)  # the appliance closes after our FIN: EOF
    s.close()
    return {"sent": sent, "eof": rest == b"", "seconds": time.monotonic() - t0}


def tcp_echo(host, nbytes):
    t0 = time.monotonic()
    s = socket.create_connection((host, 7), timeout=30)
    data = pattern(nbytes, 3)
    s.setblocking(False)
    sent, got = 0, bytearray()
    while len(got) < nbytes:
        if sent < nbytes:
            try:
                sent += s.send(data[sent:sent + CHUNK])
            except BlockingIOError:
                pass
        try:
            chunk = s.recv(CHUNK)
            if not chunk:
                break
            got += chunk
        except BlockingIOError:
            time.sleep(0.001)
        if time.monotonic() - t0 > 120:
            break
    s.setblocking(True)
    s.close()
    return {"sent": sent, "received": len(got), "equal": bytes(got) == data,
            "seconds": time.monotonic() - t0}


def udp_discard(host, count, size):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    payload = pattern(size)
    for i in range(count):
        u.sendto(payload, (host, 9))
        if i % 20 == 19:
            time.sleep(0.005)  # the tap holds ~500 frames: pace below that
    return {"sent": count, "bytes": count * size}


def udp_echo(host, count, size):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.settimeout(3)
    ok = 0
    for i in range(count):
        payload = pattern(size, i)
        u.sendto(payload, (host, 7))
        try:
            data, _ = u.recvfrom(70000)
            ok += data == payload
        except socket.timeout:
            pass
    return {"sent": count, "echoed": ok}


def tcp_hold(host, n, seconds):
    socks, accepted, refused = [], 0, 0
    for _ in range(n):
        try:
            socks.append(socket.create_connection((host, 9), timeout=10))
        except (ConnectionResetError, ConnectionRefusedError):
            refused += 1  # reset before connect() returned: refused all the same
    time.sleep(seconds)  # a refused connection has been reset by now
    for s in socks:
        try:
            s.sendall(b"x" * 1000)
            s.shutdown(socket.SHUT_WR)
            if s.recv(1) == b"":
                accepted += 1
            else:
                refused += 1
        except (ConnectionResetError, BrokenPipeError):
            refused += 1
        s.close()
    return {"accepted": accepted, "refused": refused}


def main():
    mode, host, args = sys.argv[1], sys.argv[2], [int(a) for a in sys.argv[3:]]
    fn = {"tcp-discard": tcp_discard, "tcp-echo": tcp_echo, "udp-discard": udp_discard,
          "udp-echo": udp_echo, "tcp-hold": tcp_hold}[mode]
    print(json.dumps(fn(host, *args)), flush=True)
    os._exit(0)


if __name__ == "__main__":
    main()
