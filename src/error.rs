//! Failures of the tool itself (exit code 2), as opposed to findings about the input.

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    Io(String),
}
