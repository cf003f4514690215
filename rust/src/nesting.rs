//! How deeply a Rust text nests, measured on its tokens before syn sees it.
//!
//! syn parses recursively, and its trees are dropped, visited and interpreted recursively: a file
//! nested deep enough overflows any stack and aborts the whole run. Counting brackets does not
//! bound that: `!!!x`, `a = a = a`, `Vec<Vec<..>>` and `|a, b| |a, b| x` make syn recurse without
//! a bracket, and `a + a + ...` or `f()()...` make deep trees that syn builds in a loop. So the
//! scan keeps a stack of levels (brackets, generic arguments, closure parameters) and, within each,
//! counts the tokens that may nest the tree since the last place nothing stays open across (`,`,
//! `;`, `=>`, a `}` that ends a statement). Two measures: what makes syn recurse (brackets, prefix
//! operators, assignments, generic arguments, closures), which costs the most stack per level; and
//! every token that nests the tree, which the drop, the visitors and the interpreter recurse over.
//! Each level of the tree takes at least one counted token, so the measures bound its depth; they
//! overcount (a `<` may be a comparison), never undercount.

/// Deeper recursion than this, a file is not parsed. Real code stays far below: the deepest in
/// this repository and the crates it depends on is under 100.
pub const MAX_NESTING: u32 = 1_000;
/// Longer chains than this (`a + b + ...`, `x.f().g()...`, or-patterns), a file is not parsed.
/// Generated tables reach a few thousand.
pub const MAX_CHAIN: u32 = 20_000;

/// More braces than this in one file, it is not parsed: syn holds about 7 kB for each block, so
/// 30,000 of them take over 200 MiB. Real code stays well below: the most in this repository and
/// the crates it depends on is 15,799 (a table of Unicode data, 65 MiB parsed).
pub const MAX_BRACES: u32 = 25_000;

/// Why a text is not parsed, and where.
#[derive(Debug, PartialEq)]
pub struct TooDeep {
    pub at: u32,
    pub message: String,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Group(u8),
    /// After a `<`: generic arguments, or a comparison nobody closes.
    Angle,
    /// Between a closure's `|`s, where a `,` does not end the expression.
    Params,
}

/// The two measures: recursion in syn's parser, and depth of the tree.
#[derive(Clone, Copy, Default)]
struct Depth {
    parse: u32,
    tree: u32,
}

struct Level {
    kind: Kind,
    /// The measures where the level opened.
    base: Depth,
    /// Tokens counted since the level opened or since its last reset.
    chain: Depth,
}

/// What the previous token was, for telling prefix operators and closures from infix operators.
#[derive(Clone, Copy, PartialEq)]
enum Prev {
    /// An operator, an opening bracket, a keyword, or nothing: an operand comes next.
    Operator,
    /// An operand: a name, a literal, a closing bracket.
    Operand,
}

/// Where the first token nested past [`MAX_NESTING`] or [`MAX_CHAIN`] is, if any.
pub fn too_deep(text: &str) -> Option<TooDeep> {
    let mut scan = Scan::new(text, MAX_NESTING, MAX_CHAIN);
    scan.max_braces = MAX_BRACES;
    let at = scan.run().err()? as u32;
    let message = if scan.braces > MAX_BRACES {
        format!("too many blocks: more than {MAX_BRACES} braces in one file (generated code?)")
    } else if scan.deepest.parse > MAX_NESTING {
        format!("nested too deeply: more than {MAX_NESTING} levels of brackets, operators or generic arguments")
    } else {
        format!("nested too deeply: more than {MAX_CHAIN} operators or calls in one chain")
    };
    Some(TooDeep { at, message })
}

/// The deepest measures anywhere in `text` (for tests: how far real code stays from the limits).
#[cfg(test)]
pub(crate) fn deepest(text: &str) -> (u32, u32) {
    let mut scan = Scan::new(text, u32::MAX - 1, u32::MAX - 1);
    let _ = scan.run();
    (scan.deepest.parse, scan.deepest.tree)
}

