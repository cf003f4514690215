//! The GitHub composite action (`action.yml`) and the CI recipes (`docs/ci/`) run as a runner
//! would run them: each shell step through bash, in order, with the inputs, `if:` conditions,
//! `$GITHUB_OUTPUT` and step outputs a runner provides, and the built binary on `PATH` in place
//! of the install. Steps that call other actions (`uses:`) are not run; their inputs are checked.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::root;
use yaml_rust2::{Yaml, YamlLoader};

const HAZARD: &str = "import multiprocessing as mp\n\nimport torch\n\n\ndef work(i):\n    return torch.ones(1, device=\"cuda\").item()\n\n\nif __name__ == \"__main__\":\n    torch.cuda.init()\n    with mp.Pool(2) as pool:\n        print(pool.map(work, range(2)))\n";
const CLEAN: &str = "import torch\n\nprint(torch.ones(2).sum())\n";

fn load(path: &str) -> Yaml {
    let text = fs::read_to_string(root().join(path)).unwrap();
    YamlLoader::load_from_str(&text)
        .unwrap()
        .into_iter()
        .next()
        .unwrap()
}

/// A folder holding a project (`hazard` or not) and a `bin/` with the built gpulint.
fn workspace(hazard: bool) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    fs::create_dir(&project).unwrap();
    fs::write(
        project.join("train.py"),
        if hazard { HAZARD } else { CLEAN },
    )
    .unwrap();
    let bin = dir.path().join("bin");
    fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_gpulint"), bin.join("gpulint")).unwrap();
    (dir, project)
}

