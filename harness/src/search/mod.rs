//! Budgeted search over a space too large for a grid: iterated racing (López-Ibáñez et al. 2016, irace)
//! over the declared settings, pure over plain data; a driver hands its candidates to the runner.

mod axis;
mod candidate_sampler;
mod iterated_race;
mod paired_elimination;
mod space;
#[cfg(test)]
pub(crate) mod test_fixture_space;

pub use axis::Axis;
pub use iterated_race::IteratedRace;
pub use space::Space;