struct Scan<'t> {
    b: &'t [u8],
    i: usize,
    levels: Vec<Level>,
    limit: Depth,
    deepest: Depth,
    prev: Prev,
    /// The last token closed a `{`: a name or literal next starts a new statement or item.
    after_brace: bool,
    /// `{`s seen, and how many are allowed.
    braces: u32,
    max_braces: u32,
}

/// Keywords after which an operand starts: a `|` there opens a closure, a `&` or `-` is prefix.
const OPERATOR_KEYWORDS: &[&[u8]] = &[
    b"as", b"async", b"become", b"box", b"break", b"const", b"dyn", b"else", b"for", b"if",
    b"impl", b"in", b"let", b"match", b"move", b"mut", b"ref", b"return", b"static", b"unsafe",
    b"where", b"while", b"yield",
];

/// Keywords that make syn recurse on their own: `return return x`, `box box x`.
const PREFIX_KEYWORDS: &[&[u8]] = &[b"return", b"break", b"yield", b"box", b"let", b"become"];

/// Keywords that nest the tree without recursion in the parser: `x as T as U`, `else if`.
const CHAIN_KEYWORDS: &[&[u8]] = &[b"as", b"else"];

impl<'t> Scan<'t> {
    fn new(text: &'t str, parse: u32, tree: u32) -> Self {
        Scan {
            b: text.as_bytes(),
            i: 0,
            levels: vec![Level {
                kind: Kind::Group(0),
                base: Depth::default(),
                chain: Depth::default(),
            }],
            limit: Depth { parse, tree },
            deepest: Depth::default(),
            prev: Prev::Operator,
            after_brace: false,
            braces: 0,
            max_braces: u32::MAX,
        }
    }

    /// Runs to the end; `Err(offset)` where a measure first passes its limit.
    fn run(&mut self) -> Result<(), usize> {
        while let Some(&c) = self.b.get(self.i) {
            let start = self.i;
            match c {
                b' ' | b'\t' | b'\n' | b'\r' => self.i += 1,
                b'/' if self.peek(1) == Some(b'/') => self.line_comment(),
                b'/' if self.peek(1) == Some(b'*') => self.block_comment(),
                b'"' => {
                    self.i += 1;
                    self.quoted(b'"');
                    self.operand();
                }
                b'\'' => self.quote(),
                b'0'..=b'9' => {
                    self.number();
                    self.operand();
                }
                c if c == b'_' || c.is_ascii_alphabetic() || c >= 0x80 => self.word(start)?,
                b'(' | b'[' | b'{' => {
                    self.i += 1;
                    self.after_brace = false;
                    self.open(Kind::Group(c), start)?;
                    self.prev = Prev::Operator;
                }
                b')' | b']' | b'}' => {
                    self.i += 1;
                    self.close(c, start)?;
                }
                _ => self.punct(start)?,
            }
        }
        Ok(())
    }

    fn peek(&self, ahead: usize) -> Option<u8> {
        self.b.get(self.i + ahead).copied()
    }

    fn top(&mut self) -> &mut Level {
        let last = self.levels.len() - 1;
        &mut self.levels[last]
    }

    fn measure(&self) -> Depth {
        self.levels.last().map_or(Depth::default(), |l| Depth {
            parse: l.base.parse + l.chain.parse,
            tree: l.base.tree + l.chain.tree,
        })
    }

    /// Notes the measure here; `Err(at)` past a limit.
    fn check(&mut self, at: usize) -> Result<(), usize> {
        let m = self.measure();
        self.deepest.parse = self.deepest.parse.max(m.parse);
        self.deepest.tree = self.deepest.tree.max(m.tree);
        if m.parse > self.limit.parse || m.tree > self.limit.tree {
            return Err(at);
        }
        Ok(())
    }

