//! The imports of a file read from its text, without parsing it: enough to tell which files can
//! reach a GPU library, and which files other files import.

use unicode_normalization::UnicodeNormalization;

fn continues_identifier(bytes: &[u8], at: usize) -> bool {
    bytes.get(at).copied().is_some_and(is_identifier_byte)
}

/// Python normalises identifiers (NFKC): `ｔｏｒｃｈ` is `torch`, which the scan would not read.
/// Such characters are rare: a file holding one is parsed instead.
pub fn spells_ascii_with_other_characters(text: &str) -> bool {
    !text.is_ascii()
        && text.chars().any(|c| {
            !c.is_ascii()
                && std::iter::once(c)
                    .nfkc()
                    .next()
                    .is_some_and(|n| n.is_ascii_alphanumeric() || n == '_')
        })
}

/// The imports a file may make, read from its text alone, as `(level, dotted)` like the parser's:
/// every `import` keyword, with the `from` clause before it and the names after it. Strings and
/// comments are not told apart from code, so it finds every import the parser would, and some more.
/// `None` when a statement is too long to read this way (the file is parsed instead).
pub fn imports(text: &str) -> Option<Vec<(u32, String)>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let skipped = type_checking_blocks(text);
    let mut skip = skipped.iter().peekable();
    for at in memchr::memmem::find_iter(bytes, b"import") {
        while skip.next_if(|r| r.end <= at).is_some() {}
        if skip.peek().is_some_and(|r| r.contains(&at)) {
            continue;
        }
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

/// The bodies of module-level `if TYPE_CHECKING:` blocks, whose imports never run (the parser's
/// import list skips them too). A body holding a triple quote is kept: the `if` may be text
/// inside a string, and then where the body ends cannot be told without parsing.
fn type_checking_blocks(text: &str) -> Vec<std::ops::Range<usize>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    // Only a line naming `TYPE_CHECKING:` can open one: those lines are found by the name, not by
    // walking every line (which was 2% of a run on transformers).
    let mut done = 0;
    for hit in memchr::memmem::find_iter(bytes, b"TYPE_CHECKING:") {
        if hit < done {
            continue;
        }
        let line_start = memchr::memrchr(b'\n', &bytes[..hit]).map_or(0, |i| i + 1);
        let line_end = memchr::memchr(b'\n', &bytes[hit..]).map_or(bytes.len(), |i| hit + i + 1);
        done = line_end;
        if !opens_type_checking_block(&text[line_start..line_end]) {
            continue;
        }
        let start = line_end;
        let mut offset = line_end;
        for next in text[line_end..].split_inclusive('\n') {
            if !next.starts_with([' ', '\t', '#', '\n', '\r']) {
                break;
            }
            offset += next.len();
        }
        done = offset;
        let body = &text[start..offset];
        if !body.contains("\"\"\"") && !body.contains("'''") {
            out.push(start..offset);
        }
    }
    out
}

