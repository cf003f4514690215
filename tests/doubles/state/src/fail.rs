//! Failure injection: `GPUDOUBLE_FAIL=symbol=code,symbol=code` makes that exported function
//! return that code at once, doing nothing; `symbol=abort` makes it crash the process (SIGABRT),
//! as a driver that faults does.

pub const FAIL_VAR: &str = "GPUDOUBLE_FAIL";

/// The code injected for `symbol`, read from the environment on every call so that a test can
/// choose it per process.
pub fn injected(symbol: &str) -> Option<i64> {
    let list = std::env::var(FAIL_VAR).ok()?;
    if crashes(&list, symbol) {
        std::process::abort();
    }
    lookup(&list, symbol)
}

/// Whether `symbol` is listed as `symbol=abort`.
pub fn crashes(list: &str, symbol: &str) -> bool {
    list.split(',')
        .filter_map(|entry| entry.split_once('='))
        .any(|(name, what)| name.trim() == symbol && what.trim() == "abort")
}

/// Finds `symbol` in a `name=code` comma list; malformed entries are skipped.
pub fn lookup(list: &str, symbol: &str) -> Option<i64> {
    list.split(',')
        .filter_map(|entry| entry.split_once('='))
        .find(|(name, _)| name.trim() == symbol)
        .and_then(|(_, code)| code.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::lookup;

    #[test]
    fn parses_the_list() {
        let list = "cuMemAlloc_v2=2, ncclCommInitRank=2,nvmlInit_v2=9,broken,cuInit=x";
        assert_eq!(lookup(list, "cuMemAlloc_v2"), Some(2));
        assert_eq!(lookup(list, "ncclCommInitRank"), Some(2));
        assert_eq!(lookup(list, "nvmlInit_v2"), Some(9));
        assert_eq!(lookup(list, "cuInit"), None);
        assert_eq!(lookup(list, "cuMemAlloc"), None);
        assert_eq!(lookup("", "cuInit"), None);
    }

    #[test]
    fn abort_is_a_crash_not_a_code() {
        let list = "cuMemAlloc_v2=abort,cuInit=3";
        assert!(super::crashes(list, "cuMemAlloc_v2"));
        assert!(!super::crashes(list, "cuInit"));
        assert_eq!(lookup(list, "cuMemAlloc_v2"), None);
    }
}
