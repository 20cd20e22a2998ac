"""The seven models on the host against their peers, in interleaved rounds: each round runs ein's
searched plans (bench_models), the same models generated as written (bench_models_written, SEARCH
OFF), PyTorch eager, torch.compile and ONNX Runtime, one after another, on the same inputs; each
figure is the median over the rounds of each round's median time. Every output is checked against
PyTorch eager (1e-3 of its largest magnitude); a 16-bit model's (EIN_BENCH_MODELS_TYPE), run by
PyTorch in its type too, against the float32 result on the same values, each within twice eager's
difference from it plus a unit in the last place (peers.agreement; ONNX Runtime runs float models
only). Writes the results as JSON and prints the table of docs/models.md.

    python3 bench/models/host_rounds.py <build folder> <work folder> <results.json> [--rounds 3]
        [--no-compile] [--models a,b]

The build folder is configured with -DEIN_BUILD_MODEL_BENCHMARKS=host (docs/models.md).
"""
import argparse
import json
import os
import platform
import sys
import time

import numpy as np
import torch

import peers
from ab_rounds import load_average, manifest


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build")
    parser.add_argument("work")
    parser.add_argument("results")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-compile", action="store_true", help="leave torch.compile out")
    parser.add_argument("--models", help="only these models (comma-separated)")
    args = parser.parse_args()
    searched_program = os.path.join(args.build, "bench", "models", "bench_models")
    written_program = os.path.join(args.build, "bench", "models", "written", "bench_models_written")
    wanted = set(args.models.split(",")) if args.models else None
    threads = torch.get_num_threads()
    started = {"load_average": load_average(), "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}

    times = {}  # model -> peer -> [ms per round]
    errors, peer_functions = {}, {}
    for r in range(args.rounds):
        searched = manifest(searched_program, os.path.join(args.work, "searched"))
        written = manifest(written_program, os.path.join(args.work, "written"))
        written_by_name = {e["name"]: e for e in written["models"]}
        for entry in searched["models"]:
            name = entry["name"]
            if wanted and name not in wanted:
                continue
            t = times.setdefault(name, {})
            t.setdefault("ein", []).append(entry["ein_ms"])
            t.setdefault("ein_as_written", []).append(written_by_name[name]["ein_ms"])
            x, ein_out, forward = peers.model_of(os.path.join(args.work, "searched"), entry)
            if name not in peer_functions:
                f = {"eager": lambda forward=forward, x=x: forward(x)}
                if not args.no_compile:
                    compiled = torch.compile(forward)
                    f["compile"] = lambda compiled=compiled, x=x: compiled(x)
                narrow = entry.get("element", "float") != "float"
                try:
                    if not narrow:  # ONNX Runtime runs float models only
                        f["onnxruntime"] = peers.onnxruntime_session(
                            forward, x, os.path.join(args.work, name + ".onnx"), threads)
                except Exception as e:
                    errors[name + " onnxruntime"] = f"{type(e).__name__}: {e}"[:300]
                peer_functions[name] = f
                # outputs checked once: ein's written plan and every peer against eager
                with torch.no_grad():
                    reference = f["eager"]()
                    written_out = peers.load(os.path.join(args.work, "written"), written_by_name[name]["output"])
                    check = {"ein": ein_out, "ein_as_written": written_out}
                    for peer, fn in f.items():
                        try:
                            check[peer] = fn()
                        except Exception as e:
                            errors[name + " " + peer] = f"{type(e).__name__}: {e}"[:300]
                    reference32 = None
                    if narrow:
                        x32, _, forward32 = peers.model_of(os.path.join(args.work, "searched"), entry, element="float")
                        reference32 = forward32(x32)
                    errs, disagree = peers.agreement(entry, check, reference, reference32)
                    against = "the float32 result" if narrow else "PyTorch eager"
                    for who in disagree:
                        errors[name + " " + who] = f"differs from {against} by {errs[who]:.2e}"
                    entry["max_rel_err_vs_float32" if narrow else "max_rel_err_vs_eager"] = errs
                for key in ("max_rel_err_vs_eager", "max_rel_err_vs_float32"):
                    if key in entry:
                        times[name][key] = entry[key]
                times[name]["plan"] = entry["plan"]
                times[name]["plan_as_written"] = written_by_name[name]["plan"]
            with torch.no_grad():
                for peer, fn in peer_functions[name].items():
                    if name + " " + peer in errors:
                        continue
                    t.setdefault(peer, []).append(peers.host_median_ms(fn))
            print(f"round {r + 1}: {name}: " + ", ".join(f"{k} {v[-1]:.3f}" for k, v in t.items() if isinstance(v, list)),
                  flush=True)

    results = {"command": " ".join(sys.argv), "machine": {"cpu": searched["machine"]["cpu"], "threads": threads,
                                                          "platform": platform.platform()},
               "torch": torch.__version__, "rounds": args.rounds, "started": started,
               "finished": {"load_average": load_average()}, "timing": "median over rounds of each round's median (ms)",
               "errors": errors, "models": {}}
    try:
        import onnxruntime
        results["onnxruntime"] = onnxruntime.__version__
    except ImportError:
        pass
    peers_order = ["ein", "ein_as_written", "eager", "compile", "onnxruntime"]
    print(f"\n| model | ein searched (ms) | ein as written (ms) | PyTorch eager | torch.compile | ONNX Runtime | "
          f"eager / ein | compile / ein | ORT / ein |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, t in times.items():
        med = {p: float(np.median(t[p])) for p in peers_order if p in t}
        results["models"][name] = {**{p + "_ms": med[p] for p in med}, **{p + "_rounds_ms": t[p] for p in med},
                                   **{k: t[k] for k in ("max_rel_err_vs_eager", "max_rel_err_vs_float32") if k in t},
                                   "plan": t.get("plan"),
                                   "plan_as_written": t.get("plan_as_written")}
        cell = lambda p: f"{med[p]:.3f}" if p in med else "—"
        ratio = lambda p: f"{med[p] / med['ein']:.2f}" if p in med else "—"
        print(f"| {name} | {cell('ein')} | {cell('ein_as_written')} | {cell('eager')} | {cell('compile')} | "
              f"{cell('onnxruntime')} | {ratio('eager')} | {ratio('compile')} | {ratio('onnxruntime')} |")
    with open(args.results, "w") as f:
        json.dump(results, f, indent=2)
        f.write("\n")
    if any("differs" in e for e in errors.values()):
        raise SystemExit("host_rounds.py: outputs disagree: " + "; ".join(f"{k}: {v}" for k, v in errors.items()))


if __name__ == "__main__":
    main()