/// `if TYPE_CHECKING:` (or `if typing.TYPE_CHECKING:`) alone on its line, bar a comment.
fn opens_type_checking_block(line: &str) -> bool {
    let head = line
        .strip_prefix("if TYPE_CHECKING:")
        .or_else(|| line.strip_prefix("if typing.TYPE_CHECKING:"));
    head.is_some_and(|rest| {
        let rest = rest.trim_start_matches([' ', '\t']);
        rest.is_empty() || rest.starts_with(['#', '\n', '\r'])
    })
}

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
    // `from.config import x` and `from. config import x` are Python too.
    let Some(from) = words
        .iter()
        .rposition(|w| *w == "from" || w.starts_with("from."))
    else {
        return Some(None);
    };
    let spec: String = std::iter::once(&words[from]["from".len()..])
        .chain(words[from + 1..].iter().copied())
        .collect();
    let level = spec.bytes().take_while(|b| *b == b'.').count();
    let module = &spec[level..];
    // `from . import x` names no module; otherwise every dotted part is an identifier.
    let valid = !spec.is_empty()
        && (module.is_empty()
            || module
                .split('.')
                .all(|p| !p.is_empty() && p.bytes().all(is_identifier_byte)));
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
    fn folded_characters_are_seen() {
        assert!(spells_ascii_with_other_characters(
            "import \u{ff54}\u{ff4f}\u{ff52}\u{ff43}\u{ff48}\n"
        ));
        // Accented letters and other scripts stay themselves under NFKC.
        assert!(!spells_ascii_with_other_characters(
            "caf\u{e9} = '\u{65e5}\u{672c}'\n"
        ));
    }

    /// What `type_checking_blocks` finds by the name, as a walk over every line finds it (the test
    /// of an opening line is the same; which lines it is asked about is what differs).
    fn blocks_line_by_line(text: &str) -> Vec<std::ops::Range<usize>> {
        let mut out = Vec::new();
        let mut offset = 0;
        let mut lines = text.split_inclusive('\n').peekable();
        while let Some(line) = lines.next() {
            offset += line.len();
            if !opens_type_checking_block(line) {
                continue;
            }
            let start = offset;
            while let Some(next) = lines.peek() {
                if !next.starts_with([' ', '\t', '#', '\n', '\r']) {
                    break;
                }
                offset += next.len();
                lines.next();
            }
            let body = &text[start..offset];
            if !body.contains("\"\"\"") && !body.contains("'''") {
                out.push(start..offset);
            }
        }
        out
    }

    #[test]
    fn type_checking_blocks_are_found_as_a_line_walk_finds_them() {
        let lines = [
            "if TYPE_CHECKING:\n",
            "if typing.TYPE_CHECKING:  # only for types\n",
            "if TYPE_CHECKING: import a\n",
            "if TYPE_CHECKING:\r\n",
            "x = TYPE_CHECKING: \n",
            "  if TYPE_CHECKING:\n",
            "    from b import c\n",
            "\timport d\n",
            "# if TYPE_CHECKING:\n",
            "\n",
            "    s = \"\"\"\n",
            "import e\n",
            "if TYPE_CHECKING: # TYPE_CHECKING: twice\n",
            "if TYPE_CHECKING:",
        ];
        // Every text of up to four of these lines, and each with its last line break dropped.
        let mut texts = vec![String::new()];
        for _ in 0..4 {
            let longer: Vec<String> = texts
                .iter()
                .flat_map(|t| lines.iter().map(move |l| format!("{t}{l}")))
                .collect();
            texts.extend(longer);
        }
        texts.sort();
        texts.dedup();
        for text in &texts {
            for text in [text.as_str(), text.strip_suffix('\n').unwrap_or(text)] {
                assert_eq!(
                    type_checking_blocks(text),
                    blocks_line_by_line(text),
                    "{text:?}"
                );
            }
        }
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
    fn from_clauses_without_a_space_before_the_dots() {
        let text = "from. config import a\nfrom..b.c import d\nfromage.x = 1; import e\n";
        assert_eq!(
            scanned(text),
            pairs(&[
                (1, "config"),
                (1, "config.a"),
                (2, "b.c"),
                (2, "b.c.d"),
                (0, "e"),
            ])
        );
    }

    #[test]
    fn type_checking_blocks_are_skipped() {
        let text = "if TYPE_CHECKING:\n    import a\n\n    from b import c\nelse:\n    import d\nimport e\n";
        assert_eq!(scanned(text), pairs(&[(0, "d"), (0, "e")]));
        // Indented, or holding a triple quote (it may be inside a string): read as usual.
        let text = "def f():\n    if TYPE_CHECKING:\n        import a\n";
        assert_eq!(scanned(text), pairs(&[(0, "a")]));
        let text = "x = '''\nif TYPE_CHECKING:\n    '''\n    import a\n";
        assert_eq!(scanned(text), pairs(&[(0, "a")]));
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
