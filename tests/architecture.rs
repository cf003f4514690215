//! The invariants of ARCHITECTURE.md that a compiler does not check: which crate may depend on
//! which, and that library knowledge lives only in the Python frontend's tables.

mod common;

use std::path::{Path, PathBuf};

use common::{files_with_extension, root};

/// The gpulint crates each crate may depend on (normal dependencies; tests may use more).
const LAYERS: &[(&str, &[&str])] = &[
    ("core", &[]),
    ("analyses", &["gpulint_core"]),
    ("python", &["gpulint_core"]),
    ("rust", &["gpulint_core"]),
    ("rules", &["gpulint_core", "gpulint_analyses"]),
    ("probe", &["gpulint_core"]),
];

#[test]
fn crates_depend_only_on_the_layers_below_them() {
    for (dir, allowed) in LAYERS {
        let manifest = root().join(dir).join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).expect("manifest");
        let toml: toml::Table = text.parse().expect("valid manifest");
        let deps = toml
            .get("dependencies")
            .and_then(|d| d.as_table())
            .cloned()
            .unwrap_or_default();
        for name in deps.keys().filter(|n| n.starts_with("gpulint")) {
            assert!(
                allowed.contains(&name.as_str()),
                "{dir} depends on {name}; it may depend on {allowed:?}"
            );
        }
    }
}

/// Top-level packages and modules whose APIs the tables describe. A string literal naming one of
/// them (`"torch.cuda.set_device"`, `"os.environ"`) outside the tables is a library test in code.
const LIBRARY_ROOTS: &[&str] = &[
    "torch",
    "torchvision",
    "cupy",
    "cupyx",
    "numba",
    "pycuda",
    "multiprocessing",
    "multiprocess",
    "concurrent",
    "transformers",
    "accelerate",
    "datasets",
    "diffusers",
    "peft",
    "optimum",
    "sentence_transformers",
    "vllm",
    "deepspeed",
    "lightning",
    "pytorch_lightning",
    "lightning_fabric",
    "mxnet",
    "jax",
    "tensorflow",
    "triton",
    "onnxruntime",
    "ctranslate2",
    "faster_whisper",
    "whisper",
    "ray",
    "daemon",
    "functools",
    "tqdm",
    "fire",
    "typer",
    "jsonargparse",
    "os",
    "sys",
];

#[test]
fn no_library_name_is_a_string_literal_outside_the_tables() {
    let mut offences = Vec::new();
    for dir in ["python/src", "analyses/src", "core/src"] {
        for file in rust_files(&root().join(dir)) {
            if file.components().any(|c| c.as_os_str() == "libraries") {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("source");
            // Unit tests hold Python programs as strings; they decide nothing.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for literal in string_literals(code) {
                if let Some(name) = library_name(&literal) {
                    let rel = file.strip_prefix(root()).unwrap_or(&file);
                    offences.push(format!("{}: {name:?} in {literal:?}", rel.display()));
                }
            }
        }
    }
    assert!(
        offences.is_empty(),
        "library names outside the tables:\n{}",
        offences.join("\n")
    );
}

#[test]
fn the_checker_finds_what_it_looks_for() {
    let code = r##"let a = "torch.cuda.init"; // "os.environ" in a comment
        let b = r#"multiprocessing.Pool"#; let c = '"'; let d = "a \"quoted\" os.fork";
        let e = "`{short}` runs on the current device";"##;
    let found: Vec<String> = string_literals(code)
        .iter()
        .filter_map(|l| library_name(l))
        .collect();
    assert_eq!(
        found,
        ["torch.cuda.init", "multiprocessing.Pool", "os.fork"]
    );
}

/// Crates whose APIs the Rust frontend's table describes.
const RUST_LIBRARY_ROOTS: &[&str] = &[
    "cudarc",
    "candle_core",
    "candle_nn",
    "tch",
    "cust",
    "nix",
    "libc",
    "fork",
    "std",
    "once_cell",
    "lazy_static",
];

