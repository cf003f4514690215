//! Loads Rust files into crates: each crate is a root file (`src/lib.rs`, `src/main.rs`,
//! `src/bin/*.rs`, `examples/*.rs`, a target a `Cargo.toml` names, or a lone file) and the module
//! files its `mod` declarations reach. Each file is parsed here once, to report syntax errors and
//! to keep its `mod` declarations; each crate's analysis parses again, on its own thread (syn's
//! spans live in a thread-local map), only the files it interprets.

use std::path::{Path, PathBuf};

use gpulint_core::files::File;
use gpulint_core::fsio::{self, ReadError, MAX_FILE_BYTES};
use gpulint_core::source::{FileId, Span};
use gpulint_core::text::Text;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::nesting;

/// A file of some crate.
#[derive(Debug)]
pub struct RustFile {
    /// As given (checked files) or joined from its parent module's path.
    pub path: PathBuf,
    pub text: String,
    /// Why it could not be read or parsed.
    pub error: Option<FileError>,
    /// Where its `//` comments are (suppression comments are read from these).
    pub comments: Vec<(u32, u32)>,
    /// Named by the user (or found under a named folder).
    pub checked: bool,
}

impl RustFile {
    /// The file as the file layer holds it: its path, text, comments and whether it is checked.
    /// Its comments' spans name no file yet ([`FileId::default`]): registering it in a file table
    /// gives them its id.
    pub fn file(&self) -> File {
        let comments = self
            .comments
            .iter()
            .map(|(start, end)| Span::new(FileId::default(), *start, *end))
            .collect();
        File::new(
            self.path.clone(),
            Text::from(self.text.clone()),
            self.checked,
        )
        .with_comments(comments)
    }
}

/// Why a file was not analysed; `at` is a byte offset in it.
#[derive(Debug, Clone, PartialEq)]
pub enum FileError {
    /// Not read as text: missing, not a regular file, too large, not UTF-8.
    Unreadable { reason: String, at: u32 },
    /// syn rejected it, or it nests too deeply to be parsed.
    Syntax { message: String, at: u32 },
}

/// A crate: its files, the root first, each with its module path.
#[derive(Debug)]
pub struct Crate {
    pub modules: Vec<(usize, Vec<String>)>,
    /// Renamed dependencies of its package (`candle = { package = "candle-core" }`): name → crate.
    pub renamed: FxHashMap<String, String>,
}

#[derive(Debug, Default)]
pub struct Loaded {
    pub files: Vec<RustFile>,
    pub crates: Vec<Crate>,
}

/// Where a file comes from: the disk, or text read elsewhere (standard input).
pub enum Source {
    Path(PathBuf),
    Text(PathBuf, String),
}

/// How deep `mod` declarations are followed.
const MAX_MOD_DEPTH: usize = 32;

/// A `mod` declaration: its name, its `#[path = "..."]`, and for an inline module the
/// declarations inside it.
struct ModDecl {
    name: String,
    path: Option<String>,
    inline: Option<Vec<ModDecl>>,
}

#[derive(Default)]
struct Loader {
    loaded: Loaded,
    /// Each file's `mod` declarations, by file index; `None` for a file that was not parsed.
    mods: Vec<Option<Vec<ModDecl>>>,
    by_key: FxHashMap<PathBuf, usize>,
    texts: FxHashMap<PathBuf, String>,
    in_crate: FxHashSet<usize>,
    roots: FxHashSet<usize>,
}

/// A file read and parsed: its text, why it could not be, its `mod`s and its comments.
struct Prepared {
    text: String,
    error: Option<FileError>,
    mods: Option<Vec<ModDecl>>,
    comments: Vec<(u32, u32)>,
}

/// Loads the checked files and the crates they belong to.
pub fn load(sources: Vec<Source>) -> Loaded {
    let mut loader = Loader::default();
    let mut checked = Vec::new();
    for source in sources {
        let path = match source {
            Source::Path(p) => p,
            Source::Text(p, text) => {
                loader.texts.insert(key(&p), text);
                p
            }
        };
        let id = loader.file(&path, true);
        checked.push((id, path));
    }
    // Crate roots first: a checked module file joins the crate whose `mod`s reach it.
    let mut roots: Vec<(usize, PathBuf)> = Vec::new();
    for (id, path) in &checked {
        for root in package_roots(path) {
            let root_id = if key(&root) == key(path) {
                *id
            } else {
                loader.file(&root, false)
            };
            if !roots.iter().any(|(r, _)| *r == root_id) {
                roots.push((root_id, root));
            }
        }
    }
    for (id, path) in roots {
        loader.add_crate(id, &path);
    }
    for (id, path) in checked {
        if !loader.in_crate.contains(&id) {
            loader.add_crate(id, &path);
        }
    }
    loader.loaded
}

