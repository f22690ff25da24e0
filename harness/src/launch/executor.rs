//! Starts a run's processes (and every other child of sweep: builds, version probes, the setup
//! script), each in its own process group, and waits for them without polling: one waiter thread
//! per process and one channel; timeout, a failing rank or a signal terminate every group and every
//! descendant (SIGTERM, grace period, SIGKILL) so no process outlives its run.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::os::fd::OwnedFd;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant, SystemTime};

use nix::fcntl::OFlag;
use nix::sys::signal::{kill, killpg, Signal};
use nix::sys::wait::waitpid;
use nix::unistd::{fork, getppid, pipe2, read, setpgid, write, ForkResult, Pid};

use super::child_spawn::{wait_for_exit, ChildSpawn};
use super::reaper::{self, host, owner, Reaper, OWNER_HOST_VAR, OWNER_VAR};
use super::run_commands::RankCommand;
use super::service_commands::ServiceCommand;
use super::signal_watch::{self, Event, Subscription};
use super::stop_reason::{Execution, ServiceNotReady, StopReason};
use crate::confined_dir::ConfinedDir;
use crate::ground::BaseEnv;

/// Told each new process group before anything runs in it, when a group must be recorded first.
type OnGroup<'a, 'f> = Option<&'a mut (dyn FnMut(Pid) -> std::io::Result<()> + 'f)>;

/// Runs `commands` in `cwd` to completion or until they must be stopped, each log created below `logs`
/// (no link there followed). A signal received before the call starts nothing.
pub fn execute(
    commands: &[RankCommand],
    cwd: &Path,
    logs: &ConfinedDir,
    base_env: &BaseEnv,
    limits: Limits,
) -> Execution {
    execute_all(&[], commands, (cwd, logs), base_env, limits, None)
}

/// `execute`, telling `on_group` each new process group before anything runs in it (an in-place
/// build records its group so a recovery after a SIGKILL of sweep can stop it). If `on_group`
/// fails, that command never starts.
pub fn execute_with(
    commands: &[RankCommand],
    cwd: &Path,
    logs: &ConfinedDir,
    base_env: &BaseEnv,
    limits: Limits,
    on_group: &mut dyn FnMut(Pid) -> std::io::Result<()>,
) -> Execution {
    execute_all(&[], commands, (cwd, logs), base_env, limits, Some(on_group))
}

/// `execute` with services: each starts in its own group and must be ready (within its own limit)
/// before the next starts, and all before `commands`; `commands` decide the outcome, and the services
/// are stopped (SIGTERM, grace, SIGKILL) once they end. A service exiting before then fails the run.
/// The timeout and the recorded duration count from the start of `commands`: a server may take long to load.
/// Everything runs in the run's folder `dir`, its logs in it.
pub fn execute_served(
    services: &[ServiceCommand],
    commands: &[RankCommand],
    dir: &ConfinedDir,
    base_env: &BaseEnv,
    limits: Limits,
) -> Execution {
    execute_all(services, commands, (dir.path(), dir), base_env, limits, None)
}

/// Where children run, and the folder their logs are created below.
type Place<'a> = (&'a Path, &'a ConfinedDir);

fn execute_all(
    services: &[ServiceCommand],
    commands: &[RankCommand],
    place: Place<'_>,
    base_env: &BaseEnv,
    limits: Limits,
    mut on_group: OnGroup<'_, '_>,
) -> Execution {
    let started = SystemTime::now();
    let clock = Instant::now();
    let (sender, events) = channel();
    let _signals = Subscription::new(sender.clone());
    let mut run = RunningGroups::new(services, &events);
    run.rank_of = rank_of(commands);
    if let Some(signal) = signal_watch::received() {
        return Execution { reason: StopReason::Interrupted { signal }, started, duration: clock.elapsed() };
    }
    let ready = run.start_services(services, place, base_env, &sender, on_group.as_deref_mut());
    // A served run is timed from its main process on: a server's start-up is not what it measures.
    let (started, clock) = match ready {
        Ok(()) if !services.is_empty() => (SystemTime::now(), Instant::now()),
        _ => (started, clock),
    };
    let all_started = ready.and_then(|()| {
        commands.iter().try_for_each(|command| run.start(command, place, base_env, &sender, on_group.as_deref_mut()))
    });
    if let Err(reason) = all_started {
        run.terminate(limits.grace);
        return Execution { reason, started, duration: clock.elapsed() };
    }
    let reason = run.wait(clock.checked_add(limits.timeout), limits.grace, clock);
    // Until the main processes ended: stopping the services afterwards is not part of the run.
    let duration = run.clients_ended.unwrap_or_else(Instant::now).saturating_duration_since(clock);
    Execution { reason, started, duration }
}

