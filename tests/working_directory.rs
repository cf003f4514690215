//! Findings are a function of the checked paths, the files and the configuration: the same project
//! checked from inside it, from its parent and from a sibling folder gives the same report, byte for
//! byte (JSON names files by their absolute paths).

mod common;

use std::path::Path;

use common::{copy_tree, gpulint, root};

#[test]
fn the_corpus_projects_give_the_same_report_from_any_working_directory() {
    // Copied out of this repository, so that no project root above them (its pyproject.toml and
    // .git) bounds their imports: where the working directory once did.
    let temp = tempfile::tempdir().unwrap();
    let projects = temp.path().join("projects");
    copy_tree(&root().join("corpus").join("projects"), &projects);
    let sibling = temp.path().join("elsewhere");
    std::fs::create_dir(&sibling).unwrap();
    let mut compared = 0;
    for entry in std::fs::read_dir(&projects).unwrap() {
        let project = entry.unwrap().path();
        let name = project.file_name().unwrap().to_str().unwrap().to_string();
        let absolute = project.to_str().unwrap().to_string();
        let json = ["check", "--output-format", "json", "--exit-zero"];
        let run = |cwd: &Path, arg: &str| {
            let out = gpulint(&[&json[..], &[arg]].concat(), cwd);
            assert_eq!(out.status.code(), Some(0), "{name} from {}", cwd.display());
            out.stdout
        };
        let inside = run(&project, ".");
        let parent = run(&projects, &name);
        let beside = run(&sibling, &absolute);
        assert_eq!(
            String::from_utf8_lossy(&inside),
            String::from_utf8_lossy(&parent),
            "{name}: from inside it and from its parent"
        );
        assert_eq!(
            String::from_utf8_lossy(&inside),
            String::from_utf8_lossy(&beside),
            "{name}: from inside it and from a sibling folder"
        );
        compared += 1;
    }
    assert!(compared >= 40, "only {compared} projects");
}
