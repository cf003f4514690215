//! Folders a site-packages folder's `.pth` files add to the import path: where an editable install
//! keeps its package's source (a path line, or the mapping of setuptools' editable finder).

use std::path::{Path, PathBuf};

/// The largest `.pth` or finder file read: they hold a few lines.
const MAX_BYTES: u64 = 64 << 10;

/// The folders `site`'s `.pth` files name (path lines; `import` lines are code, not read), then the
/// folders holding the packages setuptools' editable finders map, in file name order.
pub fn added_folders(site: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(site) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".pth") || is_finder(n))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for name in names {
        let Ok(text) = gpulint_core::fsio::read_text(&site.join(&name), MAX_BYTES) else {
            continue;
        };
        if is_finder(&name) {
            out.extend(mapped_folders(&text));
            continue;
        }
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') || line.starts_with("import") {
                continue;
            }
            let folder = site.join(line);
            if folder.is_dir() {
                out.push(folder);
            }
        }
    }
    out
}

/// `__editable___name_1_0_finder.py`.
fn is_finder(name: &str) -> bool {
    name.starts_with("__editable__") && name.ends_with("_finder.py")
}

/// The folders holding the packages of a finder's `MAPPING = {'name': '/path/to/name', ...}`.
fn mapped_folders(text: &str) -> Vec<PathBuf> {
    let Some(line) = text.lines().find(|l| l.starts_with("MAPPING")) else {
        return Vec::new();
    };
    let Some((_, body)) = line.split_once('=') else {
        return Vec::new();
    };
    let strings: Vec<&str> = body.split(['\'', '"']).skip(1).step_by(2).collect();
    strings
        .chunks(2)
        .filter_map(|pair| match pair {
            [name, path] => {
                let path = Path::new(path);
                let named = path.file_name().is_some_and(|f| f == *name);
                named
                    .then(|| path.parent().map(Path::to_path_buf))
                    .flatten()
            }
            _ => None,
        })
        .filter(|folder| folder.is_dir())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_lines_and_finder_mappings_add_folders() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site-packages");
        let source = dir.path().join("helpers/src");
        std::fs::create_dir_all(source.join("helpers")).unwrap();
        std::fs::create_dir_all(&site).unwrap();
        let text = format!(
            "# a comment\nimport sys\n{}\nmissing/folder\n",
            source.display()
        );
        std::fs::write(site.join("__editable__.helpers-0.1.pth"), text).unwrap();
        assert_eq!(added_folders(&site), vec![source.clone()]);
        std::fs::remove_file(site.join("__editable__.helpers-0.1.pth")).unwrap();
        let finder = format!(
            "import sys\nMAPPING: dict[str, str] = {{'helpers': '{}'}}\n",
            source.join("helpers").display()
        );
        std::fs::write(site.join("__editable___helpers_0_1_finder.py"), finder).unwrap();
        assert_eq!(added_folders(&site), vec![source]);
    }
}