/// Runs one batch of commands after another (each in its own folder, timed and limited on its own) beside
/// one instance of `services`, started and ready before the first and stopped after the last. Each
/// batch's `Execution` goes to `on_run` before the next batch starts; the group ends early when
/// `on_run` says so or a batch does not succeed (a failed run stops the services too: the next group
/// starts fresh ones). Returns how many batches were handed to `on_run`.
pub fn execute_shared(
    services: &[ServiceCommand],
    batches: &[(&[RankCommand], &ConfinedDir)],
    base_env: &BaseEnv,
    limits: Limits,
    on_run: &mut dyn FnMut(usize, Execution) -> bool,
) -> usize {
    let Some(&(_, first_dir)) = batches.first() else { return 0 };
    let (sender, events) = channel();
    let _signals = Subscription::new(sender.clone());
    let mut run = RunningGroups::new(services, &events);
    run.keep_services = true;
    let (started, clock) = (SystemTime::now(), Instant::now());
    let ready = match signal_watch::received() {
        Some(signal) => Err(StopReason::Interrupted { signal }),
        None => run.start_services(services, (first_dir.path(), first_dir), base_env, &sender, None),
    };
    if let Err(reason) = ready {
        run.terminate(limits.grace);
        on_run(0, Execution { reason, started, duration: clock.elapsed() });
        return 1;
    }
    for (index, &(commands, dir)) in batches.iter().enumerate() {
        let execution = run.run_batch(commands, (dir.path(), dir), base_env, limits, &sender);
        let succeeded = execution.reason == StopReason::Succeeded;
        if !on_run(index, execution) || !succeeded || index + 1 == batches.len() {
            run.terminate(limits.grace);
            return index + 1;
        }
    }
    unreachable!("the last batch returns")
}

fn rank_of(commands: &[RankCommand]) -> Vec<Option<u32>> {
    commands.iter().map(|command| command.rank).collect()
}

/// `now + wait`, or a day from now when `wait` is too long to add to the clock.
fn later(now: Instant, wait: Duration) -> Instant {
    now.checked_add(wait).unwrap_or_else(|| now + Duration::from_secs(86_400))
}

/// One started process and the process group it runs in.
#[derive(Debug, Clone, Copy)]
struct Member {
    pid: Pid,
    group: Pid,
}

/// Starts one process in a new process group (recorded through `on_group` before the process runs,
/// when given), with a thread that reports its exit.
fn spawn(
    command: &RankCommand,
    (cwd, logs): Place<'_>,
    base_env: &BaseEnv,
    (index, sender): (usize, &Sender<Event>),
    on_group: OnGroup<'_, '_>,
) -> std::io::Result<Member> {
    let log = logs.create_truncated(&command.log)?;
    let stdio = [File::open("/dev/null")?.into(), log.try_clone()?.into(), log.into()];
    // Only a group recorded on disk must exist before its command runs: a stand-in leads it meanwhile.
    // Otherwise the child makes its own group before it execs.
    let gate = match on_group {
        Some(record) => {
            let gate = GroupGate::open()?;
            record(gate.group())?;
            Some(gate)
        }
        None => None,
    };
    let group = gate.as_ref().map(GroupGate::group);
    let child = ChildSpawn::new(&command.argv, &child_env(command, base_env), cwd, stdio, group)?;
    let pid = Reaper::lock().start(&child)?;
    let member = Member { pid, group: group.unwrap_or(pid) };
    drop(gate);
    let sender = sender.clone();
    std::thread::spawn(move || {
        let status = wait_for_exit(member.pid);
        reaper::forget(member.pid);
        let _ = sender.send(Event::Exited { index, status });
    });
    Ok(member)
}

