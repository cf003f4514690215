//! `--target rust`: Rust cases for the fuzzer. A case is a loose file or a package (`Cargo.toml`,
//! `src/main.rs`, modules by file, a `[[bin]]` target), generated from what the Rust frontend
//! models: inline and file modules, functions, impls, closures, statics (`lazy_static!`,
//! once-cells), fork and spawn calls, every library path, method and macro in its tables, `cfg`
//! attributes, deep nesting in each way the parser or the interpreter recurses, broken syntax; or
//! a valid case with its bytes mutated. Each case also holds `sentinel.rs`, a known hazard, whose
//! finding must survive whatever the other files do.

use gpulint_rust::libraries::{ENV, MACROS, METHODS, ROWS};

use crate::rng::Rng;

/// The file beside every case, whose GPU101 must be reported.
pub const SENTINEL: (&str, &str) = (
    "sentinel.rs",
    "use cudarc::driver::CudaContext;\nuse nix::unistd::{fork, ForkResult};\n\nfn main() {\n    let ctx = CudaContext::new(0).unwrap();\n    let stream = ctx.default_stream();\n    let _ = stream;\n    match unsafe { fork() }.unwrap() {\n        ForkResult::Child => {\n            let _b = stream.alloc_zeros::<f32>(4).unwrap();\n        }\n        ForkResult::Parent { .. } => {}\n    }\n}\n",
);

/// One file of a case: its path in the case's folder, and what it holds (`None`: a FIFO).
pub struct File {
    pub path: String,
    pub bytes: Option<Vec<u8>>,
}

/// A case: its files, and the path to check (a loose file, or `.`).
pub struct Case {
    pub files: Vec<File>,
    pub target: String,
}

pub fn case(rng: &mut Rng) -> Case {
    let mut files = Vec::new();
    let package = rng.chance(50);
    let mut target = ".".to_string();
    let main_path = if package { "src/main.rs" } else { "main.rs" };
    let mut gen = Gen::new(rng);
    let mut main = gen.file(0);
    if gen.rng.chance(25) {
        main = gen.deep(main);
    }
    if package {
        let mut manifest = String::from("[package]\nname = \"fz\"\nversion = \"0.1.0\"\n\n[dependencies]\ncudarc = \"0.17\"\ntch = \"0.17\"\n");
        if gen.rng.chance(30) {
            manifest.push_str("gpu = { package = \"cudarc\", version = \"0.17\" }\n");
        }
        if gen.rng.chance(30) {
            manifest.push_str("\n[[bin]]\nname = \"extra\"\npath = \"src/extra.rs\"\n");
            let extra = gen.file(0);
            files.push(text_file("src/extra.rs", extra));
        }
        if gen.rng.chance(3) {
            manifest.push_str("[[[broken");
        }
        files.push(text_file("Cargo.toml", manifest));
        for (_, at) in gen.mods.clone() {
            let body = gen.file(1);
            files.push(text_file(&format!("src/{at}"), body));
        }
        if gen.rng.chance(20) {
            let lib = gen.file(0);
            files.push(text_file("src/lib.rs", lib));
        }
    } else if gen.rng.chance(50) {
        target = main_path.to_string();
    }
    files.insert(0, text_file(main_path, main));
    // Byte mutation of a valid case, or a file that is no file.
    if rng.chance(30) {
        let i = rng.below(files.len());
        if let Some(bytes) = &mut files[i].bytes {
            mutate(rng, bytes);
        }
    }
    if rng.chance(2) {
        let i = rng.below(files.len());
        files[i].bytes = None;
    }
    files.push(text_file(SENTINEL.0, SENTINEL.1.to_string()));
    Case { files, target }
}

fn text_file(path: &str, text: String) -> File {
    File {
        path: path.to_string(),
        bytes: Some(text.into_bytes()),
    }
}

/// Changes a few bytes, ranges or tokens.
fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>) {
    const TOKENS: &[&str] = &[
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        "<",
        ">",
        "\"",
        "'",
        "r#\"",
        "/*",
        "*/",
        "//",
        "|",
        "||",
        "::",
        "mod m;",
        "fn",
        "=>",
        "\0",
        "\u{feff}",
        "é",
        "#[cfg(test)]",
        "?",
        "as",
        "else",
    ];
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(6) {
            0 if at < bytes.len() => bytes[at] = rng.next() as u8,
            1 if at < bytes.len() => {
                let end = (at + 1 + rng.below(40)).min(bytes.len());
                bytes.drain(at..end);
            }
            2 if at < bytes.len() => {
                let end = (at + 1 + rng.below(200)).min(bytes.len());
                let copy: Vec<u8> = bytes[at..end].to_vec();
                let most = if rng.chance(10) { 3000 } else { 4 };
                let times = 1 + rng.below(most);
                for _ in 0..times {
                    bytes.splice(at..at, copy.iter().copied());
                }
            }
            3 => bytes.push(0xff),
            _ => {
                let token = rng.pick(TOKENS).as_bytes();
                bytes.splice(at..at, token.iter().copied());
            }
        }
    }
}