impl Loader {
    /// The file at `path`, read and parsed once.
    fn file(&mut self, path: &Path, checked: bool) -> usize {
        let k = key(path);
        if let Some(&id) = self.by_key.get(&k) {
            self.loaded.files[id].checked |= checked;
            return id;
        }
        let Prepared {
            text,
            error,
            mods,
            comments,
        } = prepare(path, self.texts.remove(&k));
        let id = self.loaded.files.len();
        self.loaded.files.push(RustFile {
            path: path.to_path_buf(),
            text,
            error,
            comments,
            checked,
        });
        self.mods.push(mods);
        self.by_key.insert(k, id);
        id
    }

    fn add_crate(&mut self, root: usize, path: &Path) {
        if !self.roots.insert(root) || (self.in_crate.contains(&root) && !is_root_name(path)) {
            return;
        }
        let mut modules = Vec::new();
        let mut seen = FxHashSet::default();
        self.walk(root, path, true, Vec::new(), &mut modules, &mut seen, 0);
        for (id, _) in &modules {
            self.in_crate.insert(*id);
        }
        self.loaded.crates.push(Crate {
            modules,
            renamed: renamed_dependencies(path),
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn walk(
        &mut self,
        id: usize,
        path: &Path,
        mod_rs: bool,
        mut module: Vec<String>,
        out: &mut Vec<(usize, Vec<String>)>,
        seen: &mut FxHashSet<usize>,
        depth: usize,
    ) {
        if depth > MAX_MOD_DEPTH || !seen.insert(id) {
            return;
        }
        out.push((id, module.clone()));
        let Some(decls) = &self.mods[id] else {
            return;
        };
        // Where child modules' files are: beside a root or `mod.rs`, else in a folder named after it.
        let mut dir = match (mod_rs, path.parent(), path.file_stem()) {
            (true, Some(p), _) => p.to_path_buf(),
            (false, Some(p), Some(stem)) => p.join(stem),
            _ => PathBuf::new(),
        };
        let mut children = Vec::new();
        mod_files(decls, &mut dir, &mut module, &mut children);
        for (child_path, child_module, child_mod_rs) in children {
            let child = self.file(&child_path, false);
            self.walk(
                child,
                &child_path,
                child_mod_rs,
                child_module,
                out,
                seen,
                depth + 1,
            );
        }
    }
}

/// The files `mod name;` declarations in `items` name, with their module paths and whether each is
/// a `mod.rs`-like file (its children sit beside it). `dir` and `module` are where `items` are;
/// inline modules push onto them and pop, so deep nesting is not copied at each level.
fn mod_files(
    decls: &[ModDecl],
    dir: &mut PathBuf,
    module: &mut Vec<String>,
    out: &mut Vec<(PathBuf, Vec<String>, bool)>,
) {
    for m in decls {
        let name = m.name.clone();
        match &m.inline {
            Some(inner) => {
                dir.push(&name);
                module.push(name);
                mod_files(inner, dir, module, out);
                module.pop();
                dir.pop();
            }
            None => {
                let candidates = match &m.path {
                    Some(p) => vec![(dir.join(p), true)],
                    None => vec![
                        (dir.join(format!("{name}.rs")), false),
                        (dir.join(&name).join("mod.rs"), true),
                    ],
                };
                if let Some((p, mod_rs)) = candidates.into_iter().find(|(p, _)| is_present(p)) {
                    let mut child_module = module.clone();
                    child_module.push(name);
                    out.push((p, child_module, mod_rs));
                }
            }
        }
    }
}

/// Reads (unless its text is given) and parses one file.
fn prepare(path: &Path, text: Option<String>) -> Prepared {
    let (text, error) = match text {
        Some(text) => (text, None),
        None => read(path),
    };
    let (error, mods) = match error {
        Some(e) => (Some(e), None),
        None => match parse(&text) {
            Ok(mods) => (None, Some(mods)),
            Err((message, at)) => (Some(FileError::Syntax { message, at }), None),
        },
    };
    let comments = if error.is_none() {
        comments(&text)
    } else {
        Vec::new()
    };
    Prepared {
        text,
        error,
        mods,
        comments,
    }
}

/// The `mod` declarations among `items`, inline modules' own inside them.
fn mod_decls(items: &[syn::Item]) -> Vec<ModDecl> {
    items
        .iter()
        .filter_map(|item| {
            let syn::Item::Mod(m) = item else {
                return None;
            };
            Some(ModDecl {
                name: m.ident.to_string(),
                path: path_attribute(&m.attrs),
                inline: m.content.as_ref().map(|(_, inner)| mod_decls(inner)),
            })
        })
        .collect()
}

/// The value of `#[path = "..."]`.
fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| {
        let syn::Meta::NameValue(nv) = &a.meta else {
            return None;
        };
        if !nv.path.is_ident("path") {
            return None;
        }
        match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        }
    })
}

