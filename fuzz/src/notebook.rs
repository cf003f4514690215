//! `--target notebook`: generated `.ipynb` files checked with `gpulint check`. A valid notebook
//! (nbformat 4 JSON whose code cells are Python once IPython's magics are taken out) initialises
//! CUDA in its first code cell and forks a child that uses CUDA in its last: it must give that
//! GPU001, on the cell and line of `p.start()`, and no GPU999. Mutated notebooks (invalid JSON,
//! non-UTF-8, deep or huge JSON, wrong shapes) must only stay bounded.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::child;
use crate::rng::Rng;
use crate::{Options, Summary};

const MAX_CPU_SECONDS: f64 = 5.0;
const MAX_MIB: i64 = 300;

/// A code cell's lines, each without its line end.
struct Lines<'r> {
    rng: &'r mut Rng,
    out: Vec<String>,
}

impl Lines<'_> {
    fn push(&mut self, indent: usize, text: &str) {
        self.out.push(format!("{}{text}", " ".repeat(indent)));
    }

    /// A line magic, shell escape or help request, sometimes continued with `\` onto lines of
    /// any indentation.
    fn magic(&mut self, indent: usize) {
        let first = *self.rng.pick(&[
            "%time x = ",
            "%matplotlib inline",
            "!pip install ",
            "!ls -l",
            "?os",
            "os.path?",
            "os.path??",
            "files = !ls",
            "t = %timeit -o f()",
            "%env A=1",
            "%load_ext autoreload",
        ]);
        // IPython joins a `\` continuation before it looks for a help request's `?` at the end.
        let help = first.contains('?');
        let continued = if help { 0 } else { self.rng.below(3) };
        let end = if continued > 0 { " \\" } else { "" };
        self.push(indent, &format!("{first}{end}"));
        for i in 0..continued {
            let more = if i + 1 < continued { " \\" } else { "" };
            let text = *self
                .rng
                .pick(&["1", "torch", "+ 2", "-q", ")", "(", "'", "if:"]);
            let depth = self.rng.below(12);
            self.push(depth, &format!("{text}{more}"));
        }
    }

    /// A statement; the first of a block's body is never a blank line.
    fn statement(&mut self, indent: usize, depth: usize, first_in_block: bool) {
        let kind = self.rng.below(if depth < 2 { 12 } else { 9 });
        let kind = if first_in_block && (6..=7).contains(&kind) {
            3
        } else {
            kind
        };
        match kind {
            0..=2 => self.magic(indent),
            3 => {
                let text = *self.rng.pick(&[
                    "x = 1",
                    "print(x)",
                    "import os",
                    "y = [i for i in range(3)]",
                    "s = 'a?'",
                    "# why? %time",
                    "z = 5 % 2",
                    "w = x != 2",
                    "f = lambda: None",
                    "pass",
                ]);
                // A comment alone is no block body.
                let text = if first_in_block && text.starts_with('#') {
                    "pass"
                } else {
                    text
                };
                self.push(indent, text);
            }
            4 => {
                self.push(indent, "x = 1 + \\");
                let depth = self.rng.below(9);
                self.push(depth, "2");
            }
            5 => {
                self.push(indent, "s = \"\"\"text");
                self.push(0, "");
                self.push(0, "more\"\"\"");
            }
            6 => self.push(indent, ""),
            7 => {
                let spaces = indent + self.rng.below(5);
                self.push(spaces, "");
            }
            8 => self.push(indent, "d = {'a': (1,"),
            9..=11 => {
                let head = *self.rng.pick(&[
                    "if x:",
                    "for i in range(2):",
                    "def f():",
                    "while False:",
                    "with open('f') as fh:",
                    "class C:",
                    "try:",
                ]);
                self.push(indent, head);
                let body = 1 + self.rng.below(3);
                for i in 0..body {
                    self.statement(indent + 4, depth + 1, i == 0);
                }
                if head == "try:" {
                    self.push(indent, "except Exception:");
                    self.statement(indent + 4, depth + 1, true);
                }
            }
            _ => self.push(indent, "pass"),
        }
        // The open dict above is closed on its own line.
        if self.out.last().is_some_and(|l| l.ends_with("(1,")) {
            self.push(indent + 4, "2)}");
        }
    }
}

