//! `ChildSpawn`: one child process started the way posix_spawn starts one, plus the parent-death
//! signal. std's `Command` can set that signal only in a `pre_exec` hook, and a hook makes it fork:
//! every page table of sweep copied, every page it writes afterwards a copy-on-write fault (about half
//! of sweep's CPU per run on a trivial command). Here the child shares sweep's memory (`CLONE_VM`) and
//! the spawning thread waits (`CLONE_VFORK`) until the child has exec'd or failed, as in posix_spawn.

use std::ffi::{CString, OsStr, OsString};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::raw::c_char;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::ptr;
use std::sync::atomic::{AtomicI32, Ordering};

use nix::libc;
use nix::sched::{clone, CloneFlags};
use nix::sys::signal::{SigSet, SigmaskHow};
use nix::unistd::Pid;

/// The child's stack until it execs: a few system calls, no allocation.
const CHILD_STACK: usize = 64 * 1024;
/// Signals are numbered 1 to 64 on Linux.
const LAST_SIGNAL: libc::c_int = 64;
/// Where execvp looks when the environment has no PATH.
const DEFAULT_PATH: &str = "/bin:/usr/bin";

/// Everything the child needs, made before it starts: the child may not allocate (it shares the heap
/// of a multithreaded process whose other threads go on).
#[derive(Debug)]
pub struct ChildSpawn {
    /// Paths to try in turn: the program itself when it names a path, else the program in each
    /// directory of the child's PATH (execvp's search).
    candidates: Vec<CString>,
    argv: Vec<CString>,
    envp: Vec<CString>,
    cwd: CString,
    /// stdin, stdout and stderr, each numbered above 2 so that moving one into place closes no other.
    stdio: [OwnedFd; 3],
    /// The process group to join; 0: a new one, led by the child.
    group: libc::pid_t,
}

/// The null-terminated pointer arrays execve takes, made in the parent.
struct ExecArgs {
    argv: Vec<*const c_char>,
    envp: Vec<*const c_char>,
    /// Filled by the child for `/bin/sh <program> <args>` when the program is a script with no `#!`.
    shell_argv: Vec<*const c_char>,
}

impl ChildSpawn {
    /// The child of `argv` (its program first) with exactly `env`, in `cwd`, in process group `group`
    /// (None: a new group of its own).
    pub fn new(
        argv: &[String],
        env: &[(OsString, OsString)],
        cwd: &std::path::Path,
        stdio: [OwnedFd; 3],
        group: Option<Pid>,
    ) -> std::io::Result<ChildSpawn> {
        let program = argv.first().ok_or_else(|| invalid("empty command"))?;
        let path = env.iter().rev().find(|(name, _)| name == "PATH").map(|(_, value)| value.as_os_str());
        let [stdin, stdout, stderr] = stdio;
        Ok(ChildSpawn {
            candidates: candidates(program, path)?,
            argv: argv.iter().map(|arg| c_string(arg.as_bytes())).collect::<Result<_, _>>()?,
            envp: env.iter().map(|(name, value)| env_entry(name, value)).collect::<Result<_, _>>()?,
            cwd: c_string(cwd.as_os_str().as_bytes())?,
            stdio: [above_stdio(stdin)?, above_stdio(stdout)?, above_stdio(stderr)?],
            group: group.map_or(0, Pid::as_raw),
        })
    }

    /// Starts the child; returns once it runs the program (or could not: its error, the child reaped).
    pub fn start(&self) -> std::io::Result<Pid> {
        let mut args = ExecArgs {
            argv: null_terminated(&self.argv),
            envp: null_terminated(&self.envp),
            shell_argv: vec![ptr::null(); self.argv.len() + 2],
        };
        let failure = AtomicI32::new(0);
        let sweep = Pid::this();
        let mut stack = vec![0u8; CHILD_STACK];
        // Blocked until the child has reset every handler: sweep's handlers must not run on its stack.
        let mask = SigSet::all().thread_swap_mask(SigmaskHow::SIG_SETMASK)?;
        let body = Box::new(|| self.child(&mut args, &mask, sweep, &failure));
        // SAFETY: the child makes only async-signal-safe calls on memory made before it started,
        // writes only `args.shell_argv` and `failure` (the spawning thread waits meanwhile), and ends in
        // execve or _exit; `stack` outlives it.
        let started =
            unsafe { clone(body, &mut stack, CloneFlags::CLONE_VM | CloneFlags::CLONE_VFORK, Some(libc::SIGCHLD)) };
        let _ = mask.thread_set_mask();
        let pid = started?;
        match failure.load(Ordering::SeqCst) {
            0 => Ok(pid),
            errno => {
                let _ = wait_for_exit(pid);
                Err(std::io::Error::from_raw_os_error(errno))
            }
        }
    }

