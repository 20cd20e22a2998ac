"""ResNet-18's training step at batch 16 on the host, ein against PyTorch's autograd, in
interleaved rounds: each round runs ein's gradient plan three ways (bench_resnet18_training: its
forward values stored or recomputed as priced, all stored, all recomputed) and PyTorch
(torch_step.py: forward and backward, and backward alone), each in a process of its own under
`nice -n -19`, each a median of `runs` runs; each figure is the median over the rounds of each
round's median, with each process's peak resident memory and each plan's peak bytes from its
generation report. Every ein gradient is compared with PyTorch's (within 1e-4 of the largest
magnitude). Writes the results as JSON and prints them as a table.

    python3 bench/gradients/host_rounds.py <build folder> <work folder> <results.json> [--rounds 3] [--runs 3]

The build folder is configured with -DEIN_BUILD_GRADIENT_BENCHMARKS=ON.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

VARIANTS = ("cost", "store", "recompute")


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build")
    parser.add_argument("work")
    parser.add_argument("results")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    program = os.path.join(args.build, "bench", "gradients", "bench_resnet18_training")
    started = {"load_average": load_average(), "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    rounds = {v: [] for v in VARIANTS}
    resident = {v: [] for v in VARIANTS}
    torch_rounds = []
    for r in range(args.rounds):
        for v in VARIANTS:
            subprocess.run(["nice", "-n", "-19", program, v, args.work, str(args.runs)], check=True)
            with open(os.path.join(args.work, f"resnet18.{v}.json")) as f:
                ein = json.load(f)
            rounds[v].append(ein["ein_median_ms"])
            resident[v].append(ein["peak_resident_bytes"])
        last = r == args.rounds - 1
        out = subprocess.run(["nice", "-n", "-19", sys.executable, os.path.join(here, "torch_step.py"), args.work,
                              str(args.runs)] + (["--compare"] if last else []),
                             check=True, capture_output=True, text=True).stdout
        torch_rounds.append(json.loads(out.strip().splitlines()[-1]))
        print(f"round {r + 1}: " + ", ".join(f"ein {v} {rounds[v][-1]:.0f} ms" for v in VARIANTS) +
              f", PyTorch {torch_rounds[-1]['step_median_ms']:.0f} ms (backward {torch_rounds[-1]['backward_median_ms']:.0f})",
              flush=True)
    reports = {}
    for v in VARIANTS:
        path = os.path.join(args.build, "bench", "gradients", "ein_generated", f"bench_resnet18_gradient_{v}.json")
        with open(path) as f:
            report = json.load(f)
        reports[v] = {"plan_peak_bytes": report["peak_bytes"], "gradient": report["gradient"]}
    errors = torch_rounds[-1]["max_rel_err_vs_ein"]
    results = {
        "command": "python3 bench/gradients/host_rounds.py " + " ".join(sys.argv[1:]),
        "started": started, "finished": {"load_average": load_average(),
                                         "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
        "machine": ein["machine"], "model": "ResNet-18, batch 16, 224x224, every input and weight differentiated",
        "timing": f"median over {args.rounds} interleaved rounds of each round's median of {args.runs} runs after one",
        "ein": {v: {"round_medians_ms": rounds[v], "median_ms": float(np.median(rounds[v])),
                    "peak_resident_bytes": max(resident[v]), **reports[v], "max_rel_err_vs_torch": errors[v]}
                for v in VARIANTS},
        "torch": {"version": torch_rounds[-1]["torch"], "threads": torch_rounds[-1]["threads"],
                  "step_round_medians_ms": [t["step_median_ms"] for t in torch_rounds],
                  "step_median_ms": float(np.median([t["step_median_ms"] for t in torch_rounds])),
                  "backward_round_medians_ms": [t["backward_median_ms"] for t in torch_rounds],
                  "backward_median_ms": float(np.median([t["backward_median_ms"] for t in torch_rounds])),
                  "peak_resident_bytes": max(t["peak_resident_bytes"] for t in torch_rounds)},
    }
    with open(args.results, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    print(f"\n{results['machine']['cpu']}, {results['machine']['processors']} processors, load {started['load_average']} "
          f"at the start: milliseconds (median of rounds), peak resident MiB")
    print(f"{'':28} {'ms':>10} {'resident':>10} {'plan peak':>10} {'err vs torch':>13}")
    for v in VARIANTS:
        e = results["ein"][v]
        print(f"{'ein, ' + v:28} {e['median_ms']:10.0f} {e['peak_resident_bytes'] / 2**20:10.0f} "
              f"{e['plan_peak_bytes'] / 2**20:10.0f} {e['max_rel_err_vs_torch']:13.2e}")
    t = results["torch"]
    print(f"{'PyTorch, forward + backward':28} {t['step_median_ms']:10.0f} {t['peak_resident_bytes'] / 2**20:10.0f}")
    print(f"{'PyTorch, backward alone':28} {t['backward_median_ms']:10.0f}")
    bad = [v for v in VARIANTS if not errors[v] <= 1e-4]
    if bad:
        raise SystemExit(f"host_rounds.py: ein's gradients differ from PyTorch's by more than 1e-4 ({', '.join(bad)})")


if __name__ == "__main__":
    main()