/// The child's whole environment: the base one, the command's own on top (`UNSET_MARKER` removes a
/// variable), and the marks of its owner.
fn child_env(command: &RankCommand, base_env: &BaseEnv) -> Vec<(OsString, OsString)> {
    let mut env: BTreeMap<OsString, OsString> = match base_env {
        BaseEnv::Inherit => std::env::vars_os().collect(),
        BaseEnv::Exactly(vars) => vars.iter().map(|(name, value)| (name.into(), value.into())).collect(),
    };
    for (name, value) in &command.env {
        match value.as_str() {
            super::UNSET_MARKER => env.remove(OsStr::new(name)),
            value => env.insert(name.into(), value.into()),
        };
    }
    // Inherited by everything the process starts: the next sweep can find what a SIGKILL left behind.
    env.insert(OWNER_VAR.into(), owner().into());
    env.insert(OWNER_HOST_VAR.into(), host().into());
    env.into_iter().collect()
}

/// The processes of one run; `None` once a member has been reaped.
struct RunningGroups<'a> {
    members: Vec<Option<Member>>,
    /// Processes found below the members when they were signalled, wherever they went since.
    seen_below: Vec<Pid>,
    /// Rank of each command, indexed after the services.
    rank_of: Vec<Option<u32>>,
    /// Name and log of each service: the first members.
    services: Vec<(String, PathBuf)>,
    /// Index of the first member of the commands in flight (`rank_of` is theirs).
    first_client: usize,
    /// Whether the services outlive the commands in flight (more commands will run beside them).
    keep_services: bool,
    /// When the last member that is not a service exited.
    clients_ended: Option<Instant>,
    events: &'a Receiver<Event>,
}

/// How long a readiness wait sleeps between probes (it wakes early for an exit or a signal).
const READY_POLL: Duration = Duration::from_millis(100);