/// `PATH` with the built binary first.
fn path_with(bin: &Path) -> String {
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// What a runner's bash step does with `script`: `-e -o pipefail`, in `cwd`, with `env`.
fn bash(script: &str, cwd: &Path, env: &BTreeMap<String, String>) -> (i32, String) {
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", script])
        .current_dir(cwd)
        .envs(env)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

/// Replaces `${{ inputs.x }}` and `${{ steps.id.outputs.y }}` as the runner does.
fn expand(
    text: &str,
    inputs: &BTreeMap<String, String>,
    outputs: &BTreeMap<String, String>,
) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("}}").expect("a closed expression") + start;
        let expr = rest[start + 3..end].trim();
        let value = match expr.strip_prefix("inputs.") {
            Some(name) => inputs.get(name).cloned(),
            None => outputs.get(expr).cloned(),
        };
        out.push_str(&value.unwrap_or_default());
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// The `if:` conditions these files use: none (run while nothing failed), `always()`,
/// comparisons of inputs with strings, and `&&` of those.
fn runs(condition: Option<&str>, failed: bool, inputs: &BTreeMap<String, String>) -> bool {
    let Some(condition) = condition else {
        return !failed;
    };
    // Without a status function, GitHub adds `success() &&`.
    if !condition.contains("always()") && failed {
        return false;
    }
    condition.split("&&").map(str::trim).all(|part| {
        if part == "always()" {
            return true;
        }
        let (left, right) = part.split_once("==").expect("a comparison");
        let name = left.trim().strip_prefix("inputs.").expect("an input");
        inputs.get(name).map(String::as_str) == Some(right.trim().trim_matches('\''))
    })
}

/// How a run of the steps ended.
struct Run {
    failed: bool,
    /// Each step's name and printed text, for the ones that ran.
    logs: Vec<(String, String)>,
    /// The `uses:` steps that would have run, with their expanded `with:` inputs.
    actions: Vec<(String, BTreeMap<String, String>)>,
    outputs: BTreeMap<String, String>,
}

/// Runs GitHub steps (an action's or a job's) in `cwd`.
fn run_steps(steps: &[Yaml], inputs: &BTreeMap<String, String>, cwd: &Path, bin: &Path) -> Run {
    let mut run = Run {
        failed: false,
        logs: Vec::new(),
        actions: Vec::new(),
        outputs: BTreeMap::new(),
    };
    for step in steps {
        let name = step["name"].as_str().unwrap_or("").to_string();
        if !runs(step["if"].as_str(), run.failed, inputs) {
            continue;
        }
        if let Some(action) = step["uses"].as_str() {
            if action.starts_with("actions/") {
                continue; // checkout and setup-python: the test stands in for them
            }
            let with = step["with"]
                .as_hash()
                .map(|h| {
                    h.iter()
                        .map(|(k, v)| {
                            let v = v.as_str().unwrap_or_default();
                            (
                                k.as_str().unwrap().to_string(),
                                expand(v, inputs, &run.outputs),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            run.actions.push((action.to_string(), with));
            continue;
        }
        let script = step["run"].as_str().expect("a run step");
        let output_file = cwd.join(format!(".github-output-{}", run.logs.len()));
        fs::write(&output_file, "").unwrap();
        let mut env: BTreeMap<String, String> = BTreeMap::new();
        env.insert("PATH".into(), path_with(bin));
        env.insert("GITHUB_OUTPUT".into(), output_file.display().to_string());
        if let Some(vars) = step["env"].as_hash() {
            for (k, v) in vars {
                let v = v.as_str().unwrap_or_default();
                env.insert(k.as_str().unwrap().into(), expand(v, inputs, &run.outputs));
            }
        }
        let script = expand(script, inputs, &run.outputs);
        let (code, text) = bash(&script, cwd, &env);
        if let Some(id) = step["id"].as_str() {
            for line in fs::read_to_string(&output_file).unwrap().lines() {
                if let Some((k, v)) = line.split_once('=') {
                    run.outputs
                        .insert(format!("steps.{id}.outputs.{k}"), v.to_string());
                }
            }
        }
        fs::remove_file(&output_file).unwrap();
        run.failed |= code != 0;
        run.logs.push((name, text));
    }
    run
}

fn action_inputs(action: &Yaml) -> BTreeMap<String, String> {
    action["inputs"]
        .as_hash()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            let default = v["default"].as_str().unwrap_or_default().to_string();
            (k.as_str().unwrap().to_string(), default)
        })
        .collect()
}

fn assert_valid_sarif(path: &Path) {
    let schema: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(root().join("tests/data/sarif-schema-2.1.0.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let sarif: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    assert!(validator.is_valid(&sarif), "{path:?} is not valid SARIF");
}

#[test]
fn the_action_annotates_uploads_sarif_whatever_the_result_and_fails_on_findings() {
    let action = load("action.yml");
    assert_eq!(action["runs"]["using"].as_str(), Some("composite"));
    let mut inputs = action_inputs(&action);
    assert!(inputs["install"].contains("pip install"), "{inputs:?}");
    // The binary is already on PATH: the install step runs, and does nothing.
    inputs.insert("install".into(), "true".into());
    let steps = action["runs"]["steps"].as_vec().unwrap();
    for (hazard, code) in [(true, "1"), (false, "0")] {
        let (dir, project) = workspace(hazard);
        let run = run_steps(steps, &inputs, &project, &dir.path().join("bin"));
        assert_eq!(run.outputs["steps.check.outputs.exit-code"], code);
        assert_eq!(
            run.failed, hazard,
            "the job fails exactly when the check does"
        );
        let annotations = &run
            .logs
            .iter()
            .find(|(n, _)| n.starts_with("Check"))
            .unwrap()
            .1;
        assert_eq!(
            annotations.contains("::error file=train.py,line=12,"),
            hazard,
            "{annotations}"
        );
        // SARIF is written and uploaded also when the check failed.
        assert_valid_sarif(&project.join(&inputs["sarif-file"]));
        let [(uses, with)] = run.actions.as_slice() else {
            panic!("one upload: {:?}", run.actions);
        };
        assert!(
            uses.starts_with("github/codeql-action/upload-sarif@"),
            "{uses}"
        );
        assert_eq!(with["sarif_file"], inputs["sarif-file"]);
    }
    // With the upload turned off, nothing is uploaded.
    inputs.insert("upload-sarif".into(), "false".into());
    let (dir, project) = workspace(true);
    let run = run_steps(steps, &inputs, &project, &dir.path().join("bin"));
    assert!(run.actions.is_empty() && run.failed);
}

#[test]
fn the_github_recipe_runs_the_same_way() {
    let workflow = load("docs/ci/github-workflow.yml");
    let job = &workflow["jobs"]["gpulint"];
    let steps: Vec<Yaml> = job["steps"]
        .as_vec()
        .unwrap()
        .iter()
        .filter(|s| !s["name"].as_str().unwrap_or("").starts_with("Install"))
        .cloned()
        .collect();
    let permissions = &workflow["permissions"];
    assert_eq!(permissions["security-events"].as_str(), Some("write"));
    for hazard in [true, false] {
        let (dir, project) = workspace(hazard);
        let run = run_steps(&steps, &BTreeMap::new(), &project, &dir.path().join("bin"));
        assert_eq!(run.failed, hazard);
        assert_valid_sarif(&project.join("gpulint.sarif"));
        assert_eq!(run.actions.len(), 1, "the upload runs whatever the result");
    }
}

#[test]
fn the_gitlab_recipe_writes_its_report_and_fails_on_findings() {
    let recipe = load("docs/ci/gitlab-ci.yml");
    let job = &recipe["gpulint"];
    assert_eq!(
        job["artifacts"]["reports"]["codequality"].as_str(),
        Some("gl-code-quality.json")
    );
    assert_eq!(job["artifacts"]["when"].as_str(), Some("always"));
    let script: Vec<&str> = job["script"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .filter(|l| !l.contains("pip install"))
        .collect();
    for hazard in [true, false] {
        let (dir, project) = workspace(hazard);
        let mut env = BTreeMap::new();
        env.insert("PATH".to_string(), path_with(&dir.path().join("bin")));
        // GitLab stops the job at the first failing line.
        let (code, text) = bash(&script.join("\n"), &project, &env);
        assert_eq!(code != 0, hazard, "{text}");
        let report: serde_json::Value = serde_json::from_str(
            &fs::read_to_string(project.join("gl-code-quality.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(report.as_array().unwrap().len(), usize::from(hazard));
    }
}
