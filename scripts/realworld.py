#!/usr/bin/env python3
"""Runs gpulint on pinned releases of real ML projects and prints a table of what it found.

Each package is fetched from PyPI once into a cache outside the repository: the pure wheel with
`pip download --no-deps` where PyPI has one, else the source archive straight from PyPI's simple
index (deepspeed and vllm: their source is what we read, and building them needs CUDA). Then it is
unpacked, and `gpulint check` runs on the unpacked tree. Usage: scripts/realworld.sh [--findings].
"""

import json
import os
import re
import subprocess
import sys
import tarfile
import time
import urllib.request
import zipfile
from pathlib import Path

# (distribution, version, how): "wheel" = pip download, "sdist" = source archive from the index.
PACKAGES = [
    ("transformers", "4.46.3", "wheel"),
    ("accelerate", "1.1.1", "wheel"),
    ("pytorch-lightning", "2.4.0", "wheel"),
    ("datasets", "3.1.0", "wheel"),
    ("sentence-transformers", "3.3.1", "wheel"),
    ("deepspeed", "0.16.1", "sdist"),
    ("vllm", "0.6.4.post1", "sdist"),
    ("ultralytics", "8.3.40", "wheel"),
    ("timm", "1.0.12", "wheel"),
    ("mmengine", "0.10.5", "wheel"),
]

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("GPULINT_REALWORLD_CACHE", Path.home() / ".cache" / "gpulint-realworld"))
BINARY = ROOT / "target" / "release" / "gpulint"


def fetch(name, version, how, cache=None):
    """The unpacked tree of one release, downloading and unpacking it on first use (into `cache`,
    by default this script's)."""
    cache = cache or CACHE
    tree = cache / f"{name}-{version}"
    if (tree / ".unpacked").exists():
        return tree
    downloads = cache / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    if how == "wheel":
        subprocess.run(
            ["pip", "download", "--no-deps", "--only-binary", ":all:", "-q", "-d", str(downloads),
             f"{name}=={version}"],
            check=True,
        )
        normalized = name.replace("-", "_")
        archive = next(downloads.glob(f"{normalized}-{version}-*.whl"))
    else:
        archive = downloads / f"{name}-{version}.tar.gz"
        if not archive.exists():
            index = urllib.request.urlopen(f"https://pypi.org/simple/{name}/").read().decode()
            match = re.search(rf'href="([^"]*/{re.escape(archive.name)})(#[^"]*)?"', index)
            if not match:
                sys.exit(f"{archive.name} is not on PyPI's index")
            urllib.request.urlretrieve(match.group(1), archive)
    return unpack(archive, tree)


def unpack(archive, tree):
    """Unpacks a wheel, zip or tar archive into `tree` and marks it done."""
    tree.mkdir(parents=True, exist_ok=True)
    if archive.name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as z:
            z.extractall(tree)
    else:
        with tarfile.open(archive) as t:
            t.extractall(tree, filter="data")
    (tree / ".unpacked").touch()
    return tree


def python_files(tree):
    return [p for p in tree.rglob("*.py") if p.is_file()]


def main():
    show_findings = "--findings" in sys.argv
    rows = []
    all_findings = []
    for name, version, how in PACKAGES:
        tree = fetch(name, version, how)
        files = python_files(tree)
        lines = sum(p.read_bytes().count(b"\n") for p in files)
        start = time.perf_counter()
        out = subprocess.run(
            [str(BINARY), "check", "--output-format", "json", str(tree)],
            capture_output=True,
            text=True,
            # An active virtualenv would be read as the tree's environment.
            env={k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"},
        )
        wall = time.perf_counter() - start
        if out.returncode not in (0, 1):
            sys.exit(f"gpulint failed on {name}: exit {out.returncode}\n{out.stderr}")
        findings = json.loads(out.stdout)
        by_rule = {}
        for f in findings:
            by_rule[f["code"]] = by_rule.get(f["code"], 0) + 1
            rel = os.path.relpath(f["filename"], tree)
            all_findings.append((name, rel, f["location"]["row"], f["code"], f["message"]))
        rows.append((name, version, len(files), lines, by_rule, wall))

    # The first three rules always have a column; any other rule gets one when it found something.
    found = {code for row in rows for code in row[4]}
    codes = sorted({"GPU001", "GPU002", "GPU003"} | found)
    print("| package | version | files | lines | " + " | ".join(codes) + " | wall (s) |")
    print("|---|---|---:|---:|" + "---:|" * len(codes) + "---:|")
    for name, version, files, lines, by_rule, wall in rows:
        counts = " | ".join(str(by_rule.get(c, 0)) for c in codes)
        print(f"| {name} | {version} | {files:,} | {lines:,} | {counts} | {wall:.2f} |")
    total_files = sum(r[2] for r in rows)
    total_lines = sum(r[3] for r in rows)
    total_wall = sum(r[5] for r in rows)
    print(f"\n{total_files:,} files, {total_lines:,} lines, {len(all_findings)} findings, "
          f"{total_wall:.1f} s in all (cache: {CACHE})")
    if show_findings:
        print()
        for name, rel, row, code, message in all_findings:
            print(f"{name}: {rel}:{row}: {code} {message}")


if __name__ == "__main__":
    main()
