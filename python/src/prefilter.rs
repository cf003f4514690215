//! Whole-word search over source text: which files can import a GPU package, or a given module,
//! without parsing them. A file that does not spell a module's name cannot import it.

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, MatchKind};
use unicode_normalization::UnicodeNormalization;

/// A set of identifiers to look for.
pub struct Words(AhoCorasick);

impl Words {
    pub fn new<P: AsRef<[u8]>>(words: impl IntoIterator<Item = P>) -> Words {
        // Leftmost-longest, so `torchvision` is one match, not `torch` followed by a letter.
        let finder = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(words)
            .expect("identifiers make a small automaton");
        Words(finder)
    }

    /// Whether `text` holds one of the words as a whole identifier (or may, spelled with
    /// characters Python folds to ASCII letters).
    pub fn any_in(&self, text: &str) -> bool {
        let bytes = text.as_bytes();
        // A match inside a longer identifier cannot hide a whole-word match: two overlapping
        // matches leave the later one glued to an identifier character.
        self.0.find_iter(bytes).any(|m| {
            !continues_identifier(bytes, m.start().wrapping_sub(1))
                && !continues_identifier(bytes, m.end())
        }) || spells_ascii_with_other_characters(text)
    }
}

fn continues_identifier(bytes: &[u8], at: usize) -> bool {
    bytes
        .get(at)
        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b >= 0x80)
}

/// Python normalises identifiers (NFKC): `ｔｏｒｃｈ` is `torch`. Such characters are rare, and a
/// file holding one is treated as naming every word.
fn spells_ascii_with_other_characters(text: &str) -> bool {
    !text.is_ascii()
        && text.chars().any(|c| {
            !c.is_ascii()
                && std::iter::once(c)
                    .nfkc()
                    .next()
                    .is_some_and(|n| n.is_ascii_alphanumeric() || n == '_')
        })
}

/// Whether the file may import a GPU package: it names one of [`crate::libraries::GPU_PACKAGES`].
pub fn names_gpu_package(text: &str) -> bool {
    static GPU: LazyLock<Words> = LazyLock::new(|| Words::new(crate::libraries::GPU_PACKAGES));
    GPU.any_in(text)
}

/// The imports a file may make, read from its text alone, as `(level, dotted)` like the parser's:
/// every `import` keyword, with the `from` clause before it and the names after it. Strings and
/// comments are not told apart from code, so it finds every import the parser would, and some more.
/// `None` when a statement is too long to read this way (the file is parsed instead).
pub fn imports(text: &str) -> Option<Vec<(u32, String)>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for at in memchr::memmem::find_iter(bytes, b"import") {
        let end = at + "import".len();
        if continues_identifier(bytes, at.wrapping_sub(1)) || continues_identifier(bytes, end) {
            continue;
        }
        let names = names_after(bytes, end)?;
        match from_clause(bytes, at)? {
            Some((level, module)) => {
                for name in names.iter().filter(|n| *n != "*") {
                    let full = match module.as_str() {
                        "" => name.clone(),
                        m => format!("{m}.{name}"),
                    };
                    out.push((level, full));
                }
                out.push((level, module));
            }
            None => out.extend(names.into_iter().map(|n| (0, n))),
        }
    }
    Some(out)
}

/// How far before or after an `import` keyword its statement is read; past it, the file is parsed.
/// (Each keyword reads its own statement: the bound keeps many keywords on one line linear.)
const STATEMENT_BYTES: usize = 16 << 10;

fn is_identifier_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// `from <dots><dotted>` just before the `import` at `at`: its level and module; `None` (outer)
/// past [`STATEMENT_BYTES`].
fn from_clause(bytes: &[u8], at: usize) -> Option<Option<(u32, String)>> {
    // Back over the clause's characters, and over line continuations (`\` then a line break).
    let mut start = at;
    let mut clause = Vec::new();
    while start > 0 {
        if at - start > STATEMENT_BYTES {
            return None;
        }
        let b = bytes[start - 1];
        if is_identifier_byte(b) || matches!(b, b'.' | b' ' | b'\t' | b'\x0c') {
            clause.push(b);
            start -= 1;
        } else if b == b'\n' || b == b'\r' {
            let mut i = start - 1;
            if b == b'\n' && i > 0 && bytes[i - 1] == b'\r' {
                i -= 1;
            }
            if i > 0 && bytes[i - 1] == b'\\' {
                clause.push(b' ');
                start = i - 1;
            } else {
                break;
            }
        } else {
            break;
        }
    }
    clause.reverse();
    let clause = String::from_utf8_lossy(&clause);
    let words: Vec<&str> = clause.split_whitespace().collect();
    let Some(from) = words.iter().rposition(|w| *w == "from") else {
        return Some(None);
    };
    let spec: String = words[from + 1..].concat();
    let level = spec.bytes().take_while(|b| *b == b'.').count();
    let module = &spec[level..];
    let valid = !spec.is_empty()
        && module
            .split('.')
            .all(|p| !p.is_empty() && p.bytes().all(is_identifier_byte))
        || !spec.is_empty() && module.is_empty();
    Some(valid.then(|| (level as u32, module.to_string())))
}

