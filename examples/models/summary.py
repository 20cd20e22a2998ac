#!/usr/bin/env python3
"""Prints a model's row of docs/models.md from the JSON report that ein_generate wrote: its
subprograms, the plan's kernels (library calls, eOperators, weight transforms), the predicted time
of the chosen plan and of the program as written (the search's baseline) and the search's time
(subprograms searched, and how many distinct searches that took: identical ones are searched once);
with --json FILE, writes the same figures as JSON (bench/results/models.json).

    python3 examples/models/summary.py [--json FILE] build/tests/models/ein_generated/model_dcgan_full.json ...
"""
import json
import re
import sys


def summary(path):
    """The model's figures: name, subprograms (searched), kernels, predicted times, search time."""
    report = json.load(open(path))
    text = report["statistics"]["report"]
    searched = re.search(r"(\d+) of (\d+) subprograms searched(?:, (\d+) distinct)?", text)
    chosen = written = 0.0
    for block in re.split(r"\nsubprogram ", text)[1:]:
        total = float(re.search(r"\n  total ([0-9.]+) ms", block).group(1))
        # A searched subprogram states both plans priced as PLAN_FOR's backend runs them, as its
        # kernel lines and total price the chosen plan; the others have their total only.
        searched_line = re.search(r"\n  chosen .*?([0-9.]+) ms as the backend runs it; baseline .* ([0-9.]+) ms", block)
        chosen += float(searched_line.group(1)) if searched_line else total
        written += float(searched_line.group(2)) if searched_line else total
    kernels = [k for k in report["plan"] if not k["weight_transform"]]
    library = sum(1 for k in kernels if k["kind"] == "library")
    distinct = int(searched.group(3)) if searched.group(3) else int(searched.group(1))
    return {"model": report["name"], "subprograms": int(searched.group(2)), "searched": int(searched.group(1)),
            "distinct_searches": distinct,
            "library_calls": library, "eoperators": len(kernels) - library,
            "weight_transforms": len(report["plan"]) - len(kernels), "predicted_chosen_ms": round(chosen, 4),
            "predicted_as_written_ms": round(written, 4), "search_s": report["statistics"]["time_s"],
            "cost_model": text.splitlines()[0]}


def row(s):
    return (f"| {s['model']} | {s['subprograms']} ({s['searched']} searched, {s['distinct_searches']} distinct) | "
            f"{s['library_calls']} library calls, "
            f"{s['eoperators']} eOperators, {s['weight_transforms']} weight transforms | "
            f"{s['predicted_chosen_ms']:.4f} ms | {s['predicted_as_written_ms']:.4f} ms | {s['search_s']:.1f} s |")


if __name__ == "__main__":
    args = sys.argv[1:]
    out = None
    if args[:1] == ["--json"]:
        out, args = args[1], args[2:]
    rows = [summary(path) for path in args]
    for s in rows:
        print(row(s))
    if out:
        with open(out, "w") as f:
            json.dump({"command": "python3 examples/models/summary.py --json " + out + " " + " ".join(args),
                       "models": rows}, f, indent=2)
            f.write("\n")