/// A code cell's source with line ends: `\n` mostly, `\r\n` or a lone `\r` at times; the last
/// line may have none.
fn with_line_ends(rng: &mut Rng, lines: &[String]) -> String {
    let mut text = String::new();
    for (i, line) in lines.iter().enumerate() {
        text.push_str(line);
        let last = i + 1 == lines.len();
        if last && rng.chance(30) {
            break;
        }
        let end = match rng.below(10) {
            0 => "\r\n",
            // After a lone `\r`, an empty line's `\n` would make one `\r\n` of the two.
            1 => "\r",
            _ if text.ends_with('\r') && line.is_empty() => "\r",
            _ => "\n",
        };
        text.push_str(end);
    }
    text
}

/// `source` as one string or as a list split at line ends or anywhere.
fn source(rng: &mut Rng, text: &str) -> Value {
    if rng.chance(40) {
        return json!(text);
    }
    let mut items = Vec::new();
    let mut start = 0;
    let at_line_ends = rng.chance(70);
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        let cut = match at_line_ends {
            true => c == '\n' || (c == '\r' && !text[end..].starts_with('\n')),
            false => rng.chance(10),
        };
        if cut {
            items.push(text[start..end].to_string());
            start = end;
        }
    }
    if start < text.len() {
        items.push(text[start..].to_string());
    }
    json!(items)
}

/// A valid notebook, the (cell, row) of its `p.start()`.
fn notebook(rng: &mut Rng) -> (Value, (u64, u64)) {
    let mut cells = Vec::new();
    let mut fork_at = (0, 0);
    let middle = rng.below(5);
    for i in 0..middle + 2 {
        // Other cells around the code: markdown, raw, a kind nbformat does not have.
        while rng.chance(30) {
            let kind = *rng.pick(&["markdown", "raw", "heading"]);
            let text = *rng.pick(&["# Title é", "%time not code", "x = (", "", "🚀\r\n"]);
            let src = source(rng, text);
            cells.push(json!({"cell_type": kind, "metadata": {}, "source": src}));
        }
        let mut lines = Lines {
            rng,
            out: Vec::new(),
        };
        let first = i == 0;
        let last = i == middle + 1;
        if first {
            for line in [
                "import torch",
                "import multiprocessing as mp",
                "model = torch.nn.Linear(2, 2).cuda()",
            ] {
                lines.push(0, line);
            }
        } else if !last && lines.rng.chance(15) {
            // A cell magic: the whole cell is not Python.
            let magic = *lines.rng.pick(&["%%time", "%%bash", "%%capture out"]);
            lines.push(0, magic);
            lines.push(0, "echo hi \\");
            lines.push(4, "there");
        }
        let filler = lines.rng.below(8);
        for _ in 0..filler {
            lines.statement(0, 0, false);
        }
        let row = lines.out.len() as u64 + 4;
        if last {
            for line in [
                "def work():",
                "    return torch.ones(1).cuda()",
                "p = mp.get_context('fork').Process(target=work)",
                "p.start()",
            ] {
                lines.push(0, line);
            }
        }
        let out = std::mem::take(&mut lines.out);
        let text = with_line_ends(rng, &out);
        let src = source(rng, &text);
        let mut cell = json!({"cell_type": "code", "execution_count": null, "metadata": {},
                              "outputs": [], "source": src});
        if rng.chance(30) {
            cell["outputs"] =
                json!([{"output_type": "stream", "name": "stdout", "text": ["ok\n"]}]);
            cell["id"] = json!(format!("c{i}"));
        }
        cells.push(cell);
        if last {
            fork_at = (cells.len() as u64, row);
        }
    }
    let doc = json!({"cells": cells, "metadata": {"kernelspec": {"name": "python3"}},
                     "nbformat": 4, "nbformat_minor": 5});
    (doc, fork_at)
}

