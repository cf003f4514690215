//! Jupyter notebooks (nbformat 4): the code cells, in order, are one module. IPython magics and
//! shell escapes are blanked, keeping their lines, so every line of the module maps back to its
//! cell ([`Cells`]). A fix rewrites only the `source` of the cells it edits; the rest of the JSON
//! stays byte for byte as it was.

use std::ops::Range;
use std::sync::OnceLock;

use gpulint_core::diagnostic::Edit;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::source::{Cells, LineCol, LineIndex};

/// A notebook as read: its JSON, and where each code cell's source sits in it.
#[derive(Debug)]
pub struct Notebook {
    json: String,
    cells: Vec<CodeCell>,
    /// The JSON's lines, built on first use (a finding located in the file as stored).
    json_lines: OnceLock<LineIndex>,
}

#[derive(Debug)]
struct CodeCell {
    /// 1-based, counting every cell.
    number: u32,
    /// The `source` value in the JSON.
    raw: Range<usize>,
    /// Its lines as written, each with its line end.
    lines: Vec<String>,
    /// Each item of `source` when it is a list, with its JSON as written (reused for the lines a
    /// fix leaves alone); `None` when it is one string.
    items: Option<Vec<(String, String)>>,
    /// Its first line in the module (1-based).
    first_line: u32,
}

#[derive(Deserialize)]
struct Document<'a> {
    nbformat: Option<u64>,
    #[serde(borrow)]
    cells: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize)]
struct RawCell<'a> {
    cell_type: String,
    #[serde(borrow)]
    source: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Source {
    One(String),
    Lines(Vec<String>),
}

/// A notebook read as a module: its text, the line → cell map, and what a fix needs.
pub struct Read {
    pub text: String,
    pub cells: Cells,
    pub notebook: Notebook,
}

/// Reads a notebook; the error says what is wrong with it.
pub fn read(json: String) -> Result<Read, String> {
    let doc: Document = serde_json::from_str(&json).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => format!("the JSON is not a notebook: {e}"),
        _ => format!("invalid JSON: {e}"),
    })?;
    match doc.nbformat {
        Some(4) => {}
        Some(n) => return Err(format!("nbformat {n}; only nbformat 4 notebooks are read")),
        None => return Err("no `nbformat` key".into()),
    }
    let cells = doc.cells.ok_or("no `cells` list")?;
    let mut text = String::new();
    let mut index = Cells::default();
    let mut code = Vec::new();
    let mut line = 1u32;
    for (i, raw) in cells.iter().enumerate() {
        let number = i as u32 + 1;
        let cell: RawCell =
            serde_json::from_str(raw.get()).map_err(|e| format!("cell {number}: {e}"))?;
        if cell.cell_type != "code" {
            continue;
        }
        let source = cell
            .source
            .ok_or_else(|| format!("cell {number}: a code cell without `source`"))?;
        let (lines, items) = match serde_json::from_str::<Source>(source.get()) {
            Ok(Source::One(s)) => (split_lines(&s), None),
            Ok(Source::Lines(list)) => {
                let tokens = raw_items(source.get())
                    .ok_or_else(|| format!("cell {number}: unreadable `source`"))?;
                let lines = split_lines(&list.concat());
                (lines, Some(list.into_iter().zip(tokens).collect()))
            }
            Err(_) => return Err(format!("cell {number}: `source` is not text")),
        };
        index.push(line, number);
        code.push(CodeCell {
            number,
            raw: offset_in(&json, source.get()),
            items,
            first_line: line,
            lines: Vec::new(),
        });
        let start = text.len();
        for l in blank_magics(&lines) {
            text.push_str(&l);
        }
        // A cell ending in a lone `\r` gets its `\n` too: with the next cell's first line end,
        // it would read as one `\r\n`, a line fewer than the map counts.
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        line += line_ends(&text[start..]);
        if let Some(last) = code.last_mut() {
            last.lines = lines;
        }
    }
    drop(cells);
    Ok(Read {
        text,
        cells: index,
        notebook: Notebook {
            json,
            cells: code,
            json_lines: OnceLock::new(),
        },
    })
}

/// Where `part`, a slice of `whole`, sits in it.
fn offset_in(whole: &str, part: &str) -> Range<usize> {
    let start = part.as_ptr() as usize - whole.as_ptr() as usize;
    start..start + part.len()
}