/// Generates one file's items.
struct Gen<'r> {
    rng: &'r mut Rng,
    functions: Vec<String>,
    statics: Vec<String>,
    vars: Vec<String>,
    /// File modules declared (`mod name;`): name and the path of their file under `src/`.
    mods: Vec<(String, String)>,
    out: String,
}

impl<'r> Gen<'r> {
    fn new(rng: &'r mut Rng) -> Self {
        Gen {
            rng,
            functions: Vec::new(),
            statics: Vec::new(),
            vars: Vec::new(),
            mods: Vec::new(),
            out: String::new(),
        }
    }

    fn file(&mut self, level: usize) -> String {
        self.out.clear();
        self.functions.clear();
        self.statics.clear();
        self.out.push_str("use cudarc::driver::CudaContext;\nuse nix::unistd::{fork, ForkResult};\nuse std::sync::{Arc, OnceLock};\n");
        if self.rng.chance(30) {
            self.out
                .push_str("#[macro_use]\nextern crate lazy_static;\n");
        }
        let items = 1 + self.rng.below(8);
        for _ in 0..items {
            self.item(level);
        }
        if level == 0 {
            self.out.push_str("fn main() {\n");
            self.body(1, 0);
            self.out.push_str("}\n");
        }
        std::mem::take(&mut self.out)
    }

    fn item(&mut self, level: usize) {
        if self.rng.chance(15) {
            let cfg = *self.rng.pick(&[
                "#[cfg(test)]",
                "#[cfg(feature = \"cuda\")]",
                "#[cfg(not(unix))]",
                "#[test]",
                "#[inline]",
                "#[pymodule]",
                "#[pyo3(name = \"ext\")]",
                "#[allow(unused)]",
            ]);
            self.out.push_str(cfg);
            self.out.push('\n');
        }
        match self.rng.below(10) {
            0..=3 => self.function(None),
            4 => {
                let ty = format!("S{}", self.rng.below(3));
                self.out.push_str(&format!(
                    "struct {ty} {{ ctx: Option<Arc<CudaContext>>, device: usize }}\nimpl {ty} {{\n"
                ));
                for _ in 0..1 + self.rng.below(3) {
                    self.function(Some(&ty));
                }
                self.out.push_str("}\n");
            }
            5 => {
                let name = format!("S{}", self.statics.len());
                let init = match self.rng.below(4) {
                    0 => "OnceLock<Arc<CudaContext>> = OnceLock::new()".to_string(),
                    1 => format!(
                        "std::sync::LazyLock<Arc<CudaContext>> = std::sync::LazyLock::new(|| {})",
                        self.expr(1)
                    ),
                    2 => format!("usize = {}", self.rng.below(4)),
                    _ => {
                        "std::sync::Mutex<Vec<u8>> = std::sync::Mutex::new(Vec::new())".to_string()
                    }
                };
                self.out.push_str(&format!("static {name}: {init};\n"));
                self.statics.push(name);
            }
            6 => {
                let name = format!("L{}", self.statics.len());
                let value = self.expr(1);
                self.out.push_str(&format!(
                    "lazy_static::lazy_static! {{\n    static ref {name}: Arc<CudaContext> = {value};\n}}\n"
                ));
                self.statics.push(name);
            }
            7 if level < 4 => {
                // An inline module, or one in a file.
                let name = format!("m{}", self.rng.below(1000));
                if self.rng.chance(50) {
                    self.out
                        .push_str(&format!("pub mod {name} {{\n    use super::*;\n"));
                    let saved = (self.functions.clone(), self.statics.clone());
                    for _ in 0..1 + self.rng.below(3) {
                        self.item(level + 1);
                    }
                    (self.functions, self.statics) = saved;
                    self.out.push_str("}\n");
                    if self.rng.chance(50) {
                        self.out.push_str(&format!("use {name}::*;\n"));
                    }
                } else {
                    let at = match self.rng.below(3) {
                        0 => format!("{name}.rs"),
                        1 => format!("{name}/mod.rs"),
                        _ => {
                            self.out.push_str(&format!("#[path = \"p_{name}.rs\"]\n"));
                            format!("p_{name}.rs")
                        }
                    };
                    self.out.push_str(&format!("mod {name};\n"));
                    self.mods.push((name, at));
                }
            }
            8 => {
                let segs = self.library_path();
                let alias = format!("A{}", self.rng.below(5));
                self.out.push_str(&format!("use {segs} as {alias};\n"));
            }
            _ => self
                .out
                .push_str("macro_rules! twice { ($e:expr) => { $e; $e }; }\nconst N: usize = 2;\n"),
        }
    }

