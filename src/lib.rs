//! kvlint: an offline linter and renderer for KubeVirt VirtualMachines that use instance types
//! and preferences.
//!
//! The modules are the stages of one pipeline, in this order: `source` finds and reads files,
//! `yaml` parses them with positions, `load` turns documents into objects, `k8s` indexes them,
//! `resolve` finds what a VM references, `admission` and `render` reproduce KubeVirt's webhooks
//! and expand, `controller` predicts what the cluster stores, and `check` runs it all and turns
//! the outcome into findings (`diag`, registered in `rules`), which `output` formats. `cluster`
//! is the KubeVirt release and configuration judged against, `config` the project's settings,
//! `suppress` the findings a repository has accepted; `commands` holds `diff`, `fix`, `render`
//! and `check --index`. ARCHITECTURE.md gives the layers and where a change goes.

pub(crate) mod admission;
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
pub mod units;
pub mod yaml;
