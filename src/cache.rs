//! The persistent cache (`.gpulint_cache/`, like ruff's `.ruff_cache/`): a run that finds nothing
//! changed answers from it, and one that finds a file changed analyses again only the main programs
//! that read it.
//!
//! One file per kind of run (the working directory, the paths named, and the command-line options
//! that change how files are read: `--config` (files and settings), `--isolated`, `--target-version`,
//! `--platform`, `--exclude`, `--extend-exclude`),
//! under a folder per gpulint version. It holds:
//! - the build that wrote it (the crate version and what the file system says of the executable,
//!   its change time included: a rebuilt binary never reads an older one's cache);
//! - every file the program read (its path, what the file system said of it, and its digest), and
//!   every answer of the file system import resolution relied on (folder listings, links);
//! - each main program's findings before they are merged, configured (selection, severity) and
//!   suppressed, so that those steps run on every run with today's configuration and comments; with
//!   what the findings depend on: its settings, a fingerprint of the files it can reach (their
//!   texts and how their imports resolved), and the names it asked whether anything references;
//! - what scanning and parsing each text gave (see `gpulint_python::known`), by digest.
//!
//! A run whose files, folders and settings all look as recorded reuses everything without reading a
//! source. Otherwise the program is built again (reading every file, but scanning and parsing only
//! texts it has not seen) and a main program is analysed again unless its settings, fingerprint and
//! answers are as recorded. Findings are the same with and without the cache (`tests/cache.rs`).
//!
//! Writes go to a temporary file in the same folder, renamed over the old one: concurrent runs
//! leave one of their files whole. A file that cannot be read back whole (cut short, corrupt,
//! another version's) is ignored; a cache that cannot be written is skipped silently.

use std::collections::HashMap;
use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gpulint_core::fsio::FileState;
use gpulint_python::known::{Digest, Knowledge, Known};
use gpulint_python::program::{normalize, Input, Probe, Program, Restored};
use gpulint_python::semantic::Settings;
use gpulint_python::source::{FileId, Span};
use gpulint_rules::Diagnostic;
use serde::Serialize;

use crate::files::RunFiles;

mod records;

use records::*;

/// The cache's folder name, at the project's root.
pub const FOLDER: &str = ".gpulint_cache";
/// The environment variable that moves it.
pub const DIR_VARIABLE: &str = "GPULINT_CACHE_DIR";

/// The first bytes of every cache file, and the version of its layout.
const MAGIC: &[u8; 8] = b"GPULINTC";
const LAYOUT: u32 = 1;
/// A larger file is not read.
const MAX_BYTES: u64 = 1 << 30;
/// A file changed this close (nanoseconds) to the start of the run that recorded it may have
/// changed again within the same tick of the file system's clock: its contents are compared.
const RACY_NS: i64 = 2_000_000_000;

/// Where one kind of run keeps its cache, and what it read there.
pub struct Store {
    file: PathBuf,
    identity: String,
    /// When this run started, in nanoseconds since the epoch.
    started_ns: i64,
}

impl Store {
    /// The store for a run of `paths` from the working directory, in `folder` (the cache's folder);
    /// `key` holds the options that change how files are read. `None` when the executable cannot
    /// be identified.
    pub fn open(folder: &Path, paths: &[PathBuf], key: &str) -> Option<Store> {
        let exe = std::env::current_exe().ok()?;
        let state = FileState::of(&std::fs::metadata(&exe).ok()?);
        let identity = format!("{} {exe:?} {state:?}", env!("CARGO_PKG_VERSION"));
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        h.write(crate::paths::working_dir().as_os_str().as_encoded_bytes());
        for path in paths {
            h.write_u8(0);
            h.write(path.as_os_str().as_encoded_bytes());
        }
        h.write_u8(1);
        h.write(key.as_bytes());
        let file = folder
            .join(env!("CARGO_PKG_VERSION"))
            .join(format!("{:032x}", h.digest128()));
        Some(Store {
            file,
            identity,
            started_ns: now_ns(),
        })
    }

    /// What an earlier run of this kind left, if it can be read whole and this build wrote it.
    pub fn load(&self) -> Option<Previous> {
        let (mut bytes, _) = gpulint_core::fsio::read_regular(&self.file, MAX_BYTES).ok()?;
        let payload = unframe(&bytes)?;
        let (head, known): (Head, &[u8]) = postcard::take_from_bytes(payload).ok()?;
        if head.identity != self.identity {
            return None;
        }
        let known_at = bytes.len() - known.len();
        bytes.drain(..known_at);
        Some(Previous {
            head,
            known_bytes: bytes,
            refreshed: Vec::new(),
        })
    }

