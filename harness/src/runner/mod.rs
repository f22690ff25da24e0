//! runner stage.
