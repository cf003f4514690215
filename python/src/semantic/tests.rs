//! The semantic model on small programs: start-method state, CUDA state, child code, binding.

use super::{analyze, Settings};
use crate::program::{Input, Program};
use crate::source::FileId;
use gpulint_analyses::fork::ForkFact;
use gpulint_analyses::{Analyses, Facts};
use gpulint_core::effect::{Init, Launcher, StartMethod};

use crate::libraries::processes::launchers;

fn facts(source: &str) -> Facts {
    let program = Program::build(vec![Input::Text {
        path: "main.py".into(),
        text: source.to_string(),
    }]);
    assert!(program.module(FileId(0)).is_some(), "valid Python");
    analyze(
        &program,
        &super::ImportCache::<Analyses>::default(),
        FileId(0),
        Settings::default(),
    )
}

fn only_fork(source: &str) -> ForkFact {
    let facts = facts(source);
    assert_eq!(facts.forks.len(), 1, "{facts:#?}");
    facts.forks[0].clone()
}

const CHILD: &str = "import torch\nimport multiprocessing as mp\nimport torch.multiprocessing as tmp\nimport multiprocess\n\ndef work():\n    torch.zeros(1, device='cuda')\n\n";

#[test]
fn set_start_method_before_the_fork_changes_the_default_context() {
    let fork = only_fork(&format!(
        "{CHILD}mp.set_start_method('spawn')\ntorch.cuda.init()\nmp.Process(target=work).start()\n"
    ));
    assert_eq!(fork.start_method, StartMethod::Spawn);
    assert!(fork.start_method_source.is_some());
}

#[test]
fn set_start_method_after_the_fork_does_not() {
    let fork = only_fork(&format!(
        "{CHILD}torch.cuda.init()\nmp.Process(target=work).start()\nmp.set_start_method('spawn')\n"
    ));
    assert_eq!(fork.start_method, StartMethod::Fork);
    assert_eq!(fork.parent_init.map(|i| i.level), Some(Init::Context));
    assert!(fork.child_use.is_some());
}

#[test]
fn torch_multiprocessing_shares_the_multiprocessing_layer_but_multiprocess_does_not() {
    let shared = only_fork(&format!(
        "{CHILD}tmp.set_start_method('spawn')\nmp.Process(target=work).start()\n"
    ));
    assert_eq!(shared.start_method, StartMethod::Spawn);
    let other = only_fork(&format!(
        "{CHILD}multiprocess.set_start_method('spawn')\nmp.Process(target=work).start()\n"
    ));
    assert_eq!(other.start_method, StartMethod::Fork);
}

#[test]
fn a_context_held_in_a_variable_or_global_decides_the_start_method() {
    let src = format!("{CHILD}CTX = mp.get_context('forkserver')\n\ndef launch():\n    p = CTX.Process(target=work)\n    p.start()\n\nlaunch()\n");
    assert_eq!(only_fork(&src).start_method, StartMethod::Forkserver);
}

#[test]
fn is_available_initialises_the_driver_and_device_count_does_not() {
    let fork = only_fork(&format!(
        "{CHILD}torch.cuda.is_available()\nmp.Process(target=work).start()\n"
    ));
    assert_eq!(fork.parent_init.map(|i| i.level), Some(Init::Driver));
    let fork = only_fork(&format!(
        "{CHILD}torch.cuda.device_count()\nmp.Process(target=work).start()\n"
    ));
    assert!(fork.parent_init.is_none());
}

#[test]
fn the_main_guard_is_skipped_when_a_spawned_child_reimports_the_module() {
    // The guarded CUDA call runs in the parent only; the spawned child re-imports a clean module.
    let src = format!("{CHILD}if __name__ == '__main__':\n    torch.cuda.init()\n    mp.get_context('spawn').Process(target=work).start()\n");
    let fork = only_fork(&src);
    assert_eq!(fork.start_method, StartMethod::Spawn);
    assert!(fork.parent_init.is_none());
}

#[test]
fn dataloader_workers_run_the_dataset_and_collate_code() {
    let src = "import torch\nfrom torch.utils.data import DataLoader, Dataset\n\nclass D(Dataset):\n    def __getitem__(self, i):\n        return torch.ones(2)\n\ndef collate(items):\n    return items[0].cuda()\n\nmodel = torch.nn.Linear(2, 2).cuda()\nloader = DataLoader(D(), num_workers=2, collate_fn=collate)\n";
    let fork = only_fork(src);
    assert_eq!(fork.launcher, &launchers::DATA_LOADER);
    // The message names the code that used CUDA: the collate, not `D.__getitem__`.
    assert_eq!(fork.child_code, "`collate`");
    assert!(fork.child_use.is_some());
}