/// A mutation that makes the notebook something else: its bytes.
fn mutate(rng: &mut Rng, doc: &mut Value, bytes: Vec<u8>) -> Vec<u8> {
    let mut bytes = bytes;
    match rng.below(11) {
        0 => bytes.truncate(rng.below(bytes.len())),
        1 => {
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bytes.len());
                bytes[at] = *rng.pick(&[0xff, 0xc3, 0x80, 0x00, b'"', b'\\', b'{', b']']);
            }
        }
        2 => {
            doc["nbformat"] = rng
                .pick(&[json!(3), json!("4"), json!(null), json!(4.5)])
                .clone();
            return doc.to_string().into_bytes();
        }
        3 => {
            doc["cells"] = rng.pick(&[json!({}), json!(null), json!([1, "a"])]).clone();
            return doc.to_string().into_bytes();
        }
        4 => {
            let source = rng
                .pick(&[json!(7), json!(null), json!([["a"]]), json!([1])])
                .clone();
            doc["cells"][0]["source"] = source;
            return doc.to_string().into_bytes();
        }
        5 => {
            // Deep nesting, in a value or as the whole document.
            let depth = 100 + rng.below(200_000);
            let deep = format!("{}{}", "[".repeat(depth), "]".repeat(depth));
            let text = doc.to_string();
            return match rng.chance(50) {
                true => deep.into_bytes(),
                false => text
                    .replacen("\"metadata\":{}", &format!("\"metadata\":{deep}"), 1)
                    .into_bytes(),
            };
        }
        6 => {
            // Huge: over the size gpulint reads.
            let big = "x".repeat((8 << 20) + rng.below(1 << 20));
            let cell = json!({"cell_type": "markdown", "metadata": {}, "source": big});
            if let Some(cells) = doc["cells"].as_array_mut() {
                cells.push(cell);
            }
            return doc.to_string().into_bytes();
        }
        7 => {
            let mut with_bom = b"\xef\xbb\xbf".to_vec();
            with_bom.extend_from_slice(&bytes);
            return with_bom;
        }
        8 => {
            let prefixes: [&[u8]; 3] = [b"{\"cells\": 1, ", b"\xff\xfe", b"  "];
            let prefix = *rng.pick(&prefixes);
            bytes.splice(0..0, prefix.iter().copied());
        }
        9 => {
            // A code cell without `source`.
            if let Some(cell) = doc["cells"][0].as_object_mut() {
                cell.remove("source");
            }
            return doc.to_string().into_bytes();
        }
        _ => bytes.extend_from_slice(b"\n{}"),
    }
    bytes
}

pub fn fuzz(options: &Options) -> Summary {
    let mut rng = Rng(options.seed.max(1));
    let deadline = Instant::now() + Duration::from_secs(options.seconds);
    let mut summary = Summary::default();
    while Instant::now() < deadline {
        let dir = tempfile::tempdir().expect("temp dir");
        let (mut doc, fork_at) = notebook(&mut rng);
        // Many cells, now and then: still valid.
        if rng.chance(1) {
            let cell = json!({"cell_type": "code", "metadata": {},
                              "source": ["x = 1\n", "%time y = \\\n", "    2\n"]});
            if let Some(cells) = doc["cells"].as_array_mut() {
                let last = cells.pop();
                cells.extend(std::iter::repeat_n(cell, 3000));
                cells.extend(last);
            }
        }
        let fork_at = (
            doc["cells"].as_array().map_or(0, |c| c.len() as u64),
            fork_at.1,
        );
        let mut bytes = match rng.chance(50) {
            true => serde_json::to_vec_pretty(&doc).expect("JSON"),
            false => serde_json::to_vec(&doc).expect("JSON"),
        };
        let valid = rng.chance(60);
        if !valid {
            bytes = mutate(&mut rng, &mut doc, bytes);
        }
        std::fs::write(dir.path().join("nb.ipynb"), &bytes).expect("write");
        let args = ["check", "--output-format", "json", "nb.ipynb"];
        let outcome = child::run(&options.binary, &args, dir.path(), Duration::from_secs(30));
        summary.cases += 1;
        summary.note(outcome.cpu_seconds, outcome.peak_mib);
        let problem = if summary.cases <= options.samples {
            Some("sample".to_string())
        } else if let Some(problem) = outcome.problem(MAX_CPU_SECONDS, MAX_MIB) {
            Some(problem)
        } else if valid {
            wrong_findings(&outcome.stdout, fork_at)
        } else {
            None
        };
        if let Some(problem) = problem {
            let valid = if valid { "valid" } else { "mutated" };
            let files = [("nb.ipynb".to_string(), bytes)];
            summary.keep(options, &format!("{valid}: {problem}"), &files);
        }
    }
    summary
}

/// What is wrong with a valid notebook's findings: anything but its GPU001 at `fork_at`.
fn wrong_findings(stdout: &str, fork_at: (u64, u64)) -> Option<String> {
    let findings: Vec<Value> = match serde_json::from_str(stdout) {
        Ok(findings) => findings,
        Err(e) => return Some(format!("output is not JSON: {e}")),
    };
    let places: Vec<(String, u64, u64)> = findings
        .iter()
        .map(|f| {
            let code = f["code"].as_str().unwrap_or_default().to_string();
            let cell = f["cell"].as_u64().unwrap_or(0);
            (code, cell, f["location"]["row"].as_u64().unwrap_or(0))
        })
        .collect();
    let expected = [("GPU001".to_string(), fork_at.0, fork_at.1)];
    (places != expected).then(|| format!("expected {expected:?}, found {places:?}"))
}