    /// A token that nests the tree; `recurses`: syn recurses for it too.
    fn count(&mut self, recurses: bool, at: usize) -> Result<(), usize> {
        let top = self.top();
        top.chain.tree += 1;
        if recurses {
            top.chain.parse += 1;
        }
        self.check(at)
    }

    fn open(&mut self, kind: Kind, at: usize) -> Result<(), usize> {
        if kind == Kind::Group(b'{') {
            self.braces += 1;
            if self.braces > self.max_braces {
                return Err(at);
            }
        }
        let m = self.measure();
        self.levels.push(Level {
            kind,
            base: Depth {
                parse: m.parse + 1,
                tree: m.tree + 1,
            },
            chain: Depth::default(),
        });
        self.check(at)
    }

    /// Drops the generic-argument and closure-parameter levels above the innermost bracket.
    fn pop_to_group(&mut self) {
        while self.levels.len() > 1 && !matches!(self.top().kind, Kind::Group(_)) {
            self.levels.pop();
        }
    }

    /// Nothing stays open across here (`;`, `=>`, a new statement).
    fn boundary(&mut self) {
        self.pop_to_group();
        self.top().chain = Depth::default();
    }

    fn close(&mut self, c: u8, at: usize) -> Result<(), usize> {
        let open = match c {
            b')' => b'(',
            b']' => b'[',
            _ => b'{',
        };
        self.after_brace = false;
        self.pop_to_group();
        // An unmatched closer (syn will reject the file) closes nothing.
        if self.levels.len() > 1 && self.top().kind == Kind::Group(open) {
            self.levels.pop();
        }
        // The bracketed part is one link of the chain around it: `f()()` nests twice.
        self.count(false, at)?;
        self.prev = Prev::Operand;
        self.after_brace = c == b'}';
        Ok(())
    }

    /// A name, literal or `#` right after a `}` starts a new statement or item.
    fn maybe_new_statement(&mut self) {
        if std::mem::take(&mut self.after_brace) {
            self.boundary();
        }
    }

    fn operand(&mut self) {
        self.maybe_new_statement();
        self.prev = Prev::Operand;
    }

