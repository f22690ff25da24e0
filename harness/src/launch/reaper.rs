//! `Reaper`: sweep's record of the children it started itself. Sweep is the child subreaper of its
//! process tree, so a descendant whose parent dies (an MPI rank whose launcher was killed, a daemon a
//! rank forked) becomes sweep's child; any child of sweep that is not in this record is such a stray,
//! and is killed and reaped before a run counts as ended.
//!
//! Processes a SIGKILLed sweep left behind are found by their environment: every child sweep starts
//! carries `SWEEP_OWNER=<pid>-<start time>`, and so does everything it starts in turn (a per-rank
//! program's own daemons, which no process group or death signal reaches once sweep is gone). The next
//! sweep finds those whose owner is dead and kills them before it measures anything.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{kill, killpg, Signal};
use nix::sys::wait::{waitid, waitpid, Id, WaitPidFlag};
use nix::unistd::Pid;

use super::child_spawn::ChildSpawn;

/// Pids of the children sweep started and has not reaped yet, with a count: a pid reaped by a waiter
/// thread may be reused by the next child before the waiter forgets it.
static STARTED: Mutex<BTreeMap<Pid, usize>> = Mutex::new(BTreeMap::new());
/// Set once sweep is the subreaper: only then is an unknown child of sweep a re-parented stray (a
/// library user, like a unit test, may start children of its own).
static SUBREAPER: AtomicBool = AtomicBool::new(false);

/// How long strays may take to disappear after SIGKILL.
const GONE_WAIT: Duration = Duration::from_secs(5);

/// The record of sweep's own children; hold it while starting one so no stray hunt sees it unrecorded.
pub struct Reaper {
    started: MutexGuard<'static, BTreeMap<Pid, usize>>,
}

impl Reaper {
    pub fn lock() -> Reaper {
        Reaper { started: STARTED.lock().unwrap_or_else(|e| e.into_inner()) }
    }

    /// Records `pid` as a child sweep started itself.
    pub fn record(&mut self, pid: Pid) {
        *self.started.entry(pid).or_default() += 1;
    }

    /// Starts `child` and records it.
    pub fn start(mut self, child: &ChildSpawn) -> std::io::Result<Pid> {
        let pid = child.start()?;
        self.record(pid);
        Ok(pid)
    }

    /// Children of sweep it did not start, and everything below them.
    fn strays(&self, tree: &ProcessTree) -> Vec<ProcessInfo> {
        if !SUBREAPER.load(Ordering::SeqCst) {
            return Vec::new();
        }
        let roots: Vec<Pid> =
            tree.children_of(Pid::this()).map(|info| info.pid).filter(|pid| !self.started.contains_key(pid)).collect();
        tree.descendants(&roots)
    }
}

/// Makes sweep the subreaper of everything it starts.
pub fn become_subreaper() -> std::io::Result<()> {
    nix::sys::prctl::set_child_subreaper(true)?;
    SUBREAPER.store(true, Ordering::SeqCst);
    Ok(())
}

/// A child sweep started was reaped.
pub fn forget(pid: Pid) {
    let mut started = STARTED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(count) = started.get_mut(&pid) {
        *count -= 1;
        if *count == 0 {
            started.remove(&pid);
        }
    }
}

/// Whether nothing of a run can be left, shown by a syscall per group instead of a /proc snapshot
/// (hundreds of reads per run): no process, not even a zombie, is in any of its groups, none was seen
/// below it, and sweep has no child at all. A live descendant of the run's reaped processes would be
/// sweep's child, or below one: re-parented to sweep, the subreaper. (Without the subreaper, strays go
/// to init and are not looked for: see `Reaper::strays`.)
fn nothing_left(groups: &[Pid], seen: &[Pid]) -> bool {
    let no_children =
        || waitid(Id::All, WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT) == Err(Errno::ECHILD);
    seen.is_empty()
        && groups.iter().all(|&group| killpg(group, None) == Err(Errno::ESRCH))
        && (!SUBREAPER.load(Ordering::SeqCst) || no_children())
}

/// Every process below `roots` (this run's own children, not included) and every stray: taken before the run's
/// groups are signalled, since a descendant whose parent dies first leaves the tree (to sweep as a
/// stray, or to init when sweep is not the subreaper).
pub fn descendants_and_strays(roots: &[Pid]) -> Vec<Pid> {
    let reaper = Reaper::lock();
    let tree = ProcessTree::snapshot();
    let below = tree.descendants(roots).into_iter().filter(|info| !roots.contains(&info.pid));
    below.chain(reaper.strays(&tree)).map(|info| info.pid).collect()
}

