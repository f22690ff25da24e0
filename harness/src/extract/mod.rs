//! extract stage.

pub mod profile_block;