    fn function(&mut self, self_ty: Option<&str>) {
        let name = format!("f{}", self.functions.len());
        let receiver = if self_ty.is_some() && self.rng.chance(60) {
            "&self, "
        } else {
            ""
        };
        let vis = if self.rng.chance(40) { "pub " } else { "" };
        self.out.push_str(&format!(
            "{vis}fn {name}({receiver}device: usize, rank: usize) -> Arc<CudaContext> {{\n"
        ));
        self.vars = vec!["device".into(), "rank".into()];
        self.body(1, 1);
        let last = self.expr(1);
        self.out.push_str(&format!("    {last}\n}}\n"));
        match self_ty {
            Some(ty) => self.functions.push(format!("{ty}::{name}")),
            None => self.functions.push(name),
        }
    }

    fn body(&mut self, indent: usize, depth: usize) {
        for _ in 0..1 + self.rng.below(6) {
            self.statement(indent, depth);
        }
    }

    fn line(&mut self, indent: usize, text: &str) {
        self.out.push_str(&"    ".repeat(indent));
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn statement(&mut self, indent: usize, depth: usize) {
        let nested = depth < 4;
        match self.rng.below(14) {
            0..=3 => {
                let name = format!("v{}", self.vars.len());
                let value = self.expr(0);
                self.line(indent, &format!("let {name} = {value};"));
                self.vars.push(name);
            }
            4 => {
                let value = self.expr(0);
                self.line(indent, &format!("{value};"));
            }
            5 if nested => {
                self.line(indent, "match unsafe { fork() }.expect(\"fork\") {");
                self.line(indent + 1, "ForkResult::Child => {");
                self.body(indent + 2, depth + 1);
                if self.rng.chance(50) {
                    self.line(indent + 2, "std::process::exit(0);");
                }
                self.line(indent + 1, "}");
                self.line(indent + 1, "ForkResult::Parent { child } => {");
                self.body(indent + 2, depth + 1);
                self.line(indent + 1, "}");
                self.line(indent, "}");
            }
            6 if nested => {
                self.line(indent, "let pid = unsafe { libc::fork() };");
                let op = *self.rng.pick(&["==", "!=", ">"]);
                self.line(indent, &format!("if pid {op} 0 {{"));
                self.body(indent + 1, depth + 1);
                self.line(indent, "} else {");
                self.body(indent + 1, depth + 1);
                self.line(indent, "}");
            }
            7 if nested => {
                let cond = self.expr(1);
                let value = self.rng.below(2);
                self.line(indent, &format!("if {cond} == {value} {{"));
                self.body(indent + 1, depth + 1);
                self.line(indent, "}");
            }
            8 if nested => {
                let kw = *self.rng.pick(&["for i in 0..N", "while rank > 0", "loop"]);
                self.line(indent, &format!("{kw} {{"));
                self.body(indent + 1, depth + 1);
                self.line(indent + 1, "break;");
                self.line(indent, "}");
            }
            9 if nested => {
                let spawn = *self.rng.pick(&[
                    "std::thread::spawn(move ||",
                    "rayon::spawn(move ||",
                    "let c = Arc::new(move ||",
                    "let _ = std::process::Command::new(\"x\").spawn().map(|_c|",
                ]);
                self.line(indent, &format!("{spawn} {{"));
                self.body(indent + 1, depth + 1);
                self.line(indent, "});");
            }
            10 => {
                let (mac, value) = (self.rng.pick(MACROS).0, self.expr(1));
                let args = if mac.contains("assert") || mac == "write" || mac == "writeln" {
                    format!("{value}, {value}")
                } else {
                    format!("\"{{:?}}\", {value}")
                };
                self.line(indent, &format!("{mac}!({args});"));
            }
            11 if !self.statics.is_empty() => {
                let name = self.rng.pick(&self.statics).clone();
                let value = self.expr(1);
                let call = *self.rng.pick(&["get_or_init(|| ", "set(", "get("]);
                let close = if call == "get(" { "" } else { value.as_str() };
                self.line(indent, &format!("let _ = {name}.{call}{close});"));
            }
            12 => {
                let value = self.expr(0);
                self.line(indent, &format!("return {value};"));
            }
            _ => {
                let key = self.rng.pick(ENV).key;
                self.line(
                    indent,
                    &format!(
                        "let rank: usize = std::env::var(\"{key}\").unwrap().parse().unwrap();"
                    ),
                );
            }
        }
    }

    /// A library path from the tables, as written in code.
    fn library_path(&mut self) -> String {
        let row = self.rng.pick(ROWS);
        row.path.to_string()
    }

    fn expr(&mut self, depth: usize) -> String {
        if depth > 3 {
            return self.atom();
        }
        match self.rng.below(13) {
            0..=2 => {
                let path = self.library_path();
                let args: Vec<String> = (0..self.rng.below(3))
                    .map(|_| self.expr(depth + 1))
                    .collect();
                format!("{path}({})", args.join(", "))
            }
            3 if !self.functions.is_empty() => {
                let f = self.rng.pick(&self.functions).clone();
                let f = f.replace("S0::", "Self::");
                format!("{f}({}, {})", self.expr(depth + 1), self.atom())
            }
            4 => {
                let method = self.rng.pick(METHODS).name;
                let base = self.expr(depth + 1);
                format!("{base}.{method}({})", self.atom())
            }
            5 => format!("({}, {})", self.expr(depth + 1), self.expr(depth + 1)),
            6 => format!("(move |x: usize| {})(1)", self.expr(depth + 1)),
            7 => format!("{{ let t = {}; t }}", self.expr(depth + 1)),
            8 => format!("Arc::new({})", self.expr(depth + 1)),
            9 => format!("{} + {}", self.atom(), self.atom()),
            10 => format!("tch::Device::Cuda({})", self.atom()),
            11 => format!("S0 {{ ctx: None, device: {} }}", self.atom()),
            _ => self.atom(),
        }
    }

    fn atom(&mut self) -> String {
        match self.rng.below(6) {
            0 => self.rng.below(3).to_string(),
            1 if !self.vars.is_empty() => self.rng.pick(&self.vars).clone(),
            2 if !self.statics.is_empty() => self.rng.pick(&self.statics).clone(),
            3 => "rank % 8".to_string(),
            4 => "device".to_string(),
            _ => "\"cuda\"".to_string(),
        }
    }

    /// Puts a construct nested or chained deep into the program: where the limits are, and
    /// beyond.
    fn deep(&mut self, mut program: String) -> String {
        // Depths spread over orders of magnitude (10 to 60,000), or close to the limits.
        let n = match self.rng.below(4) {
            0 => 900 + self.rng.below(200),
            1 => 19_000 + self.rng.below(2_000),
            _ => 10usize.pow(1 + self.rng.below(4) as u32) * (1 + self.rng.below(6)),
        };
        let inner = "CudaContext::new(0)";
        let (open, close): (String, String) = match self.rng.below(20) {
            0 => ("(".repeat(n), ")".repeat(n)),
            1 => ("{".repeat(n), "}".repeat(n)),
            2 => ("[".repeat(n), "]".repeat(n)),
            3 => ("!".repeat(n), String::new()),
            4 => ("&".repeat(n), String::new()),
            5 => ("|a, b| ".repeat(n), String::new()),
            6 => ("return ".repeat(n), String::new()),
            7 => (String::new(), "()".repeat(n)),
            8 => (String::new(), ".clone()".repeat(n)),
            9 => (String::new(), "?".repeat(n)),
            10 => (String::new(), " + 1".repeat(n)),
            11 => (String::new(), " as usize".repeat(n)),
            12 => ("Some(".repeat(n), ")".repeat(n)),
            13 => ("x = ".repeat(n), String::new()),
            14 => {
                let mods: String = (0..n).map(|i| format!("mod d{i} {{ ")).collect();
                program.push_str(&format!("{mods}fn f() {{ {inner}; }}{}\n", "}".repeat(n)));
                return program;
            }
            15 => {
                let ty = format!("{}u8{}", "Vec<".repeat(n), ">".repeat(n));
                program.push_str(&format!("type Deep = {ty};\n"));
                return program;
            }
            16 => (
                "if a { ".to_string(),
                format!(" }}{}", " else if a { 1 }".repeat(n)),
            ),
            17 => (String::new(), ".alloc_zeros::<f32>(1).unwrap()".repeat(n)),
            18 => {
                // Deep expressions in functions that call each other at their deepest point.
                let depth = n.min(2_000);
                for i in 0..30 {
                    let (o, c) = ("(".repeat(depth / 30), ")".repeat(depth / 30));
                    program.push_str(&format!("fn g{i}() -> u8 {{ {o}g{}(){c} }}\n", i + 1));
                }
                program.push_str(&format!(
                    "fn g30() -> u8 {{ {inner}; 0 }}\nfn deep() {{ g0(); }}\n"
                ));
                return program;
            }
            _ => {
                let statement = "if if if a { b } else { c } { d } else { e } { f } else { g }; ";
                (
                    format!("{{ {}", statement.repeat(n.min(5_000))),
                    " }".to_string(),
                )
            }
        };
        program.push_str(&format!(
            "fn deep() {{\n    let _ = {open}{inner}{close};\n}}\n"
        ));
        program
    }
}
