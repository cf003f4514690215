#!/usr/bin/env python3
"""gpulint against ruff, on the same trees, in one run: alternating runs, medians, ratios, peak memory.

Trees: this Python's standard library, the sources of a pinned transformers release (its wheel,
downloaded once from PyPI into the cache and unpacked), a pinned vLLM source archive (with its
tests and examples: many small main programs that start GPU workers), and with `--broad` twelve more
pinned GPU packages of the review set (scripts/review.py fetches them into its own cache), each
checked from its own root as a user runs it. ruff is installed once,
pinned, into a virtual environment in the cache. Then Rust crates with generated CUDA and NVML
bindings, pinned, downloaded once from crates.io into the cache: ruff reads no Rust, so for them
gpulint's time and peak memory alone. Usage: scripts/bench.sh [--pgo] [--runs N] [--tree PATH ...]
(`--pgo`: the distributed build of scripts/pgo.sh instead of `cargo build --release`; a tree with a
Cargo.toml at its top is a Rust crate). GPULINT_BENCH_CACHE sets the cache (default
~/.cache/gpulint-bench). gpulint runs with --no-cache, as ruff does; its row "gpulint warm" times
runs answered from its cache (filled by one run first, in a folder of the bench's cache), with
nothing changed.
"""

import argparse
import os
import statistics
import subprocess
import sys
import sysconfig
import time
import urllib.request
import zipfile
from pathlib import Path

RUFF = "0.17.6"
TRANSFORMERS = "4.46.3"
VLLM = "0.6.4.post1"
# Rust crates whose generated bindings the Rust frontend must get through quickly: cudarc's per
# library `sys` modules (0.12 has one per CUDA version), tch's generated tensor wrappers, NVML's.
CRATES = [
    ("cudarc", "0.17.8"),
    ("cudarc", "0.19.10"),
    ("tch", "0.20.0"),
    ("nvml-wrapper-sys", "0.8.0"),
    ("cudarc", "0.12.1"),
]
# `--broad`: review-set packages (scripts/review.py pins and fetches them), the GPU-heavy and the
# large ones among them: servers, trainers, GPU arrays.
BROAD = ["deepspeed", "colossalai", "accelerate", "lightning", "megatron-core", "nemo-toolkit",
         "diffusers", "timm", "sglang", "vllm", "cupy", "numba"]
ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("GPULINT_BENCH_CACHE", Path.home() / ".cache" / "gpulint-bench"))
GPULINT = ROOT / "target" / "release" / "gpulint"


def ruff():
    """The pinned ruff binary, installed on first use."""
    venv = CACHE / f"ruff-{RUFF}"
    binary = venv / "bin" / "ruff"
    if not binary.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", f"ruff=={RUFF}"], check=True)
    return binary


def transformers():
    """The unpacked sources of the pinned transformers release."""
    tree = CACHE / f"transformers-{TRANSFORMERS}"
    if not (tree / ".unpacked").exists():
        downloads = CACHE / "downloads"
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-q",
             "-d", str(downloads), f"transformers=={TRANSFORMERS}"],
            check=True,
        )
        wheel = next(downloads.glob(f"transformers-{TRANSFORMERS}-*.whl"))
        with zipfile.ZipFile(wheel) as z:
            z.extractall(tree)
        (tree / ".unpacked").touch()
    return tree / "transformers"


def vllm():
    """The unpacked source archive of the pinned vLLM release (fetched as scripts/realworld.py does)."""
    import realworld

    return realworld.fetch("vllm", VLLM, "sdist", cache=CACHE)


def crate(name, version):
    """The unpacked source of a pinned crate, downloaded once from crates.io (unpacked as
    scripts/realworld.py does)."""
    import realworld

    tree = CACHE / "crates" / f"{name}-{version}"
    if not (tree / ".unpacked").exists():
        archive = CACHE / "downloads" / f"{name}-{version}.crate"
        if not archive.exists():
            archive.parent.mkdir(parents=True, exist_ok=True)
            url = f"https://static.crates.io/crates/{name}/{name}-{version}.crate"
            urllib.request.urlretrieve(url, archive)
        realworld.unpack(archive, tree)
    # A .crate holds one folder, `name-version/`.
    return tree / f"{name}-{version}"


def broad():
    """The roots of the `--broad` packages, as scripts/review.py pins and unpacks them."""
    import review

    roots = []
    for name, version, how, _ in review.PACKAGES:
        if name in BROAD:
            tree = review.fetch(name, version, how)
            folders = [p for p in tree.iterdir() if p.is_dir()]
            roots.append(folders[0] if len(folders) == 1 else tree)
    return roots


def run(command, cwd=None):
    """Wall seconds and peak resident MiB of one run (output discarded)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, _, usage = os.wait4(process.pid, 0)
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def warm_cache(tree):
    """A cache folder for `tree`'s warm runs, emptied."""
    import hashlib
    import shutil

    folder = CACHE / "gpulint-cache" / hashlib.sha256(str(tree).encode()).hexdigest()[:16]
    shutil.rmtree(folder, ignore_errors=True)
    return folder


