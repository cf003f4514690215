//! What a cache needs of a built program: the digests that tell whether an analysis would read the
//! same program, the file-system answers import resolution relied on, and the deferred models
//! parsed when an analysis needs them after all.

use rayon::prelude::*;

use crate::known::{self, Digest};
use crate::lower;
use crate::model::Module;
use crate::source::FileId;

use super::fs::Probe;
use super::{FileError, NodeId, Program};

impl Program {
    /// For each file, a digest of everything the program holds of it that an analysis reading it
    /// depends on, besides its model (whose text its digest covers): its path and text, how its
    /// imports resolved (the modules each names, and the submodules known of those), which of its
    /// imports run at import time, and its flags. Equal digests for every file an analysis can
    /// reach mean the program gives that analysis the same answers.
    pub fn structure_digests(&self) -> Vec<Digest> {
        use std::hash::Hasher;
        let node_digests: Vec<u64> = self
            .nodes
            .par_iter()
            .map(|node| {
                let mut h = xxhash_rust::xxh3::Xxh3::new();
                self.hash_node_file(node.file, &mut h);
                let mut children: Vec<(&String, &NodeId)> = node.children.iter().collect();
                children.sort_unstable_by(|a, b| a.0.cmp(b.0));
                for (name, child) in children {
                    h.write(name.as_bytes());
                    h.write_u8(0);
                    self.hash_node_file(self.nodes[child.0 as usize].file, &mut h);
                }
                h.finish()
            })
            .collect();
        self.files
            .par_iter()
            .map(|file| {
                let mut h = xxhash_rust::xxh3::Xxh3::new();
                h.write(file.path.as_os_str().as_encoded_bytes());
                h.write_u8(0);
                h.write_u128(file.digest.unwrap_or_default());
                h.write_u128(file.text_digest.unwrap_or_default());
                let flags = [
                    file.checked,
                    file.relevant,
                    file.reaches_gpu,
                    file.sets_start_method,
                    file.lazy,
                    file.interactive,
                    file.in_test_folder,
                    file.notebook.is_some(),
                    file.read_from_disk,
                    file.environment,
                ];
                for flag in flags {
                    h.write_u8(flag as u8);
                }
                match &file.module {
                    Ok(_) => h.write_u8(0),
                    Err(error) => h.write(format!("{error:?}").as_bytes()),
                }
                let mut imports: Vec<(&(u32, String), &Vec<NodeId>)> =
                    file.imports.iter().collect();
                imports.sort_unstable_by(|a, b| a.0.cmp(b.0));
                for ((level, dotted), chain) in imports {
                    h.write_u32(*level);
                    h.write(dotted.as_bytes());
                    h.write_u8(0);
                    for node in chain {
                        h.write_u64(node_digests[node.0 as usize]);
                    }
                    h.write_u8(1);
                }
                for f in &file.runs_at_import {
                    self.hash_node_file(Some(*f), &mut h);
                }
                h.digest128()
            })
            .collect()
    }

    fn hash_node_file(&self, file: Option<FileId>, h: &mut impl std::hash::Hasher) {
        match file {
            Some(f) => {
                h.write(self.files[f.0 as usize].path.as_os_str().as_encoded_bytes());
                h.write_u8(0);
            }
            None => h.write_u8(1),
        }
    }

    /// What import resolution asked the file system (when the build learned), once each.
    pub fn probes(&self) -> &[Probe] {
        &self.probes
    }

    /// The digest of the text `id` was scanned or parsed from (when the build learned or knew).
    pub fn text_digest(&self, id: FileId) -> Option<Digest> {
        self.files[id.0 as usize].text_digest
    }

    /// Whether `id`'s model is a stand-in until [`Program::materialize`] parses it.
    pub fn is_deferred(&self, id: FileId) -> bool {
        self.files[id.0 as usize].deferred
    }

    /// Parses the deferred files among `ids`, in parallel, so that analyses can read them. `false`
    /// when a text is no longer the one the program was built from (its file changed since): its
    /// model is then of the new text, and the findings should not be kept.
    pub fn materialize(&mut self, ids: &[FileId]) -> bool {
        let todo: Vec<FileId> = ids
            .iter()
            .copied()
            .filter(|id| self.files[id.0 as usize].deferred)
            .collect();
        let parsed: Vec<(FileId, Result<Module, FileError>, bool)> = todo
            .par_iter()
            .with_max_len(1)
            .map(|&id| {
                let file = &self.files[id.0 as usize];
                let text = file.text.unpacked();
                let same = file
                    .text_digest
                    .is_none_or(|d| known::digest(text.as_bytes()) == d);
                let module = lower::parse(&text, id)
                    .map(|lowered| lowered.module)
                    .map_err(FileError::Syntax);
                (id, module, same)
            })
            .collect();
        let mut all_same = true;
        for (id, module, same) in parsed {
            let file = &mut self.files[id.0 as usize];
            file.module = module;
            file.deferred = false;
            all_same &= same;
        }
        // Which definitions reach a hazard is found again from the models parsed now.
        self.reach = std::sync::OnceLock::new();
        all_same
    }
}
