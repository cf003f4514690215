#!/usr/bin/env python3
"""Scores a gpulint binary on the users' evaluation set (eval/users/).

Every case folder holds a `bad.py` (the hazard as a user wrote it), a `good.py` (the same program
as the fix in the public thread left it) and a `case.toml` (source, title, rule, family, notes;
optionally `also`, rules that are right on bad.py too, and `platform` / `target_version`, passed
to `gpulint check`). Rust cases hold `bad.rs` / `good.rs` instead; a case whose fix lives in a
launcher's file (a start script, a server configuration) holds two folders, `bad/` and `good/`,
each checked as a whole.

Each file (or folder) is checked on its own (`gpulint check PATH --output-format json --isolated
--no-cache`, run from the case folder, or from inside `bad/` / `good/`), and the findings are
scored:

- a bad case is *found* when its `rule` is reported on bad.py, else *missed*;
- a good case is a *false positive* when any counted finding is reported on good.py;
- a finding on bad.py with another rule (not in `also`) is an *extra*: listed, but neither a
  true nor a false finding (such a program often has a second hazard the user's thread did not
  discuss);
- counted findings are severity error or warning. Info findings (GPU015, "fine today,
  fragile") and GPU900 (unused noqa) are not counted; GPU999 (a file that does not parse) is
  reported as a broken case.

Recall = found / bad cases. Precision = true findings / (true findings + findings on good.py),
where a true finding is one on bad.py whose rule is the case's `rule` or in its `also`.

Usage: scripts/users.py [--binary PATH] [--cases DIR] [--json OUT] [--only SUBSTRING] [--markdown]
"""

import argparse
import json
import functools
import os
import subprocess
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOT_COUNTED = {"GPU900"}
BROKEN = "GPU999"



def hermetic_env():
    """The caller's environment without an active virtualenv, which gpulint would read."""
    return {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}


@functools.lru_cache(maxsize=None)
def supports_no_python(binary):
    """Whether `binary` has `--no-python` (builds before it read no environment at all)."""
    out = subprocess.run([str(binary), "check", "--help"], capture_output=True, text=True)
    return "--no-python" in out.stdout

def check(binary, folder, name, case):
    """The findings of one file or folder, as (code, severity, row, message) tuples."""
    if (folder / name).is_dir():
        folder, name = folder / name, "."
    cmd = [str(binary), "check", name, "--output-format", "json", "--isolated", "--no-cache",
           "--exit-zero"]
    if case.get("platform"):
        cmd += ["--platform", case["platform"]]
    if case.get("target_version"):
        cmd += ["--target-version", case["target_version"]]
    if supports_no_python(binary):
        # The cases are scored without any installed packages: a `.venv` beside the repository
        # would otherwise be read as theirs.
        cmd.append("--no-python")
    run = subprocess.run(cmd, cwd=folder, capture_output=True, text=True, env=hermetic_env())
    if run.returncode not in (0, 1):
        return None, run.stderr.strip()
    try:
        findings = json.loads(run.stdout or "[]")
    except json.JSONDecodeError as err:
        return None, f"unreadable output: {err}"
    return [(f["code"], f["severity"], f"{Path(f['filename']).name}:{f['location']['row']}",
             f["message"]) for f in findings], ""


def counted(findings):
    return [f for f in findings if f[1] in ("error", "warning") and f[0] not in NOT_COUNTED]


def score_case(binary, folder):
    case = tomllib.loads((folder / "case.toml").read_text())
    if (folder / "bad").is_dir():
        bad_name, good_name = "bad", "good"
    else:
        ext = "rs" if (folder / "bad.rs").exists() else "py"
        bad_name, good_name = f"bad.{ext}", f"good.{ext}"
    rule = case["rule"]
    right = {rule, *case.get("also", [])}
    result = {"case": folder.name, "rule": rule, "family": case["family"],
              "source": case["source"], "title": case["title"]}
    bad, err_bad = check(binary, folder, bad_name, case)
    good, err_good = check(binary, folder, good_name, case)
    if bad is None or good is None:
        result["status"] = "error"
        result["error"] = err_bad or err_good
        return result
    broken = [f for f in bad + good if f[0] == BROKEN]
    bad_codes = [f[0] for f in bad]
    result["found"] = rule in bad_codes
    result["bad_findings"] = [f"{c}:{r}" for c, s, r, m in bad]
    result["good_findings"] = [f"{c}:{r}" for c, s, r, m in counted(good)]
    result["true"] = [f[0] for f in bad if f[0] in right]
    result["extra"] = sorted({f[0] for f in counted(bad) if f[0] not in right})
    result["false"] = [f[0] for f in counted(good)]
    result["false_messages"] = [f"{c}:{r}: {m}" for c, s, r, m in counted(good)]
    result["status"] = "broken" if broken else ("found" if result["found"] else "missed")
    return result


def ratio(a, b):
    return f"{a / b:.2f}" if b else "-"


