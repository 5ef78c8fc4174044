//go:build kubevirt_v1_1 || kubevirt_v1_2 || kubevirt_v1_3

// From v1.1 to v1.3 (see v1_0.go for v1.0): the VM admitter reads Namespaces from an informer
// (for DataSource clone authorization), and ApplyToVmi also applies the instance type's and
// preference's annotations to the template's metadata.

package main

import (
	k8sfield "k8s.io/apimachinery/pkg/util/validation/field"

	virtv1 "kubevirt.io/api/core/v1"
	instancetypev1beta1 "kubevirt.io/api/instancetype/v1beta1"

	"kubevirt.io/kubevirt/pkg/instancetype"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks"
)

func vmsAdmitterInformers(c *cluster) *webhooks.Informers {
	return &webhooks.Informers{
		DataSourceInformer: c.dataSourceStore,
		NamespaceInformer:  c.namespaceInformer,
	}
}

func applyToTemplate(methods *instancetype.InstancetypeMethods, instancetypeSpec *instancetypev1beta1.VirtualMachineInstancetypeSpec, preferenceSpec *instancetypev1beta1.VirtualMachinePreferenceSpec, vm *virtv1.VirtualMachine) instancetype.Conflicts {
	return methods.ApplyToVmi(k8sfield.NewPath("spec", "template", "spec"), instancetypeSpec, preferenceSpec, &vm.Spec.Template.Spec, &vm.Spec.Template.ObjectMeta)
}
