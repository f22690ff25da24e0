//! extract stage.
