//! Starts a run's processes, each in its own process group, and waits for them without polling:
//! one waiter thread per process and one channel; timeout, a failing rank or a signal terminate
//! every group (SIGTERM, grace period, SIGKILL) so no process outlives its run.

use std::fs::File;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant, SystemTime};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

use super::rank_command::RankCommand;
use super::stop_reason::StopReason;

/// What reaches the executor while a run is in flight.
#[derive(Debug)]
pub enum Event {
    Exited { index: usize, status: std::io::Result<ExitStatus> },
    Signal(i32),
}

/// Time limits of one run.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub timeout: Duration,
    /// Between SIGTERM and SIGKILL.
    pub grace: Duration,
}

/// How a run went, as the recorder needs it.
#[derive(Debug, Clone)]
pub struct Execution {
    pub reason: StopReason,
    pub started: SystemTime,
    pub duration: Duration,
}

/// The environment every process starts from: inherited, or captured from a setup script.
#[derive(Debug, Clone, Default)]
pub enum BaseEnv {
    #[default]
    Inherit,
    Exactly(Vec<(String, String)>),
}

impl BaseEnv {
    /// What to set on top of an inherited environment to get this one (builds and version probes
    /// run with it too: on Ascend the compiler only works inside the sourced CANN environment).
    pub fn overrides(&self) -> &[(String, String)] {
        match self {
            BaseEnv::Inherit => &[],
            BaseEnv::Exactly(vars) => vars,
        }
    }
}

/// Runs `commands` in `cwd` to completion or until they must be stopped.
///
/// `events` is the sweep-wide channel: `sender` feeds it from waiter threads, and the signal watch
/// holds another sender. Every waiter has reported before this returns, so no event of this run is
/// left behind for the next one.
pub fn execute(
    commands: &[RankCommand],
    cwd: &Path,
    base_env: &BaseEnv,
    limits: Limits,
    sender: &Sender<Event>,
    events: &Receiver<Event>,
) -> Execution {
    execute_with(commands, cwd, base_env, limits, (sender, events), &mut |_| {})
}

/// `execute`, telling `on_spawn` each new process group as it starts (an in-place build records its
/// group so a later recovery can stop it).
pub fn execute_with(
    commands: &[RankCommand],
    cwd: &Path,
    base_env: &BaseEnv,
    limits: Limits,
    (sender, events): (&Sender<Event>, &Receiver<Event>),
    on_spawn: &mut dyn FnMut(Pid),
) -> Execution {
    let started = SystemTime::now();
    let clock = Instant::now();
    let mut groups: Vec<Option<Pid>> = Vec::new();
    for (index, command) in commands.iter().enumerate() {
        match spawn(command, cwd, base_env, index, sender) {
            Ok(pid) => {
                on_spawn(pid);
                groups.push(Some(pid));
            }
            Err(error) => {
                let program = command.argv.first().cloned().unwrap_or_default();
                let reason = StopReason::SpawnFailed { program, error: error.to_string() };
                let mut run = RunningGroups { groups, rank_of: rank_of(commands), events };
                run.terminate(limits.grace);
                return Execution { reason, started, duration: clock.elapsed() };
            }
        }
    }
    let mut run = RunningGroups { groups, rank_of: rank_of(commands), events };
    let reason = run.wait(clock + limits.timeout, limits.grace, clock);
    Execution { reason, started, duration: clock.elapsed() }
}

fn rank_of(commands: &[RankCommand]) -> Vec<Option<u32>> {
    commands.iter().map(|command| command.rank).collect()
}

/// Starts one process as the leader of a new process group, with a thread that reports its exit.
fn spawn(
    command: &RankCommand,
    cwd: &Path,
    base_env: &BaseEnv,
    index: usize,
    sender: &Sender<Event>,
) -> std::io::Result<Pid> {
    let Some((program, args)) = command.argv.split_first() else {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "empty command"));
    };
    let log = File::create(&command.log)?;
    let mut process = Command::new(program);
    process.args(args).current_dir(cwd).stdin(Stdio::null()).stdout(log.try_clone()?).stderr(log);
    if let BaseEnv::Exactly(vars) = base_env {
        process.env_clear().envs(vars.iter().map(|(k, v)| (k, v)));
    }
    process.envs(command.env.iter().map(|(k, v)| (k, v)));
    process.process_group(0);
    // If sweep itself is SIGKILLed, its direct children go too rather than run on unsupervised and
    // perturb whatever is measured next. (The death signal follows the spawning thread; this one
    // outlives every run.)
    // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
    unsafe {
        process.pre_exec(|| nix::sys::prctl::set_pdeathsig(Signal::SIGKILL).map_err(std::io::Error::from));
    }
    let mut child = process.spawn()?;
    let pid = Pid::from_raw(child.id() as i32);
    let sender = sender.clone();
    std::thread::spawn(move || {
        let status = child.wait();
        let _ = sender.send(Event::Exited { index, status });
    });
    Ok(pid)
}

