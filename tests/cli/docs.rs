//! Rule documentation: `gpulint rule`, `gpulint rules`, the generated docs and README table, the
//! toolchain README names.

use super::*;

#[test]
fn rule_prints_its_docs_and_rules_lists_every_rule() {
    let dir = tempfile::tempdir().unwrap();
    let doc = stdout(&gpulint(&["rule", "GPU003"], dir.path()));
    assert!(
        doc.starts_with("# process-group-before-set-device (GPU003)"),
        "{doc}"
    );
    for section in [
        "## What it does",
        "## Why is this bad?",
        "## When it is not a bug",
        "## Example",
        "Use instead:",
        "## Fix",
        "## References",
    ] {
        assert!(doc.contains(section), "missing {section}");
    }
    let list = stdout(&gpulint(&["rules"], dir.path()));
    for code in ["GPU001", "GPU002", "GPU003", "GPU999"] {
        assert!(list.contains(code), "{list}");
    }
}

#[test]
fn docs_rules_md_is_fresh() {
    let generated = stdout(&gpulint(&["rules", "--output-format", "markdown"], &root()));
    let committed = fs::read_to_string(root().join("docs/rules.md")).expect("docs/rules.md exists");
    assert!(
        generated == committed,
        "docs/rules.md is stale: run `cargo run -- rules --output-format markdown > docs/rules.md`"
    );
    for rule in ["GPU001", "GPU002", "GPU003", "GPU015", "GPU999"] {
        assert!(committed.contains(&format!("\n## {rule}\n")), "{rule}");
    }
}

#[test]
fn readme_rule_table_is_the_generated_index() {
    let generated = stdout(&gpulint(&["rules", "--output-format", "markdown"], &root()));
    let index = generated.split("\n## ").next().unwrap_or_default();
    let table: Vec<String> = index
        .lines()
        .filter(|l| l.starts_with('|'))
        .map(|l| l.replace("](#", "](docs/rules.md#"))
        .collect();
    assert!(table.len() > 3, "{generated}");
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let start = readme
        .find("<!-- rules-table:")
        .expect("README marks the rule table");
    let end = readme
        .find("<!-- rules-table: end -->")
        .expect("README ends the rule table");
    let committed: Vec<&str> = readme[start..end].lines().skip(1).collect();
    assert!(
        committed == table,
        "README's rule table is stale; it should read:\n{}",
        table.join("\n")
    );
}

#[test]
fn the_readme_names_the_rust_version_every_crate_declares() {
    let manifest: toml::Table = fs::read_to_string(root().join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let version = manifest["workspace"]["package"]["rust-version"]
        .as_str()
        .expect("the workspace declares its rust-version");
    let members = manifest["workspace"]["members"].as_array().unwrap();
    for member in members.iter().map(|m| m.as_str().unwrap()) {
        let crate_manifest: toml::Table =
            fs::read_to_string(root().join(member).join("Cargo.toml"))
                .unwrap()
                .parse()
                .unwrap();
        let declared = crate_manifest["package"].get("rust-version");
        assert_eq!(
            declared
                .and_then(|v| v.get("workspace"))
                .and_then(|w| w.as_bool()),
            Some(true),
            "{member}: rust-version.workspace = true"
        );
    }
    assert_eq!(
        manifest["package"]["rust-version"]["workspace"].as_bool(),
        Some(true)
    );
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("Rust {version} or later")),
        "README names the toolchain the build needs ({version})"
    );
}