/// The dotted names (or `*`) listed after an `import` keyword ending at `at`, aliases skipped;
/// `None` past [`STATEMENT_BYTES`].
fn names_after(bytes: &[u8], mut at: usize) -> Option<Vec<String>> {
    let limit = at + STATEMENT_BYTES;
    let mut names = Vec::new();
    let mut parenthesised = false;
    let skip = |at: &mut usize, parenthesised: bool| {
        while let Some(&b) = bytes.get(*at) {
            match b {
                b' ' | b'\t' | b'\x0c' | b'\\' => *at += 1,
                b'\n' | b'\r' if parenthesised => *at += 1,
                b'#' if parenthesised => {
                    while bytes.get(*at).is_some_and(|b| *b != b'\n') {
                        *at += 1;
                    }
                }
                b'\n' | b'\r' if *at > 0 && bytes[*at - 1] == b'\\' => *at += 1,
                _ => break,
            }
        }
    };
    skip(&mut at, false);
    if bytes.get(at) == Some(&b'(') {
        parenthesised = true;
        at += 1;
    }
    loop {
        skip(&mut at, parenthesised);
        if at > limit {
            return None;
        }
        if bytes.get(at) == Some(&b'*') {
            names.push("*".to_string());
            break;
        }
        let mut name = String::new();
        loop {
            let start = at;
            while bytes.get(at).copied().is_some_and(is_identifier_byte) {
                at += 1;
            }
            if at == start {
                break;
            }
            name.push_str(&String::from_utf8_lossy(&bytes[start..at]));
            let mut next = at;
            skip(&mut next, parenthesised);
            if bytes.get(next) != Some(&b'.') {
                break;
            }
            name.push('.');
            at = next + 1;
            skip(&mut at, parenthesised);
        }
        let name = name.trim_end_matches('.').to_string();
        if name.is_empty() {
            break;
        }
        names.push(name);
        skip(&mut at, parenthesised);
        if bytes[at.min(bytes.len())..].starts_with(b"as") && !continues_identifier(bytes, at + 2) {
            at += 2;
            skip(&mut at, parenthesised);
            while bytes.get(at).copied().is_some_and(is_identifier_byte) {
                at += 1;
            }
            skip(&mut at, parenthesised);
        }
        if bytes.get(at) == Some(&b',') {
            at += 1;
        } else {
            break;
        }
    }
    Some(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_words_only() {
        let words = Words::new(["torch", "utils"]);
        assert!(words.any_in("import torch\n"));
        assert!(words.any_in("from .utils import x"));
        assert!(words.any_in("torch"));
        assert!(!words.any_in("import torchvision_extra\n"));
        assert!(!words.any_in("my_utils = pytorch\n"));
        assert!(words.any_in("xtorch torch"));
        assert!(!words.any_in("é_torch"));
    }

    #[test]
    fn longest_match_wins() {
        assert!(names_gpu_package("import torchvision"));
        assert!(names_gpu_package("from cupyx.scipy import ndimage"));
        assert!(!names_gpu_package("import torchvisionary"));
        assert!(!names_gpu_package("import os, sys\n"));
    }

    #[test]
    fn folded_characters_count_as_every_word() {
        assert!(names_gpu_package(
            "import \u{ff54}\u{ff4f}\u{ff52}\u{ff43}\u{ff48}\n"
        ));
        // Accented letters and other scripts stay themselves under NFKC.
        assert!(!names_gpu_package("caf\u{e9} = '\u{65e5}\u{672c}'\n"));
    }

    fn scanned(text: &str) -> Vec<(u32, String)> {
        let mut found = imports(text).expect("short statements");
        found.sort();
        found
    }

    fn pairs(expected: &[(u32, &str)]) -> Vec<(u32, String)> {
        let mut v: Vec<(u32, String)> = expected.iter().map(|(l, s)| (*l, s.to_string())).collect();
        v.sort();
        v
    }

    #[test]
    fn plain_imports() {
        let text = "import os, a.b as c\nif x: import  d . e\n";
        assert_eq!(scanned(text), pairs(&[(0, "os"), (0, "a.b"), (0, "d.e")]));
    }

    #[test]
    fn from_imports() {
        let text = "from . import a, b as c\nx = 1; from ..p.q import (r,\n  # note\n  s as t,\n)\nfrom m \\\n  import *\n";
        assert_eq!(
            scanned(text),
            pairs(&[
                (1, ""),
                (1, "a"),
                (1, "b"),
                (2, "p.q"),
                (2, "p.q.r"),
                (2, "p.q.s"),
                (0, "m"),
            ])
        );
    }

    #[test]
    fn words_that_are_not_imports() {
        assert_eq!(
            scanned("__import__('x')\nimported = 1\nreimport(y)\n"),
            pairs(&[])
        );
        // In a string it still counts: more than the parser finds, never less.
        assert_eq!(scanned("s = 'import q'\n"), pairs(&[(0, "q")]));
    }
}
