//! Which runs share one instance of their services (`reuse_across`): runs of one round whose settings
//! differ only in the reused params. Within each round those runs are made consecutive (the round's
//! order of first appearance is kept, so every setting still runs once per round and interleaving
//! holds); the run order numbers follow the new order.

use std::collections::{BTreeMap, BTreeSet};

use crate::plan::{Plan, PlannedRun};
use crate::spec::Sweep;

/// What one service instance can serve: the round and every setting value but the reused params.
type InstanceKey = (u32, bool, String, Vec<String>);

/// The params services are reused across; empty when every run starts its own.
fn reused(sweep: &Sweep) -> BTreeSet<&str> {
    sweep.run.service.iter().flat_map(|service| service.reuse_across.iter().map(String::as_str)).collect()
}

fn instance_key(plan: &Plan, run: &PlannedRun, reused: &BTreeSet<&str>) -> InstanceKey {
    let setting = &plan.settings[run.setting.index()];
    let values = setting
        .values
        .iter()
        .zip(setting.value_texts())
        .filter(|((name, _), _)| !reused.contains(name.as_str()))
        .map(|(_, text)| text)
        .collect();
    (run.rep, run.warmup, setting.variant.clone(), values)
}

/// `runs` with the runs of one round that can share an instance next to each other, renumbered.
pub fn grouped(sweep: &Sweep, plan: &Plan, runs: &[PlannedRun]) -> Vec<PlannedRun> {
    let reused = reused(sweep);
    if reused.is_empty() {
        return runs.to_vec();
    }
    let mut out = Vec::with_capacity(runs.len());
    for round in runs.chunk_by(|a, b| (a.rep, a.warmup) == (b.rep, b.warmup)) {
        let mut first_seen: BTreeMap<InstanceKey, usize> = BTreeMap::new();
        let mut slotted: Vec<(usize, PlannedRun)> = round
            .iter()
            .map(|run| {
                let next = first_seen.len();
                (*first_seen.entry(instance_key(plan, run, &reused)).or_insert(next), *run)
            })
            .collect();
        slotted.sort_by_key(|(slot, _)| *slot);
        let orders = round.iter().map(|run| run.order);
        out.extend(slotted.into_iter().zip(orders).map(|((_, run), order)| PlannedRun { order, ..run }));
    }
    out
}

/// How many of the leading `runs` one service instance serves (1 without `reuse_across`).
pub fn shared_len(sweep: &Sweep, plan: &Plan, runs: &[PlannedRun]) -> usize {
    let reused = reused(sweep);
    let Some(first) = runs.first() else { return 0 };
    if reused.is_empty() {
        return 1;
    }
    let key = instance_key(plan, first, &reused);
    runs.iter().take_while(|run| instance_key(plan, run, &reused) == key).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::PlanOptions;

    fn served_sweep(reuse: &str) -> (tempfile::TempDir, Sweep) {
        let dir = tempfile::tempdir().unwrap();
        let profile = "tree = \".\"\nprogram = \"sh\"\nlauncher = \"local\"\nranks = 1\ntimeout = \"10s\"\n[result]\nprefix = \"r\"\n";
        std::fs::create_dir_all(dir.path().join("engines")).unwrap();
        std::fs::write(dir.path().join("engines/client.toml"), profile).unwrap();
        let sweep = format!(
            "name = \"s\"\n[engine]\nprofile = \"client\"\n[params]\nmode = [\"off\", \"all\", \"prefill\"]\n\
             concurrency = [1, 4, 16]\n[reps]\ncount = 3\nseed = 5\n[[run.service]]\nname = \"server\"\n\
             program = \"server\"\nready = {{ tcp = \"127.0.0.1:1\" }}\nreuse_across = {reuse}\n\
             [metrics]\nresult = [\"t\"]\n[analysis]\nprimary = \"t\"\n"
        );
        let path = dir.path().join("s.toml");
        std::fs::write(&path, sweep).unwrap();
        let sweep = crate::spec::load_sweep(&path).unwrap();
        (dir, sweep)
    }

    #[test]
    fn runs_sharing_an_instance_are_made_consecutive_within_each_round_and_renumbered() {
        let (_dir, sweep) = served_sweep("[\"concurrency\"]");
        let plan = Plan::new(&sweep, &["default".to_string()], &PlanOptions::default()).unwrap();
        let runs = grouped(&sweep, &plan, &plan.runs);
        let orders: Vec<usize> = runs.iter().map(|run| run.order).collect();
        assert_eq!(orders, plan.runs.iter().map(|run| run.order).collect::<Vec<_>>(), "orders follow the new order");
        let mut rest = &runs[..];
        let mut instances = 0;
        while !rest.is_empty() {
            let shared = shared_len(&sweep, &plan, rest);
            assert_eq!(shared, 3, "one instance per mode serves its three concurrency levels");
            let group = &rest[..shared];
            assert!(group.iter().all(|run| run.rep == group[0].rep));
            let modes: BTreeSet<String> =
                group.iter().map(|run| plan.settings[run.setting.index()].values[0].1.to_string()).collect();
            assert_eq!(modes.len(), 1);
            rest = &rest[shared..];
            instances += 1;
        }
        assert_eq!(instances, 3 * 3, "three modes in each of three rounds");
        for round in runs.chunks(9) {
            let settings: BTreeSet<usize> = round.iter().map(|run| run.setting.index()).collect();
            assert_eq!(settings.len(), 9, "every setting still runs once per round");
        }
    }

    #[test]
    fn without_reuse_every_run_has_its_own_instance_in_the_planned_order() {
        let (_dir, sweep) = served_sweep("[]");
        let plan = Plan::new(&sweep, &["default".to_string()], &PlanOptions::default()).unwrap();
        assert_eq!(grouped(&sweep, &plan, &plan.runs), plan.runs);
        assert_eq!(shared_len(&sweep, &plan, &plan.runs), 1);
    }
}
