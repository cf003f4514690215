//! The file-system questions import resolution asks, answered from one listing per folder and
//! recorded ([`Probe`]) for a cache to tell whether every import would resolve alike; and paths
//! as the program shows and compares them ([`normalize`]).

use std::ffi::OsString;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap as HashMap;

use gpulint_core::fsio::FileState;

use crate::known::{self, Digest};

pub use gpulint_core::files::normalize;

/// One answer of the file system that import resolution relied on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Probe {
    /// A folder's listing: what the folder looked like before it was listed, and the digest of its
    /// entries (names and kinds, sorted); `None`: nothing is there.
    Listing {
        path: PathBuf,
        state: Option<FileState>,
        entries: Digest,
    },
    /// A folder that could not be listed: its entries were asked about one by one.
    Unlistable(PathBuf),
    /// A link followed, and what it led to (see [`Probe::kind`]).
    Link { path: PathBuf, kind: u8 },
    /// A file read (a project's `pyproject.toml`, for its package's name): its digest, if it could
    /// be read.
    Read {
        path: PathBuf,
        state: Option<FileState>,
        digest: Option<Digest>,
    },
}

impl Probe {
    /// What a link at `path` leads to now, as [`Probe::Link`] records it.
    pub fn link_kind(path: &Path) -> u8 {
        match std::fs::metadata(path) {
            Ok(meta) => kind_of_type(meta.file_type()) as u8,
            Err(_) => u8::MAX,
        }
    }

    /// The digest of `dir`'s entries now, as [`Probe::Listing`] records it; `None` where it cannot
    /// be listed.
    pub fn listing_digest(dir: &Path) -> Option<Digest> {
        list(dir).map(|entries| listing_digest(&entries))
    }
}

/// The file-system questions import resolution asks, answered from one listing per folder (a
/// tree's imports ask the same folders again and again).
#[derive(Default)]
pub(super) struct Fs {
    /// Keyed by the folder's path as bytes: hashing a `Path` splits it into components each time,
    /// and import resolution asks about 200,000 paths on transformers.
    pub(super) listings: HashMap<Box<[u8]>, Option<HashMap<OsString, Kind>>>,
    pub(super) canonical: HashMap<PathBuf, PathBuf>,
    /// Keep the answers resolution relies on ([`Probe`]), for the cache.
    pub(super) record: bool,
    pub(super) probes: Vec<Probe>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Kind {
    File,
    Dir,
    Link,
    Other,
}

impl Fs {
    /// The entry `path` names, as its folder's listing has it (a link is not followed). A folder
    /// that cannot be listed is asked about the one path instead.
    pub(super) fn entry(&mut self, path: &Path) -> Option<Kind> {
        let (dir, name) = split_name(path)?;
        let key = dir.as_os_str().as_encoded_bytes();
        let listing = match self.listings.get(key) {
            Some(listing) => listing,
            None => {
                // A folder its parent's listing does not show (a module name tried as a package)
                // holds nothing: it is not opened.
                let listing = match self.entry(dir) {
                    None | Some(Kind::File | Kind::Other) if dir.file_name().is_some() => {
                        Some(HashMap::default())
                    }
                    _ => self.list(dir),
                };
                self.listings.entry(key.into()).or_insert(listing)
            }
        };
        match listing {
            Some(listing) => listing.get(name).copied(),
            None => std::fs::symlink_metadata(path)
                .ok()
                .map(|m| kind_of_type(m.file_type())),
        }
    }

    /// What `path` is, links followed; `None` when nothing is there (a broken link included).
    pub(super) fn kind(&mut self, path: &Path) -> Option<Kind> {
        match self.entry(path)? {
            // Followed each time: links are rare, and their targets may be anywhere.
            Kind::Link => {
                let kind = std::fs::metadata(path)
                    .ok()
                    .map(|m| kind_of_type(m.file_type()));
                if self.record {
                    self.probes.push(Probe::Link {
                        path: path.to_path_buf(),
                        kind: kind.map_or(u8::MAX, |k| k as u8),
                    });
                }
                kind
            }
            kind => Some(kind),
        }
    }

    pub(super) fn is_file(&mut self, path: &Path) -> bool {
        self.kind(path) == Some(Kind::File)
    }

    /// [`list`], keeping what the folder looked like for the cache.
    pub(super) fn list(&mut self, dir: &Path) -> Option<HashMap<OsString, Kind>> {
        if !self.record {
            return list(dir);
        }
        // Looked at before the listing: a change made after it changes this.
        let state = std::fs::metadata(dir).ok().map(|m| FileState::of(&m));
        let listing = list(dir);
        self.probes.push(match &listing {
            Some(entries) => Probe::Listing {
                path: dir.to_path_buf(),
                state,
                entries: listing_digest(entries),
            },
            None => Probe::Unlistable(dir.to_path_buf()),
        });
        listing
    }

