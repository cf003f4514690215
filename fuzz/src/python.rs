//! `--target python`: programs generated from the constructs the interpreter models, checked as
//! a single file or a two-module project in every output format.

use std::time::{Duration, Instant};

use crate::child;
use crate::rng::Rng;
use crate::{Options, Summary, FORMATS};

const MAX_CPU_SECONDS: f64 = 2.0;
const MAX_MIB: i64 = 200;

/// Generates one module's source.
struct Gen<'r> {
    rng: &'r mut Rng,
    library: &'r [&'static str],
    names: Vec<String>,
    functions: Vec<String>,
    classes: Vec<String>,
    out: String,
}

impl Gen<'_> {
    fn line(&mut self, indent: usize, text: &str) {
        self.out.push_str(&"    ".repeat(indent));
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn name(&mut self) -> String {
        if self.names.is_empty() || self.rng.chance(20) {
            let n = format!("v{}", self.names.len());
            self.names.push(n.clone());
            return n;
        }
        self.rng.pick(&self.names).clone()
    }

    fn expr(&mut self, depth: usize) -> String {
        if depth > 3 {
            return self.atom();
        }
        match self.rng.below(14) {
            0 => format!("({}, {})", self.expr(depth + 1), self.expr(depth + 1)),
            1 => format!("[{}, {}]", self.expr(depth + 1), self.expr(depth + 1)),
            2 => format!("({})[{}]", self.expr(depth + 1), self.rng.below(4)),
            3 => format!(
                "({}).{}",
                self.expr(depth + 1),
                self.rng.pick(&[
                    "cuda()",
                    "to('cuda:1')",
                    "device",
                    "cpu()",
                    "x",
                    "start()",
                    "map(f0, [1])"
                ])
            ),
            4 => self.call(depth),
            5 => format!("(lambda a: {})", self.expr(depth + 1)),
            6 => format!(
                "[{} for a in {}]",
                self.expr(depth + 1),
                self.expr(depth + 1)
            ),
            7 => format!(
                "({} if {} else {})",
                self.expr(depth + 1),
                self.atom(),
                self.expr(depth + 1)
            ),
            8 => format!("({} + {})", self.expr(depth + 1), self.expr(depth + 1)),
            9 => format!("{{'k': {}, 'num_workers': 2}}", self.expr(depth + 1)),
            10 => format!("f'cuda:{{{}}}'", self.atom()),
            11 if !self.classes.is_empty() => format!("{}()", self.rng.pick(&self.classes).clone()),
            _ => self.atom(),
        }
    }

    fn atom(&mut self) -> String {
        match self.rng.below(8) {
            0 => self.rng.below(3).to_string(),
            1 => self
                .rng
                .pick(&[
                    "'cuda'", "'cuda:0'", "'cpu'", "'spawn'", "'fork'", "'nccl'", "None",
                ])
                .to_string(),
            2 => "os.environ['LOCAL_RANK']".to_string(),
            3 if !self.functions.is_empty() => self.rng.pick(&self.functions).clone(),
            _ => self.name(),
        }
    }

    /// A call to a library name from the tables, or to one of the module's own functions.
    fn call(&mut self, depth: usize) -> String {
        let callee = if !self.functions.is_empty() && self.rng.chance(40) {
            self.rng.pick(&self.functions).clone()
        } else {
            let name = *self.rng.pick(self.library);
            name.strip_prefix("builtins.").unwrap_or(name).to_string()
        };
        let mut args: Vec<String> = (0..self.rng.below(3))
            .map(|_| self.expr(depth + 1))
            .collect();
        if self.rng.chance(30) {
            let kw = *self.rng.pick(&[
                "device",
                "num_workers",
                "target",
                "map_location",
                "device_map",
                "backend",
                "num_proc",
                "mp_context",
                "collate_fn",
            ]);
            args.push(format!("{kw}={}", self.expr(depth + 1)));
        }
        format!("{callee}({})", args.join(", "))
    }

    /// One to `most` statements.
    fn some(&mut self, indent: usize, most: usize, depth: usize) {
        let n = 1 + self.rng.below(most);
        self.block(indent, n, depth);
    }

    fn block(&mut self, indent: usize, statements: usize, depth: usize) {
        for _ in 0..statements.max(1) {
            self.statement(indent, depth);
        }
    }

    fn statement(&mut self, indent: usize, depth: usize) {
        let nested = depth < 4;
        match self.rng.below(16) {
            0..=2 => {
                let (target, value) = (self.name(), self.expr(0));
                self.line(indent, &format!("{target} = {value}"));
            }
            3..=4 => {
                let call = self.call(0);
                self.line(indent, &call);
            }
            5 if nested => {
                let test = self.expr(1);
                self.line(indent, &format!("if {test}:"));
                self.some(indent + 1, 3, depth + 1);
                for _ in 0..self.rng.below(3) {
                    let test = self.expr(1);
                    self.line(indent, &format!("elif {test}:"));
                    self.block(indent + 1, 1, depth + 1);
                }
                if self.rng.chance(50) {
                    self.line(indent, "else:");
                    self.block(indent + 1, 1, depth + 1);
                }
            }
            6 if nested => {
                let (target, iter) = (self.name(), self.expr(1));
                self.line(indent, &format!("for {target} in {iter}:"));
                self.some(indent + 1, 3, depth + 1);
            }
            7 if nested => {
                let name = format!("f{}", self.functions.len());
                self.functions.push(name.clone());
                self.line(indent, &format!("def {name}(a, b=None, *args, **kwargs):"));
                if self.rng.chance(30) {
                    self.line(indent + 1, "global v0");
                }
                self.some(indent + 1, 4, depth + 1);
                let value = self.expr(1);
                self.line(indent + 1, &format!("return {value}"));
            }
            8 if nested && indent == 0 => {
                let name = format!("C{}", self.classes.len());
                let base = *self.rng.pick(&[
                    "object",
                    "mp.Process",
                    "torch.utils.data.Dataset",
                    "torch.nn.Module",
                ]);
                self.line(indent, &format!("class {name}({base}):"));
                let value = self.expr(1);
                self.line(indent + 1, &format!("attr = {value}"));
                self.line(indent + 1, "def __init__(self, a=None):");
                let value = self.expr(1);
                self.line(indent + 2, &format!("self.x = {value}"));
                for method in ["__getitem__", "run", "forward"] {
                    if self.rng.chance(50) {
                        self.line(indent + 1, &format!("def {method}(self, i=0):"));
                        self.some(indent + 2, 2, depth + 2);
                        self.line(indent + 2, "return self.x");
                    }
                }
                self.classes.push(name);
            }
            9 if nested => {
                self.line(indent, "try:");
                self.block(indent + 1, 1, depth + 1);
                self.line(indent, "except Exception:");
                self.block(indent + 1, 1, depth + 1);
            }
            10 if nested => {
                let value = self.expr(1);
                self.line(indent, &format!("with {value} as w:"));
                self.block(indent + 1, 1, depth + 1);
            }
            11 => {
                let (list, value) = (self.name(), self.expr(1));
                self.line(indent, &format!("{list} = [{value}]"));
                let op = *self.rng.pick(&["append", "extend"]);
                for _ in 0..self.rng.below(6) {
                    self.line(indent, &format!("{list}.{op}({list})"));
                }
            }
            12 if nested => {
                let test = self.expr(1);
                self.line(indent, &format!("while {test}:"));
                self.block(indent + 1, 1, depth + 1);
                self.line(indent + 1, "break");
            }
            13 => {
                let (key, value) = (
                    *self.rng.pick(&[
                        "CUDA_VISIBLE_DEVICES",
                        "LOCAL_RANK",
                        "PYTORCH_NVML_BASED_CUDA_CHECK",
                    ]),
                    self.expr(1),
                );
                self.line(indent, &format!("os.environ['{key}'] = str({value})"));
            }
            14 if indent == 0 && nested => {
                self.line(indent, "if __name__ == '__main__':");
                self.some(indent + 1, 3, depth + 1);
            }
            _ => {
                let name = self.name();
                self.line(indent, &format!("{name} = ({name}, {name})"));
            }
        }
    }
}

