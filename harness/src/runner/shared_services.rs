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
    let setting = &plan.settings[run.setting];
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