fn is_root_name(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n == "lib.rs" || n == "main.rs")
}

/// The crate roots of the package a file sits in whose modules may include it: for a file under
/// `src/`, the library and binaries; under `examples/`, `tests/` or `benches/`, those targets. A
/// file elsewhere (or in no package) is a crate of its own.
fn package_roots(path: &Path) -> Vec<PathBuf> {
    let Some((package, rel)) = package_of(path) else {
        return Vec::new();
    };
    let Some(top) = rel.components().next() else {
        return Vec::new();
    };
    let top = package.join(top);
    let mut roots = Vec::new();
    if top.ends_with("src") {
        roots.push(top.join("lib.rs"));
        roots.push(top.join("main.rs"));
        roots.extend(targets_in(&top.join("bin")));
        roots.extend(manifest_targets(&package));
    } else if ["examples", "tests", "benches"]
        .iter()
        .any(|d| top.ends_with(d))
    {
        roots.extend(targets_in(&top));
    }
    roots.retain(|r| is_present(r) && path.starts_with(package_prefix(r, &package)));
    roots
}

/// Whether something other than a folder is at `path`: a file, or a FIFO, a device or a broken
/// link, which the reader then reports instead of skipping silently.
fn is_present(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok() && !path.is_dir()
}

/// The part of the package a root's modules can be in (its folder).
fn package_prefix(root: &Path, package: &Path) -> PathBuf {
    root.parent()
        .map_or(package.to_path_buf(), Path::to_path_buf)
}

/// `dir/*.rs` and `dir/*/main.rs`, sorted.
fn targets_in(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            if p.is_dir() {
                Some(p.join("main.rs"))
            } else {
                p.extension().is_some_and(|e| e == "rs").then_some(p)
            }
        })
        .collect();
    out.sort();
    out
}

/// The nearest folder above `path` holding a `Cargo.toml`, and `path` relative to it.
fn package_of(path: &Path) -> Option<(PathBuf, PathBuf)> {
    let mut dir = path.parent();
    for _ in 0..16 {
        // An empty folder is the working one: `src/main.rs` given on the command line is in the
        // package there, and its paths stay relative as given (not `./src`, which `src/main.rs`
        // does not start with).
        let d = dir?;
        if d.join("Cargo.toml").is_file() {
            let rel = path.strip_prefix(d).ok()?.to_path_buf();
            return Some((d.to_path_buf(), rel));
        }
        dir = d.parent();
    }
    None
}

/// A package's `Cargo.toml`, read like every other file: one that cannot be read or parsed is no
/// manifest.
fn manifest(package: &Path) -> Option<toml::Table> {
    fsio::read_text(&package.join("Cargo.toml"), MAX_FILE_BYTES)
        .ok()?
        .parse()
        .ok()
}

/// The `path`s of `[lib]` and `[[bin]]` targets a manifest names.
fn manifest_targets(package: &Path) -> Vec<PathBuf> {
    let Some(m) = manifest(package) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let lib = m.get("lib").into_iter();
    let bins = m
        .get("bin")
        .and_then(|b| b.as_array())
        .into_iter()
        .flatten();
    for target in lib.chain(bins) {
        if let Some(p) = target.get("path").and_then(|p| p.as_str()) {
            out.push(package.join(p));
        }
    }
    out
}

/// A package's dependencies known under another name: `name = { package = "real-name" }`.
fn renamed_dependencies(root: &Path) -> FxHashMap<String, String> {
    let mut out = FxHashMap::default();
    let Some((package, _)) = package_of(root) else {
        return out;
    };
    let Some(m) = manifest(&package) else {
        return out;
    };
    for table in ["dependencies", "dev-dependencies"] {
        let Some(deps) = m.get(table).and_then(|d| d.as_table()) else {
            continue;
        };
        for (name, spec) in deps {
            if let Some(real) = spec.get("package").and_then(|p| p.as_str()) {
                out.insert(name.replace('-', "_"), real.replace('-', "_"));
            }
        }
    }
    out
}

