//! A small stand-in for a GitHub Actions runner, for the tests of `action.yml` and the CI recipes:
//! it runs each `run:` step as a script file through bash (with the flags the hosted runner uses),
//! with the step's `env:`, and with `GITHUB_OUTPUT` and `GITHUB_PATH` files whose contents it reads
//! back after the step, as GitHub does: outputs become `steps.<id>.outputs.*`, and folders added
//! to the path come first on `PATH` for the later steps. `if:` conditions and `${{ }}` expressions
//! are evaluated (contexts, `==`, `!=`, `!`, `&&`, `||`, `always()`, `success()`, `failure()`), with
//! GitHub's implicit `success() &&` when a condition names no status function. `uses:` steps are
//! handed to the test, which simulates them or says why it skips them.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use yaml_rust2::{Yaml, YamlLoader};

/// A value of an expression: GitHub's null, booleans and strings (numbers are not used here).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Str(String),
}

impl Value {
    fn truthy(&self) -> bool {
        match self {
            Value::Null => false,
            Value::Bool(b) => *b,
            Value::Str(s) => !s.is_empty(),
        }
    }

    /// What `${{ }}` puts into text.
    pub fn text(&self) -> String {
        match self {
            Value::Null => String::new(),
            Value::Bool(b) => b.to_string(),
            Value::Str(s) => s.clone(),
        }
    }
}

/// Everything expressions can read: `inputs.*`, `github.*`, `runner.*`, `env.*`, and the
/// `steps.*` the run adds, by their dotted names.
pub type Contexts = BTreeMap<String, Value>;

/// Parses a YAML file of the repository.
pub fn load(path: &Path) -> Yaml {
    let text = fs::read_to_string(path).unwrap();
    YamlLoader::load_from_str(&text)
        .unwrap()
        .into_iter()
        .next()
        .unwrap()
}

/// An action's inputs with their defaults, as contexts.
pub fn action_inputs(action: &Yaml) -> Contexts {
    action["inputs"]
        .as_hash()
        .unwrap()
        .iter()
        .map(|(k, v)| {
            let default = v["default"].as_str().unwrap_or_default().to_string();
            (
                format!("inputs.{}", k.as_str().unwrap()),
                Value::Str(default),
            )
        })
        .collect()
}

/// Sets a string context.
pub fn set(contexts: &mut Contexts, name: &str, value: &str) {
    contexts.insert(name.to_string(), Value::Str(value.to_string()));
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Open,
    Close,
    Not,
    Eq,
    Ne,
    And,
    Or,
    Str(String),
    Name(String),
    Call(String),
}

fn tokens(expr: &str) -> Vec<Token> {
    let chars: Vec<char> = expr.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            ' ' | '\t' | '\n' => i += 1,
            '(' => {
                out.push(Token::Open);
                i += 1;
            }
            ')' => {
                out.push(Token::Close);
                i += 1;
            }
            '=' if next == Some('=') => {
                out.push(Token::Eq);
                i += 2;
            }
            '!' if next == Some('=') => {
                out.push(Token::Ne);
                i += 2;
            }
            '!' => {
                out.push(Token::Not);
                i += 1;
            }
            '&' if next == Some('&') => {
                out.push(Token::And);
                i += 2;
            }
            '|' if next == Some('|') => {
                out.push(Token::Or);
                i += 2;
            }
            '\'' => {
                let mut s = String::new();
                i += 1;
                loop {
                    match (chars.get(i), chars.get(i + 1)) {
                        (Some('\''), Some('\'')) => {
                            s.push('\'');
                            i += 2;
                        }
                        (Some('\''), _) => {
                            i += 1;
                            break;
                        }
                        (Some(&c), _) => {
                            s.push(c);
                            i += 1;
                        }
                        (None, _) => panic!("an unclosed string in {expr:?}"),
                    }
                }
                out.push(Token::Str(s));
            }
            c if c.is_ascii_alphanumeric() || c == '_' => {
                let start = i;
                while i < chars.len()
                    && (chars[i].is_ascii_alphanumeric() || "_.-".contains(chars[i]))
                {
                    i += 1;
                }
                let name: String = chars[start..i].iter().collect();
                if chars.get(i) == Some(&'(') && chars.get(i + 1) == Some(&')') {
                    out.push(Token::Call(name));
                    i += 2;
                } else {
                    out.push(Token::Name(name));
                }
            }
            _ => panic!("the test runner does not know {c:?} in {expr:?}"),
        }
    }
    out
}

