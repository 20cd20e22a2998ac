#!/usr/bin/env bash
# scripts/deps with dpkg-query, id, sudo and apt-get faked: it installs exactly the missing
# packages, through sudo only when not root, runs apt-get only when something is missing, and
# without dpkg-query only says what to install.
#   deps_test.sh <path of scripts/deps>
set -euo pipefail
deps="$1"
fail() { echo "FAIL: $*" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bin="$work/bin"
mkdir -p "$bin"
for tool in bash grep env cat; do ln -s "$(command -v "$tool")" "$bin/$tool"; done
# dpkg-query: the packages listed in $work/installed are installed.
cat > "$bin/dpkg-query" <<FAKE
#!$(command -v bash)
grep -qx "\${@: -1}" "$work/installed" && echo -n "install ok installed" || exit 1
FAKE
cat > "$bin/id" <<FAKE
#!$(command -v bash)
echo "\$FAKE_UID"
FAKE
for tool in sudo apt-get; do
  cat > "$bin/$tool" <<FAKE
#!$(command -v bash)
echo "$tool \$*" >> "$work/calls"
if [[ "$tool" == sudo ]]; then exec "\$@"; fi
FAKE
done
chmod +x "$bin"/*

run() {  # run <uid> <installed packages...>: the calls made, one per line
  printf '%s\n' "${@:2}" > "$work/installed"
  : > "$work/calls"
  PATH="$bin" FAKE_UID="$1" bash "$deps" 2> "$work/stderr" || fail "scripts/deps failed: $(cat "$work/stderr")"
  cat "$work/calls"
}
# The list scripts/deps keeps (at least three packages).
read -r -a all <<< "$(sed -n 's/^packages=(\(.*\))$/\1/p' "$deps")"
((${#all[@]} >= 3)) || fail "no package list found in $deps"

calls="$(run 0 "${all[@]}")"
[[ -z "$calls" ]] || fail "everything installed, yet it called: $calls"
calls="$(run 1000 "${all[@]}")"
[[ -z "$calls" ]] || fail "everything installed, not root, yet it called: $calls"

calls="$(run 0 "${all[0]}" "${all[@]:2:${#all[@]}-3}")"
expected="apt-get update"$'\n'"apt-get install -y --no-install-recommends ${all[1]} ${all[-1]}"
[[ "$calls" == "$expected" ]] || fail "as root with ${all[1]} and ${all[-1]} missing: got '$calls'"

calls="$(run 1000 "${all[@]:1}")"
expected="sudo apt-get update"$'\n'"apt-get update"$'\n'"sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${all[0]}"$'\n'"apt-get install -y --no-install-recommends ${all[0]}"
[[ "$calls" == "$expected" ]] || fail "not root with ${all[0]} missing: got '$calls'"

rm "$bin/dpkg-query"
calls="$(run 0)"
[[ -z "$calls" ]] || fail "without dpkg-query it called: $calls"
grep -q "make sure these are installed: ${all[*]}" "$work/stderr" || fail "without dpkg-query it said: $(cat "$work/stderr")"
echo "scripts/deps: installs exactly what is missing, with sudo only when not root"
