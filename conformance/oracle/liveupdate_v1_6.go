//go:build kubevirt_liveupdate && kubevirt_v1_6

package main

import (
	instancetypecontroller "kubevirt.io/kubevirt/pkg/instancetype/controller/vm"
	vmwatch "kubevirt.io/kubevirt/pkg/virt-controller/watch/vm"
)

// newVMWatchController is the VM controller as virt-controller wires it at v1.6: a namespace
// store, no KubeVirt informer, no launcher annotations or labels to sync.
func (w *liveWorld) newVMWatchController(in controllerInformers) (*vmwatch.Controller, error) {
	instancetypes := instancetypecontroller.New(nil, nil, nil, nil, in.cr.GetStore(), w.client, w.config, w.recorder)
	return vmwatch.NewController(in.vmi, in.vm, w.dataVolumeInformer, w.dataSourceStore,
		w.namespaceInformer.GetStore(), in.pvc, in.cr, w.recorder, w.client, w.config,
		newNetSynchronizer(w), vmwatch.NewFirmwareController(w.virt), instancetypes)
}