    /// Writes what this run found, whole or not at all; a failure only costs the next run time.
    fn save(&self, head: &Head, known: &[(Digest, impl Serialize)]) {
        let Some(folder) = self.file.parent() else {
            return;
        };
        if prepare(folder).is_err() {
            return;
        }
        // The record, then what is known of texts, after the frame's header.
        let encode = || -> Result<Vec<u8>, postcard::Error> {
            let head = postcard::to_stdvec(head)?;
            let known = postcard::to_stdvec(known)?;
            let mut framed = Vec::with_capacity(HEADER + head.len() + known.len());
            framed.resize(HEADER, 0);
            framed.extend_from_slice(&head);
            drop(head);
            framed.extend_from_slice(&known);
            Ok(framed)
        };
        if let Ok(mut framed) = encode() {
            seal(&mut framed);
            let _ = gpulint_core::fsio::write_replaceable(&self.file, &framed);
        }
    }
}

/// Creates the cache's folders, with a `.gitignore` that ignores everything and a `CACHEDIR.TAG`
/// (backup tools skip the folder; so does gpulint's own walk).
fn prepare(folder: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(folder)?;
    let Some(root) = folder.parent() else {
        return Ok(());
    };
    let files: [(&str, &[u8]); 2] = [
        (".gitignore", b"# Created by gpulint: its cache.\n*\n"),
        (
            "CACHEDIR.TAG",
            b"Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by gpulint.\n# For information about cache directory tags see https://bford.info/cachedir/\n",
        ),
    ];
    for (name, text) in files {
        let path = root.join(name);
        if std::fs::symlink_metadata(&path).is_err() {
            let _ = gpulint_core::fsio::write_replaceable(&path, text);
        }
    }
    Ok(())
}

/// The frame's header: the magic, the layout, the payload's length and its checksum.
const HEADER: usize = 8 + 4 + 8 + 16;

/// Fills the header of `framed`, whose payload follows its first [`HEADER`] bytes.
fn seal(framed: &mut [u8]) {
    let (header, payload) = framed.split_at_mut(HEADER);
    header[..8].copy_from_slice(MAGIC);
    header[8..12].copy_from_slice(&LAYOUT.to_le_bytes());
    header[12..20].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    header[20..].copy_from_slice(&xxhash_rust::xxh3::xxh3_128(payload).to_le_bytes());
}

#[cfg(test)]
fn frame(payload: &[u8]) -> Vec<u8> {
    let mut out = vec![0; HEADER];
    out.extend_from_slice(payload);
    seal(&mut out);
    out
}

/// The payload of a framed file, if it is whole: its magic, layout, length and checksum agree.
fn unframe(bytes: &[u8]) -> Option<&[u8]> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let (layout, rest) = rest.split_first_chunk::<4>()?;
    let (len, rest) = rest.split_first_chunk::<8>()?;
    let (sum, payload) = rest.split_first_chunk::<16>()?;
    let whole = u32::from_le_bytes(*layout) == LAYOUT
        && u64::from_le_bytes(*len) == payload.len() as u64
        && u128::from_le_bytes(*sum) == xxhash_rust::xxh3::xxh3_128(payload);
    whole.then_some(payload)
}

fn now_ns() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i64)
}

/// What an earlier run left.
pub struct Previous {
    head: Head,
    /// What it knew of texts, decoded only when the program is built.
    known_bytes: Vec<u8>,
    /// The files whose state [`Previous::unchanged`] found changed although their bytes were not
    /// (touched, copied back), with their state now.
    refreshed: Vec<(usize, FileState)>,
}

/// The digest of settings as an analysis reads them.
pub fn settings_digest(settings: &Settings) -> Digest {
    xxhash_rust::xxh3::xxh3_128(format!("{settings:?}").as_bytes())
}

/// The inputs as the cache records them.
pub type InputRecords = Vec<(Vec<u8>, Option<String>)>;

