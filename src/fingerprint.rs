//! Fingerprints that survive unrelated edits, for GitLab, SARIF and the baseline: the rule, the
//! file, the primary line's text with its whitespace squeezed, and which occurrence of that triple
//! it is; not the line number.

use std::collections::HashMap;
use std::path::Path;

use gpulint_core::files::Files;
use gpulint_rules::Diagnostic;

/// One fingerprint per diagnostic, in order. `ordered` must list a file's findings in source order
/// (duplicates are numbered in that order); paths are taken relative to `root`.
pub fn fingerprints(files: &dyn Files, ordered: &[&Diagnostic], root: &Path) -> Vec<String> {
    let mut seen: HashMap<u64, u32> = HashMap::new();
    ordered
        .iter()
        .map(|d| {
            let file = files.file(d.span.file);
            let start = file.text[..(d.span.start as usize).min(file.text.len())]
                .rfind('\n')
                .map_or(0, |i| i + 1);
            let end = file.text[start..]
                .find('\n')
                .map_or(file.text.len(), |i| start + i);
            let line: Vec<&str> = file.text[start..end].split_whitespace().collect();
            let path = crate::paths::relative_to(&file.path, root);
            let key = fnv1a(&[d.code, &path, &line.join(" ")]);
            let occurrence = seen.entry(key).or_insert(0);
            *occurrence += 1;
            format!(
                "{:016x}",
                fnv1a(&[&key.to_string(), &occurrence.to_string()])
            )
        })
        .collect()
}

/// FNV-1a, 64 bits, over the parts with a separator: stable across runs, platforms and versions.
fn fnv1a(parts: &[&str]) -> u64 {
    let mut hash: u64 = 0xcbf29ce484222325;
    for part in parts {
        for byte in part.bytes().chain([0xff]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x100000001b3);
        }
    }
    hash
}
