//! Probes: a program (a name as the program spells it, called or read), and what its effects must
//! hold. The workers and dataset programs share.

use super::*;

pub(crate) type Check = Box<dyn Fn(&[Effect]) -> bool>;

pub(crate) struct Probe {
    pub(crate) label: String,
    /// The main program, `main.py`.
    pub(crate) text: String,
    /// Other modules of the program, by file name: with them, the program is written to a folder
    /// and run with its import cache built, as gpulint runs it.
    pub(crate) modules: Vec<(&'static str, String)>,
    pub(crate) expect: Vec<(String, Check)>,
    pub(crate) settings: Settings,
}

impl Probe {
    pub(crate) fn new(label: impl Into<String>, text: String) -> Probe {
        Probe {
            label: label.into(),
            text,
            modules: Vec::new(),
            expect: Vec::new(),
            settings: Settings::default(),
        }
    }

    pub(crate) fn settings(mut self, settings: Settings) -> Probe {
        self.settings = settings;
        self
    }

    pub(crate) fn module(mut self, file: &'static str, text: String) -> Probe {
        self.modules.push((file, text));
        self
    }

    /// Some effect matches.
    pub(crate) fn has(self, what: &str, p: impl Fn(&Effect) -> bool + 'static) -> Probe {
        self.holds(&format!("has {what}"), move |e| e.iter().any(&p))
    }

    /// No effect matches.
    pub(crate) fn lacks(self, what: &str, p: impl Fn(&Effect) -> bool + 'static) -> Probe {
        self.holds(&format!("has no {what}"), move |e| !e.iter().any(&p))
    }

    pub(crate) fn holds(mut self, what: &str, f: impl Fn(&[Effect]) -> bool + 'static) -> Probe {
        self.expect.push((what.to_string(), Box::new(f)));
        self
    }

    pub(crate) fn labelled(mut self, prefix: &str) -> Probe {
        self.label = format!("{prefix}: {}", self.label);
        self
    }
}

/// A name as a program spells it: the import that binds it and the expression that names it.
#[derive(Clone)]
pub(crate) struct Callee {
    /// The qualified name the row is looked up by.
    pub(crate) name: String,
    /// Lines that bind the expression's head.
    pub(crate) setup: String,
    pub(crate) expr: String,
}

/// `import a.b` then `a.b.c`; `builtins.len` is `len`; `torch.get_device_module().device_count` is
/// written as it is.
pub(crate) fn callee(name: &str) -> Callee {
    if let Some(bare) = name.strip_prefix("builtins.") {
        return Callee {
            name: name.into(),
            setup: String::new(),
            expr: bare.into(),
        };
    }
    let module = match name.rsplit_once('.') {
        Some((parent, _)) if !parent.contains('(') => parent,
        _ => name.split('.').next().unwrap_or(name),
    };
    Callee {
        name: name.into(),
        setup: format!("import {module}\n"),
        expr: name.into(),
    }
}

/// The program: torch (a file is interpreted only when it imports a GPU package) and os, the
/// callee's import, then `body`.
pub(crate) fn program(c: &Callee, body: &str) -> String {
    format!("import torch\nimport os\n{}{body}", c.setup)
}

/// Python source from its lines.
pub(crate) fn py(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// A block under the main guard (a spawned child re-importing the module does not run it).
pub(crate) fn main_guard(block: &str) -> String {
    let body: String = block.lines().map(|l| format!("    {l}\n")).collect();
    format!("if __name__ == '__main__':\n{body}")
}

/// A call passing each argument where its parameter says: positionally while the positions run on
/// from 0, by keyword after that.
pub(crate) fn call(f: &str, args: &[(Param, &str)]) -> String {
    let mut args = args.to_vec();
    args.sort_by_key(|(p, _)| p.index.unwrap_or(usize::MAX));
    let mut next = 0;
    let mut out = Vec::new();
    for (p, v) in args {
        if p.index == Some(next) {
            out.push(v.to_string());
            next += 1;
        } else {
            out.push(format!("{}={v}", p.name));
            next = usize::MAX;
        }
    }
    format!("{f}({})", out.join(", "))
}

/// The last part of a name, as effects quote it.
pub(crate) fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// Functions children run: each allocates on the device it is given. Run as an entry of their own
/// (with unknown arguments) they allocate nothing, so an allocation shows they were really called.
pub(crate) const WORKERS: &str = "\
def work(v):
    t = torch.zeros(1, device=v)

def init(v):
    t = torch.zeros(1, device=v)

def job(i, v):
    t = torch.zeros(1, device=i)
    s = torch.zeros(1, device=v)

";

/// A dataset whose items a loader's workers fetch, with a collate function and a worker init.
pub(crate) const DATASET: &str = "\
class Items:
    def __getitem__(self, i):
        return torch.zeros(1, device='cuda:1')

def collate(items):
    return items

def seed(i):
    pass

";

pub(crate) const CUDA_1: DeviceIndex = DeviceIndex::Fixed(1);
pub(crate) const CUDA_2: DeviceIndex = DeviceIndex::Fixed(2);
pub(crate) const PER_WORKER: DeviceIndex = DeviceIndex::PerWorker;
pub(crate) const CURRENT: DeviceIndex = DeviceIndex::Current;