/// The inputs as the cache records them.
pub fn input_records(inputs: &[Input]) -> InputRecords {
    inputs
        .iter()
        .map(|input| match input {
            Input::Path(p) => (path_bytes(p), None),
            Input::Unreadable { path, reason } => (path_bytes(path), Some(reason.clone())),
            // Texts not read from a file are never cached (see `check`): they never match.
            Input::Text { path, .. } | Input::Bytes { path, .. } | Input::Held { path, .. } => {
                (path_bytes(path), Some("\0text".into()))
            }
        })
        .collect()
}

/// A main program's findings as a run collects them: by the main program's file, its findings (or
/// the internal error that ended its analysis), and where budgets cut it short.
pub type MainResult = (FileId, Result<Vec<Diagnostic>, String>, Vec<Span>);

impl Previous {
    /// Whether nothing the recorded run read has changed: the same build, the same inputs, every
    /// file with the same bytes (by what the file system says of it, or else by its digest), every
    /// folder import resolution listed with the same entries, the same native modules. If so, the
    /// program's files as restored from the record.
    pub fn unchanged(&mut self, inputs: &[Input], native: Digest) -> Result<Vec<Restored>, String> {
        let head = &self.head;
        if head.native != native {
            return Err("the native modules changed".into());
        }
        if head.inputs != input_records(inputs) {
            return Err("the files to check changed".into());
        }
        let safe_before = head.started_ns - RACY_NS;
        // A file read from no disk (it could not be read) is checked again only where the walk
        // reported it, with its reason, among the inputs.
        let unreadable: std::collections::HashSet<&[u8]> = head
            .inputs
            .iter()
            .filter(|(_, reason)| reason.is_some())
            .map(|(path, _)| path.as_slice())
            .collect();
        // Every file first by what the file system says, which costs a look each; read only those
        // that look changed.
        let mut restored = Vec::with_capacity(head.files.len());
        let mut refreshed = Vec::new();
        for (i, file) in head.files.iter().enumerate() {
            let path = path_of(&file.path);
            let mut stamp = None;
            if file.read.is_none() && !file.foreign && !unreadable.contains(file.path.as_slice()) {
                return Err(format!("{} was not read", path.display()));
            }
            if let Some((state, digest)) = file.read {
                let recorded = state_of(state);
                let gone = |_| format!("{} is gone", path.display());
                let meta = std::fs::metadata(&path).map_err(gone)?;
                let now = FileState::of(&meta);
                if now != recorded || recorded.latest_ns() >= safe_before {
                    let (bytes, meta) = gpulint_core::fsio::read_regular_state(
                        &path,
                        gpulint_python::program::MAX_FILE_BYTES,
                    )
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                    if xxhash_rust::xxh3::xxh3_128(&bytes) != digest {
                        return Err(format!("{} changed", path.display()));
                    }
                    let seen = FileState::of(&meta);
                    if seen != recorded {
                        refreshed.push((i, seen));
                    }
                    stamp = Some(gpulint_core::fsio::Stamp::of(&meta));
                } else {
                    stamp = Some(gpulint_core::fsio::Stamp::of(&meta));
                }
            }
            if file.foreign {
                continue;
            }
            restored.push(Restored {
                path,
                checked: file.checked,
                notebook: file.notebook,
                comments: file.comments.clone(),
                stamp,
            });
        }
        for probe in &head.probes {
            let same = match probe {
                ProbeRecord::Listing(path, state, entries) => {
                    let path = path_of(path);
                    let now = std::fs::metadata(&path).ok().map(|m| FileState::of(&m));
                    let looks_same = match (now, state) {
                        (Some(now), Some(state)) => {
                            now == state_of(*state) && now.latest_ns() < safe_before
                        }
                        _ => false,
                    };
                    looks_same || Probe::listing_digest(&path) == Some(*entries)
                }
                ProbeRecord::Unlistable(_) => false,
                ProbeRecord::Link(path, kind) => Probe::link_kind(&path_of(path)) == *kind,
                ProbeRecord::Read(path, _, digest) => {
                    let read = gpulint_core::fsio::read_regular(
                        &path_of(path),
                        gpulint_python::program::MAX_FILE_BYTES,
                    );
                    read.ok()
                        .map(|(bytes, _)| xxhash_rust::xxh3::xxh3_128(&bytes))
                        == *digest
                }
            };
            if !same {
                return Err(format!("{probe:?} changed"));
            }
        }
        self.refreshed = refreshed;
        Ok(restored)
    }

