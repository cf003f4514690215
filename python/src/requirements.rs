//! The versions a project says it runs with: its dependencies' pins (`vllm==0.5.1`) and lower
//! bounds (`vllm>=0.8`), for the rows whose behaviour changed between versions.

use std::sync::Arc;

/// A version as its first three numbers (`0.6.4.post1` is `[0, 6, 4]`).
pub type Version = [u32; 3];

/// What the project says about one package's version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pin {
    Exact(Version),
    AtLeast(Version),
}

/// The project's dependencies with a version constraint gpulint can use, by normalised name.
#[derive(Clone, Debug, Default)]
pub struct Requirements(Arc<Vec<(String, Pin)>>);

impl Requirements {
    /// From PEP 508 requirement strings (`pyproject.toml`'s `dependencies`, lines of
    /// `requirements.txt`); what cannot be read is left out.
    pub fn parse<'a>(specs: impl IntoIterator<Item = &'a str>) -> Requirements {
        Requirements(Arc::new(
            specs.into_iter().filter_map(requirement).collect(),
        ))
    }

    /// Whether the installed `package` is at least `version`: `None` when the project does not
    /// say.
    pub fn at_least(&self, package: &str, version: Version) -> Option<bool> {
        let package = normalise(package);
        let (_, pin) = self.0.iter().find(|(name, _)| *name == package)?;
        match *pin {
            Pin::Exact(v) => Some(v >= version),
            Pin::AtLeast(v) if v >= version => Some(true),
            Pin::AtLeast(_) => None,
        }
    }

    /// Whether the project's pin puts `package` in the releases from `since` up to `before`
    /// (`None`: every later one): `false` when it does not say.
    pub fn within(&self, package: &str, since: Version, before: Option<Version>) -> bool {
        self.at_least(package, since) == Some(true)
            && before.is_none_or(|b| self.at_least(package, b) == Some(false))
    }
}

/// PEP 503 names: case and `-`/`_`/`.` runs do not matter.
fn normalise(name: &str) -> String {
    name.to_ascii_lowercase().replace(['_', '.'], "-")
}

fn requirement(spec: &str) -> Option<(String, Pin)> {
    // Environment markers and comments do not change the version.
    let spec = spec.split([';', '#']).next()?.trim();
    let end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(spec.len());
    let (name, rest) = spec.split_at(end);
    if name.is_empty() {
        return None;
    }
    // Extras (`vllm[audio]`) come before the constraints.
    let rest = match rest.trim_start().strip_prefix('[') {
        Some(extras) => extras.split_once(']')?.1,
        None => rest,
    };
    let mut pin = None;
    for constraint in rest.split(',').map(str::trim) {
        if let Some(v) = constraint.strip_prefix("==") {
            // `==0.6.*` says only where the series starts.
            match v.trim().strip_suffix(".*") {
                Some(series) => pin = Some(Pin::AtLeast(version(series)?)),
                None => return Some((normalise(name), Pin::Exact(version(v)?))),
            }
        } else if let Some(v) = constraint
            .strip_prefix(">=")
            .or_else(|| constraint.strip_prefix("~="))
        {
            pin = Some(Pin::AtLeast(version(v)?));
        }
    }
    Some((normalise(name), pin?))
}

fn version(text: &str) -> Option<Version> {
    let mut out = [0; 3];
    let mut parts = text.trim().split('.');
    for (i, slot) in out.iter_mut().enumerate() {
        match parts.next() {
            // The first number must be there; later ones default to 0 (`2.11` is `2.11.0`).
            Some(p) => {
                let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
                match digits.parse() {
                    Ok(n) => *slot = n,
                    Err(_) if i > 0 => break,
                    Err(_) => return None,
                }
                if digits.len() < p.len() {
                    break;
                }
            }
            None if i > 0 => break,
            None => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pins_and_lower_bounds_are_read() {
        let r = Requirements::parse([
            "vllm==0.6.4.post1",
            "Torch>=2.5 ; platform_system == 'Linux'",
            "transformers[torch]~=4.46",
            "datasets",
            "numpy<2",
            "flash_attn==2.6.*",
        ]);
        assert_eq!(r.at_least("vllm", [0, 6, 5]), Some(false));
        assert_eq!(r.at_least("vllm", [0, 6, 4]), Some(true));
        assert_eq!(r.at_least("torch", [2, 0, 0]), Some(true));
        assert_eq!(r.at_least("torch", [2, 11, 0]), None);
        assert_eq!(r.at_least("transformers", [4, 40, 0]), Some(true));
        assert_eq!(r.at_least("datasets", [1, 0, 0]), None);
        assert_eq!(r.at_least("numpy", [1, 0, 0]), None);
        assert_eq!(r.at_least("flash-attn", [2, 6, 0]), Some(true));
        assert_eq!(r.at_least("absent", [0, 0, 1]), None);
    }
}
