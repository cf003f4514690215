//! Process identity and liveness.

/// The calling process's pid, asked of the kernel each time (a forked child must see its own).
pub fn current() -> i32 {
    // SAFETY: getpid has no preconditions.
    unsafe { libc::getpid() }
}

/// A pid is live when /proc/<pid> exists and it is not a zombie (or dead): a process that exited
/// but was not reaped yet holds no GPU memory any more.
pub fn alive(pid: i32) -> bool {
    if pid <= 0 {
        return false;
    }
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The command name in parentheses may hold spaces or ')': the state follows the last ')'.
    let state = stat
        .rfind(')')
        .and_then(|i| stat[i + 1..].trim_start().chars().next());
    !matches!(state, None | Some('Z') | Some('X') | Some('x'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn liveness() {
        assert!(alive(current()));
        assert!(!alive(0));
        assert!(!alive(-5));

        // Exited but not reaped: a zombie.
        let mut zombie = Command::new("true").spawn().unwrap();
        let pid = zombie.id() as i32;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while alive(pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(!alive(pid), "zombie counted as live");
        zombie.wait().unwrap();
        // Reaped: /proc/<pid> is gone.
        assert!(!alive(pid));
    }
}
