//! plan stage.
