//go:build kubevirt_v1_0

// At v1.0 (see v1_1_to_v1_3.go for v1.1 to v1.3): the VM admitter takes no Namespace informer
// (webhooks.Informers has none), and ApplyToVmi takes no template metadata: instance type and
// preference annotations are not applied (they came with v1.1).

package main

import (
	k8sfield "k8s.io/apimachinery/pkg/util/validation/field"

	virtv1 "kubevirt.io/api/core/v1"
	instancetypev1beta1 "kubevirt.io/api/instancetype/v1beta1"

	"kubevirt.io/kubevirt/pkg/instancetype"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks"
)

func vmsAdmitterInformers(c *cluster) *webhooks.Informers {
	return &webhooks.Informers{DataSourceInformer: c.dataSourceStore}
}

func applyToTemplate(methods *instancetype.InstancetypeMethods, instancetypeSpec *instancetypev1beta1.VirtualMachineInstancetypeSpec, preferenceSpec *instancetypev1beta1.VirtualMachinePreferenceSpec, vm *virtv1.VirtualMachine) instancetype.Conflicts {
	return methods.ApplyToVmi(k8sfield.NewPath("spec", "template", "spec"), instancetypeSpec, preferenceSpec, &vm.Spec.Template.Spec)
}
