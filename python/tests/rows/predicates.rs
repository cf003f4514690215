//! Effect predicates: what a probe looks for among the effects of its program.

use super::*;
use gpulint_core::effect::Launcher;

pub(crate) fn init_at(level: Init) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::CudaInit { site, .. } if site.level == level)
}

pub(crate) fn init_failing(level: Init, fails: bool) -> impl Fn(&Effect) -> bool {
    move |e| match e {
        Effect::CudaInit {
            site,
            fails_in_child,
        } => site.level == level && *fails_in_child == fails,
        _ => false,
    }
}

pub(crate) fn any_init(e: &Effect) -> bool {
    matches!(e, Effect::CudaInit { .. })
}

pub(crate) fn object(index: DeviceIndex) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::CudaObjectCreated { object, .. } if object.index == index)
}

pub(crate) fn host_compute(e: &Effect) -> bool {
    matches!(e, Effect::HostCompute { .. })
}

pub(crate) fn threads_limited(e: &Effect) -> bool {
    matches!(e, Effect::HostThreadsLimited { .. })
}

pub(crate) fn any_object(e: &Effect) -> bool {
    matches!(e, Effect::CudaObjectCreated { .. })
}

/// A CUDA object sent to another process through this kind of channel.
pub(crate) fn sent(channel: Channel) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::CudaObjectSent { channel: c, .. } if *c == channel)
}

pub(crate) fn waited(e: &Effect) -> bool {
    matches!(e, Effect::WaitedForOthers { .. })
}

/// Lines that send the CUDA tensor `t` through what `carrier` makes, bound to `c`.
pub(crate) fn send_through(carrier: Carrier) -> (&'static str, Channel) {
    match carrier {
        Carrier::Queue => ("c.put(t)", Channel::Queue),
        Carrier::Pipe => ("a, b = c\na.send(t)", Channel::Queue),
        Carrier::Manager => ("d = c.dict()\nd['k'] = t", Channel::ManagerProxy),
    }
}

/// A read of the variable `name` holding a CUDA object.
pub(crate) fn uses(name: &str) -> impl Fn(&Effect) -> bool {
    let quoted = format!("uses `{name}`,");
    move |e| matches!(e, Effect::CudaUsed { what, .. } if what.contains(&quoted))
}

/// A use of a CUDA object held by the global binding `name`.
pub(crate) fn global_use(name: &'static str) -> impl Fn(&Effect) -> bool {
    move |e| match e {
        Effect::CudaUsed { object, .. } => {
            object.global.as_ref().is_some_and(|(n, _)| &**n == name)
        }
        _ => false,
    }
}

pub(crate) fn child(launcher: &'static Launcher) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::ChildStarted(c) if c.launcher == launcher)
}

pub(crate) fn child_by(
    launcher: &'static Launcher,
    method: StartMethod,
) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::ChildStarted(c) if c.launcher == launcher && c.start_method == method)
}

/// A child of this kind that starts with its parent's CUDA state.
pub(crate) fn inheriting(launcher: &'static Launcher) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::ChildStarted(c) if c.launcher == launcher && c.parent_init.is_some())
}

pub(crate) fn any_child(e: &Effect) -> bool {
    matches!(e, Effect::ChildStarted(_))
}

/// The child runs this function (`work`, `Items.__getitem__`).
pub(crate) fn runs(function: &str) -> impl Fn(&Effect) -> bool {
    let quoted = format!("`{function}`");
    move |e| matches!(e, Effect::ChildRuns { code } if **code == *quoted)
}

pub(crate) fn bound(binding: Binding, chooses: bool) -> impl Fn(&Effect) -> bool {
    move |e| match e {
        Effect::DeviceBound {
            binding: b,
            chooses: c,
            ..
        } => *b == binding && *c == chooses,
        _ => false,
    }
}

pub(crate) fn any_bound(e: &Effect) -> bool {
    matches!(e, Effect::DeviceBound { .. })
}

pub(crate) fn group(backend: Backend, given: bool) -> impl Fn(&Effect) -> bool {
    move |e| match e {
        Effect::ProcessGroupCreated {
            backend: b,
            device_given,
            ..
        } => *b == backend && *device_given == given,
        _ => false,
    }
}

pub(crate) fn any_group(e: &Effect) -> bool {
    matches!(e, Effect::ProcessGroupCreated { .. })
}

/// A collective (named `name`, when given) on an explicit device or group, or not.
pub(crate) fn collective(name: Option<String>, explicit: bool) -> impl Fn(&Effect) -> bool {
    move |e| match e {
        Effect::CollectiveRun {
            name: n,
            explicit_device,
            ..
        } => name.as_deref().is_none_or(|name| **n == *name) && *explicit_device == explicit,
        _ => false,
    }
}

pub(crate) fn start_set(method: StartMethod) -> impl Fn(&Effect) -> bool {
    move |e| match e {
        Effect::StartMethodSet {
            method: m,
            at_module_scope,
            ..
        } => *m == method && *at_module_scope,
        _ => false,
    }
}

pub(crate) fn from_global_rank(e: &Effect) -> bool {
    matches!(e, Effect::DeviceFromGlobalRank { .. })
}

pub(crate) fn launched(nodes: Nodes) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::Launched { nodes: n, .. } if *n == nodes)
}

pub(crate) fn any_launch(e: &Effect) -> bool {
    matches!(e, Effect::Launched { .. })
}

pub(crate) fn saved(host: bool) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::CheckpointSaved { host_only, .. } if *host_only == host)
}

pub(crate) fn unmapped(e: &Effect) -> bool {
    matches!(e, Effect::UnmappedLoad { .. })
}

pub(crate) fn written(key: &str) -> impl Fn(&Effect) -> bool {
    let key = key.to_string();
    move |e| matches!(e, Effect::EnvWritten { key: k, .. } if **k == *key)
}

pub(crate) fn visibility(kind: VisibilityWrite) -> impl Fn(&Effect) -> bool {
    move |e| matches!(e, Effect::EnvWritten { visibility: Some(v), .. } if *v == kind)
}

pub(crate) fn written_as(key: &'static str, value: &'static str) -> impl Fn(&Effect) -> bool {
    move |e| match e {
        Effect::EnvWritten {
            key: k,
            value: Some(v),
            ..
        } => &**k == key && &**v == value,
        _ => false,
    }
}

/// Some `b` comes after the first `a`.
pub(crate) fn after(
    a: impl Fn(&Effect) -> bool + 'static,
    b: impl Fn(&Effect) -> bool + 'static,
) -> impl Fn(&[Effect]) -> bool {
    move |e| e.iter().position(&a).is_some_and(|i| e[i..].iter().any(&b))
}

/// The first `a` comes before the first `b`.
pub(crate) fn before(
    a: impl Fn(&Effect) -> bool + 'static,
    b: impl Fn(&Effect) -> bool + 'static,
) -> impl Fn(&[Effect]) -> bool {
    move |e| match (e.iter().position(&a), e.iter().position(&b)) {
        (Some(i), Some(j)) => i < j,
        _ => false,
    }
}

/// A value handed to a child that holds, in attribute `attr`, an object pickle refuses.
pub(crate) fn holds(attr: &'static str) -> impl Fn(&Effect) -> bool {
    move |e| match e {
        Effect::UnserializableSent(sent) => {
            matches!(&sent.why, Unserializable::Holds { attr: a, .. } if &**a == attr)
        }
        _ => false,
    }
}