fn program(rng: &mut Rng, library: &[&'static str], other: Option<&str>) -> String {
    let mut gen = Gen {
        rng,
        library,
        names: Vec::new(),
        functions: Vec::new(),
        classes: Vec::new(),
        out: String::from("import os\nimport torch\nimport torch.distributed as dist\nimport multiprocessing as mp\n"),
    };
    if let Some(other) = other {
        gen.line(0, &format!("import {other}"));
        gen.line(0, &format!("from {other} import *"));
    }
    let statements = 3 + gen.rng.below(25);
    gen.block(0, statements, 0);
    gen.out
}

pub fn fuzz(options: &Options) -> Summary {
    let mut library: Vec<&'static str> =
        gpulint_python::libraries::rows().map(|r| r.name).collect();
    library.retain(|n| !n.contains("()"));
    let mut rng = Rng(options.seed.max(1));
    let deadline = Instant::now() + Duration::from_secs(options.seconds);
    let mut summary = Summary::default();
    while Instant::now() < deadline {
        let dir = tempfile::tempdir().expect("temp dir");
        let two_modules = rng.chance(50);
        let helper = two_modules.then(|| program(&mut rng, &library, None));
        let main = program(&mut rng, &library, two_modules.then_some("helper"));
        if let Some(helper) = &helper {
            std::fs::write(dir.path().join("helper.py"), helper).expect("write");
        }
        std::fs::write(dir.path().join("main.py"), &main).expect("write");
        let format = *rng.pick(FORMATS);
        let args = ["check", "--output-format", format, "."];
        let outcome = child::run(&options.binary, &args, dir.path(), Duration::from_secs(20));
        summary.cases += 1;
        summary.note(outcome.cpu_seconds, outcome.peak_mib);
        // `--samples N` keeps the first N programs whatever happened, to read what is generated.
        let problem = if summary.cases <= options.samples {
            Some("sample".to_string())
        } else {
            outcome.problem(MAX_CPU_SECONDS, MAX_MIB)
        };
        if let Some(problem) = problem {
            let mut files = vec![("main.py".to_string(), main.into_bytes())];
            if let Some(helper) = helper {
                files.push(("helper.py".to_string(), helper.into_bytes()));
            }
            summary.keep(options, &format!("{format}: {problem}"), &files);
        }
    }
    summary
}
