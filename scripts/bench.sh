#!/usr/bin/env bash
# Times `gpulint check` on a source tree (default: this Python's standard library), release build,
# five runs after one warm-up. Usage: scripts/bench.sh [PATH]
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:-$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')}
cargo build --release --quiet
bin=target/release/gpulint
files=$(find "$target" -name '*.py' -not -path '*/site-packages/*' | wc -l)
echo "checking $target ($files .py files outside site-packages)"
"$bin" check --output-format concise "$target" >/dev/null || true
TIMEFORMAT='wall %R s  user %U s  sys %S s'
for _ in 1 2 3 4 5; do
    time "$bin" check --output-format concise "$target" >/dev/null || true
done
