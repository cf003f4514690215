//! Library rows of distributed jobs: ranks, process groups, collectives.

use gpulint_core::analysis::Analysis;
use gpulint_core::effect::{Backend, Effect};

use super::super::calls::{passthrough, Args};
use super::super::value::Value;
use super::super::Interp;
use super::*;
use crate::libraries::{self, torch, Param};
use crate::source::Span;

impl<'m, A: Analysis> Interp<'m, A> {
    /// A call of a `Behaviour::ReadsRank` row.
    pub(super) fn reads_rank(&mut self) -> Value {
        self.proc().per_worker = true;
        Value::Rank
    }

    /// A call of a `Behaviour::ReadsGlobalRank` row.
    pub(super) fn reads_global_rank(&mut self, name: &str) -> Value {
        self.proc().per_worker = true;
        Value::GlobalRank(libraries::local_rank_of(name))
    }

    /// A call of a `Behaviour::ProcessGroup` row.
    pub(super) fn process_group(
        &mut self,
        span: Span,
        args: &Args<'m>,
        backend: Param,
        device_id: Param,
        world_size: Param,
    ) -> Value {
        self.init_process_group(span, args, backend, device_id, world_size);
        Value::None
    }

    /// A call of a `Behaviour::Subgroup` row.
    pub(super) fn subgroup(&mut self, args: &Args<'m>, backend: Param) -> Value {
        match args.param(backend) {
            Some((Value::Str(b), _)) if torch::backend(b) == Backend::Cpu => Value::CpuGroup,
            _ => Value::Unknown,
        }
    }

    /// A call of a `Behaviour::Collective` row.
    pub(super) fn collective(
        &mut self,
        span: Span,
        name: &str,
        args: &Args<'m>,
        device: &'static [Param],
        group: Param,
        tensors: bool,
    ) -> Value {
        let short = short(name);
        let cpu = |v: &Value| matches!(v, Value::CpuGroup);
        let on_cpu_group =
            args.pos.iter().any(|(v, _)| cpu(v)) || args.param(group).is_some_and(|(v, _)| cpu(v));
        // A tensor on the worker's own GPU makes the communicator there, not on GPU 0.
        let own = |v: &Value| matches!(v, Value::Cuda(o) if o.index == gpulint_core::effect::DeviceIndex::PerWorker);
        let on_own_gpu = tensors
            && (args.pos.iter().any(|(v, _)| own(v)) || args.kw.iter().any(|(_, v, _)| own(v)));
        let explicit =
            device.iter().any(|p| args.param(*p).is_some()) || on_cpu_group || on_own_gpu;
        // A device position it is given (`DDP(model, device_ids=[rank], output_device=rank)`)
        // names a device like any other: a global rank there is GPU008's (said once a call).
        let rank_at = device.iter().find_map(|p| {
            let (value, expr) = args.param(*p)?;
            let named: Vec<Value> = match value {
                Value::Sequence(items) => items.to_vec(),
                other => vec![other.clone()],
            };
            let rank = named
                .into_iter()
                .find(|v| matches!(v, Value::GlobalRank(_)))?;
            Some((rank, expr))
        });
        if let Some((rank, expr)) = rank_at {
            self.device_arg(&rank, expr);
        }
        self.emit(Effect::CollectiveRun {
            span,
            name: short.into(),
            explicit_device: explicit,
        });
        passthrough(args)
    }
}