impl<'a> RunningGroups<'a> {
    /// Nothing started yet; the commands will follow `services`.
    fn new(services: &[ServiceCommand], events: &'a Receiver<Event>) -> RunningGroups<'a> {
        RunningGroups {
            members: Vec::new(),
            seen_below: Vec::new(),
            rank_of: Vec::new(),
            services: services.iter().map(|service| (service.name.clone(), service.command.log.clone())).collect(),
            first_client: services.len(),
            keep_services: false,
            clients_ended: None,
            events,
        }
    }

    fn alive(&self) -> usize {
        self.members.iter().filter(|member| member.is_some()).count()
    }

    /// Members that decide the run: everything but the services.
    fn clients_alive(&self) -> usize {
        self.members.iter().skip(self.services.len()).filter(|member| member.is_some()).count()
    }

    /// Starts each service, each ready before the next starts.
    fn start_services(
        &mut self,
        services: &[ServiceCommand],
        place: Place<'_>,
        base_env: &BaseEnv,
        sender: &Sender<Event>,
        mut on_group: OnGroup<'_, '_>,
    ) -> Result<(), StopReason> {
        services.iter().try_for_each(|service| {
            self.start(&service.command, place, base_env, sender, on_group.as_deref_mut())?;
            self.await_ready(service)
        })
    }

    /// One batch of commands beside the running services, timed from its start to its end.
    fn run_batch(
        &mut self,
        commands: &[RankCommand],
        place: Place<'_>,
        base_env: &BaseEnv,
        limits: Limits,
        sender: &Sender<Event>,
    ) -> Execution {
        self.first_client = self.members.len();
        self.rank_of = rank_of(commands);
        self.clients_ended = None;
        let (started, clock) = (SystemTime::now(), Instant::now());
        let spawned = commands.iter().try_for_each(|command| self.start(command, place, base_env, sender, None));
        let reason = match spawned {
            Ok(()) => self.wait(clock.checked_add(limits.timeout), limits.grace, clock),
            Err(reason) => reason,
        };
        let duration = self.clients_ended.unwrap_or_else(Instant::now).saturating_duration_since(clock);
        Execution { reason, started, duration }
    }

    /// Starts the next member (service or command).
    fn start(
        &mut self,
        command: &RankCommand,
        place: Place<'_>,
        base_env: &BaseEnv,
        sender: &Sender<Event>,
        on_group: OnGroup<'_, '_>,
    ) -> Result<(), StopReason> {
        let index = self.members.len();
        let member =
            spawn(command, place, base_env, (index, sender), on_group).map_err(|error| StopReason::SpawnFailed {
                program: command.argv.first().cloned().unwrap_or_default(),
                error: error.to_string(),
            })?;
        self.members.push(Some(member));
        Ok(())
    }

    /// Probes the service at `index` every `READY_POLL` until it is ready; any member's exit, a signal
    /// or the end of its `within` stops the wait with the reason the run fails.
    fn await_ready(&mut self, service: &ServiceCommand) -> Result<(), StopReason> {
        let deadline = later(Instant::now(), service.within);
        let mut scanned = 0;
        loop {
            let last = match service.readiness.probe(&service.command.log, &mut scanned) {
                Ok(()) => return Ok(()),
                Err(last) => last,
            };
            let now = Instant::now();
            if now >= deadline {
                return Err(StopReason::NotReady(Box::new(ServiceNotReady {
                    name: service.name.clone(),
                    within: service.within,
                    probe: service.readiness.describe(),
                    last,
                    log: service.command.log.clone(),
                    tail: last_lines(&service.command.log),
                })));
            }
            match self.events.recv_timeout(READY_POLL.min(deadline - now)) {
                Ok(Event::Exited { index, status }) => {
                    self.members[index] = None;
                    return Err(self.service_exit(index, status, "before it was ready"));
                }
                Ok(Event::Signal(signal)) => return Err(StopReason::Interrupted { signal }),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => unreachable!("the executor holds a sender"),
            }
        }
    }

    /// Any exit of a service before it is stopped is a failure, even with status 0.
    fn service_exit(&self, index: usize, status: std::io::Result<ExitStatus>, when: &str) -> StopReason {
        let what = match &status {
            Ok(status) => match status.code() {
                Some(code) => format!("exited with code {code} {when}"),
                None => format!("was killed by signal {} {when}", status.signal().unwrap_or(0)),
            },
            Err(error) => format!("could not be waited for: {error}"),
        };
        let (name, log) = &self.services[index];
        StopReason::ServiceFailed { name: name.clone(), what, tail: last_lines(log) }
    }

    /// Waits for every member; the first failure, the deadline or a signal stops the rest. Returns
    /// once nothing of the run is left: not in its groups, not below its processes, not re-parented.
    fn wait(&mut self, deadline: Option<Instant>, grace: Duration, clock: Instant) -> StopReason {
        let mut reason: Option<StopReason> = None;
        let mut kill_at: Option<Instant> = None;
        let all_groups: Vec<Pid> = self.members.iter().flatten().map(|member| member.group).collect();
        while self.alive() > 0 {
            let now = Instant::now();
            if kill_at.is_none() && self.clients_alive() == 0 {
                if self.keep_services {
                    break;
                }
                // Only services are left: the run is over, stop them.
                self.signal_all(Signal::SIGTERM);
                kill_at = Some(later(now, grace));
                continue;
            }
            let wake_at = kill_at.or(deadline);
            if wake_at.is_some_and(|at| now >= at) {
                match kill_at {
                    None => {
                        reason = Some(StopReason::TimedOut { after_seconds: clock.elapsed().as_secs_f64() });
                        self.signal_all(Signal::SIGTERM);
                        kill_at = Some(later(now, grace));
                    }
                    Some(_) => {
                        self.signal_all(Signal::SIGKILL);
                        kill_at = Some(later(now, Duration::from_secs(3600)));
                    }
                }
                continue;
            }
            let event = match wake_at {
                Some(at) => self.events.recv_timeout(at - now),
                None => self.events.recv().map_err(|_| RecvTimeoutError::Disconnected),
            };
            let stop = match event {
                Ok(Event::Exited { index, status }) => {
                    self.members[index] = None;
                    if index >= self.services.len() && self.clients_alive() == 0 {
                        self.clients_ended.get_or_insert_with(Instant::now);
                    }
                    // Once stopping, exits are what was asked for.
                    if kill_at.is_some() {
                        None
                    } else {
                        self.failure(index, status)
                    }
                }
                Ok(Event::Signal(signal)) => Some(StopReason::Interrupted { signal }),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => unreachable!("the executor holds a sender"),
            };
            if let (Some(stop), None) = (stop, &reason) {
                reason = Some(stop);
                self.signal_all(Signal::SIGTERM);
                kill_at = Some(later(Instant::now(), grace));
            }
        }
        // A member may have left processes behind: in its group (a compiler under make), or
        // re-parented to sweep (ranks whose mpirun is gone).
        // Services kept for the next commands are not leftovers.
        let kept: Vec<Pid> = self.members[..self.services.len()].iter().flatten().map(|member| member.group).collect();
        let groups: Vec<Pid> = all_groups.into_iter().filter(|group| !kept.contains(group)).collect();
        reaper::kill_leftovers(&groups, &self.seen_below);
        reason.unwrap_or(StopReason::Succeeded)
    }

    fn failure(&self, index: usize, status: std::io::Result<ExitStatus>) -> Option<StopReason> {
        if index < self.services.len() {
            return Some(self.service_exit(index, status, "while the run went on"));
        }
        let rank = self.rank_of[index - self.first_client];
        match status {
            Ok(status) if status.success() => None,
            Ok(status) => Some(match status.code() {
                Some(code) => StopReason::Failed { rank, code },
                None => StopReason::Signalled { rank, signal: status.signal().unwrap_or(0) },
            }),
            Err(error) => Some(StopReason::SpawnFailed { program: format!("rank {index}"), error: error.to_string() }),
        }
    }

    /// Every group of the run, and every process below its members wherever it went.
    fn signal_all(&mut self, signal: Signal) {
        let live: Vec<Member> = self.members.iter().flatten().copied().collect();
        let below = reaper::descendants_and_strays(&live.iter().map(|member| member.pid).collect::<Vec<_>>());
        for member in &live {
            let _ = killpg(member.group, signal);
        }
        for &pid in &below {
            let _ = kill(pid, signal);
        }
        self.seen_below.extend(below);
    }

    /// Used when a later rank cannot start: stop those already running, then reap them.
    fn terminate(&mut self, grace: Duration) {
        // Stopping ends the services' sharing too: one that ignores SIGTERM is killed after the grace.
        self.keep_services = false;
        if self.alive() == 0 {
            return;
        }
        let now = Instant::now();
        self.signal_all(Signal::SIGTERM);
        let _ = self.wait(Some(now), grace, now);
    }
}

/// Time limits of one run: the time it may take, and the grace between SIGTERM and SIGKILL.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// `NO_TIMEOUT` (or anything too long to add to the clock) means none.
    pub timeout: Duration,
    /// Between SIGTERM and SIGKILL.
    pub grace: Duration,
}

