//! Errors of the `plan` stage: command-line selections that do not fit the declaration.

#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("--filter `{filter}`: expected KEY=VALUE")]
    MalformedFilter { filter: String },
    #[error("--filter `{filter}`: `{key}` is not a parameter of {file} (parameters: {known})")]
    UnknownFilterKey { filter: String, key: String, file: String, known: String },
    #[error("--filter `{filters}`: no setting of {file} matches")]
    NothingSelected { filters: String, file: String },
    #[error("--shard `{shard}`: expected I/N with 1 <= I <= N")]
    MalformedShard { shard: String },
    #[error("--reps must be at least 1")]
    ZeroReps,
    #[error(
        "--reps {reps}: {settings} settings x {rounds} rounds = {runs} runs, more than the {max} a sweep may plan"
    )]
    TooManyRuns { reps: u32, settings: usize, rounds: u64, runs: u64, max: u64 },
    #[error("{location} at {setting}: {message}")]
    Expression { location: crate::declare::Location, setting: String, message: String },
    #[error(
        "{file}: settings {first} and {second} both print as `{label}`: two settings would share one CSV \
         identity (a text value holding a space then `name=` reads as another param)"
    )]
    SettingsPrintAlike { file: String, first: String, second: String, label: String },
    #[error("--shard {index}/{count}: {count} shards of {reps} reps leave shard {empty} without a rep; give at most {reps} shards")]
    ShardBeyondReps { index: u32, count: u32, reps: u32, empty: u32 },
}
