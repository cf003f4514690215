#!/usr/bin/env bash
# The distributed build: profile-guided and link-time optimised (`[profile.dist]`), about 12% faster
# than `cargo build --release` on large trees. Three steps: an instrumented build, a training run
# over the repository's own corpus and examples (never a benchmark tree), and the build that uses
# the profile. Needs rustup's llvm-tools component (installed here if missing), about 10 minutes
# on two cores.
#   scripts/pgo.sh              the profile, then the binary: target/pgo/dist/gpulint
#   scripts/pgo.sh --profile    only the profile, target/pgo/merged.profdata (`scripts/build-wheel.sh
#                               --pgo` builds the wheel with it)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
    rustup component add llvm-tools
fi

data="$root/target/pgo/profiles"
rm -rf "$data"
echo "pgo: instrumented build" >&2
RUSTFLAGS="-Cprofile-generate=$data" \
    cargo build --quiet --profile dist --target-dir target/pgo/gen -p gpulint
echo "pgo: training on corpus/ and examples/" >&2
target/pgo/gen/dist/gpulint check --quiet --exit-zero corpus examples >/dev/null
"$profdata" merge -o "$root/target/pgo/merged.profdata" "$data"
if [ "${1:-}" = "--profile" ]; then
    exit 0
fi

echo "pgo: optimised build" >&2
export RUSTFLAGS="-Cprofile-use=$root/target/pgo/merged.profdata"
cargo build --quiet --profile dist --target-dir target/pgo -p gpulint
echo "pgo: target/pgo/dist/gpulint" >&2
