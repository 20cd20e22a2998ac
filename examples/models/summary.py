#!/usr/bin/env python3
"""Prints a model's row of docs/models.md from the JSON report that ein_generate wrote: its
definitions, subprograms, the plan's kernels (library calls, eOperators, weight transforms) and
the predicted time of the chosen plan and of the program as written (the search's baseline).

    python3 examples/models/summary.py build/tests/models/ein_generated/model_dcgan_full.json
"""
import json
import re
import sys


def summary(path):
    report = json.load(open(path))
    text = report["statistics"]["report"]
    searched = re.search(r"(\d+) of (\d+) subprograms searched", text)
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
    transforms = len(report["plan"]) - len(kernels)
    definitions = len(report["derivation"])  # one entry per definition of the model
    return (f"| {report['name']} | {definitions} | {searched.group(2)} ({searched.group(1)} searched) | "
            f"{library} library calls, {len(kernels) - library} eOperators, {transforms} weight transforms | "
            f"{chosen:.4f} ms | {written:.4f} ms | {report['statistics']['time_s']:.1f} s |")


if __name__ == "__main__":
    for path in sys.argv[1:]:
        print(summary(path))
