use std::ffi::OsStr;
use std::path::Path;

use rustc_hash::FxHashSet as HashSet;

use crate::lower;
use crate::prefilter;
use crate::source::FileId;

use super::fs::{list, split_name, Fs, Kind};
use super::load::{Builder, LOAD_STEP};
use super::resolve::wanted_imports;
use super::{FileError, Input, Program};

/// A leaf keeps the scan's imports until its analysis, which resolves its import statements
/// through them: on every Python file of the repository, the scan finds each import the
/// parser does, under the same key.
#[test]
fn the_scan_finds_every_import_the_parser_does() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut checked = 0;
    for entry in ignore::Walk::new(&root).flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "py") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let Ok(lowered) = lower::parse(&text, FileId(0)) else {
            continue;
        };
        let Some(scanned) = prefilter::imports(&text) else {
            continue;
        };
        let scanned: HashSet<(u32, String)> = scanned.into_iter().collect();
        for import in wanted_imports(&lowered.module).imports {
            assert!(
                scanned.contains(&import),
                "{}: the scan missed {import:?}",
                path.display()
            );
        }
        checked += 1;
    }
    assert!(checked > 300, "only {checked} files read");
}

/// The split of a path into folder and name that the listings use gives what `Path::parent` and
/// `Path::file_name` give (a bare name's folder is `.`), or the same folder spelled as the path
/// spells it where `Path` drops a `.` inside it.
#[test]
fn a_path_splits_as_path_does() {
    let paths = [
        "a.py",
        "./a.py",
        "pkg/a.py",
        "./pkg/a.py",
        "/abs/pkg/__init__.py",
        "/a.py",
        "/",
        "",
        ".",
        "..",
        "pkg/..",
        "pkg/.",
        "pkg/",
        "pkg//a.py",
        "pkg/./a.py",
        "pkg/../a.py",
        "../../up/a.py",
        "a/./b/c.py",
        "pkg/a.py/",
    ];
    for text in paths {
        let path = Path::new(text);
        let by_path = path.file_name().map(|name| {
            let dir = match path.parent() {
                Some(d) if !d.as_os_str().is_empty() => d,
                _ => Path::new("."),
            };
            (dir, name)
        });
        let split = split_name(path);
        assert_eq!(split.map(|s| s.1), by_path.map(|s| s.1), "{text}");
        // Equal as `Path`s compare: component by component.
        assert_eq!(split.map(|s| s.0), by_path.map(|s| s.0), "{text}");
    }
}

/// A module name that is no folder (`from .utils import Optional`) is looked up under a folder
/// that is not there: its listing is empty, so no entry under it is asked of the file system
/// one by one (on transformers, 75,000 such calls), and a folder its parent's listing does not
/// show is not opened (6,000 more). A folder that is there is listed as it is.
#[test]
fn a_missing_folder_lists_as_empty() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), "").unwrap();
    let missing = list(&dir.path().join("nothing_here")).expect("a listing");
    assert!(missing.is_empty());
    let not_a_folder = list(&dir.path().join("a.py")).expect("a listing");
    assert!(not_a_folder.is_empty());
    let listed = list(dir.path()).expect("a listing");
    assert_eq!(listed.get(OsStr::new("a.py")), Some(&Kind::File));
    std::fs::create_dir(dir.path().join("pkg")).unwrap();
    std::fs::write(dir.path().join("pkg").join("__init__.py"), "").unwrap();
    let mut fs = Fs::default();
    assert!(fs.is_file(&dir.path().join("a.py")));
    assert!(!fs.exists(&dir.path().join("nothing_here").join("__init__.py")));
    assert!(!fs.exists(&dir.path().join("a.py").join("b").join("__init__.py")));
    assert!(fs.is_file(&dir.path().join("pkg").join("__init__.py")));
    // What the missing folder holds was answered once, as nothing.
    let missing = dir.path().join("nothing_here");
    assert!(fs.listings[missing.as_os_str().as_encoded_bytes()]
        .as_ref()
        .is_some_and(|l| l.is_empty()));
}