#[test]
fn the_process_group_records_what_happened_before_the_device_was_bound() {
    let src = "import os, torch\nimport torch.distributed as dist\n\ndef main():\n    dist.init_process_group('nccl')\n    dist.barrier()\n    torch.cuda.set_device(int(os.environ['LOCAL_RANK']))\n\nmain()\n";
    let facts = facts(src);
    let group = &facts.process_groups[0];
    assert!(group
        .early_use
        .as_ref()
        .is_some_and(|u| u.what.contains("barrier")));
    assert!(group.late_bind.is_some());
    let bound = facts_of_bound();
    assert!(bound.process_groups.is_empty(), "{bound:#?}");
}

fn facts_of_bound() -> Facts {
    facts("import os, torch\nimport torch.distributed as dist\nr = int(os.environ['LOCAL_RANK'])\ntorch.cuda.set_device(r)\ndist.init_process_group('nccl')\ndist.barrier()\n")
}

#[test]
fn keyword_arguments_from_a_known_dict_reach_the_call() {
    let src = "import torch\nfrom torch.utils.data import DataLoader, Dataset\nclass DS(Dataset):\n    def __getitem__(self, i):\n        return torch.zeros(3).cuda()\ntorch.cuda.set_device(0)\nkwargs = {'num_workers': 1}\nDataLoader(DS(), **kwargs)\n";
    let fork = only_fork(src);
    assert!(fork.parent_init.is_some() && fork.child_use.is_some());
}

#[test]
fn imports_resolve_to_qualified_names_through_aliases() {
    // `mp.Pool` is `torch.multiprocessing.Pool` is `multiprocessing.Pool`; `tc.init` is `torch.cuda.init`.
    let src = "import torch.multiprocessing as mp\nfrom torch import cuda as tc\nfrom concurrent.futures import ProcessPoolExecutor as PPE\n\ndef work(x):\n    tc.synchronize()\n\ntc.init()\nwith mp.Pool(2) as pool:\n    pool.map(work, [1])\nPPE(2).submit(work, 1)\n";
    let facts = facts(src);
    let kinds: Vec<&Launcher> = facts.forks.iter().map(|f| f.launcher).collect();
    assert_eq!(kinds, [&launchers::POOL, &launchers::EXECUTOR]);
    for fork in &facts.forks {
        assert!(
            fork.parent_init
                .as_ref()
                .is_some_and(|i| i.what.contains("`init`")),
            "{fork:#?}"
        );
        assert!(
            fork.child_use
                .as_ref()
                .is_some_and(|u| u.what.contains("`synchronize`")),
            "{fork:#?}"
        );
    }
}

const SPAWN_POOL: &str = "import torch\nimport multiprocessing as mp\nimport multiprocess\n\n";

#[test]
fn a_global_bound_at_import_reaches_a_spawned_child_one_bound_under_the_guard_does_not() {
    let read = "def work(x):\n    return LIMIT\n\n";
    let at_import = facts(&format!(
        "{SPAWN_POOL}LIMIT = 4\n{read}if __name__ == '__main__':\n    mp.get_context('spawn').Pool(2).map(work, [1])\n"
    ));
    assert!(at_import.stale_globals.is_empty(), "{at_import:#?}");
    let guarded = facts(&format!(
        "{SPAWN_POOL}LIMIT = 4\n{read}if __name__ == '__main__':\n    LIMIT = 8\n    mp.get_context('spawn').Pool(2).map(work, [1])\n"
    ));
    let [fact] = guarded.stale_globals.try_into().unwrap();
    assert!(fact.defined && !fact.in_place);
}

#[test]
fn a_function_called_at_import_binds_its_global_at_import() {
    let src = format!(
        "{SPAWN_POOL}LIMIT = 4\n\ndef configure():\n    global LIMIT\n    LIMIT = 8\n\nconfigure()\n\ndef work(x):\n    return LIMIT\n\nif __name__ == '__main__':\n    mp.get_context('spawn').Pool(2).map(work, [1])\n"
    );
    assert!(facts(&src).stale_globals.is_empty());
}

