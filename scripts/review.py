#!/usr/bin/env python3
"""The review set: pinned releases of GPU-heavy Python packages, checked with gpulint.

Each release is fetched once from PyPI into a cache outside the repository (default
~/.cache/gpulint-review, or $GPULINT_REVIEW_CACHE) and unpacked there. Source archives are preferred:
they usually carry the project's tests/ and examples/, where most multi-process launches live. A wheel
is used only where PyPI has no usable source archive.

  scripts/review.sh                          build, check every package, print a table per package
  scripts/review.sh --save FILE              ... and write every finding as a JSON line to FILE
  scripts/review.sh --binary PATH            check with PATH instead of building
  scripts/review.sh --compare OLD NEW        only the findings that appear, disappear or change
  scripts/review.sh --check-table            findings without a verdict row in docs/review.md, and rows
                                             whose finding is gone (exit 1 if any)
  scripts/review.sh --fetch                  only download and unpack the set
  --only NAME[,NAME...]                      restrict any mode to some packages
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from realworld import python_files, unpack  # noqa: E402  (one unpacking for both scripts)

# (distribution, version, how, kind). how: "sdist" (source archive) or "wheel".
# kind: trainer, server, research, arrays.
PACKAGES = [
    # training frameworks and trainers
    ("deepspeed", "0.19.8", "sdist", "trainer"),
    ("colossalai", "0.5.0", "sdist", "trainer"),
    ("torchtune", "0.6.1", "wheel", "trainer"),  # no source archive on PyPI
    ("fairscale", "0.4.13", "sdist", "trainer"),
    ("accelerate", "1.15.0", "sdist", "trainer"),
    ("lightning", "2.6.6", "sdist", "trainer"),
    ("mosaicml", "0.32.1", "sdist", "trainer"),
    ("trl", "1.16.0", "sdist", "trainer"),
    ("peft", "0.21.2", "sdist", "trainer"),
    ("pytorch-ignite", "0.5.5", "sdist", "trainer"),
    ("fairseq", "0.12.2", "sdist", "trainer"),
    ("megatron-core", "0.19.2", "sdist", "trainer"),
    ("nemo-toolkit", "3.0.0", "sdist", "trainer"),
    ("nanotron", "0.4", "sdist", "trainer"),
    ("litgpt", "0.5.13", "sdist", "trainer"),
    ("axolotl", "0.21.0", "sdist", "trainer"),
    ("horovod", "0.28.1", "sdist", "trainer"),
    ("torchx", "0.7.0", "sdist", "trainer"),
    # inference servers
    ("vllm", "0.33.0", "sdist", "server"),
    ("sglang", "0.5.10.post1", "sdist", "server"),
    ("lmdeploy", "0.18.0", "wheel", "server"),  # no source archive on PyPI
    ("xinference", "4.1.0", "sdist", "server"),
    ("optimum", "2.3.0", "sdist", "server"),
    # research and model libraries
    ("transformers", "5.24.0", "sdist", "research"),
    ("diffusers", "0.42.1", "sdist", "research"),
    ("timm", "1.0.31", "sdist", "research"),
    ("open-clip-torch", "3.3.0", "sdist", "research"),
    ("ultralytics", "8.4.190", "sdist", "research"),
    ("mmengine", "0.10.7", "sdist", "research"),
    ("monai", "1.6.1", "sdist", "research"),
    ("kornia", "0.9.0", "sdist", "research"),
    ("torchmetrics", "1.9.0", "sdist", "research"),
    ("speechbrain", "1.1.2", "sdist", "research"),
    ("sentence-transformers", "6.2.0", "sdist", "research"),
    ("datasets", "5.2.0", "sdist", "research"),
    ("torch-geometric", "2.8.1", "sdist", "research"),
    ("fairchem-core", "2.24.0", "sdist", "research"),
    ("torchrec", "1.9.2", "wheel", "research"),  # no source archive on PyPI
    # GPU array stacks
    ("cupy", "14.2.0", "sdist", "arrays"),
    ("numba", "0.68.1", "sdist", "arrays"),
]

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("GPULINT_REVIEW_CACHE", Path.home() / ".cache" / "gpulint-review"))
BINARY = ROOT / "target" / "release" / "gpulint"
TABLE = ROOT / "docs" / "review.md"
MAX_ARCHIVE = 150 * 1000 * 1000


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def archive_url(name, version, how):
    """The file name and address of the pinned archive, from PyPI's simple index."""
    request = urllib.request.Request(
        f"https://pypi.org/simple/{normalize(name)}/",
        headers={"Accept": "application/vnd.pypi.simple.v1+json"},
    )
    files = json.load(urllib.request.urlopen(request, timeout=60))["files"]
    stem = re.sub(r"[-_.]+", "_", name).lower()
    candidates = []
    for f in files:
        filename = f["filename"]
        lower = filename.lower().replace("-", "_")
        if how == "sdist":
            if lower in (f"{stem}_{version}.tar.gz", f"{stem}_{version}.zip"):
                candidates.append((0, f))
        elif lower.startswith(f"{stem}_{version}_") and filename.endswith(".whl"):
            # Pure wheels first, then a Linux x86_64 build for CPython 3.11 or the stable ABI.
            if filename.endswith("none-any.whl"):
                candidates.append((0, f))
            elif "x86_64" in filename and "manylinux" in filename and ("cp311" in filename or "abi3" in filename):
                candidates.append((1, f))
    if not candidates:
        raise RuntimeError(f"no {how} of {name} {version} on PyPI")
    f = sorted(candidates, key=lambda c: c[0])[0][1]
    if f.get("size", 0) > MAX_ARCHIVE:
        raise RuntimeError(f"{f['filename']} is {f['size'] // 1_000_000} MB, over the 150 MB limit")
    return f["filename"], f["url"]


