# The steps of bench/gpu/run.sh, sourced by it (and by tests/scripts/gpu_steps_test.sh): each runs
# under a time limit, is logged, and gets one line in the summary with its time and verdict.
# Expects: budget (seconds), started (date +%s), logs (folder), summary (file), status (0),
# gpu (1 where nvidia-smi lists a device), and a repack function.

left() { echo $((budget - ($(date +%s) - started))); }
note() { echo "$*" | tee -a "$summary"; }
wanted() { [[ -z ${EIN_GPU_STEPS:-} || " $EIN_GPU_STEPS " == *" $1 "* ]]; }

# skip_step NAME WHY: a step that does not run, with the reason in the summary (no failure).
skip_step() {
  wanted "$1" || return 0
  note "$(printf '%-22s    -    skipped: %s' "$1" "$2")"
}

# step NAME LIMIT COMMAND...: runs COMMAND (output to logs/NAME.log) for at most LIMIT seconds
# (times EIN_GPU_SLOWDOWN) and what is left of the budget. Exit 77 means skipped for want of a
# CUDA device, which is a failure where nvidia-smi listed one; anything else but 0 fails. A step
# named in `optional` (a space-separated list) that finds no time left is skipped without failing.
# Returns COMMAND's status, 1 where it did not run.
step() {
  local name=$1 limit=$2
  shift 2
  if ! wanted "$name" && [[ ! $name =~ ^(environment|configure|build)$ ]]; then return 1; fi
  local remaining
  remaining=$(( $(left) - 15 ))
  if ((remaining < 10)); then
    if [[ " ${optional:-} " == *" $name "* ]]; then
      note "$(printf '%-22s    -    skipped: no time left for it (EIN_GPU_BUDGET=%s)' "$name" "$budget")"
    else
      note "$(printf '%-22s    -    FAILED: out of time (EIN_GPU_BUDGET=%s)' "$name" "$budget")"
      status=1
    fi
    return 1
  fi
  limit=$((limit * ${EIN_GPU_SLOWDOWN:-1}))
  ((limit > remaining)) && limit=$remaining
  local t0 rc
  t0=$(date +%s)
  # bash -c, so that COMMAND may be one of run.sh's functions (exported)
  timeout --kill-after=5 "$limit" bash -c '"$@"' "$name" "$@" > "$logs/$name.log" 2>&1
  rc=$?
  local took=$(( $(date +%s) - t0 )) verdict=ok
  case $rc in
    0) ;;
    77)
      if ((gpu)); then
        verdict="FAILED: skipped although nvidia-smi lists a GPU (logs/$name.log says why)"
        status=1
      else
        verdict="skipped (no CUDA device)"
      fi
      ;;
    124 | 137) verdict="FAILED: over its ${limit} s"; status=1 ;;
    *) verdict="FAILED (exit $rc)"; status=1 ;;
  esac
  note "$(printf '%-22s %4d s  %s' "$name" "$took" "$verdict")"
  repack
  return $rc
}
