//go:build kubevirt_liveupdate && !kubevirt_v1_6 && !kubevirt_v1_5 && !kubevirt_v1_4

package main

import (
	virtv1 "kubevirt.io/api/core/v1"

	instancetypecontroller "kubevirt.io/kubevirt/pkg/instancetype/controller/vm"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks/mutating-webhook/mutators"
	vmwatch "kubevirt.io/kubevirt/pkg/virt-controller/watch/vm"
)

// newVMWatchController is the VM controller as virt-controller wires it from v1.7 on: the
// KubeVirt and namespace informers, and the launcher annotations and labels to sync (none).
func (w *liveWorld) newVMWatchController(in controllerInformers) (*vmwatch.Controller, error) {
	instancetypes := instancetypecontroller.New(nil, nil, nil, nil, in.cr.GetStore(), w.client, w.config, w.recorder)
	return vmwatch.NewController(in.vmi, in.vm, w.dataVolumeInformer, w.dataSourceStore,
		in.kv, w.namespaceInformer, in.pvc, in.cr, w.recorder, w.client, w.config,
		newNetSynchronizer(w), vmwatch.NewFirmwareController(w.virt),
		instancetypes, []string{}, []string{})
}

// applyVMIMutations is what the VMI mutating webhook does to a new VMI's spec and metadata.
func (w *liveWorld) applyVMIMutations(vmi *virtv1.VirtualMachineInstance) error {
	return mutators.ApplyNewVMIMutations(vmi, w.config)
}
