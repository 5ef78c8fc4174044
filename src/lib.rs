//! kvlint: an offline linter and renderer for KubeVirt VirtualMachines that use instance types
//! and preferences.
//!
//! The pipeline runs in one direction: `source` finds and reads files, `yaml` parses them with
//! positions, `load` turns documents into objects, `k8s` indexes them, `resolve` finds what a VM
//! references, `admission` and `render` reproduce KubeVirt, `analyze` turns the outcome into
//! findings, and `output` formats them.

pub mod admission;
pub mod check;
pub mod cli;
pub mod cluster;
pub mod commands;
pub mod config;
pub mod controller;
pub mod diag;
pub mod error;
pub mod k8s;
pub mod load;
pub mod model;
pub mod output;
pub mod render;
pub mod resolve;
pub mod rules;
pub mod sanitize;
pub mod schema;
pub mod source;
pub mod suppress;
pub mod yaml;
