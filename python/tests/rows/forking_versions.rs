//! Probes of a `ForksWorkers` row that forks only in some versions of its library: its probes run
//! with the library pinned where it forks; pinned from the version that stopped, or not pinned at
//! all, the same call starts no child.

use super::*;
use forking::Case;
use gpulint_python::requirements::{Requirements, Version};
use launchers::Versions;

/// The project's pins: `package` at exactly `version`.
fn pinned(package: &str, version: Version) -> Settings {
    let [major, minor, patch] = version;
    Settings {
        requirements: Requirements::parse([format!("{package}=={major}.{minor}.{patch}").as_str()]),
        ..Settings::default()
    }
}

/// `cases` run with the library pinned at the first version that forks, and the call with its
/// workers asked for (`forked`) run pinned where it no longer forks, and with no pin.
pub(crate) fn versioned(v: Versions, cases: Vec<Case>, forked: String) -> Vec<Case> {
    let mut out: Vec<Case> = cases
        .into_iter()
        .map(|(label, body, check)| -> Case {
            let settings = move || pinned(v.package, v.since);
            (
                label,
                body,
                Box::new(move |p: Probe| check(p.settings(settings()))),
            )
        })
        .collect();
    out.push((
        "no worker processes from the version that stopped forking",
        forked.clone(),
        Box::new(move |p: Probe| {
            p.settings(pinned(v.package, v.until))
                .lacks("a child", any_child)
        }),
    ));
    out.push((
        "no worker processes where the project does not say its version",
        forked,
        Box::new(|p: Probe| p.lacks("a child", any_child)),
    ));
    out
}