/// Evaluates one expression over `contexts`, with `failed` telling whether a step failed.
struct Eval<'a> {
    tokens: Vec<Token>,
    at: usize,
    contexts: &'a Contexts,
    failed: bool,
}

impl Eval<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn or(&mut self) -> Value {
        let mut left = self.and();
        while self.peek() == Some(&Token::Or) {
            self.at += 1;
            let right = self.and();
            left = if left.truthy() { left } else { right };
        }
        left
    }

    fn and(&mut self) -> Value {
        let mut left = self.not();
        while self.peek() == Some(&Token::And) {
            self.at += 1;
            let right = self.not();
            left = if left.truthy() { right } else { left };
        }
        left
    }

    fn not(&mut self) -> Value {
        if self.peek() == Some(&Token::Not) {
            self.at += 1;
            return Value::Bool(!self.not().truthy());
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Value {
        let left = self.primary();
        let equal = match self.peek() {
            Some(Token::Eq) => true,
            Some(Token::Ne) => false,
            _ => return left,
        };
        self.at += 1;
        let right = self.primary();
        // GitHub compares strings without regard to case.
        let same = left.text().to_lowercase() == right.text().to_lowercase();
        Value::Bool(same == equal)
    }

    fn primary(&mut self) -> Value {
        let token = self.tokens.get(self.at).cloned().expect("an operand");
        self.at += 1;
        match token {
            Token::Open => {
                let value = self.or();
                assert_eq!(self.peek(), Some(&Token::Close), "a closing parenthesis");
                self.at += 1;
                value
            }
            Token::Str(s) => Value::Str(s),
            Token::Name(n) if n == "true" => Value::Bool(true),
            Token::Name(n) if n == "false" => Value::Bool(false),
            Token::Name(n) if n == "null" => Value::Null,
            Token::Name(n) => self.contexts.get(&n).cloned().unwrap_or(Value::Null),
            Token::Call(f) => Value::Bool(match f.as_str() {
                "always" => true,
                "success" => !self.failed,
                "failure" => self.failed,
                "cancelled" => false,
                _ => panic!("the test runner does not know {f}()"),
            }),
            other => panic!("unexpected {other:?}"),
        }
    }
}

/// The value of `expr` (without `${{ }}`).
pub fn evaluate(expr: &str, contexts: &Contexts, failed: bool) -> Value {
    let mut eval = Eval {
        tokens: tokens(expr),
        at: 0,
        contexts,
        failed,
    };
    let value = eval.or();
    assert_eq!(eval.at, eval.tokens.len(), "all of {expr:?} was read");
    value
}

/// Replaces each `${{ expr }}` in `text` with its value.
pub fn expand(text: &str, contexts: &Contexts) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..].find("}}").expect("a closed expression") + start;
        out.push_str(&evaluate(&rest[start + 3..end], contexts, false).text());
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// Whether a step with this `if:` runs.
fn runs(condition: Option<&str>, contexts: &Contexts, failed: bool) -> bool {
    let Some(condition) = condition else {
        return !failed;
    };
    let condition = condition.trim();
    let condition = condition
        .strip_prefix("${{")
        .and_then(|c| c.strip_suffix("}}"))
        .unwrap_or(condition);
    let status = ["always()", "success()", "failure()", "cancelled()"]
        .iter()
        .any(|f| condition.contains(f));
    let condition = if status {
        condition.to_string()
    } else {
        format!("success() && ({condition})")
    };
    evaluate(&condition, contexts, failed).truthy()
}