fn key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A file's text, or why it could not be read (in the words the Python frontend uses).
fn read(path: &Path) -> (String, Option<FileError>) {
    let unreadable = |reason: String| {
        let error = FileError::Unreadable { reason, at: 0 };
        (String::new(), Some(error))
    };
    let bytes = match fsio::read_regular(path, MAX_FILE_BYTES) {
        Ok((bytes, _)) => bytes,
        Err(ReadError::NotRegular(kind)) => {
            return unreadable(format!("not a regular file ({kind}): skipped"))
        }
        Err(ReadError::TooLarge(_)) => {
            return unreadable(format!(
                "larger than {} MiB: skipped (generated code?)",
                MAX_FILE_BYTES >> 20
            ))
        }
        Err(ReadError::Io(e)) => return unreadable(e.to_string()),
    };
    match String::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(e) => {
            let at = e.utf8_error().valid_up_to() as u32;
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let reason = "the file is not valid UTF-8".to_string();
            (text, Some(FileError::Unreadable { reason, at }))
        }
    }
}

/// Parses a file once: its `mod` declarations, or syn's message and where it points when it does
/// not parse. A file nested too deeply for syn's recursion is not handed to it.
fn parse(text: &str) -> Result<Vec<ModDecl>, (String, u32)> {
    if let Some(deep) = nesting::too_deep(text) {
        return Err((deep.message, deep.at));
    }
    let out = match syn::parse_file(text) {
        Ok(file) => Ok(mod_decls(&file.items)),
        Err(e) => {
            let at = e.span().byte_range().start.min(text.len()) as u32;
            Err((e.to_string(), at))
        }
    };
    proc_macro2::extra::invalidate_current_thread_spans();
    out
}

/// syn's message and where it points, for a file that does not parse.
pub fn parse_error(text: &str) -> Option<(String, u32)> {
    parse(text).err()
}

/// Where the `//` comments of a text are, skipping strings and block comments.
pub fn comments(text: &str) -> Vec<(u32, u32)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = memchr_newline(b, i);
                out.push((i as u32, end as u32));
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = b[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(b.len(), |p| i + 2 + p + 2);
            }
            b'"' => i = string_end(b, i + 1),
            b'r' if raw_string_start(b, i).is_some() => {
                let (hashes, open) = raw_string_start(b, i).unwrap_or((0, i + 1));
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                i = b[open..]
                    .windows(close.len())
                    .position(|w| w == close.as_slice())
                    .map_or(b.len(), |p| open + p + close.len());
            }
            b'\'' => {
                // A char literal ('x', '\n', '"'), not a lifetime ('a).
                if b.get(i + 1) == Some(&b'\\') {
                    i = b[i + 2..]
                        .iter()
                        .position(|c| *c == b'\'')
                        .map_or(b.len(), |p| i + 2 + p + 1);
                } else if b.get(i + 2) == Some(&b'\'') {
                    i += 3;
                } else {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    out
}

fn memchr_newline(b: &[u8], from: usize) -> usize {
    b[from..]
        .iter()
        .position(|c| *c == b'\n')
        .map_or(b.len(), |p| from + p)
}

fn string_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// For `r"`, `r#"`, `br"`: how many `#` and where the contents start.
fn raw_string_start(b: &[u8], i: usize) -> Option<(usize, usize)> {
    if i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') && b[i - 1] != b'b' {
        return None;
    }
    let hashes = b[i + 1..].iter().take_while(|c| **c == b'#').count();
    (b.get(i + 1 + hashes) == Some(&b'"')).then_some((hashes, i + 2 + hashes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_skip_strings() {
        let text =
            "let a = \"// no\"; // yes\nlet b = r#\"// no\"#; /* // no */ let c = '/'; // two\n";
        let found: Vec<&str> = comments(text)
            .iter()
            .map(|(s, e)| &text[*s as usize..*e as usize])
            .collect();
        assert_eq!(found, ["// yes", "// two"]);
    }

    #[test]
    fn a_syntax_error_has_a_position() {
        let (_, at) = parse_error("fn main() {\n    let x = ;\n}\n").expect("an error");
        assert_eq!(at, 24);
        assert!(parse_error("fn main() {}").is_none());
    }
}
