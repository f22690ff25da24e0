//! spec stage.
