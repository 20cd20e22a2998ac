"""What tuning the seven models' eOperators gains on the host, and ETO's two numbers: the time
tuning takes with reuse against tuning every eOperator from scratch, and the loss of reuse per
kernel. Builds bench_models_tuned twice (EIN_BENCH_MODELS_TUNE), once with TUNING_REUSE OFF and
once with reuse, each into an empty tuning database of its own, one generation at a time; then
times bench_models (the same plans at their default schedules) and bench_models_tuned (by reuse)
in interleaved rounds, each figure the median over the rounds of each round's median time.

A kernel's loss is ETO's: how much slower the schedule reuse found runs than the one found from
scratch, each its fastest timed run (the defaults' times are kept beside them in the results):
    loss = best with reuse / best from scratch - 1    (> 0: reuse found a slower schedule)

    python3 bench/models/tuning_rounds.py <build folder> <work folder> <results.json> [--rounds 5] [--time-only]

--time-only times again what an earlier run into the same work folder built and tuned.

The build folder is configured with -DEIN_BUILD_MODEL_BENCHMARKS=host -DEIN_BENCH_MODELS_TUNE=ON
(docs/tuning.md).
"""
import argparse
import glob
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

from ab_rounds import interleaved, load_average


def tune(build, database, reuse):
    """Regenerates bench_models_tuned's plans, tuning into `database` (emptied first); per model,
    what ein_generate printed of its tuning: counts and seconds."""
    if os.path.exists(database):
        os.remove(database)
    subprocess.run(["cmake", build, f"-DEIN_BENCH_MODELS_TUNING_DB={database}",
                    f"-DEIN_BENCH_MODELS_TUNING_REUSE={'ON' if reuse else 'OFF'}"], check=True, stdout=subprocess.DEVNULL)
    for header in glob.glob(os.path.join(build, "bench", "models", "tuned", "ein_generated", "*")):
        os.remove(header)
    # one generation at a time: the tunings of two would disturb each other's timings
    done = subprocess.run(["cmake", "--build", build, "--target", "bench_models_tuned", "-j1"], check=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True).stdout
    with open(database + ".log", "w") as f:
        f.write(done)
    return printed_tuning(done)


def printed_tuning(done):
    """Per model, what the generations' output `done` says of their tuning: counts and seconds."""
    models, model = {}, None
    for line in done.splitlines():
        m = re.search(r"\(bench_model_(\w+)\.hpp\)", line)
        if m:
            model = m.group(1)
        m = re.search(r"tuning: (\d+) eOperators tuned from scratch, (\d+) by reuse, (\d+) from the tuning database, "
                      r"(\d+) at the default schedule, in ([0-9.]+) s", line)
        if m and model:
            models[model] = {"from_scratch": int(m.group(1)), "by_reuse": int(m.group(2)),
                             "from_database": int(m.group(3)), "at_default": int(m.group(4)),
                             "seconds": float(m.group(5))}
    if not models:
        sys.exit(f"tuning_rounds: no generation printed what it tuned:\n{done[-3000:]}")
    return models


def records(database):
    """The database's records of this machine (its one device), by kernel key."""
    with open(database) as f:
        devices = json.load(f)["devices"]
    if len(devices) != 1:
        sys.exit(f"tuning_rounds: {database} holds {len(devices)} devices, not this machine's alone")
    (device, entry), = devices.items()
    return device, entry["kernels"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build")
    parser.add_argument("work")
    parser.add_argument("results")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--time-only", action="store_true",
                        help="tune nothing: time the programs an earlier run built, with its databases in <work>")
    args = parser.parse_args()
    build, work = os.path.abspath(args.build), os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    started = {"load_average": load_average(), "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}

    subprocess.run(["cmake", "--build", build, "--target", "bench_models", "-j2"], check=True, stdout=subprocess.DEVNULL)
    scratch_db, reuse_db = os.path.join(work, "scratch.json"), os.path.join(work, "reuse.json")
    if args.time_only:
        # the tunings of an earlier run of this script into `work`, as their generations printed them
        def logged(database):
            with open(database + ".log") as f:
                return printed_tuning(f.read())
        tuning = {"scratch": logged(scratch_db), "reuse": logged(reuse_db)}
    else:
        # from scratch first, so that bench_models_tuned ends built from the reuse database
        tuning = {"scratch": tune(build, scratch_db, reuse=False), "reuse": tune(build, reuse_db, reuse=True)}
    device, scratch = records(scratch_db)
    _, reuse = records(reuse_db)

    kernels = {}
    for key, r in reuse.items():
        s = scratch.get(key)
        if not s or not r["reused_from"]:
            continue  # tuned from scratch both ways: no loss to measure
        kernels[key] = {"loss": r["seconds"] / s["seconds"] - 1, "reuse": r, "scratch": s}
    losses = [k["loss"] for k in kernels.values()]

    times = interleaved({"untuned": os.path.join(build, "bench", "models", "bench_models"),
                         "tuned": os.path.join(build, "bench", "models", "tuned", "bench_models_tuned")},
                        args.rounds, work)

    totals = {mode: sum(m["seconds"] for m in tuning[mode].values()) for mode in tuning}
    results = {
        "command": " ".join(sys.argv),
        "machine": {"device": device, "platform": platform.platform(), "cpus": os.cpu_count()},
        "rounds": args.rounds, "started": started, "finished": {"load_average": load_average()},
        "timing": "median over rounds of each round's median (ms)",
        "tuning_seconds": {**totals, "reuse_over_scratch": totals["reuse"] / totals["scratch"]},
        "reuse_loss": {"kernels": len(losses), "median": statistics.median(losses) if losses else None,
                       "mean": statistics.mean(losses) if losses else None, "max": max(losses) if losses else None},
        "models": {}, "kernels": kernels}
    print("\n| model | untuned (ms) | tuned (ms) | untuned / tuned | tuning from scratch (s) | tuning by reuse (s) |")
    print("|---|---|---|---|---|---|")
    for name, t in times.items():
        untuned, tuned = statistics.median(t["untuned"]), statistics.median(t["tuned"])
        tuned_how = {m: tuning[m][name] for m in tuning if name in tuning[m]}  # none: left untuned
        results["models"][name] = {"untuned_ms": untuned, "tuned_ms": tuned, "untuned_rounds_ms": t["untuned"],
                                   "tuned_rounds_ms": t["tuned"], "tuning": tuned_how}
        seconds = lambda m: f"{tuned_how[m]['seconds']:.1f}" if m in tuned_how else "untuned"
        print(f"| {name} | {untuned:.3f} | {tuned:.3f} | {untuned / tuned:.2f} | {seconds('scratch')} | {seconds('reuse')} |")
    print(f"\ntuning: {totals['scratch']:.1f} s from scratch, {totals['reuse']:.1f} s by reuse "
          f"({totals['reuse'] / totals['scratch']:.2f}); reuse's loss over {len(losses)} kernels: median "
          + (f"{100 * statistics.median(losses):.1f}%" if losses else "-"))
    with open(args.results, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
