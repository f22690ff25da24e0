//! compare stage.