/// How long the last members of a killed group may take to disappear.
const GONE_WAIT: Duration = Duration::from_secs(5);

/// Returns once no process is left in any of `groups`, so a run is over only when all of it is: the
/// next run never shares the machine with the previous one's stragglers. The run is finished, so a
/// short sleep loop here perturbs no measurement; a group normally is empty at the first check.
fn wait_until_gone(groups: &[Pid]) {
    let deadline = Instant::now() + GONE_WAIT;
    for &group in groups {
        while killpg(group, None) != Err(nix::errno::Errno::ESRCH) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

/// The process groups of one run; `None` once a group's leader has been reaped.
struct RunningGroups<'a> {
    groups: Vec<Option<Pid>>,
    rank_of: Vec<Option<u32>>,
    events: &'a Receiver<Event>,
}

impl RunningGroups<'_> {
    fn alive(&self) -> usize {
        self.groups.iter().filter(|group| group.is_some()).count()
    }

    /// Waits for every leader; the first failure, the deadline or a signal stops the rest.
    fn wait(&mut self, deadline: Instant, grace: Duration, clock: Instant) -> StopReason {
        let mut reason: Option<StopReason> = None;
        let mut kill_at: Option<Instant> = None;
        let all_groups: Vec<Pid> = self.groups.iter().flatten().copied().collect();
        while self.alive() > 0 {
            let now = Instant::now();
            let wake_at = kill_at.unwrap_or(deadline);
            if now >= wake_at {
                match kill_at {
                    None => {
                        reason = Some(StopReason::TimedOut { after_seconds: clock.elapsed().as_secs_f64() });
                        self.signal_all(Signal::SIGTERM);
                        kill_at = Some(now + grace);
                    }
                    Some(_) => {
                        self.signal_all(Signal::SIGKILL);
                        kill_at = Some(now + Duration::from_secs(3600));
                    }
                }
                continue;
            }
            let stop = match self.events.recv_timeout(wake_at - now) {
                Ok(Event::Exited { index, status }) => {
                    self.groups[index] = None;
                    self.failure(index, status)
                }
                Ok(Event::Signal(signal)) => Some(StopReason::Interrupted { signal }),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => unreachable!("the executor holds a sender"),
            };
            if let (Some(stop), None) = (stop, &reason) {
                reason = Some(stop);
                self.signal_all(Signal::SIGTERM);
                kill_at = Some(Instant::now() + grace);
            }
        }
        // A leader may have left children in its group (mpirun's daemons, a compiler under make).
        for &group in &all_groups {
            let _ = killpg(group, Signal::SIGKILL);
        }
        wait_until_gone(&all_groups);
        reason.unwrap_or(StopReason::Succeeded)
    }

    fn failure(&self, index: usize, status: std::io::Result<ExitStatus>) -> Option<StopReason> {
        let rank = self.rank_of[index];
        match status {
            Ok(status) if status.success() => None,
            Ok(status) => Some(match status.code() {
                Some(code) => StopReason::Failed { rank, code },
                None => StopReason::Signalled { rank, signal: status.signal().unwrap_or(0) },
            }),
            Err(error) => Some(StopReason::SpawnFailed { program: format!("rank {index}"), error: error.to_string() }),
        }
    }

    fn signal_all(&self, signal: Signal) {
        for group in self.groups.iter().flatten() {
            let _ = killpg(*group, signal);
        }
    }

    /// Used when a later rank cannot start: stop those already running, then reap them.
    fn terminate(&mut self, grace: Duration) {
        if self.alive() == 0 {
            return;
        }
        let now = Instant::now();
        self.signal_all(Signal::SIGTERM);
        let _ = self.wait(now, grace, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    fn sh(script: &str, log: &Path) -> RankCommand {
        RankCommand {
            rank: Some(0),
            argv: vec!["sh".into(), "-c".into(), script.into()],
            env: vec![],
            log: log.to_path_buf(),
        }
    }

    fn run(commands: &[RankCommand], timeout_ms: u64) -> Execution {
        let (sender, events) = channel();
        let limits = Limits { timeout: Duration::from_millis(timeout_ms), grace: Duration::from_millis(300) };
        execute(commands, Path::new("/"), &BaseEnv::Inherit, limits, &sender, &events)
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
}