    pub(super) fn is_dir(&mut self, path: &Path) -> bool {
        match path.file_name() {
            Some(_) => self.kind(path) == Some(Kind::Dir),
            None => path.is_dir(),
        }
    }

    pub(super) fn exists(&mut self, path: &Path) -> bool {
        self.kind(path).is_some()
    }

    /// What makes two paths one file or folder: symbolic links resolved (so `pkg/a -> .` does not
    /// make `pkg/a/a/a/...` new modules, and a link to a checked file is that file), falling back
    /// to the normalized path. The folder is resolved once; the name only when it is a link itself.
    pub(super) fn identity(&mut self, path: &Path) -> PathBuf {
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return canonical(path);
        };
        if matches!(name.to_str(), Some("." | "..")) || self.entry(path) == Some(Kind::Link) {
            return canonical(path);
        }
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        if let Some(known) = self.canonical.get(dir) {
            return known.join(name);
        }
        let resolved = canonical(dir);
        let out = resolved.join(name);
        self.canonical.insert(dir.to_path_buf(), resolved);
        out
    }
}

/// `path`'s folder (`.` for a bare name) and last name, as `Path::parent` and `Path::file_name`
/// give them; on Unix a path with no `.`, `..` or doubled or trailing `/` at its end is split at
/// its last `/` without walking its components (import resolution splits 200,000 paths).
pub(super) fn split_name(path: &Path) -> Option<(&Path, &std::ffi::OsStr)> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let bytes = path.as_os_str().as_bytes();
        let (dir, name) = match bytes.iter().rposition(|b| *b == b'/') {
            Some(i) => (&bytes[..i], &bytes[i + 1..]),
            None => (&b"."[..], bytes),
        };
        let plain = !matches!(name, b"" | b"." | b"..")
            && !dir.is_empty()
            && !dir.ends_with(b"/")
            && !dir.ends_with(b"/.");
        if plain {
            let dir = std::ffi::OsStr::from_bytes(dir);
            return Some((Path::new(dir), std::ffi::OsStr::from_bytes(name)));
        }
    }
    let name = path.file_name()?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some((dir, name))
}

/// The digest of a folder's entries, names and kinds, in name order: of those resolution can ask
/// about. A regular file matters only as a module (`*.py`) or a project's marker; a hidden entry
/// names no module, so only `.git` among them counts (a cache's own folder, an editor's swap file
/// come and go without changing how anything resolves).
fn listing_digest(entries: &HashMap<OsString, Kind>) -> Digest {
    let matters = |name: &OsString, kind: &Kind| {
        let name = name.as_encoded_bytes();
        if name == b".git" {
            return true;
        }
        if name.starts_with(b".") {
            return false;
        }
        *kind != Kind::File
            || name.ends_with(b".py")
            || [&b"pyproject.toml"[..], b"setup.cfg"].contains(&name)
    };
    let mut sorted: Vec<(&OsString, &Kind)> =
        entries.iter().filter(|(n, k)| matters(n, k)).collect();
    sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut bytes = Vec::with_capacity(sorted.len() * 16);
    for (name, kind) in sorted {
        bytes.extend_from_slice(name.as_encoded_bytes());
        bytes.push(0);
        bytes.push(*kind as u8);
    }
    known::digest(&bytes)
}

fn kind_of_type(t: std::fs::FileType) -> Kind {
    if t.is_symlink() {
        Kind::Link
    } else if t.is_file() {
        Kind::File
    } else if t.is_dir() {
        Kind::Dir
    } else {
        Kind::Other
    }
}

/// A folder's entries; empty when there is no folder there (nothing can be inside), `None` when
/// one is there but cannot be listed (its entries may still be reachable by name).
pub(super) fn list(dir: &Path) -> Option<HashMap<OsString, Kind>> {
    let mut out = HashMap::default();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            return Some(out)
        }
        Err(_) => return None,
    };
    for entry in entries.flatten() {
        // `file_type` comes with the listing on most file systems: no call per entry.
        let kind = entry.file_type().map_or(Kind::Other, kind_of_type);
        out.insert(entry.file_name(), kind);
    }
    Some(out)
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| normalize(path))
}

/// How a file found through an import is shown: relative to the working directory when under it.
pub(super) fn shown(path: &Path) -> PathBuf {
    std::env::current_dir()
        .ok()
        .map(|cwd| normalize(&cwd))
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
}
