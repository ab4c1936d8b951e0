#!/usr/bin/env python3
"""http_hostile.py HOST:PORT CASE...: bad HTTP clients against ltap --serve.

Each case prints one line "CASE: RESULT" where RESULT is the status code the
server answered, or "closed after N.Ns" when it closed the connection
without an answer, with the time it took. The caller checks the results
(t_serve_hostile.sh). Every case is bounded in time (DEADLINE) and sends
only to the address given (loopback)."""
import socket
import sys
import time

DEADLINE = 20.0  # s: no case waits longer


def connect(addr):
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host.strip("[]"), int(port)), timeout=DEADLINE)
    return s


def answer(s, start):
    """the status code of the answer, or how long until the server closed"""
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except (ConnectionResetError, BrokenPipeError):
        pass
    except socket.timeout:
        return "no answer in %.0fs" % DEADLINE
    if data.startswith(b"HTTP/1."):
        return data.split(b" ", 2)[1].decode()
    return "closed after %.1fs" % (time.monotonic() - start)


def request(addr, raw):
    s = connect(addr)
    start = time.monotonic()
    try:
        s.sendall(raw)
    except (ConnectionResetError, BrokenPipeError):
        pass
    r = answer(s, start)
    s.close()
    return r


def case_huge_header(addr):
    return request(addr, b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100000 + b"\r\n\r\n")


def case_huge_uri(addr):
    return request(addr, b"GET /" + b"m" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")


def case_post(addr):
    return request(addr, b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")


def case_delete(addr):
    return request(addr, b"DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n")


def case_unknown_path(addr):
    return request(addr, b"GET /etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n")


def case_garbage(addr):
    return request(addr, bytes(range(256)) * 4 + b"\r\n\r\n")


def case_bad_version(addr):
    return request(addr, b"GET /metrics HTTP/9.9\r\nHost: x\r\n\r\n")


def case_half_open(addr):
    """connects and says nothing"""
    s = connect(addr)
    r = answer(s, time.monotonic())
    s.close()
    return r


def case_slowloris(addr):
    """a header, one byte a second, never finished"""
    s = connect(addr)
    start = time.monotonic()
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    s.settimeout(1.0)
    try:
        while time.monotonic() - start < DEADLINE:
            try:
                s.sendall(b"X")
            except (ConnectionResetError, BrokenPipeError):
                break
            try:
                if not s.recv(4096):
                    break
            except socket.timeout:
                continue
            except ConnectionResetError:
                break
    finally:
        s.close()
    return "closed after %.1fs" % (time.monotonic() - start)


def case_slow_reader(addr):
    """asks, then never reads the answer (a 1-byte receive window)"""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
    host, port = addr.rsplit(":", 1)
    s.settimeout(DEADLINE)
    s.connect((host, int(port)))
    start = time.monotonic()
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    time.sleep(0.5)  # workload: the client that does not read
    r = answer(s, start)
    s.close()
    return r


def case_flood(addr):
    """100 idle connections at once, then a real scrape: answered once the
    idle ones are closed, within the deadline"""
    conns = []
    for _ in range(100):
        try:
            conns.append(connect(addr))
        except OSError:
            break
    start = time.monotonic()
    r = request(addr, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    took = time.monotonic() - start
    for c in conns:
        c.close()
    return "%s after %.1fs" % (r, took)


def main():
    addr = sys.argv[1]
    for name in sys.argv[2:]:
        r = globals()["case_" + name.replace("-", "_")](addr)
        print("%s: %s" % (name, r), flush=True)


if __name__ == "__main__":
    main()
