//! Findings across modules: a cause in an imported module, leaves, relative imports.

use super::*;

#[test]
fn a_finding_caused_by_another_module_points_into_it() {
    let dir = tempfile::tempdir().unwrap();
    write_cross_module_project(dir.path());
    // Only main.py is named: app/engine.py is still read, as an import.
    let out = gpulint(&["check", "--output-format", "json", "main.py"], dir.path());
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &json[0];
    assert!(d["filename"].as_str().unwrap().ends_with("main.py"));
    assert_eq!(d["location"]["row"], 4);
    let related: Vec<(String, u64)> = d["related"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["filename"].as_str().unwrap().to_string(),
                r["location"]["row"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(
        related
            .iter()
            .any(|(f, row)| f.ends_with("app/engine.py") && *row == 3),
        "CUDA initialised at import of app.engine: {related:?}"
    );
    assert!(
        related
            .iter()
            .any(|(f, row)| f.ends_with("app/engine.py") && *row == 6),
        "the child's use in app.engine.run: {related:?}"
    );

    // Without the import, nothing initialises CUDA before the pool.
    fs::write(
        dir.path().join("app/engine.py"),
        "import torch\n\ndef run(x):\n    return torch.nn.Linear(2, 2).cuda()(x)\n",
    )
    .unwrap();
    let out = gpulint(&["check", "main.py"], dir.path());
    assert_eq!(out.status.code(), Some(0), "{out:?}");
}

/// A checked file no module imports (a leaf) is parsed by its own analysis, once. Its functions
/// have no callers outside it; the names it reads still count for the modules it imports.
#[test]
fn a_leaf_calls_into_the_modules_it_imports_and_nothing_calls_into_it() {
    let dir = tempfile::tempdir().unwrap();
    let setup = "import torch\nimport torch.distributed as dist\n\n\ndef setup():\n    dist.init_process_group(\"nccl\")\n    return torch.ones(1).cuda()\n";
    // Two leaves and a helper module: `setup` is defined in `solo.py` and in `helpers.py`.
    fs::write(dir.path().join("solo.py"), setup).unwrap();
    fs::write(dir.path().join("helpers.py"), setup).unwrap();
    fs::write(
        dir.path().join("train.py"),
        "import torch\nfrom helpers import setup\n\n\ndef main():\n    torch.cuda.set_device(0)\n    setup()\n",
    )
    .unwrap();
    let out = gpulint(&["check", "--output-format", "concise", "."], dir.path());
    let text = stdout(&out);
    // `train.py` calls `helpers.setup` after binding the device: judged in that context, not as an
    // entry point of its own. Nothing can call `solo.setup`, whatever names `train.py` reads.
    assert!(text.contains("solo.py:6:5: GPU003"), "{text}");
    assert!(!text.contains("helpers.py"), "{text}");
    assert_eq!(out.status.code(), Some(1), "{text}");
}

/// `from. engine import run` (no space before the dot) is a relative import: the scan that decides
/// which files are analysed, and through which a leaf resolves its imports, reads it as one.
#[test]
fn a_relative_import_written_without_a_space_is_followed() {
    let dir = tempfile::tempdir().unwrap();
    write_cross_module_project(dir.path());
    fs::rename(dir.path().join("main.py"), dir.path().join("app/main.py")).unwrap();
    let main = fs::read_to_string(dir.path().join("app/main.py")).unwrap();
    fs::write(
        dir.path().join("app/main.py"),
        main.replace("from app.engine import", "from. engine import"),
    )
    .unwrap();
    let out = gpulint(
        &["check", "--output-format", "concise", "app/main.py"],
        dir.path(),
    );
    let text = stdout(&out);
    assert!(text.contains("app/main.py:4:6: GPU001"), "{text}");
}
