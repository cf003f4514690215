//! The frontend's two costs on one large file: parsing and lowering it, and interpreting it as a
//! main program with every analysis. `cargo bench -p gpulint_python` (divan).

use gpulint_analyses::Analyses;
use gpulint_python::program::{Input, Program};
use gpulint_python::semantic::{analyze, ImportCache, Settings};
use gpulint_python::source::FileId;

fn main() {
    divan::main();
}

/// A large module of ordinary ML code: classes with methods, loaders, branches, loops, a pool.
fn large_module(functions: usize) -> String {
    let mut text = String::from(
        "import os\nimport torch\nimport multiprocessing as mp\nfrom torch.utils.data import DataLoader, Dataset\n\n",
    );
    for i in 0..functions {
        text.push_str(&format!(
            "class Data{i}(Dataset):\n    def __init__(self, n):\n        self.n = n\n    def __getitem__(self, j):\n        return torch.zeros(4) + j\n\n\
             def step{i}(model, batch, rank):\n    device = f'cuda:{{rank}}'\n    if batch is None:\n        return None\n    for k in range(3):\n        out = model(batch.to(device))\n    return out.cpu()\n\n\
             def train{i}():\n    rank = int(os.environ['LOCAL_RANK'])\n    loader = DataLoader(Data{i}(8), num_workers=2)\n    for batch in loader:\n        step{i}(torch.nn.Linear(4, 4), batch, rank)\n\n"
        ));
    }
    text.push_str("if __name__ == '__main__':\n    with mp.Pool(2) as pool:\n        pool.map(step0, [1, 2])\n");
    text
}

fn program(text: &str) -> Program {
    Program::build(vec![Input::Text {
        path: "large.py".into(),
        text: text.to_string(),
    }])
}

#[divan::bench(args = [100, 1000])]
fn parse_and_lower(bencher: divan::Bencher, functions: usize) {
    let text = large_module(functions);
    bencher.bench(|| gpulint_python::lower::parse(divan::black_box(&text), FileId(0)).is_ok());
}

#[divan::bench(args = [100, 1000])]
fn analyse(bencher: divan::Bencher, functions: usize) {
    let program = program(&large_module(functions));
    let cache = ImportCache::<Analyses>::build(&program, Settings::default());
    bencher.bench(|| analyze(&program, &cache, FileId(0), Settings::default()));
}
