//! `ProcessTree`: a snapshot of every process's parent and group from /proc, to find the descendants
//! of a run that left its process groups (OpenMPI ranks take their own) or its parent (re-parented).

use std::collections::{BTreeMap, BTreeSet};

use nix::unistd::Pid;

/// One process as /proc/<pid>/stat shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessInfo {
    pub pid: Pid,
    pub parent: Pid,
    pub group: Pid,
    /// Exited and waiting to be reaped: it holds no resources and runs no code.
    pub zombie: bool,
}

/// Every live process, keyed by pid.
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
}
