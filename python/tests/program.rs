//! The project model on real folders: which imports resolve to which files, and that the import
//! cache gives the same facts as running every import's top level.

use std::fs;
use std::path::Path;

use gpulint_analyses::{Analyses, Facts};
use gpulint_python::program::{normalize, Input, Program};
use gpulint_python::semantic::{analyze, ImportCache, Settings};
use gpulint_python::source::FileId;

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

/// The main file's facts, from the import cache; running every import instead must give the same.
fn facts_with_and_without_the_cache(p: &Program) -> Facts {
    let settings = Settings::default();
    let cached = analyze(
        p,
        &ImportCache::<Analyses>::build(p, settings.clone()),
        FileId(0),
        settings.clone(),
    );
    let direct = analyze(p, &ImportCache::<Analyses>::default(), FileId(0), settings);
    assert_eq!(cached, direct);
    cached
}

fn build(root: &Path, main: &str) -> Program {
    Program::build(vec![Input::Path(root.join(main))])
}

/// The path (relative to `root`) of the file an import in the main file names, if any.
fn resolved(program: &Program, root: &Path, level: u32, dotted: &str) -> Option<String> {
    let chain = program.resolve(FileId(0), level, dotted)?;
    let file = program.node(*chain.last()?).file?;
    let path = normalize(&program.file(file).path);
    Some(
        path.strip_prefix(normalize(root))
            .ok()?
            .display()
            .to_string(),
    )
}

#[test]
fn relative_and_absolute_imports_resolve_in_a_package() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        &[
            ("pyproject.toml", "[project]\nname = \"app\"\n"),
            ("app/__init__.py", ""),
            ("app/engine.py", "import torch\n"),
            ("app/util/__init__.py", ""),
            ("app/util/log.py", ""),
            (
                "app/cli.py",
                "from .engine import run\nfrom . import util\nfrom .util.log import x\nimport app.engine as e\nimport numpy\n",
            ),
        ],
    );
    let p = build(root, "app/cli.py");
    let at = |level, dotted| resolved(&p, root, level, dotted);
    assert_eq!(at(1, "engine").as_deref(), Some("app/engine.py"));
    assert_eq!(at(1, "util").as_deref(), Some("app/util/__init__.py"));
    assert_eq!(at(1, "util.log").as_deref(), Some("app/util/log.py"));
    assert_eq!(at(0, "app.engine").as_deref(), Some("app/engine.py"));
    // Third-party: not a module of the program.
    assert!(p.resolve(FileId(0), 0, "numpy").is_none());
    // cli.py, app/__init__.py, engine.py, util/__init__.py, util/log.py: each read once.
    assert_eq!(p.files().count(), 5);
}

#[test]
fn src_layout_namespace_packages_and_named_layouts_resolve() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        &[
            ("pyproject.toml", "[project]\nname = \"fast-embed\"\n"),
            ("src/core/__init__.py", ""),
            ("src/core/model.py", ""),
            ("python/fast_embed/__init__.py", ""),
            ("jobs/cpu.py", ""),
            ("datasets/train.csv", "a,b\n"),
            (
                "scripts/run.py",
                "from core.model import m\nimport fast_embed\nimport jobs.cpu\nimport datasets\n",
            ),
        ],
    );
    let p = build(root, "scripts/run.py");
    let at = |dotted| resolved(&p, root, 0, dotted);
    assert_eq!(at("core.model").as_deref(), Some("src/core/model.py"));
    assert_eq!(
        at("fast_embed").as_deref(),
        Some("python/fast_embed/__init__.py")
    );
    assert_eq!(at("jobs.cpu").as_deref(), Some("jobs/cpu.py"));
    // A data folder named like a library is not a package: `datasets` stays the library.
    assert!(p.resolve(FileId(0), 0, "datasets").is_none());
}

#[test]
fn type_checking_imports_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        &[
            ("heavy.py", "import torch\n"),
            (
                "main.py",
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import heavy\n",
            ),
        ],
    );
    let p = build(root, "main.py");
    assert!(p.resolve(FileId(0), 0, "heavy").is_none());
    // The scan of the text saw `import heavy` and parsed main.py; the parse does not follow it.
    assert!(!p.is_relevant(FileId(0)));
}

#[test]
fn the_import_cache_gives_the_facts_that_running_each_import_gives() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        &[
            ("app/__init__.py", "from .engine import embed\n"),
            (
                "app/engine.py",
                "import torch\nfrom . import config\nmodel = torch.nn.Linear(2, 2).to(config.DEVICE)\n\ndef embed(x):\n    return model(x)\n",
            ),
            // An import cycle: config imports the package back.
            ("app/config.py", "import app\nDEVICE = 'cuda:0'\n"),
            (
                "main.py",
                "import multiprocessing as mp\nimport app\n\nif __name__ == '__main__':\n    with mp.Pool(2) as pool:\n        pool.map(app.embed, [1, 2])\n",
            ),
        ],
    );
    let cached = facts_with_and_without_the_cache(&build(root, "main.py"));
    assert_eq!(cached.forks.len(), 1, "{cached:#?}");
    let fork = &cached.forks[0];
    assert!(
        fork.parent_init.is_some(),
        "CUDA initialised at import of app.engine"
    );
    assert!(fork.child_use.is_some(), "the pool function uses the model");
}

