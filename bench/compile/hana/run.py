#!/usr/bin/env python3
"""What Boost.Hana would cost the front end's compile time (docs/decisions/0012-no-hana.md).

Compiles the user's generic translation unit of bench/compile (ein.hpp + a synthetic model of N
definitions, ein::run interpreting it) with include/ein/front/meta.hpp as it is, and with its
type-list algorithms replaced by the Boost.Hana ones of type_lists.inc (all of them, or one group:
--only concat|sets|search), RUNS times each, interleaved, and prints the medians of processor
time (user) and peak memory from /usr/bin/time. Needs g++, cmake, /usr/bin/time and Boost's
headers (Debian: libboost-dev), which ein's own build does not.

    bench/compile/hana/run.py [--sizes 50 200] [--runs 3] [--only concat|sets|search] [--cxx g++]
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]
META = ROOT / "include/ein/front/meta.hpp"

# The hand-written groups of meta.hpp, each from its first line to the next group's.
GROUPS = {
    "concat": ("template <class... L>\nstruct concat_impl", "template <class T, class L>\ninline constexpr bool contains"),
    "sets": ("template <class T, class L>\ninline constexpr bool contains", "/// Position of T in L"),
    "search": ("/// Position of T in L", "/// 64-bit FNV-1a"),
}
# Where each group begins in type_lists.inc (the conversions come first, with concat).
HANA_GROUPS = {
    "concat": ("template <class... T>\nconstexpr auto as_hana", "template <class T, class L>\ninline constexpr bool contains"),
    "sets": ("template <class T, class L>\ninline constexpr bool contains", "/// Position of T in L"),
    "search": ("/// Position of T in L", None),
}


def between(text, start, end):
    a = text.index(start)
    b = text.index(end, a) if end else len(text)
    return text[a:b]


def hana_meta(only):
    """meta.hpp with the chosen groups (every group when `only` is None) written with Hana."""
    meta = META.read_text()
    hana = (HERE / "type_lists.inc").read_text()
    conversions = between(hana, *HANA_GROUPS["concat"]).split("template <class... L>\nusing concat")[0]
    for group in GROUPS:
        if only and group != only:
            continue
        replacement = between(hana, *HANA_GROUPS[group])
        if group != "concat":
            replacement = (conversions if only else "") + replacement
        meta = meta.replace(between(meta, *GROUPS[group]), replacement)
    return meta.replace("#include <type_traits>\n", "#include <type_traits>\n\n#include <boost/hana.hpp>\n", 1)


def compile_once(cxx, source, includes):
    cmd = ["/usr/bin/time", "-f", "%U %M", cxx, "-std=c++20", "-O2", "-c", str(source), "-o", os.devnull]
    cmd += [f"-I{i}" for i in includes]  # in order: the variant's meta.hpp first
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"compiling {source} failed:\n{r.stderr[-3000:]}")
    user, kib = r.stderr.strip().splitlines()[-1].split()
    return float(user), int(kib) / 1024


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[50, 200])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", choices=sorted(GROUPS))
    ap.add_argument("--cxx", default="g++")
    a = ap.parse_args()
    if not pathlib.Path("/usr/include/boost/hana.hpp").exists():
        sys.exit("bench/compile/hana: Boost's headers are missing (Debian: apt-get install libboost-dev)")
    with tempfile.TemporaryDirectory() as work:
        work = pathlib.Path(work)
        variant = work / "hana/ein/front"
        variant.mkdir(parents=True)
        (variant / "meta.hpp").write_text(hana_meta(a.only))
        script = work / "models.cmake"
        script.write_text(f"include({ROOT}/bench/compile/model.cmake)\n" + "".join(
            f"ein_compile_bench_model({work}/model_{n}.hpp {n})\n" for n in a.sizes))
        subprocess.run(["cmake", "-P", str(script)], check=True)
        template = (ROOT / "bench/compile/project/generic.cpp.in").read_text()
        print(f"{'definitions':>11} | {'hand-written: user s':>20} | {'MiB':>5} | "
              f"{'Hana' + (' (' + a.only + ')' if a.only else '') + ': user s':>22} | {'MiB':>5}")
        for n in a.sizes:
            source = work / f"generic_{n}.cpp"
            source.write_text(template.replace("@EIN_BENCH_DEFINITIONS@", str(n)))
            hand, hana = [], []
            for _ in range(a.runs):
                hand.append(compile_once(a.cxx, source, [ROOT / "include", work]))
                hana.append(compile_once(a.cxx, source, [work / "hana", ROOT / "include", work]))
            med = lambda xs, k: statistics.median(x[k] for x in xs)
            print(f"{n:>11} | {med(hand, 0):>20.2f} | {med(hand, 1):>5.0f} | {med(hana, 0):>22.2f} | {med(hana, 1):>5.0f}")


if __name__ == "__main__":
    main()