impl Limits {
    pub const NO_TIMEOUT: Duration = Duration::MAX;
}

/// Lines of a service's log quoted when it fails.
const TAIL_LINES: usize = 5;

/// `line | line | line`: the log's last non-blank lines, or `(empty log)`, on one line for a failure reason.
fn last_lines(log: &Path) -> String {
    let text = String::from_utf8_lossy(&std::fs::read(log).unwrap_or_default()).into_owned();
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|line| !line.is_empty()).collect();
    if lines.is_empty() {
        return "(empty log)".to_string();
    }
    lines[lines.len().saturating_sub(TAIL_LINES)..].join(" | ")
}

/// A process group that exists before anything runs in it: a stand-in process leads the new group and
/// waits at a pipe, holding the group open until released; the caller records the group (an in-place
/// build writes it to the tree's state dir and fsyncs it), starts the real command inside it, then
/// lets the stand-in go. So a SIGKILL of sweep at any instant leaves either nothing running or a
/// recorded group. (A group recorded nowhere needs no stand-in: the child makes it before it execs.)
#[derive(Debug)]
struct GroupGate {
    leader: Pid,
    gate: Option<OwnedFd>,
}

impl GroupGate {
    /// Forks the stand-in; the group is the stand-in's pid.
    fn open() -> std::io::Result<GroupGate> {
        let (wait_end, release_end) = pipe2(OFlag::O_CLOEXEC)?;
        let parent = Pid::this();
        let mut reaper = Reaper::lock();
        // SAFETY: the child only makes async-signal-safe calls (setpgid, prctl, getppid, close, read,
        // _exit) and touches no memory another thread may hold locked.
        match unsafe { fork() }? {
            ForkResult::Child => {
                let _ = setpgid(Pid::from_raw(0), Pid::from_raw(0));
                let _ = nix::sys::prctl::set_pdeathsig(Signal::SIGKILL);
                if getppid() == parent {
                    drop(release_end);
                    // One byte releases it; end-of-file (sweep died) does too. Either way it only exits.
                    let _ = read(&wait_end, &mut [0u8]);
                }
                // SAFETY: _exit runs no destructors or atexit handlers, which a forked child must not.
                unsafe { nix::libc::_exit(0) }
            }
            ForkResult::Parent { child } => {
                reaper.record(child);
                drop(reaper);
                // Also from this side, so the group exists when `open` returns whichever runs first.
                let _ = setpgid(child, child);
                Ok(GroupGate { leader: child, gate: Some(release_end) })
            }
        }
    }

