//! Where the analysis was cut: `--verbose` names it, and unanalysed code never makes a finding.

use super::*;

/// A chain of `depth` functions, each calling the next; the last runs `last`.
fn call_chain(depth: usize, last: &str) -> String {
    let mut text: String = (0..depth)
        .map(|i| format!("def c{i}(x):\n    c{}(x)\n\n\n", i + 1))
        .collect();
    text.push_str(&format!("def c{depth}(x):\n    {last}\n\n\n"));
    text
}

#[test]
fn verbose_names_where_the_analysis_was_cut_and_the_summary_counts_it() {
    let dir = tempfile::tempdir().unwrap();
    // Deeper than the interpreter follows calls: the end of the chain is never analysed.
    let chain = call_chain(80, "print(x)");
    fs::write(
        dir.path().join("main.py"),
        format!("import torch\n{chain}c0(1)\n{HAZARD}"),
    )
    .unwrap();
    let out = gpulint(
        &[
            "check",
            "--verbose",
            "--output-format",
            "concise",
            "main.py",
        ],
        dir.path(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("main.py: analysis cut short: `c64` (main.py:")
            && stderr.contains("was not followed further (calls nested too deep)"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("1 function was not analysed (a budget ran out; `--verbose` names it)."),
        "{stdout}"
    );
    // The finding that did not depend on the cut part is still there, and says nothing of it.
    assert!(stdout.contains("GPU001"), "{stdout}");
    assert!(!stdout.contains("partial analysis"), "{stdout}");
    // Without --verbose, nothing on standard error.
    let quiet = gpulint(&["check", "--output-format", "json", "main.py"], dir.path());
    assert!(quiet.stderr.is_empty());
}

#[test]
fn a_binding_in_code_that_was_not_analysed_never_makes_a_finding() {
    let dir = tempfile::tempdir().unwrap();
    let chain = call_chain(80, "torch.cuda.set_device(x)");
    let program = |before: &str| {
        format!(
            "import os\nimport torch\nimport torch.distributed as dist\n\n\n{chain}\
             def main():\n    dist.init_process_group('nccl')\n{before}    \
             c0(int(os.environ['LOCAL_RANK']))\n    dist.barrier()\n\n\n\
             if __name__ == '__main__':\n    main()\n"
        )
    };
    // The binding sits past the depth the interpreter follows: GPU003 cannot say "never bound".
    fs::write(dir.path().join("cut.py"), program("")).unwrap();
    // A collective on GPU 0 before the cut call is evidence whatever that call does.
    fs::write(dir.path().join("early.py"), program("    dist.barrier()\n")).unwrap();
    let found = findings(&["cut.py", "early.py"], dir.path());
    assert_eq!(found, [("early.py".to_string(), "GPU003".to_string())]);
    // The same chain, short enough to follow, binds the device after the group: order only.
    let short = call_chain(5, "torch.cuda.set_device(x)");
    fs::write(
        dir.path().join("short.py"),
        program("").replace(&chain, &short),
    )
    .unwrap();
    assert_eq!(
        findings(&["short.py"], dir.path()),
        [("short.py".to_string(), "GPU015".to_string())]
    );
}
