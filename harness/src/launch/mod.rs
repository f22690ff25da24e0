//! launch stage.
