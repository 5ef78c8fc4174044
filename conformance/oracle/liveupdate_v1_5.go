//go:build kubevirt_liveupdate && kubevirt_v1_5

package main

import (
	k8sv1 "k8s.io/api/core/v1"

	virtcontroller "kubevirt.io/kubevirt/pkg/controller"
	instancetypecontroller "kubevirt.io/kubevirt/pkg/instancetype/controller/vm"
	netcontrollers "kubevirt.io/kubevirt/pkg/network/controllers"
	"kubevirt.io/kubevirt/pkg/testutils"
	vmwatch "kubevirt.io/kubevirt/pkg/virt-controller/watch/vm"
)

// newVMWatchController is the VM controller as virt-controller wires it at v1.5: a namespace
// store and the launcher pods' informer (no pods here), a network synchronizer that reads
// the launcher pod, and no firmware synchronizer.
func (w *liveWorld) newVMWatchController(in controllerInformers) (*vmwatch.Controller, error) {
	pods, _ := testutils.NewFakeInformerFor(&k8sv1.Pod{})
	instancetypes := instancetypecontroller.New(nil, nil, nil, nil, in.cr.GetStore(), w.client, w.config, w.recorder)
	network := netcontrollers.NewVMController(w.virt, virtcontroller.NewPodCacheStore(pods.GetIndexer()))
	return vmwatch.NewController(in.vmi, in.vm, w.dataVolumeInformer, w.dataSourceStore,
		w.namespaceInformer.GetStore(), in.pvc, in.cr, pods, w.recorder, w.client, w.config,
		network, instancetypes)
}
