//! File names that are not UTF-8, or hold a newline, are shown the same way in every format: each
//! byte kept (`\xNN`), no line broken (`\n`), so a finding can be traced to its file.

mod common;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

use common::gpulint;

const HAZARD: &str = "import multiprocessing as mp\nimport torch\n\ndef work():\n    torch.zeros(1, device=\"cuda\")\n\ntorch.cuda.init()\nmp.Process(target=work).start()\n";

#[test]
fn odd_file_names_are_escaped_alike_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(OsStr::from_bytes(b"bad\xff.py")), HAZARD).unwrap();
    std::fs::write(dir.path().join("new\nline.py"), HAZARD).unwrap();
    for format in [
        "concise",
        "full",
        "json",
        "json-lines",
        "gitlab",
        "junit",
        "github",
    ] {
        let out = gpulint(&["check", "--output-format", format, "."], dir.path());
        assert_eq!(out.status.code(), Some(1), "{format}");
        let text = String::from_utf8(out.stdout).expect("the report is UTF-8");
        // JSON writes each backslash of the name as `\\`: read back, the name is the same.
        let json = matches!(format, "json" | "json-lines" | "gitlab");
        let (bad, new) = match json {
            true => ("bad\\\\xff.py", "new\\\\nline.py"),
            false => ("bad\\xff.py", "new\\nline.py"),
        };
        assert!(text.contains(bad), "{format}: {text}");
        assert!(text.contains(new), "{format}: {text}");
        assert!(!text.contains('\u{fffd}'), "{format}: lossy: {text}");
        if format == "concise" {
            let lines: Vec<&str> = text.lines().filter(|l| l.contains("GPU001")).collect();
            assert_eq!(lines.len(), 2, "one line a finding: {text}");
        }
    }
}