/// SIGKILLs everything left in `groups`, the processes `seen` below the run when it was stopped,
/// every stray and everything below them, reaps the strays, and returns once none is left (or after
/// `GONE_WAIT`). The run is over, so the short sleeps here perturb no measurement; normally nothing
/// is left at the first look, and then `nothing_left` proves it without reading /proc.
pub fn kill_leftovers(groups: &[Pid], seen: &[Pid]) {
    if nothing_left(groups, seen) {
        return;
    }
    let deadline = Instant::now() + GONE_WAIT;
    loop {
        let reaper = Reaper::lock();
        let tree = ProcessTree::snapshot();
        let strays = reaper.strays(&tree);
        let grouped: Vec<ProcessInfo> =
            tree.in_groups(groups).chain(seen.iter().filter_map(|pid| tree.get(*pid))).copied().collect();
        let alive: Vec<&ProcessInfo> = strays.iter().chain(&grouped).filter(|info| !info.zombie).collect();
        for info in &alive {
            let _ = kill(info.pid, Signal::SIGKILL);
        }
        // A stray is our child: reap it (it may be a zombie already), else it stays in the table.
        let children: Vec<Pid> = strays.iter().filter(|info| info.parent == Pid::this()).map(|info| info.pid).collect();
        drop(reaper);
        for pid in children {
            let _ = waitpid(pid, Some(WaitPidFlag::WNOHANG));
        }
        let any_stray_left = strays.iter().any(|info| info.parent == Pid::this());
        if (alive.is_empty() && !any_stray_left) || Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// One process as /proc/<pid>/stat shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessInfo {
    pub pid: Pid,
    pub parent: Pid,
    pub group: Pid,
    /// Exited and waiting to be reaped: it holds no resources and runs no code.
    pub zombie: bool,
}

/// Every live process, keyed by pid: a snapshot of every process's parent and group from /proc, to find
/// the descendants of a run that left its process groups (OpenMPI ranks take their own) or its parent
/// (re-parented).
#[derive(Debug, Clone, Default)]
pub struct ProcessTree {
    processes: BTreeMap<Pid, ProcessInfo>,
}

impl ProcessTree {
    pub fn snapshot() -> ProcessTree {
        let Ok(entries) = std::fs::read_dir("/proc") else { return ProcessTree::default() };
        let processes = entries
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .filter_map(|pid| {
                // A process may exit between the listing and the read; it is simply not in the snapshot.
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
                parse_stat(pid, &stat)
            })
            .map(|info| (info.pid, info))
            .collect();
        ProcessTree { processes }
    }

    /// `roots` and every process below them (children, grandchildren, ...), roots first.
    pub fn descendants(&self, roots: &[Pid]) -> Vec<ProcessInfo> {
        let mut children: BTreeMap<Pid, Vec<Pid>> = BTreeMap::new();
        for info in self.processes.values() {
            children.entry(info.parent).or_default().push(info.pid);
        }
        let mut seen = BTreeSet::new();
        let mut found = Vec::new();
        let mut queue: Vec<Pid> = roots.to_vec();
        while let Some(pid) = queue.pop() {
            if !seen.insert(pid) {
                continue;
            }
            if let Some(info) = self.processes.get(&pid) {
                found.push(*info);
            }
            queue.extend(children.get(&pid).into_iter().flatten());
        }
        found
    }

    pub fn get(&self, pid: Pid) -> Option<&ProcessInfo> {
        self.processes.get(&pid)
    }

    /// Processes whose parent is `parent`.
    pub fn children_of(&self, parent: Pid) -> impl Iterator<Item = &ProcessInfo> {
        self.processes.values().filter(move |info| info.parent == parent)
    }

    /// Live (not zombie) processes in any of `groups`.
    pub fn in_groups<'a>(&'a self, groups: &'a [Pid]) -> impl Iterator<Item = &'a ProcessInfo> {
        self.processes.values().filter(move |info| !info.zombie && groups.contains(&info.group))
    }
}

/// `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses, so split at the last `)`.
fn parse_stat(pid: i32, stat: &str) -> Option<ProcessInfo> {
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    let parent = fields.next()?.parse().ok()?;
    let group = fields.next()?.parse().ok()?;
    Some(ProcessInfo {
        pid: Pid::from_raw(pid),
        parent: Pid::from_raw(parent),
        group: Pid::from_raw(group),
        zombie: state == "Z",
    })
}

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
    fn stat_with_spaces_and_parentheses_in_the_name_parses() {
        let info = parse_stat(42, "42 (tp engine (x)) S 7 42 7 0 -1").unwrap();
        assert_eq!((info.parent, info.group, info.zombie), (Pid::from_raw(7), Pid::from_raw(42), false));
        assert!(parse_stat(43, "43 (a) Z 1 43 1").unwrap().zombie);
    }

    #[test]
    fn descendants_include_grandchildren_that_left_the_group() {
        let mut child = std::process::Command::new("sh")
            .args(["-c", "setsid sleep 30 & echo $!; wait"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(&mut std::io::BufReader::new(child.stdout.take().unwrap()), &mut line).unwrap();
        let grandchild = Pid::from_raw(line.trim().parse().unwrap());
        // setsid(1) runs in the background job: wait until it has left our group.
        let moved = || ProcessTree::snapshot().processes.get(&grandchild).is_some_and(|p| p.group == grandchild);
        while !moved() {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        let tree = ProcessTree::snapshot();
        let below = tree.descendants(&[Pid::from_raw(child.id() as i32)]);
        assert!(below.iter().any(|info| info.pid == grandchild && info.group != nix::unistd::getpgrp()), "{below:?}");
        nix::sys::signal::kill(grandchild, nix::sys::signal::Signal::SIGKILL).unwrap();
        child.wait().unwrap();
    }

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