/// One `uses:` step as the runner met it.
#[derive(Debug)]
pub struct ActionStep {
    pub uses: String,
    pub with: BTreeMap<String, String>,
}

/// How a run of the steps went.
pub struct Run {
    pub failed: bool,
    /// Each `run:` step that ran: its name and everything it printed.
    pub logs: Vec<(String, String)>,
    /// The names of the steps whose `if:` kept them from running.
    pub skipped: Vec<String>,
    /// The `uses:` steps that ran, with their expanded inputs.
    pub actions: Vec<ActionStep>,
    /// The contexts at the end, step outputs and outcomes included.
    pub contexts: Contexts,
}

impl Run {
    /// What the step named `name` printed.
    pub fn log(&self, name: &str) -> &str {
        self.logs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, text)| text.as_str())
            .unwrap_or_else(|| panic!("step {name:?} did not run: {:?}", self.logs))
    }

    /// Everything the steps printed.
    pub fn all_logs(&self) -> String {
        self.logs
            .iter()
            .map(|(n, t)| format!("--- {n}\n{t}"))
            .collect()
    }

    /// A step output or another context value, as text.
    pub fn value(&self, name: &str) -> String {
        self.contexts.get(name).map(Value::text).unwrap_or_default()
    }
}

/// Where and with what the steps run.
pub struct Job<'a> {
    /// The working directory (the checked-out repository).
    pub cwd: &'a Path,
    /// A folder for the runner's own files (the output and path files).
    pub scratch: &'a Path,
    /// The environment every step starts from, `PATH` included.
    pub env: BTreeMap<String, String>,
}

/// Runs `steps` (an action's or a job's) in order. `action` simulates each `uses:` step that runs
/// and returns its outputs.
pub fn run_steps(
    steps: &[Yaml],
    job: &Job,
    mut contexts: Contexts,
    action: &mut dyn FnMut(&ActionStep) -> BTreeMap<String, String>,
) -> Run {
    let mut run = Run {
        failed: false,
        logs: Vec::new(),
        skipped: Vec::new(),
        actions: Vec::new(),
        contexts: Contexts::new(),
    };
    // Folders added through GITHUB_PATH, the latest first.
    let mut path_added: Vec<String> = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        let name = step["name"]
            .as_str()
            .map(str::to_string)
            .or_else(|| step["uses"].as_str().map(str::to_string))
            .unwrap_or_default();
        let id = step["id"].as_str();
        if !runs(step["if"].as_str(), &contexts, run.failed) {
            run.skipped.push(name);
            if let Some(id) = id {
                set(&mut contexts, &format!("steps.{id}.outcome"), "skipped");
            }
            continue;
        }
        let (ok, outputs) = if let Some(uses) = step["uses"].as_str() {
            let with = step["with"]
                .as_hash()
                .map(|h| {
                    h.iter()
                        .map(|(k, v)| {
                            let v = match v {
                                Yaml::String(s) => s.clone(),
                                Yaml::Integer(i) => i.to_string(),
                                Yaml::Boolean(b) => b.to_string(),
                                _ => String::new(),
                            };
                            (k.as_str().unwrap().to_string(), expand(&v, &contexts))
                        })
                        .collect()
                })
                .unwrap_or_default();
            let step = ActionStep {
                uses: uses.to_string(),
                with,
            };
            let outputs = action(&step);
            run.actions.push(step);
            (true, outputs)
        } else {
            let script = step["run"].as_str().expect("a run or uses step");
            let output_file = job.scratch.join(format!("output-{index}"));
            let path_file = job.scratch.join(format!("path-{index}"));
            fs::write(&output_file, "").unwrap();
            fs::write(&path_file, "").unwrap();
            let mut env = job.env.clone();
            let base_path = env.get("PATH").cloned().unwrap_or_default();
            let mut path = path_added.clone();
            path.push(base_path);
            env.insert("PATH".into(), path.join(":"));
            env.insert("GITHUB_OUTPUT".into(), output_file.display().to_string());
            env.insert("GITHUB_PATH".into(), path_file.display().to_string());
            if let Some(vars) = step["env"].as_hash() {
                for (k, v) in vars {
                    let v = v.as_str().unwrap_or_default();
                    env.insert(k.as_str().unwrap().into(), expand(v, &contexts));
                }
            }
            let script_file = job.scratch.join(format!("step-{index}.sh"));
            fs::write(&script_file, expand(script, &contexts)).unwrap();
            // `shell: bash` runs `bash --noprofile --norc -eo pipefail`; a job's step with no
            // shell runs `bash -e`.
            let flags: &[&str] = match step["shell"].as_str() {
                Some("bash") => &["--noprofile", "--norc", "-eo", "pipefail"],
                None => &["-e"],
                Some(other) => panic!("the test runner runs bash steps, not {other}"),
            };
            let out = Command::new("bash")
                .args(flags)
                .arg(&script_file)
                .current_dir(job.cwd)
                .env_clear()
                .envs(&env)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout).to_string()
                + &String::from_utf8_lossy(&out.stderr);
            run.logs.push((name, text));
            for line in fs::read_to_string(&path_file).unwrap().lines() {
                path_added.insert(0, line.to_string());
            }
            let outputs = fs::read_to_string(&output_file)
                .unwrap()
                .lines()
                .filter_map(|line| line.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            (out.status.success(), outputs)
        };
        if let Some(id) = id {
            for (k, v) in outputs {
                set(&mut contexts, &format!("steps.{id}.outputs.{k}"), &v);
            }
            let outcome = if ok { "success" } else { "failure" };
            set(&mut contexts, &format!("steps.{id}.outcome"), outcome);
        }
        run.failed |= !ok;
    }
    run.contexts = contexts;
    run
}

