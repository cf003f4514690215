//! Which functions are taken to reach a hazard, on small programs.

use super::Reach;
use crate::lower::parse;
use crate::model::Module;
use crate::source::FileId;

fn module(id: u32, src: &str) -> Module {
    parse(src, FileId(id)).unwrap().module
}

/// The names of `main`'s functions that can reach a hazard, with `others` as the rest of the
/// program.
fn reaching(main: &str, others: &[&str]) -> Vec<String> {
    let main = module(0, main);
    let others: Vec<Module> = others
        .iter()
        .enumerate()
        .map(|(i, src)| module(i as u32 + 1, src))
        .collect();
    let reach = Reach::build(std::iter::once(&main).chain(&others));
    let answers = reach.functions(&main);
    main.functions
        .iter()
        .zip(answers)
        .filter(|(_, a)| *a)
        .map(|(f, _)| f.name.clone())
        .collect()
}

#[test]
fn a_library_call_is_looked_up_through_the_imports() {
    let src =
        "import multiprocessing as mp\nfrom torch.distributed import init_process_group as ipg\n\
               def start():\n    mp.Process(target=print).start()\n\
               def join():\n    ipg('nccl')\n\
               def scale(x):\n    return x * 2\n";
    assert_eq!(reaching(src, &[]), ["start", "join"]);
}

#[test]
fn a_local_variable_named_like_a_launcher_is_not_one() {
    let src = "def plain(items):\n    Process = list\n    return Process(items)\n";
    assert!(reaching(src, &[]).is_empty());
}

#[test]
fn a_function_reaches_what_the_functions_it_names_reach_in_other_modules() {
    let helper = "import multiprocessing\ndef launch():\n    multiprocessing.Pool(2)\n";
    let src = "from .helper import launch\nfrom . import helper\n\
               def direct():\n    launch()\n\
               def through_module():\n    helper.launch()\n\
               def unrelated():\n    helper.other()\n";
    assert_eq!(reaching(src, &[helper]), ["direct", "through_module"]);
}

#[test]
fn a_global_made_by_a_decisive_call_makes_its_readers_reach() {
    let src = "import multiprocessing\nPOOL = multiprocessing.Pool(2)\nLIMIT = 3\n\
               def use():\n    POOL.map(abs, [1])\n\
               def limit():\n    return LIMIT\n";
    assert_eq!(reaching(src, &[]), ["use"]);
}

#[test]
fn every_method_of_a_class_that_reaches_a_hazard_runs() {
    let src = "import torch.multiprocessing as mp\n\
               class Runner:\n    def __init__(self):\n        self.queue = mp.Queue()\n    def size(self):\n        return 1\n\
               class Model:\n    def forward(self, x):\n        return x\n";
    assert_eq!(reaching(src, &[]), ["__init__", "size"]);
}

#[test]
fn a_library_instance_with_decisive_methods_makes_its_readers_reach() {
    let src = "import flask\napp = flask.Flask(__name__)\n\
               @app.route('/')\ndef index():\n    return 'ok'\n\
               def other():\n    return app.name\n\
               def unrelated():\n    return 1\n";
    assert_eq!(reaching(src, &[]), ["index", "other"]);
}

#[test]
fn a_rank_variable_named_in_a_string_reaches() {
    let src = "import os\ndef rank():\n    return int(os.environ['LOCAL_RANK'])\n\
               def home():\n    return os.environ['HOME']\n";
    assert_eq!(reaching(src, &[]), ["rank"]);
}
