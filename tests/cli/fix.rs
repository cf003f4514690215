//! `--fix`, `--diff` and `--unsafe-fixes`, on files and standard input.

use super::*;

#[test]
fn fix_applies_safe_fixes_diff_shows_them_and_unsafe_ones_wait_for_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let group = "import os\nimport torch\nimport torch.distributed as dist\n\n\ndef main():\n    dist.init_process_group(\"nccl\")\n    torch.cuda.set_device(int(os.environ[\"LOCAL_RANK\"]))\n    return torch.ones(1).cuda()\n\n\nif __name__ == \"__main__\":\n    main()\n";
    let loader = "import torch\nfrom torch.utils.data import DataLoader\n\n\nclass Frames(torch.utils.data.Dataset):\n    def __len__(self):\n        return 8\n\n    def __getitem__(self, i):\n        return torch.zeros(2).cuda()\n\n\nif __name__ == \"__main__\":\n    model = torch.nn.Linear(2, 2).cuda()\n    for batch in DataLoader(Frames(), num_workers=2):\n        model(batch)\n";
    fs::write(dir.path().join("group.py"), group).unwrap();
    fs::write(dir.path().join("loader.py"), loader).unwrap();

    // --diff shows the safe fix and writes nothing.
    let diff = gpulint(&["check", "--diff", "."], dir.path());
    assert_eq!(diff.status.code(), Some(1));
    let text = stdout(&diff);
    assert!(text.contains("-    torch.cuda.set_device"), "{text}");
    assert!(text.contains("+    torch.cuda.set_device"), "{text}");
    assert!(!text.contains("multiprocessing_context"), "unsafe: {text}");
    assert_eq!(
        fs::read_to_string(dir.path().join("group.py")).unwrap(),
        group
    );

    // --fix moves set_device above the group; the GPU015 finding is gone, GPU001 stays.
    let fixed = gpulint(
        &["check", "--fix", "--output-format", "concise", "."],
        dir.path(),
    );
    let report = stdout(&fixed);
    assert!(report.contains("Fixed 1 finding."), "{report}");
    assert!(!report.contains("GPU015"), "{report}");
    assert!(report.contains("loader.py"), "{report}");
    let new = fs::read_to_string(dir.path().join("group.py")).unwrap();
    let bind = new.find("torch.cuda.set_device").unwrap();
    assert!(bind < new.find("init_process_group").unwrap(), "{new}");

    // The unsafe fix needs --unsafe-fixes.
    let fixed = gpulint(
        &[
            "check",
            "--fix",
            "--unsafe-fixes",
            "--output-format",
            "concise",
            ".",
        ],
        dir.path(),
    );
    assert_eq!(fixed.status.code(), Some(0), "{}", stdout(&fixed));
    let new = fs::read_to_string(dir.path().join("loader.py")).unwrap();
    assert!(
        new.contains("DataLoader(Frames(), num_workers=2, multiprocessing_context=\"spawn\")"),
        "{new}"
    );
}

#[test]
fn fix_with_stdin_filename_prints_the_fixed_source() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["check", "--fix", "--stdin-filename", "group.py"];
    let out = gpulint_with_stdin(&args, dir.path(), GROUP);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let fixed = stdout(&out);
    let bind = fixed.find("torch.cuda.set_device").unwrap();
    assert!(bind < fixed.find("init_process_group").unwrap(), "{fixed}");
    assert_eq!(fixed.len(), GROUP.len(), "{fixed}");
    assert!(stderr(&out).contains("Fixed 1 finding."), "{out:?}");
    assert!(!dir.path().join("group.py").exists(), "nothing is written");
    // What is left is reported on standard error, and decides the exit status.
    let out = gpulint_with_stdin(&args, dir.path(), HAZARD);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert_eq!(stdout(&out), HAZARD);
    assert!(stderr(&out).contains("GPU001"), "{out:?}");
}
