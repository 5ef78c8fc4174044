//go:build !kubevirt_v1_0 && !kubevirt_v1_1 && !kubevirt_v1_2 && !kubevirt_v1_3 && !kubevirt_v1_4

// The VirtualMachine webhooks and expand from v1.5 on: constructors in the mutators and
// admitters packages, expand in pkg/instancetype/expand.

package main

import (
	virtv1 "kubevirt.io/api/core/v1"

	"kubevirt.io/kubevirt/pkg/instancetype/expand"
	"kubevirt.io/kubevirt/pkg/instancetype/find"
	preferenceFind "kubevirt.io/kubevirt/pkg/instancetype/preference/find"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks/mutating-webhook/mutators"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks/validating-webhook/admitters"
)

func newVMsMutator(c *cluster) *mutators.VMsMutator {
	return mutators.NewVMsMutator(c.config, c.client)
}

func newVMsAdmitter(c *cluster) *admitters.VMsAdmitter {
	return admitters.NewVMsAdmitter(c.config, c.client, &webhooks.Informers{
		DataSourceInformer: c.dataSourceStore,
		NamespaceInformer:  c.namespaceInformer,
	}, map[string]struct{}{})
}

func expandSpec(c *cluster, vm *virtv1.VirtualMachine) (*virtv1.VirtualMachine, error) {
	return expand.New(c.config,
		find.NewSpecFinder(nil, nil, nil, c.client),
		preferenceFind.NewSpecFinder(nil, nil, nil, c.client)).Expand(vm)
}
