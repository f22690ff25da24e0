//! analyse stage.
