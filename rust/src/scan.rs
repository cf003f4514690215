//! Which files of a crate the interpreter needs, decided on their text before syn builds a tree.
//!
//! Effects start only at a library item whose row is a source (`Behaviour::is_source`: a CUDA
//! context or device, a fork) or at a method row that moves to CUDA. The resolver turns a path into
//! such an item only from names spelled in the same file (its `use`s, globs and paths), so a file
//! can hold a source only if its code starts a path with the item's crate (or a name the crate goes
//! by) and spells the item's last segment. Those files are the seeds. Then every file that spells
//! a name a needed file defines (a caller), and every file that defines a name a needed file spells
//! (a callee, or a name that changes how a needed file's paths resolve), is needed too. The files
//! left out cannot reach a source, and nothing in them changes what the needed files' code
//! resolves to or which of their functions something calls. A crate with no seed is not parsed at
//! all.
//!
//! The scan reads identifiers outside comments and literals, and the names that follow `fn`,
//! `static`, `const`, `mod` and `ref` (a `lazy_static!` item) as definitions: one pass, linear in
//! the text, however many `#[cfg]` attributes or `extern` declarations a generated file holds.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::libraries;

/// The names a file's code spells, those it defines, and those that may start a path to another
/// crate (followed by `::`, or by `as`, `;`, `,` or `}` in a `use`; not a method's name).
#[derive(Default)]
pub struct Names<'t> {
    pub spelled: FxHashSet<&'t str>,
    pub defined: FxHashSet<&'t str>,
    pub path_starts: FxHashSet<&'t str>,
}

/// Keywords that may come between a defining keyword and the name it defines (`static mut X`,
/// `const unsafe fn f`), or that follow one without defining anything (`fn` in a type).
const BETWEEN: &[&str] = &[
    "mut", "ref", "fn", "unsafe", "async", "extern", "const", "static", "_", "self", "crate",
    "super",
];
const DEFINING: &[&str] = &["fn", "static", "const", "mod", "ref"];

/// The identifiers of `text`'s code (a raw `r#name` as `name`) and the names it defines.
pub fn names(text: &str) -> Names<'_> {
    let b = text.as_bytes();
    let mut out = Names::default();
    let mut i = 0;
    // After a defining keyword: the next name is defined, unless another token comes first.
    let mut defining = false;
    // The name just read, until the next token says whether it starts a path.
    let mut last: Option<&str> = None;
    while i < b.len() {
        let c = b[i];
        if let Some(word) = last {
            let next = &b[i..];
            let starts = next.starts_with(b"::")
                || matches!(c, b';' | b',' | b'}')
                || (next.starts_with(b"as") && !next.get(2).is_some_and(|c| is_name_byte(*c)));
            let between = matches!(c, b' ' | b'\t' | b'\n' | b'\r')
                || next.starts_with(b"//")
                || next.starts_with(b"/*");
            if starts {
                out.path_starts.insert(word);
            }
            if starts || !between {
                last = None;
            }
        }
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = b[i..]
                    .iter()
                    .position(|c| *c == b'\n')
                    .map_or(b.len(), |p| i + p);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => i = block_comment_end(b, i),
            b'"' => {
                i = quoted_end(b, i + 1, b'"');
                defining = false;
            }
            b'\'' => {
                i = quote_end(b, i);
                defining = false;
            }
            b'0'..=b'9' => {
                i = number_end(b, i);
                defining = false;
            }
            c if c == b'_' || c.is_ascii_alphabetic() || c >= 0x80 => {
                let start = i;
                i = name_end(b, i);
                let word = &text[start..i];
                match (word, b.get(i)) {
                    ("b" | "c", Some(b'"')) => {
                        i = quoted_end(b, i + 1, b'"');
                        defining = false;
                        continue;
                    }
                    ("b", Some(b'\'')) => {
                        i = quoted_end(b, i + 1, b'\'');
                        defining = false;
                        continue;
                    }
                    ("r" | "br" | "cr", Some(b'"' | b'#')) => {
                        if let Some(end) = raw_string_end(b, i) {
                            i = end;
                            defining = false;
                            continue;
                        }
                    }
                    _ => {}
                }
                let word = if word == "r" && b.get(i) == Some(&b'#') {
                    let start = i + 1;
                    i = name_end(b, start);
                    &text[start..i]
                } else {
                    word
                };
                if word.is_empty() {
                    continue;
                }
                out.spelled.insert(word);
                last = Some(word);
                if DEFINING.contains(&word) {
                    defining = true;
                } else if defining && !BETWEEN.contains(&word) {
                    out.defined.insert(word);
                    defining = false;
                }
            }
            _ => {
                i += 1;
                defining = false;
            }
        }
    }
    out
}

