//! Installed packages: which imports the loader follows into an environment's site-packages, and
//! how their files join the program (never checked, flagged as the environment's).

use std::fs;
use std::path::Path;

use gpulint_analyses::Analyses;
use gpulint_python::program::{Environment, Input, Program};
use gpulint_python::semantic::{analyze_bounded, ImportCache, Settings};
use gpulint_python::source::FileId;

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
}

fn build(root: &Path, main: &str, site: Option<&Path>) -> Program {
    let environment = Environment::new(site.into_iter().map(Path::to_path_buf).collect());
    Program::build_knowing(
        vec![Input::Path(root.join(main))],
        Default::default(),
        None,
        None,
        environment,
    )
}

/// The file an import in the main file names, shown as a path ending.
fn resolves_into(program: &Program, dotted: &str) -> Option<String> {
    let chain = program.resolve(FileId(0), 0, dotted)?;
    let file = program.node(*chain.last()?).file?;
    Some(program.file(file).path.display().to_string())
}

#[test]
fn uncovered_packages_resolve_into_the_environment_and_are_never_checked() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("env/lib/python3.11/site-packages");
    write(
        &site,
        &[
            (
                "helper/__init__.py",
                "from .jobs import run\nfrom . import broken\n",
            ),
            (
                "helper/jobs.py",
                "import multiprocessing\n\ndef run(f):\n    return f()\n",
            ),
            ("helper/broken.py", "def (:\n"),
            ("torch/__init__.py", "x = 1\n"),
            ("lonely.py", "y = 2\n"),
        ],
    );
    write(
        &dir.path().join("project"),
        &[(
            "main.py",
            "import torch\nimport helper\nimport lonely\n\nhelper.run(print)\n",
        )],
    );
    let without = build(&dir.path().join("project"), "main.py", None);
    assert!(resolves_into(&without, "helper").is_none());
    assert!(!without.reads_environment());

    let program = build(&dir.path().join("project"), "main.py", Some(&site));
    assert!(program.reads_environment());
    let helper = resolves_into(&program, "helper").unwrap();
    assert!(helper.ends_with("helper/__init__.py"), "{helper}");
    assert!(resolves_into(&program, "lonely")
        .unwrap()
        .ends_with("lonely.py"));
    // A package the rows cover is theirs, installed or not.
    assert!(resolves_into(&program, "torch").is_none());
    for (id, file) in program.files().skip(1) {
        assert!(program.in_environment(id), "{}", file.path.display());
        assert!(
            !file.checked,
            "{} does not parse: not the project's",
            file.path.display()
        );
    }
    let package = program
        .files()
        .find(|(_, f)| f.path.ends_with("helper/jobs.py"));
    assert_eq!(
        program.environment_package(package.unwrap().0).as_deref(),
        Some("helper")
    );
    // The analysis runs the package's code: nothing here to find, and nothing goes wrong.
    let settings = Settings::default();
    let cache = ImportCache::<Analyses>::build(&program, settings.clone());
    let analysed = analyze_bounded(&program, &cache, FileId(0), settings);
    assert!(analysed.cuts.is_empty());
}
