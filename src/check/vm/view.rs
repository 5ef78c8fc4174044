//! Where a finding about a VM points: the VM inside its object, and the KubeVirt fields a
//! webhook names, as VM fields.

use std::borrow::Cow;

use crate::diag::Finding;
use crate::k8s::Object;
use crate::rules;
use crate::yaml::FieldPath;

/// How a VM sits inside its object: a VirtualMachine, or the template of a VirtualMachinePool.
pub(super) struct VmView<'a> {
    pub(super) object: &'a Object,
    /// Path of the VM inside the object (empty for a VirtualMachine).
    pub(super) base: FieldPath,
}

impl VmView<'_> {
    /// The path of `vm_path` in the object: `vm_path` itself for a VirtualMachine.
    pub(super) fn path<'p>(&self, vm_path: &'p FieldPath) -> Cow<'p, FieldPath> {
        if self.base.0.is_empty() {
            return Cow::Borrowed(vm_path);
        }
        let mut segments = self.base.0.clone();
        segments.extend(vm_path.0.iter().cloned());
        Cow::Owned(FieldPath(segments))
    }

    /// A KubeVirt field (or a message that names fields) as the object's validator says it:
    /// the pool validator checks the template's VM spec under `spec.virtualMachineTemplate`.
    pub(super) fn kubevirt_text(&self, text: &str) -> String {
        if self.base.0.is_empty() {
            return text.to_owned();
        }
        super::super::pool::under_template(text)
    }

    pub(super) fn finding(
        &self,
        rule: &'static rules::Rule,
        vm_path: &FieldPath,
        message: impl Into<String>,
    ) -> Finding {
        let path = self.path(vm_path);
        Finding::new(rule, self.object.field_location(&path), message)
            .with_object(Some(self.object.object_ref()))
            .with_path(path.text())
    }
}

/// Turns a KubeVirt field (`spec.template.spec.domain.cpu.sockets`, `annotations.<key>`) into a
/// VM field path.
pub(super) fn vm_path_of(field: &str) -> FieldPath {
    if let Some(key) = field.strip_prefix("annotations.") {
        return FieldPath::parse("spec.template.metadata.annotations").key(key);
    }
    // Some causes start the field at a wrong base: the network validator of a VM's creation
    // at `spec` (`spec.domain.devices.interfaces[0].slirp`, vms-admitter.go), the DRA admitter
    // of v1.6 and v1.7 at the template spec's `spec` (`spec.template.spec.spec.domain...`).
    if let Some(rest) = field.strip_prefix("spec.template.spec.spec.").or_else(|| {
        field
            .strip_prefix("spec.")
            .filter(|r| r.starts_with("domain."))
    }) {
        return FieldPath::parse(&format!("spec.template.spec.{rest}"));
    }
    // A few causes name the feature rather than the field that uses it.
    let field = match field {
        "spec.template.spec.HostDevices" => "spec.template.spec.domain.devices.hostDevices",
        "spec.template.spec.GPUs" => "spec.template.spec.domain.devices.gpus",
        "spec.template.spec.Sound" => "spec.template.spec.domain.devices.sound",
        "spec.template.spec.Filesystems" => "spec.template.spec.domain.devices.filesystems",
        other => other,
    };
    FieldPath::parse(field)
}

/// Where in the instance type a conflicting VM field comes from.
pub(super) fn instancetype_field(conflict: &str) -> FieldPath {
    if let Some(key) = conflict.strip_prefix("annotations.") {
        return FieldPath::parse("annotations").key(key);
    }
    let suffix = conflict
        .strip_prefix("spec.template.spec.")
        .unwrap_or(conflict);
    let field = match suffix {
        "nodeSelector" => "nodeSelector",
        "schedulerName" => "schedulerName",
        "domain.cpu.model" => "cpu.model",
        "domain.cpu.dedicatedCPUPlacement" => "cpu.dedicatedCPUPlacement",
        "domain.cpu.isolateEmulatorThread" => "cpu.isolateEmulatorThread",
        "domain.cpu.numa" => "cpu.numa",
        "domain.cpu.realtime" => "cpu.realtime",
        "domain.memory.hugepages" => "memory.hugepages",
        "domain.memory.maxGuest" => "memory.maxGuest",
        "domain.ioThreads.supplementalPoolThreadCount" => "ioThreads.supplementalPoolThreadCount",
        "domain.ioThreadsPolicy" => "ioThreadsPolicy",
        "domain.launchSecurity" => "launchSecurity",
        "domain.devices.gpus" => "gpus",
        "domain.devices.hostDevices" => "hostDevices",
        s if s.starts_with("domain.memory") || s.ends_with(".memory") => "memory.guest",
        _ => "cpu.guest",
    };
    FieldPath::parse(field)
}

#[cfg(test)]
mod tests {
    use super::vm_path_of;

    #[test]
    fn causes_with_a_wrong_base_point_at_the_template_field() {
        for (field, path) in [
            (
                "spec.domain.devices.interfaces[0].slirp",
                "spec.template.spec.domain.devices.interfaces[0].slirp",
            ),
            (
                "spec.template.spec.spec.domain.devices.gpus",
                "spec.template.spec.domain.devices.gpus",
            ),
            (
                "spec.template.spec.domain.cpu.sockets",
                "spec.template.spec.domain.cpu.sockets",
            ),
            ("spec.domainx", "spec.domainx"),
            ("spec.runStrategy", "spec.runStrategy"),
        ] {
            assert_eq!(vm_path_of(field).to_string(), path, "{field}");
        }
    }
}
