//! How a project launches a file as a distributed job, where it writes that down: a shell script
//! in the file's folder or one above it (up to the project's root) that runs it under torchrun
//! (a usage line in the module's docstring is read by the frontend). A launch on one machine makes the global rank the
//! local one (GPU008); the commands are read by the frontend's launcher rows.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gpulint_core::effect::Nodes;
use gpulint_python::semantic::documented_nodes;

use crate::servers::{project_dirs, read, scripts};

/// How many folders up from a checked file are searched, at most to the project's root.
const MAX_LEVELS: usize = 4;

/// The shell scripts of each folder, read once.
#[derive(Default)]
pub struct Launches {
    scripts_by_dir: HashMap<PathBuf, Vec<String>>,
    /// The folders searched from each folder files were asked about: most share a few folders.
    dirs_from: HashMap<PathBuf, Vec<PathBuf>>,
}

impl Launches {
    /// How the project's scripts launch `file` (its own usage text is the frontend's to read).
    pub fn nodes_for(&mut self, file: &Path) -> Option<Nodes> {
        let name = file.file_name()?.to_str()?;
        let start = file.parent()?;
        let dirs = match self.dirs_from.get(start) {
            Some(dirs) => dirs.clone(),
            None => {
                let dirs: Vec<PathBuf> = project_dirs(start, MAX_LEVELS)
                    .map(Path::to_path_buf)
                    .collect();
                self.dirs_from.insert(start.to_path_buf(), dirs.clone());
                dirs
            }
        };
        let mut found = None;
        for d in &dirs {
            for text in self.scripts_in(d) {
                match documented_nodes(text, name) {
                    Some(Nodes::Several) => return Some(Nodes::Several),
                    Some(Nodes::One) => found = Some(Nodes::One),
                    None => {}
                }
            }
        }
        found
    }

    fn scripts_in(&mut self, dir: &Path) -> &[String] {
        self.scripts_by_dir
            .entry(dir.to_path_buf())
            .or_insert_with(|| scripts(dir).iter().filter_map(|p| read(p)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_in_the_folder_or_above_says_how_many_machines() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join("pyproject.toml"), "[project]\n").unwrap();
        let tools = root.path().join("tools");
        std::fs::create_dir(&tools).unwrap();
        let train = tools.join("train.py");
        std::fs::write(&train, "import torch\n").unwrap();
        assert_eq!(Launches::default().nodes_for(&train), None);
        std::fs::write(
            root.path().join("run.sh"),
            "torchrun --nproc_per_node=$GPUS \\\n    tools/train.py --config $1\n",
        )
        .unwrap();
        assert_eq!(Launches::default().nodes_for(&train), Some(Nodes::One));
        std::fs::write(
            tools.join("multi.sh"),
            "torchrun --nnodes=2 --nproc_per_node=8 train.py\n",
        )
        .unwrap();
        assert_eq!(Launches::default().nodes_for(&train), Some(Nodes::Several));
        // A command naming another file says nothing of this one.
        let other = tools.join("eval.py");
        std::fs::write(&other, "import torch\n").unwrap();
        assert_eq!(Launches::default().nodes_for(&other), None);
    }
}
