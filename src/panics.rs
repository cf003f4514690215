//! What a caught panic said: a frontend or analysis that panics on one file or crate becomes that
//! file's internal error, and the run goes on. Both frontends' checks use it (`check`, `rust`).

/// What a caught panic said, for the internal-error report of the file whose check it ended.
pub fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}
