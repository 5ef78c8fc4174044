//! Units: what a GitOps controller renders from the repository (Kustomize roots, Flux
//! Kustomizations, Argo CD Applications).

pub mod envsubst;
