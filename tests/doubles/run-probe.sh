#!/usr/bin/env bash
# Builds gpulint and the test doubles of libcuda, libnvidia-ml and libnccl, then runs
# `gpulint probe ARGS` against the doubles (2 devices unless GPUDOUBLE_DEVICES says otherwise).
#
#   tests/doubles/run-probe.sh [ARGS...]
#
# Environment:
#   GPUDOUBLE_*            passed to the doubles (see tests/doubles/README.md)
#   RUN_PROBE_WITHOUT      space-separated libraries to leave out: cuda nvml nccl
#   RUN_PROBE_PROFILE      cargo profile folder: debug (default) or release
#   RUN_PROBE_NO_BUILD=1   use what is already built
#   RUN_PROBE_TARGET       the folder holding gpulint and the doubles' .so files (default:
#                          target/$RUN_PROBE_PROFILE); implies RUN_PROBE_NO_BUILD
#   RUN_PROBE_EXEC         the command to run instead of gpulint (its arguments follow)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
profile="${RUN_PROBE_PROFILE:-debug}"
target="${RUN_PROBE_TARGET:-${CARGO_TARGET_DIR:-$root/target}/$profile}"
if [[ -z "${RUN_PROBE_NO_BUILD:-}${RUN_PROBE_TARGET:-}" ]]; then
  flags=()
  [[ "$profile" == release ]] && flags=(--release)
  (cd "$root" && cargo build -q "${flags[@]}" -p gpulint -p gpudouble_cuda -p gpudouble_nvml -p gpudouble_nccl)
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/gpulint-doubles.XXXXXX")"
mkdir -p "$work/lib" "$work/state"
without=" ${RUN_PROBE_WITHOUT:-} "
# cargo refreshes only deps/ when the doubles are built as dependencies (cargo test): take the
# newer copy.
link() {
  local src="$target/$1"
  [[ -e "$target/deps/$1" && "$target/deps/$1" -nt "$src" ]] && src="$target/deps/$1"
  ln -s "$src" "$work/lib/$2"
}
if [[ "$without" != *" cuda "* ]]; then
  link libgpudouble_cuda.so libcuda.so
  link libgpudouble_cuda.so libcuda.so.1
fi
[[ "$without" != *" nvml "* ]] && link libgpudouble_nvml.so libnvidia-ml.so.1
[[ "$without" != *" nccl "* ]] && link libgpudouble_nccl.so libnccl.so

export LD_LIBRARY_PATH="$work/lib"
export GPUDOUBLE_DEVICES="${GPUDOUBLE_DEVICES:-2}"
export GPUDOUBLE_STATE="${GPUDOUBLE_STATE:-$work/state}"
# In the background and waited for, so that a signal to this script reaches gpulint before the
# folders it uses are removed.
child=""
stop() {
  if [[ -n "$child" ]]; then kill -TERM "$child" 2>/dev/null || true; wait "$child" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap stop EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
if [[ -n "${RUN_PROBE_EXEC:-}" ]]; then
  "$RUN_PROBE_EXEC" "$@" &
else
  "$target/gpulint" probe "$@" &
fi
child=$!
status=0
wait "$child" || status=$?
child=""
exit "$status"
