//! `SpecNote`: what a declaration most likely did not mean but can still run (a parameter nothing
//! uses); `sweep check` prints it, and refuses it under `--strict`.

use std::fmt;

use super::spec_error::Location;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecNote {
    pub location: Location,
    pub message: String,
}

impl fmt::Display for SpecNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}