    /// The recorded findings of `mains` (the restored program's main programs, with their
    /// settings), in the recorded order, if the record has exactly these main programs with the
    /// same settings.
    pub fn results_if_same(&self, mains: &[(FileId, Settings)]) -> Option<Vec<MainResult>> {
        if mains.len() != self.head.mains.len() {
            return None;
        }
        let settings: HashMap<u32, Digest> = mains
            .iter()
            .map(|(id, s)| (id.0, settings_digest(s)))
            .collect();
        let same = |i: u32| Some(FileId(i));
        let mut out = Vec::with_capacity(mains.len());
        for record in &self.head.mains {
            if settings.get(&record.file) != Some(&record.settings) {
                return None;
            }
            out.push(result_of(record, &same)?);
        }
        Some(out)
    }

    /// What the recorded run knew of texts.
    pub fn knowledge(&self) -> Knowledge {
        let list: Vec<(Digest, Known)> =
            postcard::from_bytes(&self.known_bytes).unwrap_or_default();
        list.into_iter().collect()
    }

    /// Writes the record back when [`Previous::unchanged`] found files whose state changed but
    /// whose bytes did not, so that the next run need not read them again.
    pub fn refresh(mut self, store: &Store) {
        if self.refreshed.is_empty() {
            return;
        }
        for (i, state) in std::mem::take(&mut self.refreshed) {
            if let Some((s, _)) = &mut self.head.files[i].read {
                *s = state_record(state);
            }
        }
        self.head.started_ns = store.started_ns;
        let known: Vec<(Digest, Known)> =
            postcard::from_bytes(&self.known_bytes).unwrap_or_default();
        store.save(&self.head, &known);
    }
}

fn result_of(record: &MainRecord, remap: &impl Fn(u32) -> Option<FileId>) -> Option<MainResult> {
    let mut diagnostics = Vec::with_capacity(record.diagnostics.len());
    for d in &record.diagnostics {
        diagnostics.push(diagnostic_of(d, remap)?);
    }
    let mut unseen = Vec::with_capacity(record.unseen.len());
    for span in &record.unseen {
        unseen.push(span_of(*span, remap)?);
    }
    Some((remap(record.file)?, Ok(diagnostics), unseen))
}

/// What a run that built its program knows of each main program's dependencies, to tell which
/// recorded findings still hold.
pub struct Plan {
    /// Each main program's fingerprint, by file.
    fingerprints: HashMap<FileId, Digest>,
    settings: HashMap<FileId, Digest>,
    /// The recorded main programs whose settings and fingerprint match, by file; their findings
    /// with the files moved to this program's ids.
    candidates: HashMap<FileId, (MainRecord, MainResult)>,
}

impl Plan {
    /// Fingerprints the main programs of `program` and finds the recorded ones that match.
    pub fn new(
        previous: Option<&Previous>,
        program: &Program,
        mains: &[(FileId, Settings)],
        native: Digest,
    ) -> Plan {
        use rayon::prelude::*;
        let structure = program.structure_digests();
        let imports: Vec<Vec<FileId>> = program
            .files()
            .map(|(id, _)| id)
            .collect::<Vec<_>>()
            .par_iter()
            .map(|id| program.imports_of(*id))
            .collect();
        let settings: HashMap<FileId, Digest> = mains
            .iter()
            .map(|(id, s)| (*id, settings_digest(s)))
            .collect();
        let fingerprints: HashMap<FileId, Digest> = mains
            .par_iter()
            .map(|(id, _)| {
                // Every file the analysis can read: the main program and what it imports,
                // transitively. Their sum is independent of the order they are found in.
                let mut seen = vec![false; structure.len()];
                let mut todo = vec![*id];
                seen[id.0 as usize] = true;
                let mut sum: u128 = 0;
                while let Some(f) = todo.pop() {
                    sum = sum.wrapping_add(structure[f.0 as usize]);
                    for next in &imports[f.0 as usize] {
                        if !seen[next.0 as usize] {
                            seen[next.0 as usize] = true;
                            todo.push(*next);
                        }
                    }
                }
                let mut h = xxhash_rust::xxh3::Xxh3::new();
                h.write_u128(structure[id.0 as usize]);
                h.write_u128(sum);
                h.write_u128(native);
                (*id, h.digest128())
            })
            .collect();
        let mut candidates = HashMap::new();
        if let Some(previous) = previous {
            let ids: HashMap<&Path, FileId> = program
                .files()
                .map(|(id, f)| (f.path.as_path(), id))
                .collect();
            let paths: Vec<PathBuf> = previous
                .head
                .files
                .iter()
                .map(|f| path_of(&f.path))
                .collect();
            let remap = |i: u32| {
                let path = paths.get(i as usize)?;
                ids.get(path.as_path()).copied()
            };
            for record in &previous.head.mains {
                let Some(result) = result_of(record, &remap) else {
                    continue;
                };
                let id = result.0;
                if fingerprints.get(&id) == Some(&record.fingerprint)
                    && settings.get(&id) == Some(&record.settings)
                {
                    candidates.insert(id, (record.clone(), result));
                }
            }
        }
        Plan {
            fingerprints,
            settings,
            candidates,
        }
    }

