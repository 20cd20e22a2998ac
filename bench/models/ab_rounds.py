"""Two builds of bench_models timed against each other: the same models, the one program then the
other in each of interleaved rounds, each figure the median over the rounds of each run's median
(ms). For a change to code generation: configure two build folders alike (copy one's
ein_cost_cache.json into the other so both search to the same plans), build bench_models in each,
then

    python3 bench/models/ab_rounds.py <program A> <program B> <results.json> [--rounds 5]

A ratio above 1 says B is faster. Run it on an idle machine: OpenMP teams wait out other
processes' time slices (docs/decisions/0025).
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def manifest(program, work):
    """The manifest of one run of ein's benchmark program `program` writing into `work`."""
    os.makedirs(work, exist_ok=True)
    subprocess.run([program, work], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(work, "manifest.json")) as f:
        return json.load(f)


def run(program, work):
    """ms per model of one run of `program` writing into `work`."""
    return {e["name"]: e["ein_ms"] for e in manifest(program, work)["models"]}


def interleaved(programs, rounds, work):
    """`programs` ({label: program}) run one after the other in each of `rounds` rounds, each in
    a folder of its own under `work`; ms per model, per label, per round. Prints each round."""
    times = {}
    for r in range(rounds):
        for label, program in programs.items():
            for name, ms in run(os.path.abspath(program), os.path.join(work, label)).items():
                times.setdefault(name, {}).setdefault(label, []).append(ms)
        print(f"round {r + 1}: " + ", ".join(n + " " + "/".join(f"{t[label][-1]:.3f}" for label in programs)
                                             for n, t in times.items()), flush=True)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("results")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    started = {"load_average": load_average(), "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    with tempfile.TemporaryDirectory() as work:
        times = interleaved({"a": args.a, "b": args.b}, args.rounds, work)
    results = {"command": "python3 bench/models/ab_rounds.py " + " ".join(
                   [args.a, args.b, args.results, "--rounds", str(args.rounds)]),
               "a": args.a, "b": args.b, "rounds": args.rounds, "started": started,
               "finished": {"load_average": load_average()},
               "timing": "median over rounds of each run's median (ms)", "models": {}}
    print("\n| model | A (ms) | B (ms) | A / B |\n|---|---|---|---|")
    for name, t in times.items():
        a, b = statistics.median(t["a"]), statistics.median(t["b"])
        results["models"][name] = {"a_ms": a, "b_ms": b, "a_over_b": a / b, "a_rounds_ms": t["a"], "b_rounds_ms": t["b"]}
        print(f"| {name} | {a:.3f} | {b:.3f} | {a / b:.2f} |")
    with open(args.results, "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
