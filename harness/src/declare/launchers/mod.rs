//! `LauncherKind`: a profile's `launcher`, one of the kinds registered here, each a file of its own. A new
//! kind (Kubernetes, Ray) is a file implementing `Launcher` and its entry in `registered!`.

use std::fmt;
use std::ops::Deref;

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};

use crate::declare::Launcher;

/// Declares each kind's file and lists its launcher, in the order an unknown name's error names them.
macro_rules! registered {
    ($($file:ident::$kind:ident),*) => {
        $(mod $file;)*
        const LAUNCHERS: &[&dyn Launcher] = &[$(&$file::$kind),*];
    };
}

registered!(local::Local, per_rank::PerRank, mpirun::Mpirun, srun::Srun);

/// How the ranks of one run are started: a registered launcher, read and written by its name.
#[derive(Clone, Copy)]
pub struct LauncherKind(&'static dyn Launcher);

impl LauncherKind {
    /// The launcher a profile spells `name`.
    pub fn named(name: &str) -> Option<LauncherKind> {
        LAUNCHERS.iter().find(|launcher| launcher.name() == name).map(|launcher| LauncherKind(*launcher))
    }

    /// The names of the launchers `keep` keeps, as a sentence lists them: `per-rank, mpirun or srun`.
    pub fn names_where(keep: impl Fn(&dyn Launcher) -> bool) -> String {
        let names: Vec<&str> = LAUNCHERS.iter().filter(|launcher| keep(**launcher)).map(|l| l.name()).collect();
        match names.split_last() {
            Some((last, [])) => last.to_string(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

impl Deref for LauncherKind {
    type Target = dyn Launcher;

    fn deref(&self) -> &Self::Target {
        self.0
    }
}

impl fmt::Debug for LauncherKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for LauncherKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

/// An unknown name is refused in serde's words for an unknown enum variant, which a declaration's
/// error rewords (and follows with the nearest name).
impl<'de> Deserialize<'de> for LauncherKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<LauncherKind, D::Error> {
        let name = String::deserialize(deserializer)?;
        LauncherKind::named(&name).ok_or_else(|| {
            let known: Vec<String> = LAUNCHERS.iter().map(|launcher| format!("`{}`", launcher.name())).collect();
            de::Error::custom(format!("unknown variant `{name}`, expected one of {}", known.join(", ")))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_launcher_reads_back_by_its_name() {
        for launcher in LAUNCHERS {
            let kind: LauncherKind = serde_json::from_value(launcher.name().into()).unwrap();
            assert_eq!(serde_json::to_value(kind).unwrap(), launcher.name());
        }
    }

    #[test]
    fn an_unknown_launcher_is_refused_naming_every_known_one() {
        let error = serde_json::from_value::<LauncherKind>("mpiexec".into()).unwrap_err().to_string();
        assert_eq!(error, "unknown variant `mpiexec`, expected one of `local`, `per-rank`, `mpirun`, `srun`");
    }

    #[test]
    fn mpirun_is_given_the_rank_count_and_hostfile_and_srun_the_rank_count() {
        let kind = |name: &str| LauncherKind::named(name).unwrap();
        let hostfile = Some(std::path::Path::new("/h/hosts"));
        assert_eq!(kind("mpirun").rank_flags(4, hostfile), ["-n", "4", "--hostfile", "/h/hosts"]);
        assert_eq!(kind("srun").rank_flags(4, hostfile), ["-n", "4"]);
        assert!(kind("local").rank_flags(1, None).is_empty() && kind("per-rank").rank_flags(2, None).is_empty());
    }

    #[test]
    fn the_launchers_that_start_more_than_one_process_are_listed_as_a_sentence() {
        assert_eq!(LauncherKind::names_where(|launcher| !launcher.one_process()), "per-rank, mpirun or srun");
        assert_eq!(LauncherKind::names_where(|launcher| launcher.takes_hostfile()), "mpirun");
    }
}
