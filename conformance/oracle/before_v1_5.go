//go:build kubevirt_v1_4

// The VirtualMachine webhooks and expand at v1.4: both webhooks and the expand-vm-spec handler
// use instancetype.InstancetypeMethods over the client, and the validating webhook reads
// DataVolumes from an informer.

package main

import (
	virtv1 "kubevirt.io/api/core/v1"

	"kubevirt.io/kubevirt/pkg/instancetype"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks/mutating-webhook/mutators"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks/validating-webhook/admitters"
)

func newVMsMutator(c *cluster) *mutators.VMsMutator {
	return &mutators.VMsMutator{
		ClusterConfig:       c.config,
		InstancetypeMethods: &instancetype.InstancetypeMethods{Clientset: c.client},
	}
}

func newVMsAdmitter(c *cluster) *admitters.VMsAdmitter {
	return admitters.NewVMsAdmitter(c.config, c.client, &webhooks.Informers{
		DataVolumeInformer: c.dataVolumeInformer,
		DataSourceInformer: c.dataSourceStore,
		NamespaceInformer:  c.namespaceInformer,
	})
}

func expandSpec(c *cluster, vm *virtv1.VirtualMachine) (*virtv1.VirtualMachine, error) {
	return (&instancetype.InstancetypeMethods{Clientset: c.client}).Expand(vm, c.config)
}
