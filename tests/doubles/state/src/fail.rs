//! Failure injection: `GPUDOUBLE_FAIL=symbol=code,symbol=code` makes that exported function
//! return that code at once, doing nothing.

pub const FAIL_VAR: &str = "GPUDOUBLE_FAIL";

/// The code injected for `symbol`, read from the environment on every call so that a test can
/// choose it per process.
pub fn injected(symbol: &str) -> Option<i64> {
    std::env::var(FAIL_VAR)
        .ok()
        .and_then(|list| lookup(&list, symbol))
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
}