    /// The new process group's id.
    fn group(&self) -> Pid {
        self.leader
    }
}

impl Drop for GroupGate {
    /// Lets the stand-in exit and reaps it; the group lives on while a member is left.
    fn drop(&mut self) {
        if let Some(gate) = self.gate.take() {
            let _ = write(&gate, b"g");
        }
        let _ = waitpid(self.leader, None);
        reaper::forget(self.leader);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;

    fn sh(script: &str, log: &Path) -> RankCommand {
        RankCommand {
            rank: Some(0),
            argv: vec!["sh".into(), "-c".into(), script.into()],
            env: vec![],
            log: log.to_path_buf(),
        }
    }

    /// The folder every test's logs are in (each test's own temporary folder).
    fn logs_of(commands: &[RankCommand]) -> ConfinedDir {
        ConfinedDir::open(commands[0].log.parent().unwrap()).unwrap()
    }

    fn run(commands: &[RankCommand], timeout_ms: u64) -> Execution {
        let limits = Limits { timeout: Duration::from_millis(timeout_ms), grace: Duration::from_millis(300) };
        execute(commands, Path::new("/"), &logs_of(commands), &BaseEnv::Inherit, limits)
    }

    #[test]
    fn a_clean_exit_succeeds_and_logs_output() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("rank0.log");
        let execution = run(&[sh("echo hello; echo oops >&2", &log)], 10_000);
        assert_eq!(execution.reason, StopReason::Succeeded);
        assert_eq!(std::fs::read_to_string(log).unwrap(), "hello\noops\n");
    }

