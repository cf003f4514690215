//! How a job is launched, as the process model keeps it: on one machine (a launcher command
//! without several nodes, a launcher that numbers its processes on this machine, a rendezvous
//! address on the loopback) or on several. The analyses decide what that means for a rank.

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{Effect, Nodes};

use super::children::Entry;
use super::value::Value;
use super::Interp;
use crate::libraries::processes::{LaunchCommand, LAUNCH_COMMANDS, LOOPBACK_HOSTS};
use crate::libraries::{self, EnvRole};
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    /// This process's job is launched at `span` on `nodes` machines: kept in the process model
    /// (children inherit it) and reported.
    pub(super) fn launched(&mut self, span: Span, nodes: Nodes) {
        let process = self.proc();
        if process.launch.is_none() || nodes == Nodes::Several {
            process.launch = Some((span, nodes));
        }
        self.emit(Effect::Launched { span, nodes });
    }

    /// A child started at `span` belongs to its parent's launch (the same machine and job), else
    /// to the one its start makes, else to one on this machine when it is handed an environment
    /// whose rendezvous address is the loopback.
    pub(super) fn child_launch(
        &mut self,
        span: Span,
        made: Option<(Span, Nodes)>,
        entries: &[Entry],
    ) {
        let handed = || {
            entries
                .iter()
                .flat_map(|(callee, args)| std::iter::once(callee).chain(args))
                .any(|v| loopback_rendezvous(v, 2))
                .then_some((span, Nodes::One))
        };
        if let Some((at, nodes)) = self.proc_ref().launch.or(made).or_else(handed) {
            self.launched(at, nodes);
        }
    }

    /// `os.environ[key] = value`: a rendezvous address on the loopback puts every rank of the job
    /// on this machine.
    pub(super) fn rendezvous_written(&mut self, key: &str, value: &Value, span: Span) {
        if libraries::env_role(key) == Some(EnvRole::RendezvousHost) && is_loopback(value) {
            self.launched(span, Nodes::One);
        }
    }

    /// A command run at `span` (`argv`: its words, or one string a shell splits): a launcher's
    /// command says on how many machines its job runs.
    pub(super) fn command_run(&mut self, span: Span, argv: Option<&Value>) {
        let words = argv.map(command_words).unwrap_or_default();
        let launcher = LAUNCH_COMMANDS.iter().find(|c| {
            words
                .iter()
                .any(|w| w.iter().any(|w| names_program(w, c.program)))
        });
        if let Some(nodes) = launcher.and_then(|c| nodes_of(c, &words)) {
            self.launched(span, nodes);
        }
    }
}

/// How the launch commands written in `text` (a shell script, or the docstring of the module
/// itself) run the file named `file_name`: on several machines if any command says so, on one if
/// every command that names it does; `None` where no command names it. A command may continue
/// over lines ending in `\`, and may sit in a comment or a usage line.
pub fn documented_nodes(text: &str, file_name: &str) -> Option<Nodes> {
    let mut found = None;
    let mut command = String::new();
    for line in text.lines() {
        let line = line.trim().trim_start_matches('#');
        match line.strip_suffix('\\') {
            Some(start) => {
                command.push_str(start);
                command.push(' ');
                continue;
            }
            None => command.push_str(line),
        }
        let words: Vec<Vec<String>> = command
            .split_whitespace()
            .map(|w| {
                vec![w
                    .trim_matches(|c| c == '"' || c == '\'' || c == '`')
                    .to_string()]
            })
            .collect();
        command.clear();
        let names_file = words.iter().any(|w| names_program(&w[0], file_name));
        let launcher = LAUNCH_COMMANDS
            .iter()
            .find(|c| words.iter().any(|w| names_program(&w[0], c.program)));
        if let (true, Some(c)) = (names_file, launcher) {
            match nodes_of(c, &words) {
                Some(Nodes::Several) => return Some(Nodes::Several),
                Some(Nodes::One) => found = Some(Nodes::One),
                None => {}
            }
        }
    }
    found
}

/// Whether word `w` of a command names `program` (itself, or a path to it).
fn names_program(w: &str, program: &str) -> bool {
    w == program || w.strip_suffix(program).is_some_and(|p| p.ends_with('/'))
}

/// The words a command value may hold, one list of alternatives per word; a word gpulint cannot
/// read has none.
fn command_words(argv: &Value) -> Vec<Vec<String>> {
    match argv {
        Value::Str(s) => s.split_whitespace().map(|w| vec![w.to_string()]).collect(),
        Value::Sequence(items) => items.iter().map(alternatives).collect(),
        _ => Vec::new(),
    }
}

fn alternatives(v: &Value) -> Vec<String> {
    match v {
        Value::Str(s) => vec![s.to_string()],
        Value::OneOf(vs) => vs.iter().flat_map(alternatives).collect(),
        _ => Vec::new(),
    }
}

/// How many machines a launcher's command uses: one unless its nodes option says more, or one
/// of its single-node options is given. `None` where the count is not readable.
fn nodes_of(command: &LaunchCommand, words: &[Vec<String>]) -> Option<Nodes> {
    let one = |w: &str| command.one_node.contains(&w);
    if words.iter().any(|w| w.iter().any(|w| one(w))) {
        return Some(Nodes::One);
    }
    for (i, word) in words.iter().enumerate() {
        for w in word {
            let value = if w == command.nodes {
                words.get(i + 1).and_then(|next| next.first().cloned())
            } else if let Some(v) = w
                .strip_prefix(command.nodes)
                .and_then(|r| r.strip_prefix('='))
            {
                Some(v.to_string())
            } else {
                continue;
            };
            // `--nnodes=1`, `--nnodes=1:1`, `--nnodes=2`, `--nnodes=1:4` (elastic: up to four).
            let most = value
                .as_deref()
                .and_then(|v| v.rsplit(':').next()?.parse::<u32>().ok());
            return match most {
                Some(1) => Some(Nodes::One),
                Some(_) => Some(Nodes::Several),
                None => None,
            };
        }
    }
    Some(Nodes::One)
}

/// Whether `v` is a loopback host name or address.
fn is_loopback(v: &Value) -> bool {
    matches!(v, Value::Str(s) if LOOPBACK_HOSTS.contains(&&**s))
}

/// Whether `v` (or a value it holds, `depth` levels down) is an environment mapping whose
/// rendezvous address is the loopback.
fn loopback_rendezvous(v: &Value, depth: u32) -> bool {
    match v {
        Value::Mapping(entries) => entries.iter().any(|(k, v)| {
            libraries::env_role(k) == Some(EnvRole::RendezvousHost) && is_loopback(v)
                || depth > 0 && loopback_rendezvous(v, depth - 1)
        }),
        Value::Sequence(items) if depth > 0 => {
            items.iter().any(|i| loopback_rendezvous(i, depth - 1))
        }
        _ => false,
    }
}