/// Checks `path` against the SARIF 2.1.0 schema, and the fields code scanning needs: the version,
/// the tool's name, and each result's rule, message and location.
pub fn assert_valid_sarif(root: &Path, path: &Path) -> serde_json::Value {
    let schema: serde_json::Value = serde_json::from_str(
        &fs::read_to_string(root.join("tests/data/sarif-schema-2.1.0.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let text =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("no SARIF file at {path:?}: {e}"));
    let sarif: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(validator.is_valid(&sarif), "{path:?} is not valid SARIF");
    assert_eq!(sarif["version"], "2.1.0");
    for run in sarif["runs"].as_array().expect("runs") {
        assert_eq!(run["tool"]["driver"]["name"], "gpulint");
        for result in run["results"].as_array().expect("results") {
            assert!(result["ruleId"].is_string(), "{result}");
            assert!(result["message"]["text"].is_string(), "{result}");
            let location = &result["locations"][0]["physicalLocation"];
            assert!(location["artifactLocation"]["uri"].is_string(), "{result}");
            assert!(location["region"]["startLine"].is_u64(), "{result}");
        }
    }
    sarif
}

/// A folder holding a project: `train.py`, with the hazard or without it.
pub fn project(dir: &Path, hazard: bool) -> PathBuf {
    let project = dir.join("project");
    fs::create_dir_all(&project).unwrap();
    fs::write(
        project.join("train.py"),
        if hazard { HAZARD } else { CLEAN },
    )
    .unwrap();
    project
}

/// A script that forks a pool after initialising CUDA (GPU001 on line 12).
pub const HAZARD: &str = "import multiprocessing as mp\n\nimport torch\n\n\ndef work(i):\n    return torch.ones(1, device=\"cuda\").item()\n\n\nif __name__ == \"__main__\":\n    torch.cuda.init()\n    with mp.Pool(2) as pool:\n        print(pool.map(work, range(2)))\n";
/// A script with nothing to report.
pub const CLEAN: &str = "import torch\n\nprint(torch.ones(2).sum())\n";
