//! KV1016: KubeVirt admits a VirtualMachinePool, but refuses every VM its controller creates
//! (found by `check::vm`, which judges the pool's template as the pool validator does and as the
//! VM webhooks judge the VMs made from it).

use super::spec::Reported;
use crate::rules::{Category, FixKind, Rule, Severity};

pub static POOL_VM_REJECTED: Rule = Rule {
    code: "KV1016",
    name: "pool-vm-rejected",
    category: Category::Unresolved,
    severity: Severity::Error,
    summary: "KubeVirt stores the VirtualMachinePool, but refuses every VM its controller creates from the template.",
    since: "0.1.0",
    explanation: include_str!("../docs/KV1016.md"),
    fix: FixKind::None,
    drift: None,
};

/// The VM webhooks' refusal `refusal` (a VirtualMachine's finding) of each VM a pool creates,
/// as the pool's finding: the pool validator does not make it.
pub fn each_vm_refused(refusal: Reported) -> Reported {
    let refused_as = refusal.rule;
    let help = format!(
        "the pool validator judges the template as written and does not make this refusal; the VM webhooks judge each VM the pool controller creates with its instance type, preference and defaults applied, and refuse it ({} {} for a VirtualMachine): the pool never runs a VM",
        refused_as.code, refused_as.name
    );
    let help = match refusal.help {
        Some(original) => format!("{help}; {original}"),
        None => help,
    };
    Reported {
        rule: &POOL_VM_REJECTED,
        message: format!("every VM the pool creates is refused: {}", refusal.message),
        help: Some(help),
        ..refusal
    }
}

#[cfg(test)]
mod tests {
    use super::super::spec::At;
    use super::super::vm_spec_invalid::VM_SPEC_INVALID;
    use super::*;

    #[test]
    fn a_vm_refusal_becomes_the_pool_s_finding_at_the_same_field() {
        let refusal = Reported::new(
            &VM_SPEC_INVALID,
            At::Cause("spec.template.spec.domain.memory.guest".to_owned()),
            "spec.template.spec.domain.memory.guest '2Gi' must be equal to or less than the memory limit spec.template.spec.domain.resources.limits.memory '1Gi'",
        )
        .with_kubevirt_field("spec.template.spec.domain.memory.guest")
        .with_help("a gate hint");
        let reported = each_vm_refused(refusal);
        assert_eq!(reported.rule.code, "KV1016");
        assert_eq!(reported.rule.category, Category::Unresolved);
        assert_eq!(
            reported.at,
            At::Cause("spec.template.spec.domain.memory.guest".to_owned())
        );
        assert_eq!(
            reported.kubevirt_field.as_deref(),
            Some("spec.template.spec.domain.memory.guest")
        );
        assert!(
            reported.message.starts_with(
                "every VM the pool creates is refused: spec.template.spec.domain.memory.guest '2Gi'"
            ),
            "{}",
            reported.message
        );
        let help = reported.help.unwrap();
        assert!(
            help.contains("(KV1008 vm-spec-invalid for a VirtualMachine)"),
            "{help}"
        );
        assert!(help.ends_with("; a gate hint"), "{help}");
    }
}