#[test]
fn no_rust_library_path_is_a_string_literal_outside_the_table() {
    let mut offences = Vec::new();
    for file in rust_files(&root().join("rust/src")) {
        if file.ends_with("libraries.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("source");
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for literal in string_literals(code) {
            let named = literal
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .find(|w| {
                    w.split_once("::")
                        .is_some_and(|(head, _)| RUST_LIBRARY_ROOTS.contains(&head))
                });
            if let Some(name) = named {
                offences.push(format!("{}: {name:?}", file.display()));
            }
        }
    }
    assert!(offences.is_empty(), "{}", offences.join("\n"));
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = files_with_extension(dir, "rs");
    files.retain(|f| !f.ends_with("tests.rs"));
    files
}

/// The first dotted name in `literal` that starts with a library root.
fn library_name(literal: &str) -> Option<String> {
    literal
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
        .find(|word| {
            word.split_once('.').is_some_and(|(head, rest)| {
                LIBRARY_ROOTS.contains(&head) && rest.starts_with(|c: char| c.is_ascii_alphabetic())
            })
        })
        .map(str::to_string)
}

/// The contents of the string literals in Rust source, comments and character literals skipped.
fn string_literals(code: &str) -> Vec<String> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < bytes.len() && !(bytes[i] == b'*' && bytes[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'\'' => {
                // A character literal ('"', '\'') or a lifetime ('a): skip past it.
                if bytes.get(i + 1) == Some(&b'\\') {
                    i += 4;
                } else if bytes.get(i + 2) == Some(&b'\'') {
                    i += 3;
                } else {
                    i += 1;
                }
            }
            b'r' if matches!(bytes.get(i + 1), Some(b'"' | b'#'))
                && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_')) =>
            {
                let hashes = bytes[i + 1..].iter().take_while(|b| **b == b'#').count();
                let start = i + 2 + hashes;
                let close = format!("\"{}", "#".repeat(hashes));
                match code.get(start..).and_then(|rest| rest.find(&close)) {
                    Some(len) => {
                        out.push(code[start..start + len].to_string());
                        i = start + len + close.len();
                    }
                    None => break,
                }
            }
            b'"' => {
                let mut text = String::new();
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    if let Some(b) = bytes.get(i) {
                        text.push(*b as char);
                    }
                    i += 1;
                }
                out.push(text);
                i += 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// A merge that leaves its conflict markers in prose compiles and passes every other test.
#[test]
fn no_document_holds_merge_conflict_markers() {
    let mut docs = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    docs.extend(files_with_extension(&root().join("docs"), "md"));
    docs.extend(files_with_extension(&root().join("corpus"), "md"));
    for doc in docs {
        let text = std::fs::read_to_string(&doc).expect("readable");
        for (i, line) in text.lines().enumerate() {
            let marker =
                line.starts_with("<<<<<<< ") || line.starts_with(">>>>>>> ") || line == "=======";
            assert!(!marker, "{}:{}: {line}", doc.display(), i + 1);
        }
    }
}

/// Every read and write of a user's file goes through `core::fsio`: a direct `std::fs::write` or
/// `File::create` could leave a file half written when the process is killed or the disk is full,
/// and a direct read could wait forever on a FIFO or read `/dev/zero` until memory runs out.
#[test]
fn no_production_code_reads_or_writes_a_file_directly() {
    let forbidden = [
        "fs::write(",
        "File::create(",
        "OpenOptions::new()",
        "fs::read(",
        "fs::read_to_string(",
        "File::open(",
    ];
    let allowed = [Path::new("core/src/fsio.rs")];
    let mut offenders = Vec::new();
    for dir in [
        "src",
        "core/src",
        "python/src",
        "rust/src",
        "analyses/src",
        "rules/src",
    ] {
        for path in files_with_extension(&root().join(dir), "rs") {
            let rel = path.strip_prefix(root()).unwrap().to_path_buf();
            if allowed.contains(&rel.as_path()) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            // Unit tests below `#[cfg(test)]`, or in a module file of their own (`tests.rs`),
            // write their own fixtures.
            if path.ends_with("tests.rs") {
                continue;
            }
            let production = text.split("#[cfg(test)]").next().unwrap_or_default();
            for (i, line) in production.lines().enumerate() {
                if forbidden.iter().any(|f| line.contains(f))
                    && !line.trim_start().starts_with("//")
                {
                    offenders.push(format!("{}:{}: {}", rel.display(), i + 1, line.trim()));
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "direct writes:\n{}",
        offenders.join("\n")
    );
}

/// The lines of the Rust files under `dir` (relative to the root) that hold `needle`, outside
/// comments, as `path:line: text`.
fn lines_naming(dir: &str, needle: &str) -> Vec<String> {
    let mut found = Vec::new();
    for path in files_with_extension(&root().join(dir), "rs") {
        let text = std::fs::read_to_string(&path).expect("source");
        for (i, line) in text.lines().enumerate() {
            if line.contains(needle) && !line.trim_start().starts_with("//") {
                let rel = path.strip_prefix(root()).unwrap_or(&path);
                found.push(format!("{}:{}: {}", rel.display(), i + 1, line.trim()));
            }
        }
    }
    found
}

/// The output formats read the run's files through the file layer (`gpulint_core::files::Files`)
/// alone: a new frontend's files print without touching them.
#[test]
fn no_output_format_names_the_python_frontend() {
    let found = lines_naming("src/output", "gpulint_python");
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The loader sits below the interpreter: the interpreter runs the program the loader built, and
/// what both need of a module's names lives below both (`python/src/names.rs`).
#[test]
fn the_python_loader_does_not_import_the_interpreter() {
    let found = lines_naming("python/src/program", "crate::semantic");
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// `check.rs` drives the Rust frontend's wiring (`rust.rs`); the wiring needs nothing of the check,
/// so the two do not import each other.
#[test]
fn the_rust_wiring_does_not_import_the_check() {
    let found: Vec<String> = lines_naming("src", "crate::check")
        .into_iter()
        .filter(|line| line.starts_with("src/rust.rs:"))
        .collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// No frontend holds another's files: the Python program holds Python files and notebooks only,
/// and the Rust frontend's files are registered in the binary's run-level table (`src/files.rs`).
#[test]
fn the_python_program_holds_no_other_languages_files() {
    let mut found = lines_naming("python/src", "Foreign");
    found.extend(lines_naming("python/src", "register_foreign"));
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Core names no library: no type, variant or field of it is a library's or a launcher's name
/// (launchers are `Launcher` descriptions the frontends' rows fill).
#[test]
fn core_code_names_no_library() {
    const NAMES: &[&str] = &[
        "torch",
        "Torch",
        "DataLoader",
        "Celery",
        "celery",
        "gunicorn",
        "Gunicorn",
        "vllm",
        "Vllm",
        "VLLM",
        "keras",
        "Keras",
        "spacy",
        "Spacy",
        "lightning",
        "Lightning",
        "cupy",
        "CuPy",
        "numba",
        "Numba",
    ];
    let mut offences = Vec::new();
    for file in rust_files(&root().join("core/src")) {
        let text = std::fs::read_to_string(&file).expect("source");
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (n, line) in code.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            let code = without_strings(code);
            for word in code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
                if NAMES.iter().any(|name| word.contains(name)) {
                    let rel = file.strip_prefix(root()).unwrap_or(&file);
                    offences.push(format!("{}:{}: {word}", rel.display(), n + 1));
                }
            }
        }
    }
    assert!(
        offences.is_empty(),
        "library names in core's code:\n{}",
        offences.join("\n")
    );
}

/// `line` with the contents of its string literals removed.
fn without_strings(line: &str) -> String {
    let mut out = String::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in line.chars() {
        match (in_string, escaped, c) {
            (true, false, '\\') => escaped = true,
            (true, false, '"') => in_string = false,
            (true, _, _) => escaped = false,
            (false, _, '"') => in_string = true,
            (false, _, c) => out.push(c),
        }
    }
    out
}