/// A chain is found one name at a time, each as a regular package (`name/__init__.py`), then a
/// module (`name.py`, last only), then a namespace folder; and a root is tried for a deeper
/// module only where it holds a folder of the first name.
#[test]
fn a_chain_resolves_packages_modules_and_namespace_folders() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for folder in ["pkg/sub", "space/inner", "both"] {
        std::fs::create_dir_all(root.join(folder)).unwrap();
    }
    for file in [
        "pkg/__init__.py",
        "pkg/sub/__init__.py",
        "pkg/sub/leaf.py",
        "pkg/mod.py",
        "space/inner/deep.py",
        "both.py",
        "both/__init__.py",
        "top.py",
    ] {
        std::fs::write(root.join(file), "").unwrap();
    }
    let mut builder = Builder::default();
    let mut found = Vec::new();
    let mut files = |builder: &mut Builder, parts: &[&str]| {
        builder.chain(root, parts, &mut found).map(|chain| {
            chain
                .iter()
                .map(|n| {
                    builder.program.nodes[n.0 as usize].file.map(|f| {
                        let path = &builder.program.files[f.0 as usize].path;
                        path.strip_prefix(root)
                            .unwrap()
                            .to_string_lossy()
                            .into_owned()
                    })
                })
                .collect::<Vec<_>>()
        })
    };
    let some = |s: &str| Some(s.to_string());
    assert_eq!(
        files(&mut builder, &["pkg", "sub", "leaf"]),
        Some(vec![
            some("pkg/__init__.py"),
            some("pkg/sub/__init__.py"),
            some("pkg/sub/leaf.py")
        ])
    );
    assert_eq!(
        files(&mut builder, &["pkg", "mod"]),
        Some(vec![some("pkg/__init__.py"), some("pkg/mod.py")])
    );
    assert_eq!(
        files(&mut builder, &["space", "inner", "deep"]),
        Some(vec![None, None, some("space/inner/deep.py")])
    );
    // A package is found before a module of the same name.
    assert_eq!(
        files(&mut builder, &["both"]),
        Some(vec![some("both/__init__.py")])
    );
    assert_eq!(files(&mut builder, &["top"]), Some(vec![some("top.py")]));
    // A module has no submodules; a name that is nowhere ends the chain.
    assert_eq!(files(&mut builder, &["top", "x"]), None);
    assert_eq!(files(&mut builder, &["pkg", "missing"]), None);
    let root = root.to_path_buf();
    assert!(builder.chain_if_first_party(&root, &["top"]).is_some());
    assert!(builder
        .chain_if_first_party(&root, &["space", "inner", "deep"])
        .is_some());
    assert!(builder
        .chain_if_first_party(&root, &["space", "inner", "none"])
        .is_none());
    // First-party by its top module; the chain above still finds no `x` in it.
    assert!(builder.chain_if_first_party(&root, &["top", "x"]).is_some());
    assert!(builder
        .chain_if_first_party(&root, &["nothing", "x"])
        .is_none());
}

/// A wave is loaded in steps (`LOAD_STEP` files), each step's imports resolved while the next
/// is read: a chain of imports across several steps, given backwards, with one module that is
/// no input found from the middle step, ends as one read all at once would: each module
/// resolves its import, the module found later is read, and relevance flows back the whole
/// chain from the one that imports torch (to the first, a leaf, through its scanned imports).
#[test]
fn a_wave_loaded_in_steps_resolves_every_import() {
    let dir = tempfile::tempdir().unwrap();
    let count = 2 * LOAD_STEP + 3;
    for i in 0..count {
        let text = match i {
            i if i + 1 == count => "import torch\n".to_string(),
            i if i == LOAD_STEP + 1 => format!("import m{}\nimport extra\n", i + 1),
            i => format!("import m{}\n", i + 1),
        };
        std::fs::write(dir.path().join(format!("m{i}.py")), text).unwrap();
    }
    std::fs::write(dir.path().join("extra.py"), "x = 1\n").unwrap();
    let inputs = (0..count)
        .rev()
        .map(|i| Input::Path(dir.path().join(format!("m{i}.py"))))
        .collect();
    let program = Program::build(inputs);
    let id = |name: &str| {
        program
            .files()
            .find(|(_, f)| f.path.file_name() == Some(OsStr::new(name)))
            .map(|(id, _)| id)
            .unwrap_or_else(|| panic!("{name} is not in the program"))
    };
    for i in 0..count {
        let file = id(&format!("m{i}.py"));
        assert!(program.is_relevant(file), "m{i} reaches torch");
        if i == 0 {
            // Nothing imports it: a leaf, whose own analysis resolves its imports.
            assert!(program.is_lazy(file));
            continue;
        }
        let imported: Vec<FileId> = program.imports_at_top_level(file).to_vec();
        let mut wanted = Vec::new();
        if i + 1 < count {
            wanted.push(id(&format!("m{}.py", i + 1)));
        }
        if i == LOAD_STEP + 1 {
            wanted.push(id("extra.py"));
        }
        assert_eq!(imported, wanted, "m{i}'s imports");
    }
    let extra = id("extra.py");
    assert!(!program.file(extra).checked);
    assert!(
        program.module(extra).is_some(),
        "the module found later is parsed"
    );
}