fn is_name_byte(c: u8) -> bool {
    c == b'_' || c.is_ascii_alphanumeric() || c >= 0x80
}

fn name_end(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| is_name_byte(*c)) {
        i += 1;
    }
    i
}

/// Block comments nest: `/* /* */ */`.
fn block_comment_end(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < b.len() {
        if b[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else if b[i..].starts_with(b"*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    b.len()
}

/// Past the closing `quote`, from just after the opening one.
fn quoted_end(b: &[u8], mut i: usize, quote: u8) -> usize {
    while let Some(&c) = b.get(i) {
        i += 1;
        if c == b'\\' {
            i += 1;
        } else if c == quote {
            return i;
        }
    }
    b.len()
}

/// `r"..."`, `r#"..."#`, from the `#`s or `"` after the prefix; `None` if it is not one (`r#name`).
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    let hashes = b[i..].iter().take_while(|c| **c == b'#').count();
    if b.get(i + hashes) != Some(&b'"') {
        return None;
    }
    let open = i + hashes + 1;
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    Some(
        b[open..]
            .windows(close.len())
            .position(|w| w == close.as_slice())
            .map_or(b.len(), |p| open + p + close.len()),
    )
}

/// Past a character literal (`'x'`, `'\n'`) or a lifetime or label (`'a`), from its quote.
fn quote_end(b: &[u8], i: usize) -> usize {
    let i = i + 1;
    if b.get(i) == Some(&b'\\') {
        return quoted_end(b, i, b'\'');
    }
    let width = b.get(i).map_or(1, |c| match c {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    });
    if b.get(i + width) == Some(&b'\'') {
        i + width + 1
    } else {
        name_end(b, i)
    }
}

/// Digits, suffixes and a fraction: `1`, `0x1f_u8`, `1.5e3`.
fn number_end(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        let fraction = c == b'.' && b.get(i + 1).is_some_and(|d| d.is_ascii_digit());
        if c == b'_' || c.is_ascii_alphanumeric() || fraction {
            i += 1;
        } else {
            break;
        }
    }
    i
}

/// The files (indices into `texts`) the interpreter needs, in their order; empty when no file
/// can reach a source. `renamed` maps the names the package's manifest gives dependencies to
/// their crates.
pub fn needed(texts: &[&str], renamed: &FxHashMap<String, String>) -> Vec<usize> {
    let names: Vec<Names> = texts.iter().map(|t| names(t)).collect();
    // The names each crate goes by in paths: itself, and the names the manifest or the resolver's
    // tables (`core` for `std`) give it.
    let spellings = |krate: &str| -> Vec<String> {
        let mut out = vec![krate.to_string()];
        let starts = |path: &str| path == krate || path.starts_with(&format!("{krate}::"));
        for (alias, real) in renamed {
            if starts(real) {
                out.push(alias.clone());
            }
        }
        for (alias, to) in libraries::STD_ALIASES.iter().chain(libraries::PRELUDE) {
            if starts(to) {
                out.push(alias.to_string());
            }
        }
        out
    };
    let starts_any =
        |n: &Names, words: &[String]| words.iter().any(|w| n.path_starts.contains(w.as_str()));
    // Crates a method row applies only with: a file that starts a path with one may decide what
    // the crate uses (`Index::uses_crate`), so it is needed with the rest.
    let method_crates: Vec<(&str, Vec<String>)> = libraries::method_crates()
        .into_iter()
        .map(|krate| (krate, spellings(krate)))
        .collect();
    let crate_spelled = |krate: &str| {
        method_crates
            .iter()
            .find(|(k, _)| *k == krate)
            .is_some_and(|(_, words)| names.iter().any(|n| starts_any(n, words)))
    };
    let sources: Vec<(Vec<String>, &str)> = libraries::sources()
        .iter()
        .map(|(krate, last)| (spellings(krate), *last))
        .collect();
    let methods: Vec<&str> = libraries::source_methods()
        .iter()
        .filter(|(krate, _)| krate.is_none_or(crate_spelled))
        .map(|(_, name)| *name)
        .collect();
    let is_seed = |n: &Names| {
        sources
            .iter()
            .any(|(krates, last)| n.spelled.contains(last) && starts_any(n, krates))
            || methods.iter().any(|m| n.spelled.contains(m))
    };
    let mut needed = vec![false; texts.len()];
    let mut queue: Vec<usize> = (0..texts.len()).filter(|f| is_seed(&names[*f])).collect();
    if queue.is_empty() {
        return Vec::new();
    }
    for (f, n) in names.iter().enumerate() {
        if method_crates.iter().any(|(_, words)| starts_any(n, words)) {
            queue.push(f);
        }
    }
    // Who spells and who defines each name.
    let mut spelled_by: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    let mut defined_by: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    for (f, n) in names.iter().enumerate() {
        for w in &n.spelled {
            spelled_by.entry(w).or_default().push(f);
        }
        for w in &n.defined {
            defined_by.entry(w).or_default().push(f);
        }
    }
    // A name spelled in a needed file and defined somewhere: its definers are needed (what the
    // file may call, or what its paths may resolve to), and so are all who spell it (who else may
    // call it). Each name is followed once. A definition is also a spelling.
    let mut followed: FxHashSet<&str> = FxHashSet::default();
    while let Some(f) = queue.pop() {
        if std::mem::replace(&mut needed[f], true) {
            continue;
        }
        for w in &names[f].spelled {
            if let Some(definers) = defined_by.get(w) {
                if followed.insert(w) {
                    queue.extend(definers);
                    queue.extend(spelled_by.get(w).into_iter().flatten());
                }
            }
        }
    }
    (0..texts.len()).filter(|f| needed[*f]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted<'t>(set: &FxHashSet<&'t str>) -> Vec<&'t str> {
        let mut v: Vec<_> = set.iter().copied().collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn names_skip_comments_and_literals() {
        let n = names(
            "// cudarc::x\n/* a /* b */ c */ fn r#f() { let s = \"fork\"; let r = r#\"libc\"#; \
             let c = 'x'; let l: &'a u8 = b\"nix\"; g::<'static>(1u16, 0x1f); }\n\
             static mut X: u8 = 0; const unsafe fn h() {} static ref Y: T = z;\n\
             unsafe extern \"C\" { fn cuInit(flags: u32) -> u32; } type F = fn(u8);\n",
        );
        assert_eq!(
            sorted(&n.defined),
            ["X", "Y", "cuInit", "f", "h"],
            "{:?}",
            sorted(&n.spelled)
        );
        for absent in ["cudarc", "fork", "libc", "nix", "a", "b", "x", "u16", "1f"] {
            assert!(!n.spelled.contains(absent), "{absent}");
        }
        for present in ["g", "static", "f", "flags", "z", "F"] {
            assert!(n.spelled.contains(present), "{present}");
        }
    }

    #[test]
    fn only_files_connected_to_a_source_are_needed() {
        let renamed = FxHashMap::default();
        let texts = [
            // 0: a source.
            "use cudarc::driver::CudaContext;\nfn make() { CudaContext::new(0); }",
            // 1: calls it.
            "fn main() { crate::a::make(); helper(); }",
            // 2: defines what 1 calls.
            "pub fn helper() {}",
            // 3: unrelated bindings.
            "extern \"C\" { fn cuInit(x: u32); }\npub unsafe fn wrap() { cuInit(0) }",
            // 4: mentions the crate in comments only.
            "/// cudarc::driver::CudaContext::new\nfn other() {}",
        ];
        assert_eq!(needed(&texts, &renamed), [0, 1, 2]);
        assert!(needed(&texts[1..], &renamed).is_empty());
        // A renamed dependency is its crate.
        let renamed: FxHashMap<String, String> = [("nx".to_string(), "nix".to_string())]
            .into_iter()
            .collect();
        assert_eq!(needed(&["fn f() { nx::unistd::fork(); }"], &renamed), [0]);
        // A method that moves to CUDA counts where the crate that gives it is used.
        assert!(needed(&["fn f(t: T) { t.cuda(); }"], &FxHashMap::default()).is_empty());
        let tch = ["fn f(t: T) { t.cuda(); }", "use tch::Tensor;"];
        assert_eq!(needed(&tch, &FxHashMap::default()), [0, 1]);
        // A method named like a crate's item is not a path into that crate.
        let fork = ["fn f(s: S) { s.fork(); }\nfn fork(&self) {}"];
        assert!(needed(&fork, &FxHashMap::default()).is_empty());
        let fork = ["use fork::{fork as start, Fork};\nfn f() { start(); }"];
        assert_eq!(needed(&fork, &FxHashMap::default()), [0]);
        let fork = ["use fork as f;\nfn g() { f::fork(); }"];
        assert_eq!(needed(&fork, &FxHashMap::default()), [0]);
    }
}
