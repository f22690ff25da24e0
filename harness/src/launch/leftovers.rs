//! Processes a SIGKILLed sweep left behind. Every child sweep starts carries `SWEEP_OWNER=<pid>-<start
//! time>` in its environment, and so does everything it starts in turn (a per-rank program's own
//! daemons, which no process group or death signal reaches once sweep is gone). The next sweep finds
//! those whose owner is dead and kills them before it measures anything.

use std::sync::OnceLock;

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use super::process_tree::ProcessTree;

/// The environment variable naming the sweep a process belongs to.
pub const OWNER_VAR: &str = "SWEEP_OWNER";

/// This sweep's `SWEEP_OWNER` value: host, pid and start time, so a reused pid is not taken for it
/// and a rank srun started on another node is not judged by a pid of that node.
pub fn owner() -> &'static str {
    static OWNER: OnceLock<String> = OnceLock::new();
    OWNER.get_or_init(|| format!("{}:{}-{}", host(), std::process::id(), start_time(Pid::this()).unwrap_or_default()))
}

fn host() -> String {
    nix::unistd::gethostname().map(|h| h.to_string_lossy().into_owned()).unwrap_or_default()
}

/// SIGKILLs every process of this user whose `SWEEP_OWNER` names a sweep that is no longer running;
/// returns their pids.
pub fn kill_leftovers_of_dead_sweeps() -> Vec<Pid> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .map(Pid::from_raw)
        // Another user's environment is unreadable: never ours to kill.
        .filter(|pid| owner_of(*pid).is_some_and(|owner| owner != self::owner() && dead_here(&owner)))
        .filter(|pid| kill(*pid, Signal::SIGKILL).is_ok())
        .collect()
}

/// SIGKILLs the processes of process group `group` that a sweep started (they carry `SWEEP_OWNER`),
/// so a recorded group whose id was reused since is left alone; returns how many were alive.
pub fn kill_sweep_group(group: Pid) -> usize {
    let members: Vec<Pid> = ProcessTree::snapshot().in_groups(&[group]).map(|info| info.pid).collect();
    members.into_iter().filter(|pid| owner_of(*pid).is_some() && kill(*pid, Signal::SIGKILL).is_ok()).count()
}

/// The `SWEEP_OWNER` of a process, if it has one (and we may read its environment).
fn owner_of(pid: Pid) -> Option<String> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{OWNER_VAR}=");
    environ
        .split(|&byte| byte == 0)
        .find_map(|entry| String::from_utf8_lossy(entry).strip_prefix(&prefix).map(str::to_string))
}

/// Whether `owner` (`<host>:<pid>-<start time>`, or without the host as written before it was
/// recorded) is a sweep of this host that no longer runs. A sweep of another host (whose ranks srun
/// started here) is that host's to judge: its pid means nothing here.
fn dead_here(owner: &str) -> bool {
    match owner.rsplit_once(':') {
        Some((host, local)) => host == self::host() && !alive(local),
        None => !alive(owner),
    }
}

/// Whether the sweep `owner` (`<pid>-<start time>`) still runs.
fn alive(owner: &str) -> bool {
    let Some((pid, started)) = owner.split_once('-') else { return false };
    let Ok(pid) = pid.parse::<i32>() else { return false };
    start_time(Pid::from_raw(pid)).is_some_and(|now| now.to_string() == started)
}

/// Field 22 of /proc/<pid>/stat: when the process started, in clock ticks after boot.
fn start_time(pid: Pid) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_of_another_host_is_not_judged_by_a_pid_of_this_one() {
        assert!(!dead_here("another-node:1-0"));
        assert!(dead_here(&format!("{}:1-0", host())));
        assert!(dead_here("1-0"), "a mark written before marks named their host");
        assert!(!dead_here(owner()));
    }

    #[test]
    fn a_process_of_a_dead_sweep_is_killed_and_one_of_a_live_sweep_is_not() {
        let spawn = |owner: &str| std::process::Command::new("sleep").arg("30").env(OWNER_VAR, owner).spawn().unwrap();
        // pid 1 never started at this time; our own owner is alive.
        let mut orphan = spawn("1-0");
        let mut ours = spawn(owner());
        let killed = kill_leftovers_of_dead_sweeps();
        assert!(!killed.contains(&Pid::from_raw(ours.id() as i32)));
        // (Another sweep on this machine may have been first to kill it: that it died is what counts.)
        assert!(!orphan.wait().unwrap().success(), "{killed:?}");
        ours.kill().unwrap();
        ours.wait().unwrap();
    }
}
