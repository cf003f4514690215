//! GPU008's analysis: a device ordinal taken from the global rank. Every use is a fact: the
//! frontend reports one only where the global rank itself (not `rank % n`) names a device.

use gpulint_core::analysis::{Analysis, Context, ProcessEnd};
use gpulint_core::effect::Effect;
use gpulint_core::source::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct GlobalRankFact {
    /// The index passed as a device.
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct GlobalRankDevice;

impl Analysis for GlobalRankDevice {
    type Facts = Vec<GlobalRankFact>;

    fn effect(&mut self, effect: &Effect, _: &Context, facts: &mut Self::Facts) {
        if let Effect::DeviceFromGlobalRank { span } = effect {
            if !facts.iter().any(|f| f.span == *span) {
                facts.push(GlobalRankFact { span: *span });
            }
        }
    }

    fn join(&mut self, _: Self) {}

    fn finish(self, _: &ProcessEnd, _: &mut Self::Facts) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::at;

    #[test]
    fn each_place_is_reported_once() {
        let mut a = GlobalRankDevice;
        let mut facts = Vec::new();
        for s in [3, 3, 7] {
            a.effect(
                &Effect::DeviceFromGlobalRank { span: at(s) },
                &Context::default(),
                &mut facts,
            );
        }
        assert_eq!(facts.len(), 2);
    }
}
