//! How paths are shown: relative to the working directory (where CI runs, the repository root)
//! with `/`, never `./`-prefixed; and as URIs for SARIF.

use std::path::{Component, Path, PathBuf};

use gpulint_core::files::normalize;
use percent_encoding::{percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// `path` relative to the working directory, with `/`; absolute when it is outside it.
pub fn relative(path: &Path) -> String {
    relative_to(path, &working_dir())
}

/// `path` relative to `root`, with `/`; absolute when it is outside it.
pub fn relative_to(path: &Path, root: &Path) -> String {
    let absolute = normalize(path);
    match absolute.strip_prefix(normalize(root)) {
        Ok(inside) if inside.as_os_str().is_empty() => ".".to_string(),
        Ok(inside) => joined(inside),
        Err(_) => format!("/{}", joined(&absolute)),
    }
}

/// The working directory, normalised.
pub fn working_dir() -> PathBuf {
    std::env::current_dir()
        .map(|c| normalize(&c))
        .unwrap_or_default()
}

fn joined(path: &Path) -> String {
    let names: Vec<_> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(shown(name.as_encoded_bytes())),
            _ => None,
        })
        .collect();
    names.join("/")
}

/// `path` as [`relative`] spells its names, but absolute: for formats that want one (JSON).
pub fn absolute(path: &Path) -> String {
    format!("/{}", joined(&normalize(path)))
}

/// A file name as text that keeps every byte and breaks no line-based format: a byte that is not
/// UTF-8 is written `\xNN` (not the replacement character, which would make two names alike),
/// and a control character (a newline, a tab, an escape) as `\n`, `\t` or `\xNN`.
pub fn shown(name: &[u8]) -> std::borrow::Cow<'_, str> {
    let plain = std::str::from_utf8(name)
        .ok()
        .filter(|s| !s.chars().any(char::is_control));
    if let Some(text) = plain {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::new();
    for chunk in name.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if c.is_control() => {
                    use std::fmt::Write;
                    let _ = write!(out, "\\u{{{:x}}}", c as u32);
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            use std::fmt::Write;
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    std::borrow::Cow::Owned(out)
}

/// What may stay as it is in a URI path segment (RFC 3986 unreserved characters and the
/// sub-delimiters). `:` is encoded too: in a relative reference's first segment it would read as
/// a scheme.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'!')
    .remove(b'$')
    .remove(b'&')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=')
    .remove(b'@');

/// The segments of `path`, each percent-encoded, joined with `/`.
fn encoded(path: &Path) -> String {
    let segments: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => {
                Some(percent_encode(name.as_encoded_bytes(), SEGMENT).to_string())
            }
            _ => None,
        })
        .collect();
    segments.join("/")
}

/// Where a file is, as a SARIF artifact location: a percent-encoded reference relative to the
/// working directory (and `true`), or a `file://` URI when the file is outside it.
pub fn uri(path: &Path) -> (String, bool) {
    let absolute = normalize(path);
    match absolute.strip_prefix(working_dir()) {
        Ok(inside) => (encoded(inside), true),
        Err(_) => (file_uri(&absolute), false),
    }
}

/// `file:///...` for an absolute path; a folder's ends in `/`.
pub fn file_uri(absolute: &Path) -> String {
    let mut uri = format!("file:///{}", encoded(absolute));
    if absolute.is_dir() && !uri.ends_with('/') {
        uri.push('/');
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_have_no_dot_prefix_and_outside_ones_stay_absolute() {
        let root = Path::new("/repo");
        assert_eq!(relative_to(Path::new("/repo/./a/b.py"), root), "a/b.py");
        assert_eq!(relative_to(Path::new("/repo/"), root), ".");
        assert_eq!(relative_to(Path::new("/repo/a/../c.py"), root), "c.py");
        assert_eq!(
            relative_to(Path::new("/elsewhere/x.py"), root),
            "/elsewhere/x.py"
        );
    }

    #[test]
    fn uri_segments_are_percent_encoded() {
        assert_eq!(encoded(Path::new("my dir/a#1.py")), "my%20dir/a%231.py");
        assert_eq!(encoded(Path::new("50%/x?.py")), "50%25/x%3F.py");
        assert_eq!(encoded(Path::new("c:d/é.py")), "c%3Ad/%C3%A9.py");
        assert_eq!(
            file_uri(Path::new("/tmp/no such dir/a b.py")),
            "file:///tmp/no%20such%20dir/a%20b.py"
        );
    }
}