    #[test]
    fn one_failing_rank_stops_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let mut slow = sh("sleep 30", &dir.path().join("0.log"));
        slow.rank = Some(0);
        let mut failing = sh("exit 3", &dir.path().join("1.log"));
        failing.rank = Some(1);
        let execution = run(&[slow, failing], 20_000);
        assert_eq!(execution.reason, StopReason::Failed { rank: Some(1), code: 3 });
        assert!(execution.duration < Duration::from_secs(10));
    }

    #[test]
    fn a_rank_ignoring_sigterm_is_killed_after_the_grace_period() {
        let dir = tempfile::tempdir().unwrap();
        let execution = run(&[sh("trap '' TERM; sleep 30", &dir.path().join("0.log"))], 200);
        assert!(matches!(execution.reason, StopReason::TimedOut { .. }), "{:?}", execution.reason);
        assert!(execution.duration < Duration::from_secs(10));
    }

    #[test]
    fn a_descendant_in_its_own_session_is_killed_with_the_run() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let script = format!("setsid sleep 30 & echo $! > {}; wait", pid_file.display());
        let execution = run(&[sh(&script, &dir.path().join("0.log"))], 500);
        assert!(matches!(execution.reason, StopReason::TimedOut { .. }), "{:?}", execution.reason);
        let pid: i32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(state.is_empty() || state.contains(") Z "), "the setsid'd sleep outlived its run: {state}");
    }

    #[test]
    fn every_command_of_a_run_leads_a_process_group_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let logs = [dir.path().join("0.log"), dir.path().join("1.log")];
        let commands: Vec<RankCommand> = logs.iter().map(|log| sh("echo $$ $(ps -o pgid= -p $$)", log)).collect();
        assert_eq!(run(&commands, 10_000).reason, StopReason::Succeeded);
        let groups: Vec<String> = logs
            .iter()
            .map(|log| {
                let text = std::fs::read_to_string(log).unwrap();
                let (pid, group) = text.trim().split_once(' ').unwrap();
                assert_eq!(pid, group.trim(), "not the leader of its group");
                group.trim().to_string()
            })
            .collect();
        assert_ne!(groups[0], groups[1]);
        assert!(!groups.contains(&nix::unistd::getpgrp().to_string()), "in sweep's own group");
    }

    #[test]
    fn the_group_is_reported_before_the_command_runs_and_no_timeout_means_none() {
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("group");
        let command = sh(&format!("ps -o pgid= -p $$ > {}.seen", record.display()), &dir.path().join("0.log"));
        let limits = Limits { timeout: Limits::NO_TIMEOUT, grace: Duration::MAX };
        let logs = ConfinedDir::open(dir.path()).unwrap();
        let execution = execute_with(&[command], Path::new("/"), &logs, &BaseEnv::Inherit, limits, &mut |group| {
            assert!(!record.with_extension("seen").exists(), "the command ran before its group was reported");
            std::fs::write(&record, group.to_string())
        });
        assert_eq!(execution.reason, StopReason::Succeeded);
        let seen = std::fs::read_to_string(record.with_extension("seen")).unwrap();
        assert_eq!(seen.trim(), std::fs::read_to_string(&record).unwrap());
    }

    #[test]
    fn a_missing_program_is_a_spawn_failure() {
        let dir = tempfile::tempdir().unwrap();
        let command = RankCommand {
            rank: None,
            argv: vec!["/nonexistent/engine".into()],
            env: vec![],
            log: dir.path().join("x.log"),
        };
        assert!(matches!(run(&[command], 1000).reason, StopReason::SpawnFailed { .. }));
    }

    fn service(script: &str, log: &Path, within_ms: u64) -> ServiceCommand {
        ServiceCommand {
            name: "server".into(),
            command: sh(script, log),
            readiness: super::super::readiness::Readiness::Log(regex::Regex::new("^listening").unwrap()),
            within: Duration::from_millis(within_ms),
        }
    }

    fn served(services: &[ServiceCommand], client: RankCommand) -> Execution {
        let limits = Limits { timeout: Duration::from_secs(20), grace: Duration::from_millis(300) };
        let client = std::slice::from_ref(&client);
        execute_served(services, client, &logs_of(client), &BaseEnv::Inherit, limits)
    }

    fn gone(pid_file: &Path) -> bool {
        let pid: i32 = std::fs::read_to_string(pid_file).unwrap().trim().parse().unwrap();
        let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        state.is_empty() || state.contains(") Z ")
    }

    #[test]
    fn the_client_decides_and_a_ready_service_is_stopped_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let pid = dir.path().join("pid");
        let server = service(
            &format!("echo $$ > {}; trap '' TERM; sleep 1; echo listening; sleep 30", pid.display()),
            &dir.path().join("s.log"),
            5000,
        );
        let wall = Instant::now();
        let execution = served(&[server], sh("sleep 0.1", &dir.path().join("c.log")));
        assert_eq!(execution.reason, StopReason::Succeeded);
        // SIGTERM is ignored: killed after the grace period, which (like the start-up) is not the run's time.
        assert!(wall.elapsed() >= Duration::from_millis(1300), "{:?}", wall.elapsed());
        assert!(execution.duration < Duration::from_millis(900), "{:?}", execution.duration);
        assert!(gone(&pid), "the service outlived its run");
    }

    #[test]
    fn a_service_dying_during_the_run_fails_it_with_its_log() {
        let dir = tempfile::tempdir().unwrap();
        let server = service("echo listening; sleep 0.3; echo boom; exit 4", &dir.path().join("s.log"), 5000);
        let execution = served(&[server], sh("sleep 30", &dir.path().join("c.log")));
        let reason = execution.reason.to_string();
        assert!(reason.contains("service `server` exited with code 4 while the run went on"), "{reason}");
        assert!(reason.ends_with("listening | boom"), "{reason}");
        assert!(execution.duration < Duration::from_secs(10));
    }

    #[test]
    fn a_service_never_ready_fails_the_run_and_the_client_never_starts() {
        let dir = tempfile::tempdir().unwrap();
        let pid = dir.path().join("pid");
        let server = service(
            &format!("echo $$ > {}; echo loading; exec sleep 30", pid.display()),
            &dir.path().join("s.log"),
            400,
        );
        let marker = dir.path().join("client-ran");
        let execution = served(&[server], sh(&format!("touch {}", marker.display()), &dir.path().join("c.log")));
        let reason = execution.reason.to_string();
        let log = dir.path().join("s.log");
        let expected = format!(
            "was not ready within 400ms: the last probe, a log line matching `^listening`, found: no line of its \
             log matched; its log {} ends: loading",
            log.display()
        );
        assert!(reason.contains(&expected), "{reason}");
        assert!(!marker.exists());
        assert!(gone(&pid));
    }

    #[test]
    fn a_client_timing_out_stops_its_service_too() {
        let dir = tempfile::tempdir().unwrap();
        let pid = dir.path().join("pid");
        let script = format!("echo $$ > {}; trap '' TERM; echo listening; sleep 30", pid.display());
        let server = service(&script, &dir.path().join("s.log"), 5000);
        let limits = Limits { timeout: Duration::from_millis(300), grace: Duration::from_millis(300) };
        let client = sh("sleep 30", &dir.path().join("c.log"));
        let dir = ConfinedDir::open(dir.path()).unwrap();
        let execution = execute_served(&[server], &[client], &dir, &BaseEnv::Inherit, limits);
        assert!(matches!(execution.reason, StopReason::TimedOut { .. }), "{:?}", execution.reason);
        assert!(gone(&pid), "the service outlived its run");
    }

    #[test]
    fn batches_share_one_service_instance_which_is_stopped_after_the_last() {
        let dir = tempfile::tempdir().unwrap();
        let pid = dir.path().join("pid");
        let script = format!("echo $$ >> {}; echo listening; exec sleep 30", pid.display());
        let server = service(&script, &dir.path().join("s.log"), 5000);
        let first = [sh("sleep 0.1", &dir.path().join("c1.log"))];
        let second = [sh("exit 0", &dir.path().join("c2.log"))];
        let folder = ConfinedDir::open(dir.path()).unwrap();
        let batches: [(&[RankCommand], &ConfinedDir); 2] = [(&first, &folder), (&second, &folder)];
        let limits = Limits { timeout: Duration::from_secs(20), grace: Duration::from_millis(300) };
        let mut reasons = Vec::new();
        let done = execute_shared(&[server], &batches, &BaseEnv::Inherit, limits, &mut |index, execution| {
            reasons.push((index, execution.reason));
            true
        });
        assert_eq!(done, 2);
        assert_eq!(reasons, [(0, StopReason::Succeeded), (1, StopReason::Succeeded)]);
        assert_eq!(std::fs::read_to_string(&pid).unwrap().lines().count(), 1, "one instance for both");
        assert!(gone(&pid), "the service outlived its runs");
    }

    #[test]
    fn a_shared_service_never_ready_and_deaf_to_sigterm_is_killed_after_the_grace() {
        let dir = tempfile::tempdir().unwrap();
        let pid = dir.path().join("pid");
        let script = format!("echo $$ > {}; trap '' TERM; echo loading; exec sleep 30", pid.display());
        let server = service(&script, &dir.path().join("s.log"), 400);
        let client = [sh("exit 0", &dir.path().join("c.log"))];
        let folder = ConfinedDir::open(dir.path()).unwrap();
        let batches: [(&[RankCommand], &ConfinedDir); 1] = [(&client, &folder)];
        let limits = Limits { timeout: Duration::from_secs(20), grace: Duration::from_millis(300) };
        let mut reasons = Vec::new();
        execute_shared(&[server], &batches, &BaseEnv::Inherit, limits, &mut |_, execution| {
            reasons.push(execution.reason);
            true
        });
        assert!(matches!(reasons[..], [StopReason::NotReady(_)]), "{reasons:?}");
        assert!(gone(&pid), "the service outlived its group: SIGTERM only, no SIGKILL after the grace");
    }

    #[test]
    fn keeps_the_last_lines_joined_on_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("x.log");
        assert_eq!(last_lines(&log), "(empty log)");
        std::fs::write(&log, "1\n2\n\n3\n4\n5\n6\n").unwrap();
        assert_eq!(last_lines(&log), "2 | 3 | 4 | 5 | 6");
    }

    #[test]
    fn a_command_started_in_the_gate_group_runs_there_and_the_stand_in_is_reaped() {
        let gate = GroupGate::open().unwrap();
        let group = gate.group();
        let output = std::process::Command::new("sh")
            .args(["-c", "ps -o pgid= -p $$"])
            .process_group(group.as_raw())
            .output()
            .unwrap();
        drop(gate);
        assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), group.to_string());
        assert!(!std::path::Path::new(&format!("/proc/{group}")).exists(), "the stand-in was not reaped");
    }
}
