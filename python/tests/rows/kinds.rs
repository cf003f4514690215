//! The probes of a library call by its behaviour kind: the one exhaustive `match` over
//! [`Behaviour`], with no catch-all, so a new kind cannot be added without probes of its own. The
//! probes of each kind are in the module of the library family its rows come from; aliases and
//! returned names, which every family has, are here.

use super::*;

/// The probes of a library call (function or class) `c` that does `does`; `Err` for a row that is
/// wrong without running anything.
pub(crate) fn probes(c: &Callee, does: Behaviour) -> Result<Vec<Probe>, String> {
    Ok(match does {
        Behaviour::Alias(to) => alias(c, to)?,
        Behaviour::InitsCuda {
            level,
            object,
            safe_in_child,
            unless_env,
        } => gpu_arrays::inits_cuda(c, level, object, safe_in_child, unless_env),
        Behaviour::CudaTensorType => torch::cuda_tensor_type(c),
        Behaviour::BindsDevice { device } => torch::binds_device(c, device),
        Behaviour::BindsDeviceUnderLauncher { init, owner } => {
            huggingface::under_launcher(c, init, owner)
        }
        Behaviour::Factory {
            device,
            pin_memory,
            default_device,
            host_tensor,
            ..
        } => torch::factory(c, device, pin_memory, default_device, host_tensor),
        Behaviour::Computes => torch::computes(c),
        Behaviour::LimitsHostThreads { count } => torch::limits_host_threads(c, count),
        Behaviour::CreatesParameters => torch::creates_parameters(c),
        Behaviour::DeviceValue { kind, index } => torch::device_value(c, kind, index),
        Behaviour::CudaDevice { index } => frameworks::cuda_device(c, index),
        Behaviour::SetsDefaultDevice { device } => torch::sets_default_device(c, device),
        Behaviour::SavesTensors { obj, file } => torch::saves_tensors(c, obj, file),
        Behaviour::LoadsTensors { map_location, file } => {
            torch::loads_tensors(c, map_location, file)
        }
        Behaviour::LoadsModel {
            device,
            device_map,
            cuda_when_available,
            auto,
        } => huggingface::loads_model(c, device, device_map, cuda_when_available, auto)?,
        Behaviour::LoadsOnProviders { providers, cuda } => {
            inference::loads_on_providers(c, providers, cuda)?
        }
        Behaviour::ReadsGlobalRank => torch::reads_global_rank(c),
        Behaviour::ReadsRank => torch::reads_rank(c),
        Behaviour::ProcessGroup {
            backend,
            device_id,
            world_size,
        } => torch::process_group(c, backend, device_id, world_size),
        Behaviour::Subgroup { backend } => torch::subgroup(c, backend),
        Behaviour::Collective { device, group, .. } => torch::collective_probes(c, device, group),
        Behaviour::Returns(target) => returns(c, target)?,
        Behaviour::Object => huggingface::object_rows(c)?,
        Behaviour::Answers(answer) => huggingface::answers(c, answer),
        Behaviour::StartsChildren { api, layer } => processes::starts_children(c, api, layer),
        Behaviour::GetContext { layer, method } => processes::get_context(c, layer, method),
        Behaviour::FixesStartMethod {
            allow_none,
            creates_objects,
            makes,
            pythons,
            ..
        } => processes::fixes_start_method(c, allow_none, creates_objects, makes, pythons),
        Behaviour::SetStartMethod { layer, method, .. } => {
            processes::set_start_method(c, layer, method)
        }
        Behaviour::MakesCarrier(carrier) => vec![processes::carries(c, carrier)],
        Behaviour::HandlesRequests => processes::handles_requests(c),
        Behaviour::ParallelEngine { .. } => huggingface::parallel_engine(c, does),
        Behaviour::ForkedTask => processes::forked_task(c),
        Behaviour::Waits => processes::waits(c),
        Behaviour::RunsCommand { .. } => processes::runs_command(c),
        Behaviour::EndsProcess => processes::ends_process(c),
        Behaviour::Loader { .. } => torch::loader(c, does),
        Behaviour::LibraryDataset { transforms } => torch::library_dataset(c, transforms)?,
        Behaviour::IndexesArguments => torch::indexes_arguments(c),
        Behaviour::ForkingDataset => huggingface::forking_dataset(c),
        Behaviour::DictOfKeywords => python::dict_of_keywords(c),
        Behaviour::Partial => python::partial(c),
        Behaviour::Defers => forking::defers(c),
        Behaviour::Compose { steps } => torch::compose(c, steps),
        Behaviour::ReadsEnv { key } => python::reads_env(c, key),
        Behaviour::WritesEnv { key, value } => python::writes_env(c, key, value),
        Behaviour::RemovesEnv { key } => python::removes_env(c, key),
        Behaviour::Environ => python::environ(c),
        Behaviour::Converts { to_int } => python::converts(c, to_int),
        Behaviour::ToHost => torch::to_host(c),
        Behaviour::Iterates(shape) => python::iterates(c, shape),
        Behaviour::CallsArgument(param) => python::calls_argument(c, param),
        Behaviour::Inspects => python::inspects(c),
        Behaviour::Memoises => python::memoises(c),
        Behaviour::EntersAtYield => python::enters_at_yield(c),
        Behaviour::NarrowsVisibility { param } => torch::narrows_visibility(c, param),
        Behaviour::Unpicklable => python::unpicklable(c),
        Behaviour::StartsThread { target, args } => threads::starts_thread(c, target, args),
        Behaviour::ForksWorkers(row) => forking::forks_workers(c, row),
    })
}

/// Called by the alias's name, the row does what its target does.
pub(crate) fn alias(c: &Callee, to: &str) -> Result<Vec<Probe>, String> {
    let target = libraries::rows()
        .find(|r| r.name == to)
        .ok_or_else(|| format!("aliases `{to}`, which is not a row"))?;
    if let Behaviour::Alias(again) = target.does {
        return Err(format!("aliases `{to}`, itself an alias of `{again}`"));
    }
    let found = libraries::lookup(&c.name);
    if found != Some((target.does, target.reason)) {
        return Err(format!("does not look up as `{to}`: {found:?}"));
    }
    probes(c, target.does)
}

/// Called through what it returns (`m = torch.get_device_module()`, then `m.device_count()`), each
/// row under the returned name does what it says.
pub(crate) fn returns(c: &Callee, target: &str) -> Result<Vec<Probe>, String> {
    let under = format!("{target}.");
    let rows: Vec<&Row> = libraries::rows()
        .filter(|r| r.name.starts_with(&under))
        .collect();
    if rows.is_empty() {
        return Err(format!("returns `{target}`, under which no row is named"));
    }
    let mut out = Vec::new();
    for row in rows {
        let through = Callee {
            name: row.name.to_string(),
            setup: format!("{}m = {}()\n", c.setup, c.expr),
            expr: format!("m.{}", &row.name[under.len()..]),
        };
        let label = format!("returns what has `{}`", row.name);
        out.extend(
            probes(&through, row.does)?
                .into_iter()
                .map(|p| p.labelled(&label)),
        );
    }
    Ok(out)
}
