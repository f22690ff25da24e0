//! record stage.