/// Where byte `target` of the text a `source` value decodes to (its one string, or its list's
/// strings joined) is written in `raw`, that value's JSON: the offset in `raw` of the escape or
/// character that gives it; the end of the last string for the end of the text.
fn json_offset(raw: &str, target: usize) -> usize {
    let bytes = raw.as_bytes();
    let mut decoded = 0;
    let mut in_string = false;
    let mut last_end = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !in_string {
            in_string = b == b'"';
            i += 1;
            continue;
        }
        if b == b'"' {
            in_string = false;
            last_end = i;
            i += 1;
            continue;
        }
        if decoded >= target {
            return i;
        }
        // How many bytes this piece of JSON is, and how many of the text it gives.
        let (width, gives) = match b {
            b'\\' => match bytes.get(i + 1) {
                Some(b'u') => {
                    let unit = |at: usize| {
                        raw.get(at..at + 4)
                            .and_then(|h| u32::from_str_radix(h, 16).ok())
                    };
                    match (unit(i + 2), raw.get(i + 6..i + 8), unit(i + 8)) {
                        // A surrogate pair: one character of four bytes.
                        (Some(0xD800..=0xDBFF), Some("\\u"), Some(0xDC00..=0xDFFF)) => (12, 4),
                        (Some(code), _, _) => (6, char::from_u32(code).map_or(3, char::len_utf8)),
                        (None, _, _) => (2, 1),
                    }
                }
                _ => (2, 1),
            },
            _ => {
                let len = raw[i..].chars().next().map_or(1, char::len_utf8);
                (len, len)
            }
        };
        decoded += gives;
        i += width;
    }
    last_end
}

/// The raw JSON of each item of a JSON array.
fn raw_items(array: &str) -> Option<Vec<String>> {
    let items: Vec<&RawValue> = serde_json::from_str(array).ok()?;
    Some(items.iter().map(|r| r.get().to_string()).collect())
}

/// How many lines `text` ends, counted as [`LineIndex`] counts them (`\n`, `\r\n`, a lone `\r`).
fn line_ends(text: &str) -> u32 {
    let bytes = text.as_bytes();
    let lone_cr = |i: usize| bytes[i] == b'\r' && bytes.get(i + 1) != Some(&b'\n');
    (0..bytes.len())
        .filter(|&i| bytes[i] == b'\n' || lone_cr(i))
        .count() as u32
}

/// Lines with their line ends (`\n`, `\r\n`, a lone `\r`, as Python and IPython end them); the
/// last may have none.
fn split_lines(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut lines = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let lone_cr = b == b'\r' && bytes.get(i + 1) != Some(&b'\n');
        if b == b'\n' || lone_cr {
            lines.push(text[start..=i].to_string());
            start = i + 1;
        }
    }
    if start < text.len() {
        lines.push(text[start..].to_string());
    }
    lines
}

/// The lines with each IPython magic (`%time`, a `%%bash` cell), shell escape (`!pip`), help
/// request (`?obj`, `obj?`) or magic assignment (`files = !ls`) blanked: emptied, or `pass` when
/// indented (a block stays a block). A line ending in `\` carries the magic to the next line, which
/// IPython joins to it: that line is emptied whatever its indentation (a `pass` there would be an
/// unexpected indent).
fn blank_magics(lines: &[String]) -> Vec<String> {
    let cell_magic = lines
        .iter()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.trim_start().starts_with("%%"));
    let mut out = Vec::with_capacity(lines.len());
    let mut continued = false;
    for line in lines {
        let body = line.trim_end_matches(['\n', '\r']);
        let end = &line[body.len()..];
        let continuation = continued;
        let magic = cell_magic || continuation || is_magic(body);
        continued = magic && body.ends_with('\\');
        let kept = if magic {
            let indent = &body[..body.len() - body.trim_start().len()];
            let blank = if indent.is_empty() || cell_magic || continuation {
                String::new()
            } else {
                format!("{indent}pass")
            };
            blank + end
        } else {
            line.clone()
        };
        // A line emptied after a lone `\r` would make one `\r\n` of the two line ends.
        if let Some(before) = out.last_mut().filter(|b: &&mut String| b.ends_with('\r')) {
            if kept.starts_with('\n') {
                before.push('\n');
            }
        }
        out.push(kept);
    }
    out
}

