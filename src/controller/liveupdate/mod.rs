//! What KubeVirt applies to a running VM when its template changes (the `LiveUpdate` rollout
//! strategy): `memory`, KubeVirt's `pkg/liveupdate/memory`, which the VM admitter, the VMI
//! defaults and the VM controller all ask whether memory hotplug is possible.

pub(crate) mod memory;
