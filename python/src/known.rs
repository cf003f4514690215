//! What reading a text gave the loader, kept by the binary's cache between runs so that a later run
//! skips scanning and parsing the texts it has seen: each entry is a pure function of the text
//! (the key is its digest), so an entry is right for any run of the same build that reads the same
//! text, whichever file holds it.
//!
//! A file whose parse the cache answers is *deferred*: the program has every fact the loader would
//! have taken from its model (imports, names, comments, whether it imports a GPU library), and an
//! empty model until [`crate::program::Program::materialize`] parses it, which a check does for the
//! files the analyses it runs can reach.

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};

/// A text's digest (XXH3, 128 bits).
pub type Digest = u128;

/// The digest of `bytes`.
pub fn digest(bytes: &[u8]) -> Digest {
    xxhash_rust::xxh3::xxh3_128(bytes)
}

/// What the loader found in one text.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Known {
    /// The scan for imports (see [`crate::prefilter::imports`]), where the text was scanned: its
    /// imports, or `None` when the scan could not read them.
    pub scan: Option<Option<Vec<(u32, String)>>>,
    /// What its parse gave, where the text was parsed without a syntax error.
    pub parse: Option<Parsed>,
}

/// The facts a parse gives the loader and the check besides the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Parsed {
    /// The imports to resolve: the first `top_level` run with the module's top level.
    pub imports: Vec<(u32, String)>,
    pub top_level: usize,
    /// It imports a GPU library itself.
    pub gpu: bool,
    /// The names it reads or uses as attributes ([`crate::names::referenced_names`]), sorted.
    pub names: Vec<String>,
    /// Where its comments are, as byte ranges.
    pub comments: Vec<(u32, u32)>,
}

/// What the cache knows, by digest.
pub type Knowledge = HashMap<Digest, Known>;

impl Known {
    /// Adds what `other` knows that this does not.
    pub fn merge(&mut self, other: Known) {
        if self.scan.is_none() {
            self.scan = other.scan;
        }
        if self.parse.is_none() {
            self.parse = other.parse;
        }
    }
}
