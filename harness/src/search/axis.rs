//! `Axis`: one parameter of a search space, as the sampler sees it.

/// A parameter's levels, numbered from 0 in declaration order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Axis {
    pub levels: u16,
    /// Whether neighbouring levels are alike (numbers): sampled around a parent's level, else (text,
    /// booleans) kept or redrawn as a whole.
    pub ordered: bool,
}
