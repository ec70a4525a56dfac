#!/usr/bin/env python3
"""Per-function instructions of two bench cases, side by side (BENCHMARKS.md).

Runs each case of the `chain` bench 1,000 and 2,000 times under callgrind
and prints, per function (as callgrind names it: inlined code counts in its
caller), the instructions per iteration of each case and their difference,
largest last:

    cargo bench -p hookwire --bench chain --no-run   # prints the binary
    runtime/benches/callgrind_diff.py <binary> e2e/hand_written e2e/generated_0_hooks
"""
import os
import re
import subprocess
import sys
import tempfile


def profile(binary, case, iterations, out):
    env = dict(os.environ, HOOKWIRE_BENCH_LOOP=f"{case}:{iterations}")
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary],
                   env=env, check=True, capture_output=True)
    text = subprocess.run(["callgrind_annotate", "--threshold=100", out],
                          capture_output=True, text=True, check=True).stdout
    costs = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*)", line)
        if not m:
            continue
        name = re.sub(r"\s*\[.*\]$", "", m.group(2))
        name = re.sub(r"::h[0-9a-f]{16}", "", name)
        costs[name] = costs.get(name, 0) + int(m.group(1).replace(",", ""))
    return costs


def per_iteration(binary, case, folder):
    a = profile(binary, case, 1000, os.path.join(folder, "a.out"))
    b = profile(binary, case, 2000, os.path.join(folder, "b.out"))
    return {k: (b.get(k, 0) - a.get(k, 0)) / 1000 for k in set(a) | set(b)}


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    binary, left, right = sys.argv[1:]
    with tempfile.TemporaryDirectory() as folder:
        l = per_iteration(binary, left, folder)
        r = per_iteration(binary, right, folder)
    rows = sorted(((r.get(k, 0) - l.get(k, 0), l.get(k, 0), r.get(k, 0), k)
                   for k in set(l) | set(r)))
    print(f"{'diff':>8} {left[-12:]:>12} {right[-12:]:>12}  function")
    for diff, a, b, name in rows:
        if abs(diff) >= 2:
            print(f"{diff:+8.0f} {a:12.0f} {b:12.0f}  {name[:140]}")


if __name__ == "__main__":
    main()
