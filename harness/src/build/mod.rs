//! build stage.
