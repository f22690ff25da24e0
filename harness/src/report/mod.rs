//! report stage.
