//! `GroupGate`: a process group that exists before anything runs in it. A stand-in process leads
//! the new group and waits at a pipe; the caller records the group (an in-place build writes it to
//! the tree's state dir and fsyncs it), starts the real command inside it, then lets the stand-in
//! go. So a SIGKILL of sweep at any instant leaves either nothing running or a recorded group. (A
//! group recorded nowhere needs no stand-in: the child makes it before it execs.)

use std::os::fd::OwnedFd;

use nix::fcntl::OFlag;
use nix::sys::signal::Signal;
use nix::sys::wait::waitpid;
use nix::unistd::{fork, getppid, pipe2, read, setpgid, write, ForkResult, Pid};

use super::reaper::{self, Reaper};

/// The stand-in leading a new process group, holding it open until released.
#[derive(Debug)]
pub struct GroupGate {
    leader: Pid,
    gate: Option<OwnedFd>,
}

impl GroupGate {
    /// Forks the stand-in; the group is the stand-in's pid.
    pub fn open() -> std::io::Result<GroupGate> {
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
    pub fn group(&self) -> Pid {
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