    /// In the child: set it up, exec the program; on failure tell the parent the errno and exit.
    fn child(&self, args: &mut ExecArgs, mask: &SigSet, sweep: Pid, failure: &AtomicI32) -> isize {
        let errno = match self.set_up(mask, sweep) {
            Ok(()) => self.exec(args),
            Err(errno) => errno,
        };
        failure.store(errno, Ordering::SeqCst);
        // SAFETY: _exit runs no destructors or atexit handlers, which this child must not.
        unsafe { libc::_exit(127) }
    }

    /// Default signal handling, the parent-death signal, the process group, stdio, cwd, then the
    /// signal mask sweep had: what std's `Command` and the former `pre_exec` hook did.
    fn set_up(&self, mask: &SigSet, sweep: Pid) -> Result<(), i32> {
        // SAFETY (every call below): plain system calls on memory this child owns or reads only.
        unsafe {
            reset_signal_handlers();
            // If sweep itself is SIGKILLed, its children go too rather than run on unsupervised and
            // perturb whatever is measured next. (The death signal follows the spawning thread; the
            // executor's outlives every run.)
            check(libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL))?;
            if libc::getppid() != sweep.as_raw() {
                return Err(libc::ESRCH);
            }
            check(libc::setpgid(0, self.group))?;
            for (fd, target) in self.stdio.iter().zip(0..) {
                check(libc::dup2(fd.as_raw_fd(), target))?;
            }
            check(libc::chdir(self.cwd.as_ptr()))?;
            check(libc::pthread_sigmask(libc::SIG_SETMASK, mask.as_ref(), ptr::null_mut()))?;
        }
        Ok(())
    }

    /// execvp's search over `candidates`: a script with no `#!` runs under /bin/sh, a denied candidate
    /// makes the error EACCES unless a later one runs. Returns the errno when none does.
    fn exec(&self, args: &mut ExecArgs) -> i32 {
        let mut denied = false;
        let mut last = libc::ENOENT;
        for candidate in &self.candidates {
            // SAFETY: null-terminated arrays of pointers into C strings that outlive the call.
            unsafe { libc::execve(candidate.as_ptr(), args.argv.as_ptr(), args.envp.as_ptr()) };
            last = errno();
            match last {
                libc::ENOEXEC => return self.exec_shell(candidate, args),
                libc::EACCES => denied = true,
                libc::ENOENT | libc::ENOTDIR | libc::ESTALE | libc::ENODEV | libc::ETIMEDOUT => {}
                _ => return last,
            }
        }
        if denied {
            libc::EACCES
        } else {
            last
        }
    }

    /// `/bin/sh <program> <args>`, as execvp runs a script with no `#!` line.
    fn exec_shell(&self, program: &CString, args: &mut ExecArgs) -> i32 {
        let sh = c"/bin/sh";
        // argv[1..] ends in its null, so the shell's array (two longer than the program's) ends in one.
        let head = [sh.as_ptr(), program.as_ptr()];
        for (slot, arg) in args.shell_argv.iter_mut().zip(head.iter().chain(&args.argv[1..])) {
            *slot = *arg;
        }
        // SAFETY: as in `exec`.
        unsafe { libc::execve(sh.as_ptr(), args.shell_argv.as_ptr(), args.envp.as_ptr()) };
        errno()
    }
}