    /// Whether `id`'s recorded findings may hold, before the names it asked about are checked.
    pub fn is_candidate(&self, id: FileId) -> bool {
        self.candidates.contains_key(&id)
    }

    /// The names `id`'s recorded analysis asked about.
    pub fn queried(&self, id: FileId) -> &[(String, bool)] {
        self.candidates
            .get(&id)
            .map_or(&[][..], |(record, _)| &record.queried)
    }

    /// `id`'s recorded findings, taken out of the plan.
    pub fn take(&mut self, id: FileId) -> Option<MainResult> {
        self.candidates.remove(&id).map(|(_, result)| result)
    }

    /// Drops `id`'s record: it is analysed again.
    pub fn reject(&mut self, id: FileId) {
        self.candidates.remove(&id);
    }
}

/// What a run that built its program found, to write back.
pub struct Outcome<'a> {
    /// The run's files: the program's, then the Rust frontend's.
    pub files: &'a RunFiles,
    /// The inputs, as [`input_records`] gave them before the build.
    pub inputs: InputRecords,
    pub native: Digest,
    pub plan: &'a Plan,
    /// Every main program's findings, in the order the run collected them, with the names its
    /// analysis asked about (recorded ones for findings taken from the cache).
    pub results: &'a [(MainResult, Vec<(String, bool)>)],
    /// What the run learned of texts besides what the program kept (the leaves' parses).
    pub leaves: Vec<(Digest, gpulint_python::known::Parsed)>,
    pub previous: Option<Arc<Knowledge>>,
}

impl Store {
    /// Records what a run that built its program found.
    pub fn record(&self, outcome: Outcome) {
        let program = outcome.files.python();
        let mut files: Vec<FileRecord> = program
            .files()
            .map(|(_, f)| FileRecord {
                path: path_bytes(&f.path),
                checked: f.checked,
                notebook: f.notebook.is_some(),
                foreign: false,
                read: f.state.zip(f.digest).map(|(s, d)| (state_record(s), d)),
                comments: f.comments.iter().map(|c| (c.start, c.end)).collect(),
            })
            .collect();
        // The Rust frontend's files follow (they are loaded again on every run).
        files.extend(
            outcome
                .files
                .all()
                .filter(|(id, _)| outcome.files.is_rust(*id))
                .map(|(_, f)| FileRecord {
                    path: path_bytes(&f.path),
                    checked: f.checked,
                    notebook: false,
                    foreign: true,
                    read: None,
                    comments: f.comments.iter().map(|c| (c.start, c.end)).collect(),
                }),
        );
        let probes = program
            .probes()
            .iter()
            .map(|p| match p {
                Probe::Listing {
                    path,
                    state,
                    entries,
                } => ProbeRecord::Listing(path_bytes(path), state.map(state_record), *entries),
                Probe::Unlistable(path) => ProbeRecord::Unlistable(path_bytes(path)),
                Probe::Link { path, kind } => ProbeRecord::Link(path_bytes(path), *kind),
                Probe::Read {
                    path,
                    state,
                    digest,
                } => ProbeRecord::Read(path_bytes(path), state.map(state_record), *digest),
            })
            .collect();
        let mut mains = Vec::with_capacity(outcome.results.len());
        for ((id, result, unseen), queried) in outcome.results {
            // An internal error is never kept: the next run tries again.
            let Ok(diagnostics) = result else { continue };
            let (Some(fingerprint), Some(settings)) = (
                outcome.plan.fingerprints.get(id),
                outcome.plan.settings.get(id),
            ) else {
                continue;
            };
            mains.push(MainRecord {
                file: id.0,
                settings: *settings,
                fingerprint: *fingerprint,
                queried: queried.clone(),
                diagnostics: diagnostics.iter().map(diagnostic_record).collect(),
                unseen: unseen.iter().map(|s| span_record(*s)).collect(),
            });
        }
        // What is known of each text this program holds: learned now, or kept from before (most,
        // borrowed as they are).
        let mut owned: Vec<(Digest, Known)> = Vec::new();
        let mut leaves: HashMap<Digest, gpulint_python::known::Parsed> =
            outcome.leaves.into_iter().collect();
        let mut borrowed: Vec<(Digest, &Known)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (_, file) in program.files() {
            let Some(digest) = file.text_digest() else {
                continue;
            };
            if !seen.insert(digest) {
                continue;
            }
            let learned = file.learned();
            let before = outcome.previous.as_ref().and_then(|p| p.get(&digest));
            let leaf = leaves.remove(&digest);
            let whole = |k: &Known| k.scan.is_some() && k.parse.is_some();
            match (
                learned.scan.is_some() || learned.parse.is_some(),
                before,
                leaf,
            ) {
                (false, Some(before), None) => borrowed.push((digest, before)),
                (_, before, leaf) => {
                    let mut entry = learned;
                    if let Some(parsed) = leaf {
                        entry.merge(Known {
                            scan: None,
                            parse: Some(parsed),
                        });
                    }
                    if let Some(before) = before.filter(|_| !whole(&entry)) {
                        entry.merge(before.clone());
                    }
                    owned.push((digest, entry));
                }
            }
        }
        borrowed.extend(owned.iter().map(|(d, k)| (*d, k)));
        borrowed.sort_unstable_by_key(|(d, _)| *d);
        let head = Head {
            identity: self.identity.clone(),
            started_ns: self.started_ns,
            inputs: outcome.inputs,
            files,
            probes,
            native: outcome.native,
            mains,
        };
        self.save(&head, &borrowed);
    }
}