fn is_magic(line: &str) -> bool {
    let code = line.trim();
    if code.starts_with(['%', '!', '?']) {
        return true;
    }
    // `obj?`, `torch.cuda.init??`: a help request.
    let name = code.trim_end_matches('?');
    if name.len() < code.len() && !name.is_empty() && is_dotted_name(name) {
        return true;
    }
    // `files = !ls`, `t = %timeit -o f()`.
    if let Some((target, value)) = code.split_once('=') {
        let names = target.split(',').all(|n| is_dotted_name(n.trim()));
        let value = value.trim_start();
        return names
            && !target.is_empty()
            && value.starts_with(['!', '%'])
            && !value.starts_with("!=");
    }
    false
}

fn is_dotted_name(text: &str) -> bool {
    !text.is_empty()
        && text.split('.').all(|part| {
            part.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_')
                && part.chars().all(|c| c.is_alphanumeric() || c == '_')
        })
}

/// A notebook with fixes applied: its new JSON, and each edited cell's source before and after.
pub struct Fixed {
    pub json: String,
    pub cells: Vec<(u32, String, String)>,
}

impl Notebook {
    /// The JSON as read.
    pub fn json(&self) -> &str {
        &self.json
    }

    /// Applies `edits` (spans in the module `text`, indexed by `lines`) to the cells' sources.
    /// Only the edited cells' `source` values are written again. An edit that spans two cells, or
    /// touches a blanked line's magic, is refused with the reason.
    pub fn apply(&self, text: &str, lines: &LineIndex, edits: &[&Edit]) -> Result<Fixed, String> {
        // Fixes find a module line by `\n` alone: a lone `\r` ending a line would shift them.
        let lone_cr = |c: &CodeCell| {
            let before_last = c.lines.len().saturating_sub(1);
            c.lines[..before_last].iter().any(|l| l.ends_with('\r'))
        };
        if self.cells.iter().any(lone_cr) {
            return Err("a cell holds a carriage return that is not a line end".into());
        }
        // Per cell: (start, end, content) in the cell's own source.
        let mut by_cell: Vec<Vec<(usize, usize, &str)>> = vec![Vec::new(); self.cells.len()];
        for edit in edits {
            let (cell, start) = self.position(text, lines, edit.span.start)?;
            let (end_cell, end) = self.position(text, lines, edit.span.end)?;
            if cell != end_cell {
                return Err("a fix spans two cells".into());
            }
            by_cell[cell].push((start, end, edit.content.as_str()));
        }
        let mut json = self.json.clone();
        let mut changed = Vec::new();
        // From the last cell back, so earlier ranges stay valid.
        for (i, mut cell_edits) in by_cell.into_iter().enumerate().rev() {
            if cell_edits.is_empty() {
                continue;
            }
            let cell = &self.cells[i];
            let old: String = cell.lines.concat();
            cell_edits.sort_by_key(|e| (e.0, e.1));
            let mut new = String::with_capacity(old.len());
            let mut at = 0;
            for (start, end, content) in cell_edits {
                if start < at {
                    return Err("two fixes overlap".into());
                }
                new.push_str(&old[at..start]);
                new.push_str(content);
                at = end;
            }
            new.push_str(&old[at..]);
            if new == old {
                continue;
            }
            json.replace_range(cell.raw.clone(), &self.source_json(cell, &new));
            changed.push((cell.number, old, new));
        }
        changed.reverse();
        Ok(Fixed {
            json,
            cells: changed,
        })
    }

    /// Where byte `offset` of the module `text` (indexed by `lines`) is in the `.ipynb` file as
    /// read: the 1-based line and column (in characters) of the JSON text where the character it
    /// comes from is written, inside its cell's `source` string. This is what a viewer of the file
    /// itself (a pull request's diff) shows. A blanked magic line maps to its start; `None` before
    /// the first code cell.
    pub fn json_line_col(&self, text: &str, lines: &LineIndex, offset: u32) -> Option<LineCol> {
        let line = lines.line_col(text, offset).line;
        let i = self
            .cells
            .partition_point(|c| c.first_line <= line)
            .checked_sub(1)?;
        let cell = &self.cells[i];
        let line_start = lines.line_start(line).unwrap_or(text.len() as u32);
        let column = offset.saturating_sub(line_start) as usize;
        let in_cell = (line - cell.first_line) as usize;
        let before: usize = cell.lines.iter().take(in_cell).map(String::len).sum();
        let in_source = match cell.lines.get(in_cell) {
            Some(written) => {
                // The module's line is the written one unless a magic was blanked.
                let rest = text.get(line_start as usize..).unwrap_or_default();
                let module_line = rest.split_inclusive('\n').next().unwrap_or_default();
                let same = module_line.trim_end_matches(['\n', '\r'])
                    == written.trim_end_matches(['\n', '\r']);
                let mut at = if same { column.min(written.len()) } else { 0 };
                while !written.is_char_boundary(at) {
                    at -= 1;
                }
                before + at
            }
            // The line end added after a cell's last line.
            None => before,
        };
        let raw = cell.raw.start + json_offset(&self.json[cell.raw.clone()], in_source);
        let json_lines = self.json_lines.get_or_init(|| LineIndex::new(&self.json));
        Some(json_lines.line_col(&self.json, raw as u32))
    }