#[test]
fn imports_into_a_process_that_bound_its_device_are_not_taken_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        &[
            (
                "dist_setup.py",
                "import torch.distributed as dist\ndist.init_process_group('nccl')\n",
            ),
            (
                "main.py",
                "import os\nimport torch\ntorch.cuda.set_device(int(os.environ['LOCAL_RANK']))\nimport dist_setup\n",
            ),
        ],
    );
    let cached = facts_with_and_without_the_cache(&build(root, "main.py"));
    assert!(cached.process_groups.is_empty(), "{cached:#?}");
}

#[test]
fn search_roots_stop_at_the_project_root() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        &[
            ("helper.py", "import torch\n"),
            ("proj/.git/HEAD", ""),
            ("proj/__init__.py", ""),
            ("proj/sub/train.py", "import helper\n"),
        ],
    );
    let p = build(root, "proj/sub/train.py");
    assert!(p.resolve(FileId(0), 0, "helper").is_none());
}

#[cfg(unix)]
#[test]
fn symbolic_links_to_a_package_folder_are_one_module() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        &[(
            "pkg/__init__.py",
            "import torch\nfrom .a import x\nfrom .b import y\n",
        )],
    );
    std::os::unix::fs::symlink(".", root.join("pkg/a")).unwrap();
    std::os::unix::fs::symlink(".", root.join("pkg/b")).unwrap();
    let p = build(root, "pkg/__init__.py");
    // pkg/__init__.py is the only file, whatever path reaches it.
    assert_eq!(p.files().count(), 1);
}

/// Files that name no GPU package are scanned, not parsed; one that reaches a GPU library through
/// first-party imports is still found relevant and parsed, however long the chain, and files that
/// cannot reach one stay unparsed.
#[test]
fn the_scan_follows_imports_to_a_gpu_library() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let n = 2_000;
    let mut files: Vec<(String, String)> = (0..n)
        .map(|i| (format!("m{i}.py"), format!("from m{} import *\n", i + 1)))
        .collect();
    files.push((format!("m{n}.py"), "import torch\n".to_string()));
    files.push(("p/__init__.py".into(), "from .q import *\n".into()));
    files.push((
        "p/q.py".into(),
        "from ..m0 import *\ndef use():\n    pass\n".into(),
    ));
    files.push(("plain.py".into(), "import os\ndef f(:\n".into()));
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    write(root, &refs);
    let started = std::time::Instant::now();
    let inputs = ["m0.py", "p/__init__.py", "p/q.py", "plain.py"]
        .iter()
        .map(|f| Input::Path(root.join(f)))
        .collect();
    let p = Program::build(inputs);
    assert!(
        started.elapsed().as_secs_f64() < 10.0,
        "{:?}",
        started.elapsed()
    );
    for i in 0..4 {
        assert!(p.is_relevant(FileId(i)) == (i != 3), "file {i}");
    }
    assert!(
        p.module(FileId(0)).is_some_and(|m| !m.body.is_empty()),
        "m0.py parsed"
    );
    assert!(
        p.module(FileId(2)).is_some_and(|m| m.functions.len() == 1),
        "p/q.py parsed"
    );
    // Its syntax error is not reported: it was never parsed.
    assert!(p.module(FileId(3)).is_some_and(|m| m.body.is_empty()));
}

/// A link to a file is that file: named twice, it is read, and analysed, once.
#[cfg(unix)]
#[test]
fn a_link_to_a_checked_file_is_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, &[("a.py", "import torch\n")]);
    std::os::unix::fs::symlink(root.join("a.py"), root.join("b.py")).unwrap();
    let p = Program::build(vec![
        Input::Path(root.join("a.py")),
        Input::Path(root.join("b.py")),
    ]);
    assert_eq!(p.files().count(), 1);
}

#[test]
fn leaves_are_parsed_by_their_analysis_and_their_names_reach_the_other_modules() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        &[
            (
                "train.py",
                "import torch\nfrom helpers import setup\n\nsetup()\n",
            ),
            ("helpers.py", "import torch\n\ndef setup():\n    pass\n"),
        ],
    );
    let program = Program::build(vec![
        Input::Path(root.join("train.py")),
        Input::Path(root.join("helpers.py")),
    ]);
    let (train, helpers) = (FileId(0), FileId(1));
    // No module imports `train.py`: build only scanned it, and its own analysis parses it.
    assert!(program.is_lazy(train));
    assert!(!program.is_lazy(helpers));
    assert!(program.parse_leaf(train).is_some_and(|p| p.is_ok()));
    assert!(program.parse_leaf(helpers).is_none());
    // `setup` is read only in the leaf: a name of the leaves, found when first asked for.
    assert!(!program.is_referenced("setup", false));
    assert!(program.is_referenced("setup", true));
}
