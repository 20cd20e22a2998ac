#!/usr/bin/env python3
"""What fraction of the FP32 rate ein's eOperators reached in a measured cost cache.

Reads a cache the measured cost model wrote (`--cost measured --cost-cache FILE`), takes every
eOperator it timed, counts its FLOPs and bytes from its key as match::eoperator_cost does (two
FLOPs a term of a summed product, one an element otherwise; each tensor read once, the output
written once) and prints, for the compute-bound ones (at least 4 FLOPs a byte, match::memory_bound),
the fraction of `--fp32-tflops` each reached: the figure a roofline profile's
`eoperator_compute_fraction` stands for (docs/decisions/0031). With --by outputs (or terms), the
median fraction for each power of two of the kernels' output points (or of the terms each output
sums) too, over every cache given: how far one fraction is from each kind of kernel; with
--profile P, beside it the median ratio of the time P's roofline gives each of those kernels
(cost::roofline for an eOperator: launch + the larger of FLOPs at P's compute fraction of FP32
peak and bytes at its bandwidth fraction) to the time measured, for every eOperator, compute-bound
or not.

    python3 bench/gpu/eoperator_fractions.py bench/results/gpu/ein_cost_cache_conv3x3.json
    python3 bench/gpu/eoperator_fractions.py --by outputs --profile profiles/h100_sxm5.json \
        bench/results/gpu/ein_cost_cache_conv3x3*.json
"""
import argparse
import json
import math
import re
import statistics

RANGE = re.compile(r"\[(-?\d+),(-?\d+)\)")
TENSOR = re.compile(r":(float|double)\[([\d, ]+)\]")


def shape(key):
    """Output points and terms summed for each of the eOperator whose cache key is `key`, or None."""
    m = re.match(r"eoperator L(.*?)\)S\((.*?)\) (.*)", key)
    if not m:
        return None
    points = math.prod(b - a for a, b in ((int(x), int(y)) for x, y in RANGE.findall(m.group(1) + ")")))
    summed = [(int(x), int(y)) for x, y in RANGE.findall(m.group(2))]
    return points, math.prod(b - a for a, b in summed) if summed else 1


def facts(key):
    """FLOPs and bytes of the eOperator whose cache key is `key`, or None for another kernel."""
    m = re.match(r"eoperator L(.*?)\)S\((.*?)\) (.*)", key)
    if not m:
        return None
    points, terms = shape(key)
    body = m.group(3)
    flops = points * terms * (2 if m.group(2) and body.startswith("(*") else 1)
    read = sum((8 if kind == "double" else 4) * math.prod(int(d) for d in shape.split(","))
               for kind, shape in TENSOR.findall(body))
    return flops, read + 4 * points


def roofline_seconds(profile, flops, bytes_moved):
    """An eOperator's time under a roofline profile, as cost::roofline prices one."""
    compute = flops / (profile["fp32_tflops"] * 1e12 * profile["eoperator_compute_fraction"])
    memory = bytes_moved / (profile["dram_gbytes_per_s"] * 1e9 * profile["eoperator_bandwidth_fraction"])
    return profile["launch_us"] * 1e-6 + max(compute, memory)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("caches", nargs="+")
    parser.add_argument("--fp32-tflops", type=float, default=67.0, help="the device's FP32 rate (H100/H200: 67)")
    parser.add_argument("--by", choices=("outputs", "terms"), help="also the median fraction per power of two of these")
    parser.add_argument("--profile", help="a roofline profile (profiles/*.json) to price each eOperator with (with --by)")
    args = parser.parse_args()
    profile = json.load(open(args.profile)) if args.profile else None
    by_device = {}  # device: [(fraction, output points, terms)] over every cache
    priced = {}     # device: [(roofline / measured, output points, terms)], every eOperator
    for cache in args.caches:
        for device, entry in json.load(open(cache))["devices"].items():
            reached = []
            for key, timing in entry["kernels"].items():
                f = facts(key)
                if not f or timing["seconds"] <= 0:
                    continue
                if f[0] >= 4 * f[1]:
                    reached.append((f[0] / timing["seconds"] / (args.fp32_tflops * 1e12), *shape(key)))
                if profile:
                    priced.setdefault(device, []).append((roofline_seconds(profile, *f) / timing["seconds"], *shape(key)))
            by_device.setdefault(device, []).extend(reached)
            if not reached:
                print(f"{cache}: {device}: no compute-bound eOperator timed")
                continue
            fractions = sorted(r[0] for r in reached)
            quartiles = statistics.quantiles(fractions, n=4)
            print(f"{cache}: {device}: {len(fractions)} compute-bound eOperators, fraction of {args.fp32_tflops:g} "
                  f"TFLOP/s reached: min {fractions[0]:.4f}, quartiles {quartiles[0]:.4f} / {quartiles[1]:.4f} / "
                  f"{quartiles[2]:.4f}, max {fractions[-1]:.4f}")
    if not args.by:
        return
    column = 1 if args.by == "outputs" else 2

    def buckets(rows):
        out = {}
        for r in rows:
            out.setdefault(int(math.log2(r[column])), []).append(r[0])
        return out

    for device, reached in by_device.items():
        print(f"{device}, all caches: median fraction of compute-bound eOperators by {args.by} (2^k up to 2^(k+1))")
        for k, v in sorted(buckets(reached).items()):
            print(f"  2^{k:<3} {len(v):4} kernels  {statistics.median(v):.4f}")
    for device, rows in priced.items():
        print(f"{device}, all caches: median ratio of {profile['name']}'s roofline time to the measured time, "
              f"every eOperator, by {args.by}")
        for k, v in sorted(buckets(rows).items()):
            print(f"  2^{k:<3} {len(v):4} kernels  {statistics.median(v):.2f}")


if __name__ == "__main__":
    main()