/// The folder the cache goes in: `--cache-dir`, else `GPULINT_CACHE_DIR`, else `.gpulint_cache` in
/// the project's root: the folder of the configuration file that applies to the first path, else
/// the nearest folder above it that marks a project (`pyproject.toml`, `setup.py`, `setup.cfg`,
/// `.git`), else the working directory.
pub fn folder(given: Option<&Path>, config_file: Option<&Path>, first: &Path) -> PathBuf {
    if let Some(given) = given {
        return given.to_path_buf();
    }
    if let Some(dir) = std::env::var_os(DIR_VARIABLE).filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let root = config_file
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .or_else(|| {
            normalize(first).ancestors().find_map(|dir| {
                ["pyproject.toml", "setup.py", "setup.cfg", ".git"]
                    .iter()
                    .any(|m| dir.join(m).exists())
                    .then(|| dir.to_path_buf())
            })
        })
        .unwrap_or_else(crate::paths::working_dir);
    root.join(FOLDER)
}

#[cfg(test)]
mod tests {
    use gpulint_rules::{Applicability, Edit, Fix, Related, Severity};

    use super::*;

    #[test]
    fn a_file_cut_short_or_changed_is_not_read() {
        let framed = frame(b"payload");
        assert_eq!(unframe(&framed), Some(&b"payload"[..]));
        for cut in 0..framed.len() {
            assert_eq!(unframe(&framed[..cut]), None, "cut at {cut}");
        }
        let mut flipped = framed.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert_eq!(unframe(&flipped), None);
    }

    #[test]
    fn a_diagnostic_survives_the_round_trip() {
        let span = Span::new(FileId(3), 5, 9);
        let d = Diagnostic {
            code: "GPU001",
            name: "fork-after-cuda-init",
            severity: Severity::Warning,
            message: "m".into(),
            span,
            label: "l".into(),
            related: vec![Related {
                span: Span::new(FileId(1), 0, 2),
                message: "r".into(),
            }],
            help: "h".into(),
            fix: Some(Fix {
                applicability: Applicability::Unsafe,
                message: "f".into(),
                edits: vec![Edit {
                    span,
                    content: "x".into(),
                }],
            }),
        };
        let back = diagnostic_of(&diagnostic_record(&d), &|i| Some(FileId(i))).unwrap();
        assert_eq!(back, d);
        let unknown = DiagnosticRecord {
            name: "unreadable-file".into(),
            ..diagnostic_record(&d)
        };
        let back = diagnostic_of(&unknown, &|i| Some(FileId(i))).unwrap();
        assert_eq!(back.name, "unreadable-file");
    }
}
