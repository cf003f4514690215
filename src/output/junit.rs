//! JUnit XML, for CI systems that show test reports: one test suite per file, one failing test case
//! per finding (as ruff writes it); a single passing case when there is nothing to report.

use std::io::Write;

use gpulint_core::files::Files;
use gpulint_rules::Diagnostic;
use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::Writer;

pub fn write(
    out: &mut impl Write,
    files: &dyn Files,
    ordered: &[&Diagnostic],
) -> std::io::Result<()> {
    let mut xml = Writer::new_with_indent(&mut *out, b' ', 2);
    xml.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let total = ordered.len().to_string();
    xml.create_element("testsuites")
        .with_attributes([
            ("name", "gpulint"),
            ("tests", total.as_str()),
            ("failures", total.as_str()),
            ("errors", "0"),
        ])
        .write_inner_content(|xml| {
            if ordered.is_empty() {
                xml.create_element("testsuite")
                    .with_attributes([("name", "gpulint"), ("tests", "1"), ("failures", "0")])
                    .write_inner_content(|xml| {
                        xml.create_element("testcase")
                            .with_attribute(("name", "No findings"))
                            .write_empty()?;
                        Ok(())
                    })?;
                return Ok(());
            }
            let mut start = 0;
            while start < ordered.len() {
                let file = ordered[start].span.file;
                let end = ordered[start..]
                    .iter()
                    .position(|d| d.span.file != file)
                    .map_or(ordered.len(), |n| start + n);
                let group = &ordered[start..end];
                let source = files.file(file);
                let path = crate::paths::relative(&source.path);
                let count = group.len().to_string();
                xml.create_element("testsuite")
                    .with_attributes([
                        ("name", path.as_str()),
                        ("tests", count.as_str()),
                        ("failures", count.as_str()),
                        ("errors", "0"),
                    ])
                    .write_inner_content(|xml| {
                        for d in group {
                            let at = super::location(files, d.span, d.span.start);
                            let (line, column) = (at.line.to_string(), at.column.to_string());
                            let cell = at.cell.map(|n| format!("cell {n}, ")).unwrap_or_default();
                            let name = format!("gpulint.{}", d.code);
                            let classname = path
                                .trim_end_matches(".py")
                                .trim_end_matches(".ipynb")
                                .replace('/', ".");
                            xml.create_element("testcase")
                                .with_attributes([
                                    ("name", name.as_str()),
                                    ("classname", classname.as_str()),
                                    ("file", path.as_str()),
                                    ("line", line.as_str()),
                                    ("column", column.as_str()),
                                ])
                                .write_inner_content(|xml| {
                                    xml.create_element("failure")
                                        .with_attribute(("message", d.message.as_str()))
                                        .write_text_content(BytesText::new(&format!(
                                            "{cell}line {line}, col {column}, {} {}. Fix: {}",
                                            d.code, d.message, d.help
                                        )))?;
                                    Ok(())
                                })?;
                        }
                        Ok(())
                    })?;
                start = end;
            }
            Ok(())
        })?;
    writeln!(out)
}
