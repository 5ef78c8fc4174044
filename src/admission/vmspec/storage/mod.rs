//! KubeVirt's storage admitters (`pkg/storage/admitters`) as the VM webhook runs them.

pub(super) mod data_volume_template;
pub(super) mod disks;
pub(super) mod volumes;
