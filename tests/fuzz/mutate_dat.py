#!/usr/bin/env python3
"""mutate_dat.py OUTDIR COUNT SEED FILE...: damaged copies of trace.dat files.

Writes OUTDIR/case-NNNN.dat, COUNT of them, the same for the same SEED and
files: each a copy of one FILE (in turn) truncated, with runs of bytes
zeroed, with bytes flipped, or all of these. Offsets are uniform over the
file half the time, else in its first 16 KB (the headers and formats, where
the parsers are), so damage reaches both the formats and the records.
Prints one line per case: its name, the file it came from and what was done.
"""
import os
import random
import sys


def offset(rng, size):
    if rng.random() < 0.5:
        return rng.randrange(size)
    return rng.randrange(min(size, 16384))


def truncate(rng, data):
    n = offset(rng, len(data))
    return data[:n], "truncated at %d" % n


def zero(rng, data):
    done = []
    for _ in range(rng.randint(1, 4)):
        at, n = offset(rng, len(data)), rng.choice([1, 2, 4, 8, 16, 64, 512])
        data[at:at + n] = bytes(len(data[at:at + n]))
        done.append("%d+%d" % (at, n))
    return data, "zeroed " + ",".join(done)


def flip(rng, data):
    done = []
    for _ in range(rng.randint(1, 8)):
        at = offset(rng, len(data))
        # a single bit, or a whole random byte: small and large value changes
        data[at] ^= 1 << rng.randrange(8) if rng.random() < 0.5 else rng.randint(1, 255)
        done.append(str(at))
    return data, "flipped " + ",".join(done)


def mixed(rng, data):
    data, a = flip(rng, data)
    data, b = zero(rng, data)
    data, c = truncate(rng, bytearray(data))
    return data, "; ".join((a, b, c))


def main():
    if len(sys.argv) < 5:
        sys.exit("usage: mutate_dat.py OUTDIR COUNT SEED FILE...")
    out, count, seed, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    rng = random.Random(seed)
    originals = [open(f, "rb").read() for f in files]
    os.makedirs(out, exist_ok=True)
    for i in range(count):
        k = i % len(files)
        how = rng.choice([truncate, zero, flip, flip, mixed])
        data, what = how(rng, bytearray(originals[k]))
        name = "case-%04d.dat" % i
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
        print("%s %s %s" % (name, os.path.basename(files[k]), what))


if __name__ == "__main__":
    main()
