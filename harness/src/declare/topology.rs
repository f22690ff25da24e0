//! `Topology`: the rank count and MPI hostfile of a run when a sweep templates them over params
//! (`[engine] ranks = "{{nodes}}"`, `hostfile = "hosts/{{nodes}}.txt"`), rendered per setting.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::template::Template;

/// Templates of the topology; `None` fields take the profile's fixed value.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Topology {
    pub ranks: Option<Template>,
    pub hostfile: Option<Template>,
    /// The sweep file's folder: a rendered hostfile is relative to it.
    pub sweep_dir: PathBuf,
}

impl Topology {
    pub fn is_templated(&self) -> bool {
        self.ranks.is_some() || self.hostfile.is_some()
    }

    /// The rank count for `params`, if templated: a whole number from 1 to `max`, or the reason it is not.
    pub fn ranks_for(&self, params: &Map<String, Value>, max: u32) -> Option<Result<u32, String>> {
        let text = self.ranks.as_ref()?;
        Some(text.render(params).map_err(|error| error.to_string()).and_then(|rendered| {
            rendered
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=max).contains(n))
                .ok_or_else(|| format!("`{text}` rendered to `{rendered}`, not a rank count from 1 to {max}"))
        }))
    }

    /// The hostfile for `params`, if templated.
    pub fn hostfile_for(&self, params: &Map<String, Value>) -> Option<Result<PathBuf, String>> {
        let text = self.hostfile.as_ref()?;
        Some(text.render(params).map(|file| self.sweep_dir.join(file)).map_err(|error| error.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(nodes: i64) -> Map<String, Value> {
        [("nodes".to_string(), Value::from(nodes))].into_iter().collect()
    }

    #[test]
    fn ranks_render_per_setting_and_must_be_a_count() {
        let topology = Topology { ranks: Template::parse("{{nodes}}").ok(), ..Topology::default() };
        assert_eq!(topology.ranks_for(&params(4), 8), Some(Ok(4)));
        assert!(topology.ranks_for(&params(0), 8).unwrap().unwrap_err().contains("rendered to `0`"));
        assert!(topology.ranks_for(&params(9), 8).unwrap().is_err());
        assert_eq!(Topology::default().ranks_for(&params(4), 8), None);
    }

    #[test]
    fn a_hostfile_is_relative_to_the_sweep() {
        let hostfile = Template::parse("hosts/{{nodes}}.txt").ok();
        let topology = Topology { hostfile, sweep_dir: "/s".into(), ..Default::default() };
        assert_eq!(topology.hostfile_for(&params(2)), Some(Ok(PathBuf::from("/s/hosts/2.txt"))));
    }
}