/// Waits for `pid` to exit and reaps it.
pub fn wait_for_exit(pid: Pid) -> std::io::Result<ExitStatus> {
    let mut status = 0;
    loop {
        // SAFETY: waitpid writes only `status`.
        if unsafe { libc::waitpid(pid.as_raw(), &mut status, 0) } >= 0 {
            return Ok(ExitStatus::from_raw(status));
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// Every caught signal back to its default action, and SIGPIPE too (Rust ignores it; a child's pipes
/// should break as usual); ignored ones stay ignored, as across exec. Until then a signal would run
/// sweep's handler in the child.
unsafe fn reset_signal_handlers() {
    for signal in 1..=LAST_SIGNAL {
        // SAFETY: sigaction only reads and writes `action`.
        let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
        if unsafe { libc::sigaction(signal, ptr::null(), &mut action) } != 0 {
            continue; // SIGKILL, SIGSTOP and the C library's own signals
        }
        let caught = action.sa_sigaction != libc::SIG_DFL && action.sa_sigaction != libc::SIG_IGN;
        if caught || signal == libc::SIGPIPE {
            action.sa_sigaction = libc::SIG_DFL;
            action.sa_flags = 0;
            unsafe { libc::sigaction(signal, &action, ptr::null_mut()) };
        }
    }
}

fn check(result: libc::c_int) -> Result<(), i32> {
    if result < 0 {
        Err(errno())
    } else {
        Ok(())
    }
}

fn errno() -> i32 {
    nix::errno::Errno::last_raw()
}

fn candidates(program: &str, path: Option<&OsStr>) -> std::io::Result<Vec<CString>> {
    if program.contains('/') {
        return Ok(vec![c_string(program.as_bytes())?]);
    }
    let path = path.map_or(DEFAULT_PATH.as_bytes(), OsStr::as_bytes);
    path.split(|&byte| byte == b':')
        .map(|dir| match dir {
            // An empty entry is the current directory.
            b"" => c_string(program.as_bytes()),
            dir => c_string(&[dir, b"/", program.as_bytes()].concat()),
        })
        .collect()
}

fn env_entry(name: &OsStr, value: &OsStr) -> std::io::Result<CString> {
    c_string(&[name.as_bytes(), b"=", value.as_bytes()].concat())
}

fn c_string(bytes: &[u8]) -> std::io::Result<CString> {
    CString::new(bytes).map_err(|_| invalid("an argument, a variable or a path holds a NUL byte"))
}

fn invalid(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidInput, what)
}

fn null_terminated(strings: &[CString]) -> Vec<*const c_char> {
    strings.iter().map(|string| string.as_ptr()).chain([ptr::null()]).collect()
}

/// `fd`, or a copy numbered 3 or above (opened while sweep's own stdin, stdout or stderr was closed).
fn above_stdio(fd: OwnedFd) -> std::io::Result<OwnedFd> {
    if fd.as_raw_fd() > 2 {
        Ok(fd)
    } else {
        // try_clone is F_DUPFD_CLOEXEC from 3.
        fd.try_clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;
    use std::io::Read;

    fn spawn_sh(script: &str, env: &[(OsString, OsString)], dir: &std::path::Path) -> (Pid, ExitStatus, String) {
        let log = dir.join("out.log");
        let out = File::create(&log).unwrap();
        let stdio = [File::open("/dev/null").unwrap().into(), out.try_clone().unwrap().into(), out.into()];
        let argv = ["sh".to_string(), "-c".to_string(), script.to_string()];
        let pid = ChildSpawn::new(&argv, env, dir, stdio, None).unwrap().start().unwrap();
        let status = wait_for_exit(pid).unwrap();
        let mut text = String::new();
        File::open(&log).unwrap().read_to_string(&mut text).unwrap();
        (pid, status, text)
    }

    fn path() -> Vec<(OsString, OsString)> {
        vec![("PATH".into(), std::env::var_os("PATH").unwrap())]
    }

    #[test]
    fn the_child_runs_in_cwd_with_exactly_its_env_in_a_group_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let mut env = path();
        env.push(("WHO".into(), "child".into()));
        let (pid, status, text) = spawn_sh("echo $WHO $(pwd) $(ps -o pgid= -p $$) $HOME", &env, dir.path());
        assert!(status.success(), "{text}");
        let real = dir.path().canonicalize().unwrap();
        assert_eq!(text.split_whitespace().collect::<Vec<_>>(), ["child", real.to_str().unwrap(), &pid.to_string()]);
    }

    #[test]
    fn the_child_blocks_no_signal_and_does_not_ignore_sigpipe() {
        let dir = tempfile::tempdir().unwrap();
        // Rust ignores SIGPIPE, and signals are blocked while the child starts: neither may reach the
        // program, or `yes | head` would never end.
        // (The shell's own mask changes while it waits for a child: the program reads its own.)
        let (_, status, text) = spawn_sh("exec grep -E '^Sig(Blk|Ign):' /proc/self/status", &path(), dir.path());
        assert!(status.success(), "{text}");
        let mask = |name: &str| {
            let line = text.lines().find(|line| line.starts_with(name)).unwrap();
            u64::from_str_radix(line.split_whitespace().nth(1).unwrap(), 16).unwrap()
        };
        assert_eq!(mask("SigBlk:"), 0, "{text}");
        assert_eq!(mask("SigIgn:") & (1 << (libc::SIGPIPE - 1)), 0, "{text}");
    }

    #[test]
    fn a_missing_program_is_the_exec_error_and_a_script_without_a_shebang_runs_under_sh() {
        let dir = tempfile::tempdir().unwrap();
        let stdio = || {
            [
                File::open("/dev/null").unwrap().into(),
                File::open("/dev/null").unwrap().into(),
                File::open("/dev/null").unwrap().into(),
            ]
        };
        let missing = ChildSpawn::new(&["no-such-program-9f2".into()], &path(), dir.path(), stdio(), None).unwrap();
        assert_eq!(missing.start().unwrap_err().kind(), std::io::ErrorKind::NotFound);
        let script = dir.path().join("script");
        std::fs::write(&script, "exit 7\n").unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
        let argv = [script.to_str().unwrap().to_string()];
        let pid = ChildSpawn::new(&argv, &path(), dir.path(), stdio(), None).unwrap().start().unwrap();
        assert_eq!(wait_for_exit(pid).unwrap().code(), Some(7));
    }
}