def fetch(name, version, how, cache=None):
    """The unpacked tree of one release, downloading and unpacking it on first use."""
    cache = cache or CACHE
    tree = cache / f"{name}-{version}"
    if (tree / ".unpacked").exists():
        return tree
    downloads = cache / "downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    filename, url = archive_url(name, version, how)
    archive = downloads / filename
    if not archive.exists():
        partial = archive.with_name(archive.name + ".part")
        urllib.request.urlretrieve(url, partial)
        partial.rename(archive)
    return unpack(archive, tree)


def selected(only):
    if not only:
        return PACKAGES
    wanted = {normalize(n) for n in only.split(",")}
    return [p for p in PACKAGES if normalize(p[0]) in wanted]


def run_binary(binary, tree):
    """gpulint's findings on one tree, keyed by paths relative to the tree. Runs with the tree as the
    working directory and '.' as the path, so the output never depends on where the script runs."""
    start = time.perf_counter()
    out = subprocess.run(
        [str(binary), "check", "--output-format", "json", "."],
        capture_output=True,
        text=True,
        cwd=tree,
        # An active virtualenv would be read as the tree's environment.
        env={k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"},
    )
    wall = time.perf_counter() - start
    if out.returncode not in (0, 1):
        return None, wall, f"exit {out.returncode}: {out.stderr.strip()[-2000:]}"
    findings = []
    for f in json.loads(out.stdout):
        path = Path(f["filename"])
        rel = os.path.relpath(path if path.is_absolute() else tree / path, tree)
        findings.append({
            "path": Path(rel).as_posix(),
            "line": f["location"]["row"],
            "code": f["code"],
            "severity": f.get("severity", ""),
            "message": f["message"],
        })
    findings.sort(key=lambda f: (f["path"], f["line"], f["code"], f["message"]))
    return findings, wall, None


def check_all(binary, packages):
    """Runs `binary` on every package. Returns rows and the list of failures."""
    rows, failures = [], []
    for name, version, how, kind in packages:
        try:
            tree = fetch(name, version, how)
        except Exception as e:  # a missing archive must not stop the run
            failures.append((name, f"fetch failed: {e}"))
            continue
        files = python_files(tree)
        lines = sum(p.read_bytes().count(b"\n") for p in files)
        findings, wall, error = run_binary(binary, tree)
        if error:
            failures.append((name, error))
            print(f"gpulint failed on {name}: {error}", file=sys.stderr)
            continue
        rows.append({"name": name, "version": version, "kind": kind, "files": len(files),
                     "lines": lines, "findings": findings, "wall": wall})
    return rows, failures


def print_table(rows, total_wall):
    codes = sorted({f["code"] for r in rows for f in r["findings"]})
    print("| package | version | kind | files | lines | " + " | ".join(codes) + " | wall (s) |")
    print("|---|---|---|---:|---:|" + "---:|" * len(codes) + "---:|")
    for r in rows:
        by_rule = {}
        for f in r["findings"]:
            by_rule[f["code"]] = by_rule.get(f["code"], 0) + 1
        counts = " | ".join(str(by_rule.get(c, 0)) for c in codes)
        print(f"| {r['name']} | {r['version']} | {r['kind']} | {r['files']:,} | {r['lines']:,} | "
              f"{counts} | {r['wall']:.2f} |")
    total = {}
    severities = {}
    for r in rows:
        for f in r["findings"]:
            total[f["code"]] = total.get(f["code"], 0) + 1
            severities[f["severity"]] = severities.get(f["severity"], 0) + 1
    print(f"| **total** | | | {sum(r['files'] for r in rows):,} | {sum(r['lines'] for r in rows):,} | "
          + " | ".join(str(total.get(c, 0)) for c in codes)
          + f" | {sum(r['wall'] for r in rows):.1f} |")
    n = sum(len(r["findings"]) for r in rows)
    by_sev = ", ".join(f"{k}: {v}" for k, v in sorted(severities.items()))
    print(f"\n{len(rows)} packages, {n} findings ({by_sev}); gpulint {sum(r['wall'] for r in rows):.1f} s, "
          f"whole run {total_wall:.1f} s (cache: {CACHE})")


def save(rows, path):
    with open(path, "w") as out:
        for r in rows:
            for f in r["findings"]:
                out.write(json.dumps({"package": r["name"], "version": r["version"], **f}) + "\n")


def compare(old_binary, new_binary, packages):
    old_rows, old_fail = check_all(old_binary, packages)
    new_rows, new_fail = check_all(new_binary, packages)
    old = {r["name"]: r for r in old_rows}
    changed_packages = 0
    added = removed = changed = 0
    for r in new_rows:
        if r["name"] not in old:
            continue
        key = lambda f: (f["path"], f["line"], f["code"])
        before = {key(f): f for f in old[r["name"]]["findings"]}
        after = {key(f): f for f in r["findings"]}
        lines = []
        for k in sorted(set(before) | set(after)):
            b, a = before.get(k), after.get(k)
            where = f"{k[0]}:{k[1]}: {k[2]}"
            if b and not a:
                lines.append(f"- {where} [{b['severity']}] {b['message']}")
                removed += 1
            elif a and not b:
                lines.append(f"+ {where} [{a['severity']}] {a['message']}")
                added += 1
            elif a["message"] != b["message"] or a["severity"] != b["severity"]:
                lines.append(f"- {where} [{b['severity']}] {b['message']}")
                lines.append(f"+ {where} [{a['severity']}] {a['message']}")
                changed += 1
        if lines:
            changed_packages += 1
            print(f"## {r['name']} {r['version']}")
            print("\n".join(lines))
            print()
    print(f"{changed_packages} packages changed: +{added} -{removed} ~{changed} "
          f"(old: {old_binary}, new: {new_binary})")
    failures = old_fail + new_fail
    for name, error in failures:
        print(f"run failed on {name}: {error}", file=sys.stderr)
    return 1 if failures else 0


def table_rows():
    """(package, path, line, code) of every verdict row in docs/review.md."""
    rows = set()
    pattern = re.compile(r"^\|\s*([\w.-]+)\s*\|\s*`?([^`|:]+):(\d+)`?\s*\|\s*(GPU\d+)\s*\|")
    for line in TABLE.read_text().splitlines():
        m = pattern.match(line)
        if m:
            rows.add((m.group(1), m.group(2).strip(), int(m.group(3)), m.group(4)))
    return rows


def check_table(binary, packages):
    rows, failures = check_all(binary, packages)
    current = {(r["name"], f["path"], f["line"], f["code"]) for r in rows for f in r["findings"]}
    names = {p[0] for p in packages}
    table = {row for row in table_rows() if row[0] in names}
    missing = sorted(current - table)
    gone = sorted(table - current)
    for p, path, line, code in missing:
        print(f"no verdict: {p} {path}:{line} {code}")
    for p, path, line, code in gone:
        print(f"finding gone: {p} {path}:{line} {code}")
    print(f"{len(current)} findings, {len(table)} verdict rows: {len(missing)} without a verdict, "
          f"{len(gone)} rows whose finding is gone")
    return 1 if missing or gone or failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", type=Path, default=BINARY)
    parser.add_argument("--save", type=Path)
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"))
    parser.add_argument("--check-table", action="store_true")
    parser.add_argument("--fetch", action="store_true")
    parser.add_argument("--only")
    args = parser.parse_args()
    packages = selected(args.only)
    if args.fetch:
        def one(p):
            try:
                tree = fetch(p[0], p[1], p[2])
                files = python_files(tree)
                lines = sum(f.read_bytes().count(b"\n") for f in files)
                return f"{p[0]}=={p[1]} ({p[2]}): {len(files):,} files, {lines:,} lines"
            except Exception as e:
                return f"{p[0]}=={p[1]} ({p[2]}): FAILED {e}"
        with ThreadPoolExecutor(4) as pool:
            for line in pool.map(one, packages):
                print(line, flush=True)
        return 0
    binaries = args.compare or [args.binary]
    for b in binaries:
        if not b.exists():
            sys.exit(f"no binary at {b}")
    binaries = [b.resolve() for b in binaries]
    if args.compare:
        return compare(binaries[0], binaries[1], packages)
    if args.check_table:
        return check_table(binaries[0], packages)
    start = time.perf_counter()
    rows, failures = check_all(binaries[0], packages)
    print_table(rows, time.perf_counter() - start)
    if args.save:
        save(rows, args.save)
    for name, error in failures:
        print(f"run failed on {name}: {error}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