/// A leaf's text is not held: its analysis reads the file again (what it reads is what is
/// analysed and shown), and a leaf gone since the scan is reported as unreadable, not
/// analysed as empty.
#[test]
fn a_leaf_is_read_again_for_its_analysis() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("leaf.py");
    std::fs::write(&path, "import torch\n").unwrap();
    let program = Program::build(vec![Input::Path(path.clone())]);
    let id = FileId(0);
    assert!(program.is_lazy(id));
    assert!(
        program.file(id).text.is_on_disk(),
        "not held after the scan"
    );
    std::fs::write(&path, "import torch\nx = 1\n").unwrap();
    let leaf = program.parse_leaf(id).unwrap().unwrap();
    assert_eq!(leaf.module.body.len(), 2, "the file as it is now");
    assert_eq!(&*program.file(id).text, "import torch\nx = 1\n");
    let gone = Program::build(vec![Input::Path(path.clone())]);
    std::fs::remove_file(&path).unwrap();
    match gone.parse_leaf(id) {
        Some(Err(FileError::Unreadable(reason))) => assert!(reason.contains("No such file")),
        Some(Err(other)) => panic!("a leaf gone since the scan: {other:?}"),
        _ => panic!("a leaf gone since the scan is analysed"),
    }
    // Given as text (standard input, an editor's buffer), a leaf is held as given.
    let given = Program::build(vec![Input::Text {
        path: dir.path().join("given.py"),
        text: "import torch\n".into(),
    }]);
    assert!(given.is_lazy(id));
    assert!(!given.file(id).text.is_on_disk());
    assert!(given.parse_leaf(id).unwrap().is_ok());
}

/// A module another imports is parsed while the program is built, and its text is not held
/// either: a finding in it reads the file again to be shown. Given as text, it is held.
#[test]
fn a_parsed_module_is_read_again_to_be_shown() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.py"), "import helper\n").unwrap();
    let helper = dir.path().join("helper.py");
    std::fs::write(&helper, "import torch\nx = 1\n").unwrap();
    let program = Program::build(vec![Input::Path(dir.path().join("main.py"))]);
    let (id, file) = program
        .files()
        .find(|(_, f)| f.path.ends_with("helper.py"))
        .expect("imported");
    assert!(program.module(id).is_some_and(|m| m.body.len() == 2));
    assert!(file.text.is_on_disk());
    assert_eq!(file.location(14).line, 2);
    assert_eq!(&*file.text, "import torch\nx = 1\n");
    let given = Program::build(vec![
        Input::Text {
            path: dir.path().join("main.py"),
            text: "import helper\n".into(),
        },
        Input::Text {
            path: helper,
            text: "import torch\n".into(),
        },
    ]);
    assert!(given.files().all(|(_, f)| !f.text.is_on_disk()));
}

/// An editor's text of a module is what its importers see; the module is not checked for it,
/// and a held file nothing imports is not read at all.
#[test]
fn an_import_reads_the_held_text_instead_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("main.py");
    std::fs::write(
        &main,
        "import helper
",
    )
    .unwrap();
    let helper = dir.path().join("helper.py");
    std::fs::write(
        &helper, "x = 1
",
    )
    .unwrap();
    let program = Program::build(vec![
        Input::Path(main),
        Input::Held {
            path: helper,
            text: "import torch\nx = 2\ny = 3\n".into(),
        },
        Input::Held {
            path: dir.path().join("unrelated.py"),
            text: "import torch\n".into(),
        },
    ]);
    let (id, file) = program
        .files()
        .find(|(_, f)| f.path.ends_with("helper.py"))
        .expect("imported");
    assert_eq!(&*file.text, "import torch\nx = 2\ny = 3\n");
    assert!(!file.checked);
    assert!(program.module(id).is_some_and(|m| m.body.len() == 3));
    assert_eq!(program.files().count(), 2);
}

/// A text read again where a finding is shown (`Text::on_disk`) decodes as the loader decoded it:
/// a NUL byte as a space, invalid UTF-8 as U+FFFD, so positions land where the loader put them.
#[test]
fn a_text_read_again_decodes_as_the_loader_did() {
    for bytes in [
        &b"x = 1\n"[..],
        b"a\0b = 1\n",
        b"s = '\xff\xfe'\n\0",
        b"\xe2\x82",
    ] {
        let loaded = match super::read::decode(bytes.to_vec()) {
            Ok(text) | Err((text, _)) => text,
        };
        assert_eq!(
            loaded,
            gpulint_core::text::lossy(bytes.to_vec()),
            "{bytes:?}"
        );
    }
}