    /// The cell (index into `self.cells`) holding byte `offset` of the module, and the byte
    /// offset in that cell's source.
    fn position(
        &self,
        text: &str,
        lines: &LineIndex,
        offset: u32,
    ) -> Result<(usize, usize), String> {
        let line = lines.line_col(text, offset).line;
        let i = self
            .cells
            .partition_point(|c| c.first_line <= line)
            .checked_sub(1)
            .ok_or("a fix before the first cell")?;
        let cell = &self.cells[i];
        let line_start = lines.line_start(line).unwrap_or(text.len() as u32);
        let column = (offset - line_start) as usize;
        let in_cell = (line - cell.first_line) as usize;
        let before: usize = cell.lines.iter().take(in_cell).map(String::len).sum();
        match cell.lines.get(in_cell) {
            // A line as written: the module has it unchanged unless it was blanked.
            Some(written) => {
                let rest = &text[line_start as usize..];
                let module_line = rest.split_inclusive('\n').next().unwrap_or_default();
                let same = module_line.trim_end_matches(['\n', '\r'])
                    == written.trim_end_matches(['\n', '\r']);
                if column > 0 && !same {
                    return Err("a fix touches an IPython magic".into());
                }
                Ok((i, before + column.min(written.len())))
            }
            // The line end added after a cell's last line.
            None => Ok((i, before)),
        }
    }

