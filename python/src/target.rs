//! The Python version and platform the code will run on, which decide the default start method:
//! fork on Linux before Python 3.14, forkserver on Linux from 3.14, spawn on macOS and Windows.

use crate::libraries::processes::StartMethod;

/// A `major.minor` Python version.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PythonVersion {
    pub major: u32,
    pub minor: u32,
}

impl PythonVersion {
    /// What gpulint assumes when nothing says otherwise.
    pub const DEFAULT: PythonVersion = PythonVersion {
        major: 3,
        minor: 10,
    };

    /// `py310`, `py3.10` or `3.10`.
    pub fn parse(text: &str) -> Option<PythonVersion> {
        let digits = text.trim().trim_start_matches("py");
        let (major, minor) = match digits.split_once('.') {
            Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
            None if digits.len() >= 2 && digits.is_ascii() => {
                (digits[..1].parse().ok()?, digits[1..].parse().ok()?)
            }
            None => return None,
        };
        (major == 3).then_some(PythonVersion { major, minor })
    }

    /// The oldest version a `requires-python` specifier admits (`>=3.9,<3.13` → 3.9), as ruff
    /// infers its target version; `None` when it sets no lower bound.
    pub fn from_requires_python(spec: &str) -> Option<PythonVersion> {
        spec.split(',')
            .filter_map(|clause| {
                let clause = clause.trim();
                // `>3.9` admits 3.9.1: the oldest minor version is still 3.9.
                let version = ["~=", ">=", "==", ">"]
                    .iter()
                    .find_map(|op| clause.strip_prefix(op))?;
                let mut parts = version.trim().split('.');
                let major: u32 = parts.next()?.trim().parse().ok()?;
                let minor: u32 = parts.next().map_or(Some(0), |m| m.trim().parse().ok())?;
                (major == 3).then_some(PythonVersion { major, minor })
            })
            .min()
    }
}

impl std::fmt::Display for PythonVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "py{}{}", self.major, self.minor)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platform {
    Linux,
    Macos,
    Windows,
}

impl Platform {
    pub fn parse(text: &str) -> Option<Platform> {
        match text.trim().to_ascii_lowercase().as_str() {
            "linux" => Some(Platform::Linux),
            "macos" | "darwin" => Some(Platform::Macos),
            "windows" | "win32" => Some(Platform::Windows),
            _ => None,
        }
    }
}

/// The start method `multiprocessing`'s default context uses there.
pub fn default_start_method(version: PythonVersion, platform: Platform) -> StartMethod {
    match platform {
        Platform::Macos | Platform::Windows => StartMethod::Spawn,
        Platform::Linux
            if version
                >= (PythonVersion {
                    major: 3,
                    minor: 14,
                }) =>
        {
            StartMethod::Forkserver
        }
        Platform::Linux => StartMethod::Fork,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(minor: u32) -> PythonVersion {
        PythonVersion { major: 3, minor }
    }

    #[test]
    fn versions_parse_in_the_usual_spellings() {
        assert_eq!(PythonVersion::parse("py314"), Some(v(14)));
        assert_eq!(PythonVersion::parse("py39"), Some(v(9)));
        assert_eq!(PythonVersion::parse("3.12"), Some(v(12)));
        assert_eq!(PythonVersion::parse("py2"), None);
        assert_eq!(PythonVersion::parse("python"), None);
        assert_eq!(PythonVersion::parse("é"), None);
        assert_eq!(PythonVersion::parse("3é"), None);
    }

    #[test]
    fn requires_python_gives_the_oldest_admitted_version() {
        assert_eq!(PythonVersion::from_requires_python(">=3.9"), Some(v(9)));
        assert_eq!(
            PythonVersion::from_requires_python(">=3.8, <3.13"),
            Some(v(8))
        );
        assert_eq!(PythonVersion::from_requires_python("~=3.14"), Some(v(14)));
        assert_eq!(PythonVersion::from_requires_python("==3.11.*"), Some(v(11)));
        assert_eq!(PythonVersion::from_requires_python("<3.13"), None);
    }

    #[test]
    fn the_default_start_method_follows_version_and_platform() {
        use StartMethod::*;
        assert_eq!(default_start_method(v(13), Platform::Linux), Fork);
        assert_eq!(default_start_method(v(14), Platform::Linux), Forkserver);
        assert_eq!(default_start_method(v(10), Platform::Macos), Spawn);
        assert_eq!(default_start_method(v(10), Platform::Windows), Spawn);
    }
}