def warm(tree, runs, gpulint):
    """Wall seconds and peak MiB of `runs` runs answered from the cache, after one that fills it;
    then of runs after one file was changed (its text grows by a comment line, and is put back)."""
    command = [str(gpulint), "check", "--exit-zero", "--cache-dir", str(warm_cache(tree)), "."]
    run(command, tree)  # fills the cache
    unchanged = [run(command, tree) for _ in range(runs)]
    edited = one_file(tree)
    changed = []
    if edited is not None:
        original = edited.read_bytes()
        try:
            for i in range(runs):
                edited.write_bytes(original + f"\n# bench edit {i}\n".encode())
                changed.append(run(command, tree))
        finally:
            edited.write_bytes(original)
        run(command, tree)  # the cache as it was
    return unchanged, changed


def one_file(tree):
    """The file a one-file change edits: the tree's largest Python file that is not a test, in a
    tree this script or the review set downloaded (never the standard library's)."""
    import review

    if not (tree.is_relative_to(CACHE) or tree.is_relative_to(review.CACHE)):
        return None
    files = sorted(
        (p for p in tree.rglob("*.py") if "test" not in p.parts[-1]), key=lambda p: p.stat().st_size
    )
    return files[-1] if files else None


def row(name, samples):
    walls = [w for w, _ in samples]
    peaks = [p for _, p in samples]
    print(f"  {name:12} {statistics.median(walls):8.3f} {min(walls):7.3f}-{max(walls):<7.3f} "
          f"{statistics.median(peaks):9.1f}")


def compare(tree, runs, ruff_bin, gpulint):
    # From the tree's root, as a user runs both.
    commands = {
        "gpulint": [str(gpulint), "check", "--no-cache", "--exit-zero", "."],
        "ruff": [str(ruff_bin), "check", "--no-cache", "--isolated", "--exit-zero", "."],
    }
    for command in commands.values():
        run(command, tree)  # warm-up: the file cache
    results = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            results[name].append(run(command, tree))
    ratios = [g[0] / r[0] for g, r in zip(results["gpulint"], results["ruff"])]
    warm_samples, changed = warm(tree, runs, gpulint)
    files = sum(1 for _ in tree.rglob("*.py"))
    print(f"\n{tree} ({files} Python files; {runs} alternating runs each, medians)")
    print(f"  {'':12} {'wall s':>8} {'min-max':>15} {'peak MiB':>9}")
    for name, samples in results.items():
        row(name, samples)
    row("gpulint warm", warm_samples)
    if changed:
        row("1 changed", changed)
    print(f"  gpulint/ruff wall: median {statistics.median(ratios):.2f} "
          f"(pairs {min(ratios):.2f}-{max(ratios):.2f})")
    cold = statistics.median(w for w, _ in results["gpulint"])
    print(f"  gpulint warm/cold wall: {statistics.median(w for w, _ in warm_samples) / cold:.2f}")


def alone(tree, runs, gpulint):
    """gpulint on a tree ruff does not read (a Rust crate): its time and peak memory."""
    command = [str(gpulint), "check", "--no-cache", "--exit-zero", "."]
    run(command, tree)  # warm-up: the file cache
    samples = [run(command, tree) for _ in range(runs)]
    files = sum(1 for _ in tree.rglob("*.rs"))
    print(f"\n{tree} ({files} Rust files, {runs} runs, medians)")
    print(f"  {'':12} {'wall s':>8} {'min-max':>15} {'peak MiB':>9}")
    row("gpulint", samples)
    # The Rust frontend's findings are not cached: a warm run is a cold one.
    row("gpulint warm", warm(tree, runs, gpulint)[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tree", action="append", type=Path, help="trees to check instead")
    parser.add_argument("--gpulint", type=Path, default=GPULINT, help="the binary to time")
    parser.add_argument("--broad", action="store_true", help="add twelve review-set packages")
    args = parser.parse_args()
    CACHE.mkdir(parents=True, exist_ok=True)
    trees = args.tree or [Path(sysconfig.get_paths()["stdlib"]), transformers(), vllm()]
    if args.broad and not args.tree:
        trees += broad()
    if not args.tree:
        trees += [crate(name, version) for name, version in CRATES]
    trees = [tree.resolve() for tree in trees]
    rust = [tree for tree in trees if (tree / "Cargo.toml").is_file()]
    ruff_bin = ruff() if len(rust) < len(trees) else None
    print(f"gpulint {args.gpulint} against ruff {RUFF}, {os.cpu_count()} cores")
    for tree in trees:
        if tree in rust:
            alone(tree, args.runs, args.gpulint)
        else:
            compare(tree, args.runs, ruff_bin, args.gpulint)


if __name__ == "__main__":
    main()