    /// A cell's `source` as JSON in the form it had: one string, or a list of lines laid out as
    /// the original list was, each unchanged line written as it was.
    fn source_json(&self, cell: &CodeCell, new: &str) -> String {
        let string = |s: &str| serde_json::to_string(s).unwrap_or_default();
        let Some(items) = &cell.items else {
            return string(new);
        };
        let raw = &self.json[cell.raw.clone()];
        let lines = split_lines(new);
        if lines.is_empty() {
            return "[]".into();
        }
        // The list's layout: what precedes each item and the closing bracket.
        let (item_lead, close_lead) = match raw.find(|c: char| !c.is_whitespace() && c != '[') {
            Some(first) if !items.is_empty() => {
                let close = raw.trim_end_matches(']').len();
                let tail = &raw[..close];
                let close_lead = &tail[tail.trim_end().len()..];
                (raw[1..first].to_string(), close_lead.to_string())
            }
            _ => {
                let indent = self.line_indent(cell.raw.start);
                (format!("\n{indent} "), format!("\n{indent}"))
            }
        };
        let mut out = String::from("[");
        for (i, line) in lines.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&item_lead);
            match items.iter().find(|(l, _)| l == line) {
                Some((_, token)) => out.push_str(token),
                None => out.push_str(&string(line)),
            }
        }
        out.push_str(&close_lead);
        out.push(']');
        out
    }

    /// The indentation of the line holding byte `at` of the JSON.
    fn line_indent(&self, at: usize) -> &str {
        let start = self.json[..at].rfind('\n').map_or(0, |i| i + 1);
        let line = &self.json[start..at];
        &line[..line.len() - line.trim_start().len()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{FileId, Span};

    /// Two code cells around a markdown cell, as Jupyter writes them (one-space indentation).
    const NOTEBOOK: &str = r#"{
 "cells": [
  {
   "cell_type": "code",
   "execution_count": 1,
   "metadata": {},
   "outputs": [],
   "source": [
    "%matplotlib inline\n",
    "import torch\n",
    "model = torch.nn.Linear(2, 2).cuda()"
   ]
  },
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "Notes: café"
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {"tags": ["x"]},
   "outputs": [{"output_type": "stream", "name": "stdout", "text": ["ok\n"]}],
   "source": "!nvidia-smi\nx = model(torch.ones(2))\n"
  }
 ],
 "metadata": {"kernelspec": {"name": "python3"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
"#;

    #[test]
    fn code_cells_are_one_module_with_magics_blanked() {
        let read = read(NOTEBOOK.to_string()).unwrap();
        assert_eq!(
            read.text,
            "\nimport torch\nmodel = torch.nn.Linear(2, 2).cuda()\n\nx = model(torch.ones(2))\n"
        );
        assert_eq!(read.cells.locate(3), (1, 3));
        assert_eq!(read.cells.locate(5), (3, 2));
    }

    #[test]
    fn a_lone_carriage_return_ends_a_line_in_the_map_too() {
        let json = r#"{"nbformat": 4, "cells": [
            {"cell_type": "code", "source": "a = 1\rb = 2\r"},
            {"cell_type": "code", "source": ["c = 3"]}]}"#;
        let read = read(json.to_string()).unwrap();
        let lines = LineIndex::new(&read.text);
        let c = read.text.find('c').unwrap() as u32;
        assert_eq!(
            read.cells.locate(lines.line_col(&read.text, c).line),
            (2, 1)
        );
    }

    #[test]
    fn a_cell_ending_in_a_lone_carriage_return_does_not_join_the_next_cells_first_line() {
        let json = r#"{"nbformat": 4, "cells": [
            {"cell_type": "code", "source": "a = 1\r"},
            {"cell_type": "code", "source": ["\n", "b = 2\n"]}]}"#;
        let read = read(json.to_string()).unwrap();
        let lines = LineIndex::new(&read.text);
        let b = read.text.find('b').unwrap() as u32;
        assert_eq!(
            read.cells.locate(lines.line_col(&read.text, b).line),
            (2, 2)
        );
    }

    /// The JSON line and column (1-based, in characters) where `needle` is written in `json`.
    fn written_at(json: &str, needle: &str) -> LineCol {
        let at = json.find(needle).unwrap();
        let line = json[..at].matches('\n').count() as u32 + 1;
        let start = json[..at].rfind('\n').map_or(0, |i| i + 1);
        LineCol {
            line,
            column: json[start..at].chars().count() as u32 + 1,
        }
    }

    #[test]
    fn a_position_in_a_cell_maps_to_where_the_json_writes_it() {
        let read = read(NOTEBOOK.to_string()).unwrap();
        let lines = LineIndex::new(&read.text);
        let json_at = |find: &str| {
            let at = read.text.find(find).unwrap() as u32;
            read.notebook.json_line_col(&read.text, &lines, at).unwrap()
        };
        // A list source: each line is an item on a line of its own.
        assert_eq!(
            json_at("import torch"),
            written_at(NOTEBOOK, "import torch")
        );
        assert_eq!(json_at(".cuda()"), written_at(NOTEBOOK, ".cuda()"));
        // One string: every line of the cell sits on the `source` line, after the escapes.
        assert_eq!(json_at("model(torch"), written_at(NOTEBOOK, "model(torch"));
        // A blanked magic line maps to its start.
        assert!(read.text.starts_with("\nimport torch"));
        assert_eq!(
            read.notebook.json_line_col(&read.text, &lines, 0),
            Some(written_at(NOTEBOOK, "%matplotlib"))
        );

        // Escapes and characters of several bytes count as what they give; the JSON's columns
        // count characters.
        let json = "{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\", \"source\": [\n  \"s = \\\"\\u00e9\\ud83d\\ude00\\t\\\"; x = 1\\n\",\n  \"é = 2\"]}]}";
        let read = super::read(json.to_string()).unwrap();
        let lines = LineIndex::new(&read.text);
        let at = |find: &str| {
            let at = read.text.find(find).unwrap() as u32;
            read.notebook.json_line_col(&read.text, &lines, at).unwrap()
        };
        assert_eq!(at("x = 1"), written_at(json, "x = 1"));
        assert_eq!(at("é = 2"), written_at(json, "é = 2"));
        // The end of the text: after the last character of the last string.
        let end = read.text.len() as u32;
        let after = written_at(json, "\"]}]}");
        assert_eq!(
            read.notebook.json_line_col(&read.text, &lines, end),
            Some(after)
        );
    }

    #[test]
    fn magics_are_recognised_and_python_is_not() {
        for magic in [
            "%time f()",
            "!pip install x",
            "?torch",
            "torch.cuda?",
            "obj??",
            "files = !ls",
            "t = %timeit -o f()",
            "  %debug",
        ] {
            assert!(is_magic(magic), "{magic}");
        }
        for python in [
            "x = 1",
            "a != b",
            "# why?",
            "print('%d' % 3)",
            "s = 'a?'",
            "x = y % 2",
        ] {
            assert!(!is_magic(python), "{python}");
        }
        let lines = split_lines("for i in x:\n    !echo $i\n%%bash\n");
        assert_eq!(blank_magics(&lines)[1], "    pass\n");
        let cell = split_lines("%%bash\necho hi\n");
        assert_eq!(blank_magics(&cell), ["\n", "\n"]);
        // A continuation line is emptied, indented or not; a magic in a block keeps its `pass`.
        let continued = split_lines("!pip install \\\n    torch\nx = 1\n");
        assert_eq!(blank_magics(&continued), ["\n", "\n", "x = 1\n"]);
        let lines = split_lines("if x:\n    %time y = \\\n        1\n    z = 2\n");
        assert_eq!(
            blank_magics(&lines)[1..],
            ["    pass\n", "\n", "    z = 2\n"]
        );
        // A lone `\r` ends a line: the magic before it goes, the Python after it stays.
        let lines = split_lines("%time f()\rimport os\r\n");
        assert_eq!(blank_magics(&lines), ["\r", "import os\r\n"]);
        // Emptied, a continuation's `\n` after a lone `\r` stays a line of its own.
        let lines = split_lines("%time x = \\\r  1\nx = 2\n");
        let blanked = blank_magics(&lines).concat();
        assert_eq!(line_ends(&blanked), 3, "{blanked:?}");
    }

    #[test]
    fn malformed_notebooks_are_refused_with_the_reason() {
        let reason = |json: &str| read(json.to_string()).err().unwrap();
        assert!(reason("{").starts_with("invalid JSON"));
        assert!(reason(r#"{"nbformat": 3, "worksheets": []}"#).contains("nbformat 3"));
        assert!(reason(r#"{"nbformat": 4}"#).contains("no `cells`"));
        assert!(reason("[1, 2]").starts_with("the JSON is not a notebook"));
        assert!(
            reason(r#"{"nbformat": 4, "cells": [{"cell_type": "code", "source": 3}]}"#)
                .contains("cell 1")
        );
    }

    fn edit(text: &str, find: &str, content: &str) -> Edit {
        let at = text.find(find).unwrap() as u32;
        Edit {
            span: Span::new(FileId(0), at, at + find.len() as u32),
            content: content.into(),
        }
    }

    #[test]
    fn a_fix_rewrites_only_the_edited_cells_source() {
        let read = read(NOTEBOOK.to_string()).unwrap();
        let lines = LineIndex::new(&read.text);
        let e = edit(&read.text, ".cuda()", ".to(\"cpu\")");
        let fixed = read.notebook.apply(&read.text, &lines, &[&e]).unwrap();
        let expected = NOTEBOOK.replace(
            r#""model = torch.nn.Linear(2, 2).cuda()""#,
            r#""model = torch.nn.Linear(2, 2).to(\"cpu\")""#,
        );
        assert_eq!(fixed.json, expected);
        assert_eq!(fixed.cells.len(), 1);
        assert_eq!(fixed.cells[0].0, 1);

        // A line added to a string source keeps it one string; the other cell is untouched.
        let e = edit(&read.text, "x = model", "y = 1\nx = model");
        let fixed = read.notebook.apply(&read.text, &lines, &[&e]).unwrap();
        let expected = NOTEBOOK.replace(
            r#""!nvidia-smi\nx = model"#,
            r#""!nvidia-smi\ny = 1\nx = model"#,
        );
        assert_eq!(fixed.json, expected);
    }

    #[test]
    fn a_line_added_to_a_list_source_is_laid_out_like_its_neighbours() {
        let read = read(NOTEBOOK.to_string()).unwrap();
        let lines = LineIndex::new(&read.text);
        let e = edit(&read.text, "model =", "torch.set_num_threads(1)\nmodel =");
        let fixed = read.notebook.apply(&read.text, &lines, &[&e]).unwrap();
        let expected = NOTEBOOK.replace(
            "    \"import torch\\n\",\n",
            "    \"import torch\\n\",\n    \"torch.set_num_threads(1)\\n\",\n",
        );
        assert_eq!(fixed.json, expected);
    }

    #[test]
    fn a_fix_on_a_magic_or_across_cells_is_refused() {
        let read = read(NOTEBOOK.to_string()).unwrap();
        let lines = LineIndex::new(&read.text);
        let across = Edit {
            span: Span::new(FileId(0), 20, read.text.len() as u32 - 2),
            content: String::new(),
        };
        assert!(read.notebook.apply(&read.text, &lines, &[&across]).is_err());
    }
}
