//! SARIF 2.1.0 for GitHub code scanning and other viewers: every rule with its descriptions, help
//! text and Markdown, and default level; every result with its level, a location relative to
//! `%SRCROOT%` (the working directory), related locations, and partial fingerprints that survive
//! unrelated edits. In a notebook, regions are in the `.ipynb` file as stored (the JSON's lines
//! where the cell's source is written, which code scanning shows), and each region's `properties`
//! say which cell and where in it (`{"cell": N, "cellLine": L, "cellColumn": C}`, 1-based).

use std::collections::BTreeMap;
use std::io::Write;

use gpulint_core::files::Files;
use gpulint_core::source::Span;
use gpulint_rules::{Diagnostic, Severity, RULES};
use serde_sarif::sarif::{
    ArtifactLocation, Location, Message, MultiformatMessageString, PhysicalLocation, PropertyBag,
    Region, ReportingConfiguration, ReportingDescriptor, Result as SarifResult, ResultLevel, Run,
    Sarif, Tool, ToolComponent, SCHEMA_URL,
};

const SRCROOT: &str = "%SRCROOT%";

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

pub fn write(
    out: &mut impl Write,
    files: &dyn Files,
    ordered: &[&Diagnostic],
) -> anyhow::Result<()> {
    let rules = rules();
    let results = results(files, ordered);
    let driver = ToolComponent::builder()
        .name("gpulint")
        .version(env!("CARGO_PKG_VERSION"))
        .semantic_version(env!("CARGO_PKG_VERSION"))
        .rules(rules)
        .build();
    let run = Run::builder()
        .tool(Tool::builder().driver(driver).build())
        .results(results)
        // `LineCol` counts characters.
        .column_kind(serde_json::json!("unicodeCodePoints"))
        .original_uri_base_ids(BTreeMap::from([(
            SRCROOT.to_string(),
            ArtifactLocation::builder()
                .uri(crate::paths::file_uri(&crate::paths::working_dir()))
                .build(),
        )]))
        .build();
    let sarif = Sarif::builder()
        .schema(SCHEMA_URL)
        .version(serde_json::json!("2.1.0"))
        .runs(vec![run])
        .build();
    serde_json::to_writer_pretty(&mut *out, &sarif)?;
    writeln!(out)?;
    Ok(())
}

/// Every rule: its descriptions, help text and Markdown, and default level.
fn rules() -> Vec<ReportingDescriptor> {
    RULES
        .iter()
        .map(|r| {
            let mut rule = ReportingDescriptor::builder()
                .id(r.code)
                .name(r.name)
                .short_description(MultiformatMessageString::builder().text(r.summary).build())
                .full_description(
                    MultiformatMessageString::builder()
                        .text(first_paragraph(r.docs))
                        .build(),
                )
                .help(
                    MultiformatMessageString::builder()
                        .text(r.docs)
                        .markdown(r.docs)
                        .build(),
                )
                .default_configuration(
                    ReportingConfiguration::builder()
                        .level(serde_json::json!(level(r.severity)))
                        .build(),
                )
                .build();
            // SARIF wants an absolute URI here: given once the repository is named.
            rule.help_uri = super::rule_url(r.code);
            rule
        })
        .collect()
}

/// Where a span is: in its file as stored (a notebook's JSON), with the cell and where in it for a
/// notebook, and `message` for a related location.
fn location(files: &dyn Files, span: Span, message: Option<&str>) -> Location {
    let file = files.file(span.file);
    let start = super::stored(files, span, span.start);
    let end = super::stored(files, span, span.end);
    let region = Region::builder()
        .start_line(i64::from(start.line))
        .start_column(i64::from(start.column))
        .end_line(i64::from(end.line))
        .end_column(i64::from(end.column));
    let shown = super::location(files, span, span.start);
    let region = match shown.cell {
        Some(cell) => region
            .properties(
                PropertyBag::builder()
                    .additional_properties(BTreeMap::from([
                        ("cell".to_string(), serde_json::json!(cell)),
                        ("cellLine".to_string(), serde_json::json!(shown.line)),
                        ("cellColumn".to_string(), serde_json::json!(shown.column)),
                    ]))
                    .build(),
            )
            .build(),
        None => region.build(),
    };
    // Under the working directory: relative to %SRCROOT%; elsewhere: a `file://` URI.
    let mut artifact = ArtifactLocation::builder().build();
    let (uri, inside) = crate::paths::uri(&file.path);
    artifact.uri = Some(uri);
    artifact.uri_base_id = inside.then(|| SRCROOT.to_string());
    let physical = PhysicalLocation::builder()
        .artifact_location(artifact)
        .region(region)
        .build();
    match message {
        Some(text) => Location::builder()
            .physical_location(physical)
            .message(Message::builder().text(text).build())
            .build(),
        None => Location::builder().physical_location(physical).build(),
    }
}

/// Each finding with its level, locations and partial fingerprint.
fn results(files: &dyn Files, ordered: &[&Diagnostic]) -> Vec<SarifResult> {
    let fingerprints =
        crate::fingerprint::fingerprints(files, ordered, &crate::paths::working_dir());
    ordered
        .iter()
        .zip(fingerprints)
        .map(|(d, fingerprint)| {
            let rule_index = RULES.iter().position(|r| r.code == d.code).unwrap_or(0);
            let related: Vec<Location> = d
                .related
                .iter()
                .map(|r| location(files, r.span, Some(&r.message)))
                .collect();
            let level = match d.severity {
                Severity::Error => ResultLevel::Error,
                Severity::Warning => ResultLevel::Warning,
                Severity::Info => ResultLevel::Note,
            };
            SarifResult::builder()
                .rule_id(d.code)
                .rule_index(rule_index as i64)
                .level(level)
                .message(
                    Message::builder()
                        .text(format!("{}. Fix: {}", d.message, d.help))
                        .build(),
                )
                .locations(vec![location(files, d.span, None)])
                .related_locations(related)
                .partial_fingerprints(BTreeMap::from([(
                    "gpulintFingerprint/v1".to_string(),
                    fingerprint,
                )]))
                .build()
        })
        .collect()
}

/// The rule's "What it does" paragraph.
fn first_paragraph(docs: &str) -> String {
    docs.lines()
        .skip_while(|l| l.starts_with('#') || l.trim().is_empty())
        .take_while(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
