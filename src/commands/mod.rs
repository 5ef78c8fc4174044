//! The commands beside `check` (which is the pipeline itself): each takes the pipeline's
//! results and does one thing with them.

pub mod diff;
pub mod fix;
pub mod render;
pub mod scope;