    fn skip_name(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            if c == b'_' || c.is_ascii_alphanumeric() || c >= 0x80 {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    fn word(&mut self, start: usize) -> Result<(), usize> {
        self.skip_name();
        let word = &self.b[start..self.i];
        // String and character literals with a prefix: b"", br#""#, c"", b'x'; raw names r#x.
        match (word, self.peek(0)) {
            (b"b" | b"c", Some(b'"')) => {
                self.i += 1;
                self.quoted(b'"');
                self.operand();
                return Ok(());
            }
            (b"b", Some(b'\'')) => {
                self.i += 1;
                self.quoted(b'\'');
                self.operand();
                return Ok(());
            }
            (b"r" | b"br" | b"cr", Some(b'"' | b'#')) if self.raw_string() => {
                self.operand();
                return Ok(());
            }
            (b"r", Some(b'#')) => {
                self.i += 1;
                self.skip_name();
                self.operand();
                return Ok(());
            }
            _ => {}
        }
        // `} else`, `} as T` go on; any other name after a `}` starts a statement.
        if CHAIN_KEYWORDS.contains(&word) {
            self.after_brace = false;
            self.count(false, start)?;
        } else {
            self.maybe_new_statement();
        }
        if PREFIX_KEYWORDS.contains(&word) {
            self.count(true, start)?;
        }
        self.prev = if OPERATOR_KEYWORDS.contains(&word) {
            Prev::Operator
        } else {
            Prev::Operand
        };
        Ok(())
    }

    fn punct(&mut self, start: usize) -> Result<(), usize> {
        let rest = &self.b[self.i..];
        let len = if [&b"<<="[..], b">>=", b"...", b"..="]
            .iter()
            .any(|t| rest.starts_with(t))
        {
            3
        } else if rest.len() >= 2 && is_pair(&rest[..2]) {
            2
        } else {
            1
        };
        let token = &self.b[self.i..self.i + len];
        self.i += len;
        if token == b"#" {
            self.maybe_new_statement();
            return Ok(());
        }
        self.after_brace = false;
        let prefix = self.prev == Prev::Operator;
        self.prev = Prev::Operator;
        match token {
            b"," => self.top().chain = Depth::default(),
            b";" | b"=>" => self.boundary(),
            b"::" => {}
            b"<" | b"<<" => {
                for _ in 0..len {
                    self.open(Kind::Angle, start)?;
                }
            }
            b">" | b">>" | b">=" | b">>=" => {
                let mut closed = false;
                for _ in token.iter().filter(|t| **t == b'>') {
                    if self.top().kind == Kind::Angle {
                        self.levels.pop();
                        closed = true;
                    }
                }
                if closed {
                    // `Vec<T>` is one link of the chain around it.
                    self.prev = Prev::Operand;
                }
                self.count(!closed && token == b">>=", start)?;
            }
            b"|" if self.top().kind == Kind::Params => {
                // The parameters end; the closure's body is parsed below it.
                self.levels.pop();
                self.count(true, start)?;
            }
            b"|" if prefix => {
                self.count(true, start)?;
                self.open(Kind::Params, start)?;
            }
            // Assignments are right-associative; `->` nests types; `@` nests patterns.
            b"=" | b"+=" | b"-=" | b"*=" | b"/=" | b"%=" | b"^=" | b"&=" | b"|=" | b"<<="
            | b"->" | b"@" => self.count(true, start)?,
            // The rest: prefix where an operand is due (`!x`, `&x`, `..x`, `||`), else infix.
            _ => {
                self.count(prefix, start)?;
                if token == b"?" {
                    self.prev = Prev::Operand;
                }
            }
        }
        Ok(())
    }

    fn line_comment(&mut self) {
        self.i = self.b[self.i..]
            .iter()
            .position(|c| *c == b'\n')
            .map_or(self.b.len(), |p| self.i + p);
    }

    /// Block comments nest in Rust: `/* /* */ */`.
    fn block_comment(&mut self) {
        let mut depth = 0usize;
        while self.i < self.b.len() {
            if self.b[self.i..].starts_with(b"/*") {
                depth += 1;
                self.i += 2;
            } else if self.b[self.i..].starts_with(b"*/") {
                depth -= 1;
                self.i += 2;
                if depth == 0 {
                    return;
                }
            } else {
                self.i += 1;
            }
        }
    }

    /// Past the closing `quote` of a string or character whose opening one is behind.
    fn quoted(&mut self, quote: u8) {
        while let Some(&c) = self.b.get(self.i) {
            self.i += 1;
            if c == b'\\' {
                self.i += 1;
            } else if c == quote {
                return;
            }
        }
    }

    /// `r"..."`, `r#"..."#`: at the `#`s or `"` after the prefix. False if it is not one.
    fn raw_string(&mut self) -> bool {
        let hashes = self.b[self.i..].iter().take_while(|c| **c == b'#').count();
        if self.peek(hashes) != Some(b'"') {
            return false;
        }
        let open = self.i + hashes + 1;
        let mut close = vec![b'"'];
        close.extend(std::iter::repeat_n(b'#', hashes));
        self.i = self.b[open..]
            .windows(close.len())
            .position(|w| w == close.as_slice())
            .map_or(self.b.len(), |p| open + p + close.len());
        true
    }

    /// A character literal (`'x'`, `'\n'`) or a lifetime or label (`'a`).
    fn quote(&mut self) {
        self.i += 1;
        if self.peek(0) == Some(b'\\') {
            self.quoted(b'\'');
            self.operand();
            return;
        }
        // One character, however many bytes, then a quote: a character literal.
        let width = self.b.get(self.i).map_or(1, |c| utf8_width(*c));
        if self.peek(width) == Some(b'\'') {
            self.i += width + 1;
        } else {
            self.skip_name();
        }
        self.operand();
    }

    /// Digits, suffixes and a fraction: `1`, `0x1f_u8`, `1.5e3`. Not the `..` of a range.
    fn number(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            let fraction = c == b'.' && self.peek(1).is_some_and(|d| d.is_ascii_digit());
            if c == b'_' || c.is_ascii_alphanumeric() || fraction {
                self.i += 1;
            } else {
                break;
            }
        }
    }
}

fn is_pair(two: &[u8]) -> bool {
    matches!(
        two,
        b"::"
            | b"->"
            | b"=>"
            | b"=="
            | b"!="
            | b"<="
            | b">="
            | b"&&"
            | b"||"
            | b"+="
            | b"-="
            | b"*="
            | b"/="
            | b"%="
            | b"^="
            | b"&="
            | b"|="
            | b"<<"
            | b">>"
            | b".."
    )
}

fn utf8_width(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: usize = 5_000;

    fn rejected(text: &str) -> bool {
        too_deep(text).is_some()
    }

    #[test]
    fn every_way_of_recursing_is_counted() {
        let cases = [
            format!(
                "fn main() {{ let x = {}1{}; }}",
                "(".repeat(N),
                ")".repeat(N)
            ),
            format!("fn main() {}{}", "{".repeat(N), "}".repeat(N)),
            format!(
                "fn main() {{ let x: {}u8{} = todo!(); }}",
                "Vec<".repeat(N),
                ">".repeat(N)
            ),
            format!("type T = {}u8{};", "HashMap<u8, ".repeat(N), ">".repeat(N)),
            format!("fn main() {{ let x = {}a; }}", "!".repeat(N)),
            format!("fn main() {{ let x = {}a; }}", "&".repeat(N)),
            format!("fn main() {{ let x = {}a; }}", "- ".repeat(N)),
            format!("fn main() {{ let f = {}x; }}", "|a, b| ".repeat(N)),
            format!("fn main() {{ let f = {}x; }}", "move |a, b| ".repeat(N)),
            format!("fn main() {{ let f = {}x; }}", "|| ".repeat(N)),
            format!("fn main() {{ {}x; }}", "return ".repeat(N)),
            format!("fn main() {{ {}; }}", vec!["a"; N].join(" = ")),
            format!("fn main() {{ {}; }}", vec!["a"; N].join(" += ")),
            format!("fn main() {{ {}; }}", vec!["a = b"; N].join(" | ")),
            format!("fn f() -> {}u8 {{}}", "impl Fn() -> ".repeat(N)),
            format!("fn f(x: {}u8) {{}}", "&".repeat(N)),
            format!("fn f(x: {}u8) {{}}", "*const ".repeat(N)),
            format!("fn main() {{ let {}x = 1; }}", "a @ ".repeat(N)),
            format!("fn main() {{ let x = [{}]; }}", "a < b, ".repeat(N)),
        ];
        for case in &cases {
            let found = too_deep(case).map(|t| t.message);
            assert!(
                found.as_deref().is_some_and(|m| m.contains("1000 levels")),
                "{found:?}: {}",
                &case[..80.min(case.len())]
            );
        }
    }

    #[test]
    fn long_chains_are_counted() {
        let long = 25_000;
        let chains = |n: usize| {
            [
                format!("fn main() {{ let x = {}; }}", vec!["a"; n].join(" + ")),
                format!("fn main() {{ f{}; }}", "()".repeat(n)),
                format!("fn main() {{ x{}; }}", ".f()".repeat(n / 2)),
                format!("fn main() {{ x{}; }}", "?".repeat(n)),
                format!("fn main() {{ x{}; }}", " as u8".repeat(n)),
                format!("fn main() {{ if a {{}}{} }}", " else if a {}".repeat(n / 2)),
                format!("fn main() {{ let x = {}; }}", vec!["{1}"; n].join(" + ")),
                format!(
                    "fn main() {{ match x {{ {} => 1 }} }}",
                    vec!["'a'..='b'"; n / 2].join(" | ")
                ),
            ]
        };
        for case in chains(long) {
            let found = too_deep(&case).map(|t| t.message);
            assert!(
                found
                    .as_deref()
                    .is_some_and(|m| m.contains("20000 operators")),
                "{found:?}: {}",
                &case[..80]
            );
        }
        // 5,000 of each is fine: generated tables have or-patterns that long.
        for case in chains(5_000) {
            assert_eq!(too_deep(&case), None, "{}", &case[..80]);
        }
    }

    #[test]
    fn strings_comments_and_characters_hide_brackets() {
        let deep = "(".repeat(N);
        for hidden in [
            format!("\"{deep}\""),
            format!("r#\"{deep}\"#"),
            format!("br\"{deep}\""),
            format!("b\"\\\"{deep}\""),
            format!("/* /* */ {deep} */"),
            format!("// {deep}\n"),
        ] {
            let text = format!("fn main() {{ let x = {hidden}; }}\n");
            assert!(!rejected(&text), "rejected: {}", &text[..60]);
        }
        let chars = "'(', ".repeat(N);
        assert!(!rejected(&format!("const C: [char; {N}] = [{chars}];")));
        // A lifetime is not a character literal: what follows it is code.
        assert!(rejected(&format!("fn f<'a>(x: &'a u8) {{ {deep} }}")));
    }

    #[test]
    fn long_flat_code_is_not_deep() {
        let shallow = |text: &str| {
            let (parse, tree) = deepest(text);
            parse < 20 && tree < 20
        };
        let fns = "#[inline]\npub fn f(a: Vec<u8>, b: &str) -> Option<u8> { if a.len() < 2 { None } else { Some(a[0]) } }\n".repeat(N);
        assert!(shallow(&fns), "{:?}", deepest(&fns));
        let body =
            "    let x = a.b(c, d)?.e::<u8>();\n    if x < y { z(); }\n    w = |p, q| p + q;\n"
                .repeat(N);
        let text = format!("fn main() {{\n{body}}}\n");
        assert!(shallow(&text), "{:?}", deepest(&text));
        let arms = "        A | B => { x() }\n        C(d) if d < 3 => e < f,\n".repeat(N);
        let text = format!("fn main() {{\n    match v {{\n{arms}    }}\n}}\n");
        assert!(shallow(&text), "{:?}", deepest(&text));
        let table = format!("const T: [u8; {N}] = [{}];", "1 + 2, ".repeat(N));
        assert!(shallow(&table), "{:?}", deepest(&table));
    }

    /// Every Rust file of this repository stays far below the limit.
    #[test]
    fn this_repository_is_far_below_the_limit() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("the workspace");
        let mut todo = vec![root.to_path_buf()];
        let (mut files, mut deepest_seen) = (0, ((0, 0), String::new()));
        while let Some(dir) = todo.pop() {
            for entry in std::fs::read_dir(&dir)
                .expect("a readable folder")
                .flatten()
            {
                let path = entry.path();
                let name = entry.file_name();
                if path.is_dir() && name != "target" && !name.to_string_lossy().starts_with('.') {
                    todo.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let Ok(text) = std::fs::read_to_string(&path) else {
                        continue;
                    };
                    files += 1;
                    let d = deepest(&text);
                    if d.0 > deepest_seen.0 .0 || d.1 > deepest_seen.0 .1 {
                        let max = (d.0.max(deepest_seen.0 .0), d.1.max(deepest_seen.0 .1));
                        deepest_seen = (max, path.display().to_string());
                    }
                }
            }
        }
        assert!(files > 50);
        let ((parse, tree), at) = deepest_seen;
        assert!(
            parse < MAX_NESTING / 4 && tree < MAX_CHAIN / 4,
            "{parse}, {tree} (last raised by {at})"
        );
    }
}
