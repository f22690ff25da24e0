//! variants stage.
