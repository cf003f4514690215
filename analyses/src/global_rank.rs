//! GPU008's analysis: a device ordinal taken from the global rank. The frontend reports a use only
//! where the global rank itself (not `rank % n`) names a device; the verdict depends on the launch.
//! A job launched on one machine (a launcher without several nodes, `mp.spawn`, a loopback
//! rendezvous) numbers its ranks from 0 on that machine, so the global rank is the local one there:
//! silent. A launch on several nodes makes the use wrong; no known launch leaves it conditional.

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::{Effect, LocalRankRead, Nodes};
use gpulint_core::source::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct GlobalRankFact {
    /// The index passed as a device.
    pub span: Span,
    /// Where the job is launched on several nodes, if that launch was seen; `None`: no launch is
    /// known, and the use is wrong only when the job runs on more than one node.
    pub several_nodes: Option<Span>,
    /// Seen only in a function analysed without its callers, whose launch they may know.
    partial: bool,
    /// Where the code could read the rank on this node instead, when every visit agrees.
    pub local: Option<LocalRankRead>,
}

/// The uses found, and the places seen in a process launched on one machine.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GlobalRankFacts {
    pub found: Vec<GlobalRankFact>,
    one_node: Vec<Span>,
}

impl GlobalRankFacts {
    pub fn iter(&self) -> std::slice::Iter<'_, GlobalRankFact> {
        self.found.iter()
    }
}

#[derive(Clone, Debug, Default)]
pub struct GlobalRankDevice {
    uses: Vec<(Span, Option<LocalRankRead>)>,
    /// A launch on one machine, by this process or an ancestor.
    one_node: Option<Span>,
    /// A launch on several machines.
    several: Option<Span>,
}

impl Analysis for GlobalRankDevice {
    type Facts = GlobalRankFacts;

    fn effect(&mut self, effect: &Effect, _: &Context, _: &mut Self::Facts) {
        match effect {
            Effect::DeviceFromGlobalRank { span, local } => add_use(&mut self.uses, *span, local),
            Effect::Launched {
                span,
                nodes: Nodes::One,
            } => {
                self.one_node.get_or_insert(*span);
            }
            Effect::Launched {
                span,
                nodes: Nodes::Several,
            } => {
                self.several.get_or_insert(*span);
            }
            _ => {}
        }
    }

    /// A launch on either path counts: the self-launching script runs its worker code on one path
    /// and the launcher command on the other.
    fn join(&mut self, other: Self) {
        for (span, local) in other.uses {
            add_use(&mut self.uses, span, &local);
        }
        self.one_node = self.one_node.or(other.one_node);
        self.several = self.several.or(other.several);
    }

    fn finish(self, end: &ProcessEnd, facts: &mut Self::Facts) {
        if self.one_node.is_some() && self.several.is_none() {
            for (span, _) in self.uses {
                if !facts.one_node.contains(&span) {
                    facts.one_node.push(span);
                }
                // What a run without callers reported is overruled by a run that knows the launch.
                facts
                    .found
                    .retain(|f| f.span != span || !f.partial || f.several_nodes.is_some());
            }
            return;
        }
        for (span, local) in self.uses {
            if end.partial && self.several.is_none() && facts.one_node.contains(&span) {
                continue;
            }
            match facts.found.iter_mut().find(|f| f.span == span) {
                Some(f) => {
                    f.partial &= end.partial;
                    f.several_nodes = f.several_nodes.or(self.several);
                    if f.local != local {
                        f.local = None;
                    }
                }
                None => facts.found.push(GlobalRankFact {
                    span,
                    several_nodes: self.several,
                    partial: end.partial,
                    local,
                }),
            }
        }
    }
}

/// Records a use at `span`; the same place read two ways keeps no local read.
fn add_use(
    uses: &mut Vec<(Span, Option<LocalRankRead>)>,
    span: Span,
    local: &Option<LocalRankRead>,
) {
    match uses.iter_mut().find(|(s, _)| *s == span) {
        Some((_, known)) if known != local => *known = None,
        Some(_) => {}
        None => uses.push((span, local.clone())),
    }
}

impl GlobalRankFact {
    pub fn new(span: Span, several_nodes: Option<Span>) -> GlobalRankFact {
        GlobalRankFact {
            span,
            several_nodes,
            partial: false,
            local: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{at, facts_of, worker_end};

    fn uses(spans: &[u32]) -> Vec<Effect> {
        spans
            .iter()
            .map(|s| Effect::DeviceFromGlobalRank {
                span: at(*s),
                local: None,
            })
            .collect()
    }

    fn launched(start: u32, nodes: Nodes) -> Effect {
        Effect::Launched {
            span: at(start),
            nodes,
        }
    }

    #[test]
    fn each_place_is_reported_once() {
        let facts = facts_of::<GlobalRankDevice>(&uses(&[3, 3, 7]), worker_end(true));
        assert_eq!(facts.found.len(), 2);
        assert!(facts.iter().all(|f| f.several_nodes.is_none()));
    }

    #[test]
    fn a_launch_on_one_node_silences_even_after_the_use() {
        let mut effects = uses(&[3]);
        effects.push(launched(9, Nodes::One));
        assert!(facts_of::<GlobalRankDevice>(&effects, worker_end(true))
            .found
            .is_empty());
    }

    #[test]
    fn a_launch_on_several_nodes_is_named() {
        let mut effects = vec![launched(1, Nodes::Several)];
        effects.extend(uses(&[3]));
        let facts = facts_of::<GlobalRankDevice>(&effects, worker_end(true));
        assert_eq!(facts.found[0].several_nodes, Some(at(1)));
    }

    #[test]
    fn a_run_that_knows_the_launch_overrules_one_without_callers() {
        let mut facts = GlobalRankFacts::default();
        let partial = ProcessEnd {
            partial: true,
            ..ProcessEnd::default()
        };
        let mut alone = GlobalRankDevice::default();
        alone.effect(&uses(&[3])[0], &Context::default(), &mut facts);
        alone.finish(&partial, &mut facts);
        assert_eq!(facts.found.len(), 1);
        let mut launched_run = GlobalRankDevice::default();
        for e in [launched(1, Nodes::One), uses(&[3]).remove(0)] {
            launched_run.effect(&e, &Context::default(), &mut facts);
        }
        launched_run.clone().finish(&worker_end(true), &mut facts);
        assert!(facts.found.is_empty());
        // And in the other order.
        let mut again = GlobalRankDevice::default();
        again.effect(&uses(&[3])[0], &Context::default(), &mut facts);
        again.finish(&partial, &mut facts);
        assert!(facts.found.is_empty());
    }
}