def summarise(results, key):
    rows = defaultdict(lambda: {"cases": 0, "found": 0, "true": 0, "false": 0, "fp_cases": 0})
    for r in results:
        if r["status"] in ("error", "broken"):
            continue
        row = rows[r[key]]
        row["cases"] += 1
        row["found"] += r["found"]
        row["fp_cases"] += bool(r["false"])
    # Precision per rule counts each finding under the rule it reports; per family, under the
    # family of the case it was reported on.
    for r in results:
        if r["status"] in ("error", "broken"):
            continue
        if key == "rule":
            for code in r["true"]:
                rows[code]["true"] += 1
            for code in r["false"]:
                rows[code]["false"] += 1
        else:
            rows[r[key]]["true"] += len(r["true"])
            rows[r[key]]["false"] += len(r["false"])
    return rows


def print_table(title, rows):
    print(f"\n{title:<16} {'cases':>5} {'found':>5} {'recall':>6} {'true':>5} {'false':>5} "
          f"{'precision':>9} {'fp cases':>8}")
    total = {"cases": 0, "found": 0, "true": 0, "false": 0, "fp_cases": 0}
    for name in sorted(rows):
        row = rows[name]
        for k in total:
            total[k] += row[k]
        print(f"{name:<16} {row['cases']:>5} {row['found']:>5} {ratio(row['found'], row['cases']):>6} "
              f"{row['true']:>5} {row['false']:>5} "
              f"{ratio(row['true'], row['true'] + row['false']):>9} {row['fp_cases']:>8}")
    print(f"{'all':<16} {total['cases']:>5} {total['found']:>5} "
          f"{ratio(total['found'], total['cases']):>6} {total['true']:>5} {total['false']:>5} "
          f"{ratio(total['true'], total['true'] + total['false']):>9} {total['fp_cases']:>8}")


def markdown_table(title, rows, per_rule):
    """The table as eval/users/README.md shows it (per rule: true and false findings too)."""
    head = f"| {title} | cases | found | recall |" + (" true | false |" if per_rule else "")
    lines = [head + " precision |", "|" + "---|" * (head.count("|"))]
    total = {"cases": 0, "found": 0, "true": 0, "false": 0}
    for name in sorted(rows):
        row = rows[name]
        for k in total:
            total[k] += row[k]
        counts = f" {row['true']} | {row['false']} |" if per_rule else ""
        lines.append(f"| {name} | {row['cases']} | {row['found']} | "
                     f"{ratio(row['found'], row['cases'])} |{counts} "
                     f"{ratio(row['true'], row['true'] + row['false'])} |")
    counts = f" **{total['true']}** | **{total['false']}** |" if per_rule else ""
    lines.append(f"| **all** | **{total['cases']}** | **{total['found']}** | "
                 f"**{ratio(total['found'], total['cases'])}** |{counts} "
                 f"**{ratio(total['true'], total['true'] + total['false'])}** |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=ROOT / "target" / "release" / "gpulint", type=Path)
    parser.add_argument("--cases", default=ROOT / "eval" / "users", type=Path)
    parser.add_argument("--json", type=Path, help="write the per-case results to this file")
    parser.add_argument("--only", default="", help="check only cases whose folder name has this")
    parser.add_argument("--markdown", action="store_true",
                        help="print only the rule and family tables, as markdown")
    args = parser.parse_args()
    binary = args.binary.resolve()
    if not binary.exists():
        sys.exit(f"no gpulint binary at {binary} (build it, or pass --binary)")
    folders = sorted(p.parent for p in args.cases.glob("*/case.toml") if args.only in p.parent.name)
    if not folders:
        sys.exit(f"no cases under {args.cases}")
    results = [score_case(binary, f) for f in folders]
    if args.markdown:
        print(markdown_table("rule", summarise(results, "rule"), True))
        print()
        print(markdown_table("family", summarise(results, "family"), False))
        return

    print(f"{'case':<44} {'rule':<7} {'bad.py':<8} {'good.py':<10} extra on bad.py")
    for r in results:
        if r["status"] in ("error", "broken"):
            print(f"{r['case']:<44} {r['rule']:<7} {r['status'].upper()}: "
                  f"{r.get('error') or r['bad_findings'] + r['good_findings']}")
            continue
        good = "FP " + ",".join(sorted(set(r["false"]))) if r["false"] else "ok"
        print(f"{r['case']:<44} {r['rule']:<7} {r['status']:<8} {good:<10} "
              f"{','.join(r['extra'])}")
    print_table("rule", summarise(results, "rule"))
    print_table("family", summarise(results, "family"))
    missed = [r["case"] for r in results if r["status"] == "missed"]
    fps = [m for r in results for m in (f"{r['case']}: {x}" for x in r.get("false_messages", []))]
    broken = [r["case"] for r in results if r["status"] in ("error", "broken")]
    print(f"\nmissed ({len(missed)}): {', '.join(missed) or '-'}")
    print(f"false positives on good.py ({len(fps)}):")
    for line in fps:
        print(f"  {line}")
    if broken:
        print(f"broken cases ({len(broken)}): {', '.join(broken)}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