#[test]
fn what_pickle_refuses_is_told_apart_from_what_it_sends() {
    let src = format!(
        "{SPAWN_POOL}def top(x):\n    return x\n\ndef make():\n    class Local:\n        def run(self, x):\n            return x\n    return Local()\n\nif __name__ == '__main__':\n    pool = mp.get_context('spawn').Pool(2)\n    pool.map(top, [1])\n    pool.map(make().run, [1])\n"
    );
    let [fact] = facts(&src).unserializable.try_into().unwrap();
    assert_eq!(fact.why, gpulint_core::effect::Unserializable::LocalClass);
    assert_eq!(&*fact.name, "`Local.run`");
}

#[test]
fn the_multiprocess_package_sends_lambdas_with_dill() {
    let src = format!(
        "{SPAWN_POOL}if __name__ == '__main__':\n    multiprocess.Pool(2).map(lambda x: x, [1])\n    mp.Pool(2).map(lambda x: x, [1])\n"
    );
    let [fact] = facts(&src).unserializable.try_into().unwrap();
    assert_eq!(fact.handed, gpulint_core::effect::Handed::Task);
}

/// A chain longer than the branch states it keeps: what its first, middle and last branches did
/// still reaches the code after it, in a function as at module level.
#[test]
fn a_long_elif_chain_joins_every_branch() {
    let chain = |indent: &str, cuda_at: usize, spawn_at: usize| {
        let mut out = format!("{indent}if x == 0:\n{indent}    y = 0\n");
        for i in 1..300 {
            out += &format!("{indent}elif x == {i}:\n");
            out += &match i {
                _ if i == cuda_at => format!("{indent}    torch.cuda.init()\n"),
                _ if i == spawn_at => format!("{indent}    mp.set_start_method('spawn')\n"),
                _ => format!("{indent}    y = {i}\n"),
            };
        }
        out
    };
    for (cuda_at, spawn_at) in [(1, 0), (150, 0), (299, 0), (1, 64), (65, 200)] {
        let at_top = format!(
            "{CHILD}x = len(input())\n{}mp.Process(target=work).start()\n",
            chain("", cuda_at, spawn_at)
        );
        let in_function = format!(
            "{CHILD}def main(x):\n{}    mp.Process(target=work).start()\n\nmain(len(input()))\n",
            chain("    ", cuda_at, spawn_at)
        );
        for source in [at_top, in_function] {
            let fork = only_fork(&source);
            if spawn_at > 0 {
                // A path set spawn first: the child starts clean, whatever the parent did.
                assert!(
                    fork.start_method_source.is_some(),
                    "spawn set in {spawn_at}"
                );
            } else {
                assert_eq!(
                    fork.parent_init.map(|i| i.level),
                    Some(Init::Context),
                    "CUDA initialised in branch {cuda_at}"
                );
            }
        }
    }
}

/// Branches are joined by the names they write (`trail`): a name bound on one path only, after
/// thousands of names bound by other branches, still reaches the code after, at module level as
/// in a function.
#[test]
fn a_name_bound_on_one_path_reaches_the_code_after_many_branches() {
    let many: String = (0..2_000)
        .map(|i| format!("if x == {i}:\n    y_{i} = {i}\n"))
        .collect();
    let binds = [
        "if x == -1:\n    pass\nelse:\n    init = torch.cuda.init\n",
        "if x == -1:\n    init = torch.cuda.init\nelse:\n    pass\n",
        "match x:\n    case 1:\n        pass\n    case 2:\n        init = torch.cuda.init\n",
        "try:\n    pass\nexcept OSError:\n    init = torch.cuda.init\n",
        "for _ in range(x):\n    init = torch.cuda.init\n",
        "while x:\n    init = torch.cuda.init\n    x = 0\n",
    ];
    let indent = |text: &str| {
        text.lines()
            .map(|l| format!("    {l}\n"))
            .collect::<String>()
    };
    for bind in binds {
        let body = format!("init = None\n{bind}{many}init()\nmp.Process(target=work).start()\n");
        let at_top = format!("{CHILD}x = len(input())\n{body}");
        let in_function = format!(
            "{CHILD}def main(x):\n{}\nmain(len(input()))\n",
            indent(&body)
        );
        for source in [at_top, in_function] {
            let fork = only_fork(&source);
            assert_eq!(
                fork.parent_init.map(|i| i.level),
                Some(Init::Context),
                "{bind}"
            );
        }
    }
}
