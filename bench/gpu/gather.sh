#!/usr/bin/env bash
# Gathers, on a networked Debian 12 machine, what bench/gpu/run.sh needs to build ein on a GPU
# machine that has the CUDA toolkit, a C++ compiler, CMake and PyTorch (with its cuDNN wheel) but
# no Debian -dev packages and no network: the Debian packages of doctest, nlohmann-json and
# OpenBLAS (with its Fortran runtime), unpacked, trimmed to what the build reads and packed into
# .gpu-kit/kit.tar.xz, a git-ignored folder to carry with the run (docs/gpu.md).
#
#   bench/gpu/gather.sh        (apt-get download needs no root; prints the kit's contents and size)
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
kit=$repo/.gpu-kit
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

packages=(doctest-dev nlohmann-json3-dev libopenblas-dev libopenblas-pthread-dev libopenblas0-pthread
          libgfortran5 libquadmath0)
(cd "$work" && apt-get download "${packages[@]}" >/dev/null 2>&1)
mkdir -p "$work/all"
for deb in "$work"/*.deb; do dpkg -x "$deb" "$work/all"; done

from=$work/all/usr
to=$work/kit/usr
arch=x86_64-linux-gnu
copy() {  # copy PATH (relative to usr/) from the unpacked packages into the kit
  mkdir -p "$(dirname "$to/$1")"
  cp -a "$from/$1" "$to/$1"
}
copy include/doctest
copy include/nlohmann
copy include/$arch/openblas-pthread
copy lib/cmake/doctest
copy share/cmake/nlohmann_json
mkdir -p "$to/lib/$arch/openblas-pthread"
for lib in libopenblas.so libopenblas.so.0 libopenblasp-r0.3.21.so; do copy lib/$arch/openblas-pthread/$lib; done
for lib in libgfortran.so.5 libgfortran.so.5.0.0 libquadmath.so.0 libquadmath.so.0.0.0; do copy lib/$arch/$lib; done

mkdir -p "$kit"
tar -C "$work/kit" -cJf "$kit/kit.tar.xz" usr
{
  echo "ein's GPU build kit, gathered $(date -u +%Y-%m-%dT%H:%M:%SZ) by bench/gpu/gather.sh from Debian 12 packages:"
  for deb in "$work"/*.deb; do dpkg-deb -W --showformat='  ${Package} ${Version}\n' "$deb"; done
  echo "unpacked: $(du -sh "$work/kit" | cut -f1), packed: $(du -h "$kit/kit.tar.xz" | cut -f1)"
} > "$kit/kit.txt"
cat "$kit/kit.txt"
