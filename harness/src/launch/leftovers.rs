//! Processes a SIGKILLed sweep left behind. Every child sweep starts carries `SWEEP_OWNER=<pid>-<start
//! time>` in its environment, and so does everything it starts in turn (a per-rank program's own
//! daemons, which no process group or death signal reaches once sweep is gone). The next sweep finds
//! those whose owner is dead and kills them before it measures anything.

use std::sync::OnceLock;

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

use super::reaper::ProcessTree;

/// The environment variable naming the sweep a process belongs to.
pub const OWNER_VAR: &str = "SWEEP_OWNER";
/// The host of that sweep (beside it, not in it, so a sweep that does not know it still reads the
/// owner): a rank srun started on another node is that node's sweep to judge, by a pid of that node.
pub const OWNER_HOST_VAR: &str = "SWEEP_OWNER_HOST";

/// This sweep's `SWEEP_OWNER` value: pid and start time, so a reused pid is not taken for it.
pub fn owner() -> &'static str {
    static OWNER: OnceLock<String> = OnceLock::new();
    OWNER.get_or_init(|| format!("{}-{}", std::process::id(), start_time(Pid::this()).unwrap_or_default()))
}

/// SIGKILLs every process of this user whose `SWEEP_OWNER` names a sweep that is no longer running;
/// returns their pids.
pub fn kill_leftovers_of_dead_sweeps() -> Vec<Pid> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .map(Pid::from_raw)
        // Another user's environment is unreadable: never ours to kill.
        .filter(|pid| {
            let of_this_host = env_of(*pid, OWNER_HOST_VAR).is_none_or(|host| host == self::host());
            of_this_host && env_of(*pid, OWNER_VAR).is_some_and(|owner| owner != self::owner() && !alive(&owner))
        })
        .filter(|pid| kill(*pid, Signal::SIGKILL).is_ok())
        .collect()
}

/// SIGKILLs the processes of process group `group` that a sweep started (they carry `SWEEP_OWNER`),
/// so a recorded group whose id was reused since is left alone; returns how many were alive.
pub fn kill_sweep_group(group: Pid) -> usize {
    let members: Vec<Pid> = ProcessTree::snapshot().in_groups(&[group]).map(|info| info.pid).collect();
    members.into_iter().filter(|pid| env_of(*pid, OWNER_VAR).is_some() && kill(*pid, Signal::SIGKILL).is_ok()).count()
}

/// This host's name, as `OWNER_HOST_VAR` holds it.
pub fn host() -> &'static str {
    static HOST: OnceLock<String> = OnceLock::new();
    HOST.get_or_init(|| nix::unistd::gethostname().map(|h| h.to_string_lossy().into_owned()).unwrap_or_default())
}

/// The value of `name` in a process's environment, if it has one (and we may read it).
fn env_of(pid: Pid, name: &str) -> Option<String> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    let prefix = format!("{name}=");
    environ
        .split(|&byte| byte == 0)
        .find_map(|entry| String::from_utf8_lossy(entry).strip_prefix(&prefix).map(str::to_string))
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
    fn a_process_of_a_dead_sweep_of_another_host_is_left_to_that_host() {
        let mut remote = std::process::Command::new("sleep")
            .arg("30")
            .env(OWNER_VAR, "1-0")
            .env(OWNER_HOST_VAR, format!("not-{}", host()))
            .spawn()
            .unwrap();
        let killed = kill_leftovers_of_dead_sweeps();
        assert!(!killed.contains(&Pid::from_raw(remote.id() as i32)), "{killed:?}");
        // (An older sweep on this machine, which reads no host, may have killed it meanwhile.)
        let _ = remote.kill();
        remote.wait().unwrap();
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
