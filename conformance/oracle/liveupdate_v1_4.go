//go:build kubevirt_liveupdate && kubevirt_v1_4

package main

import (
	k8sv1 "k8s.io/api/core/v1"

	virtv1 "kubevirt.io/api/core/v1"

	virtcontroller "kubevirt.io/kubevirt/pkg/controller"
	"kubevirt.io/kubevirt/pkg/instancetype"
	"kubevirt.io/kubevirt/pkg/testutils"
	"kubevirt.io/kubevirt/pkg/virt-controller/network"
	vmwatch "kubevirt.io/kubevirt/pkg/virt-controller/watch/vm"
)

// newVMWatchController is the VM controller as virt-controller wires it at v1.4: a namespace
// store, the launcher pods' informer (no pods here), instancetype.InstancetypeMethods in
// place of the instance type controller (over the client where it has no store), and the
// network synchronizer of pkg/virt-controller/network.
func (w *liveWorld) newVMWatchController(in controllerInformers) (*vmwatch.Controller, error) {
	pods, _ := testutils.NewFakeInformerFor(&k8sv1.Pod{})
	methods := &instancetype.InstancetypeMethods{ControllerRevisionStore: in.cr.GetStore(), Clientset: w.client}
	synchronizer := network.NewVMNetController(w.virt, virtcontroller.NewPodCacheStore(pods.GetIndexer()))
	return vmwatch.NewController(in.vmi, in.vm, w.dataVolumeInformer, w.dataSourceStore,
		w.namespaceInformer.GetStore(), in.pvc, in.cr, pods, methods, w.recorder, w.client, w.config,
		synchronizer)
}

// revisionNames: at v1.4 the VM's matchers themselves name the ControllerRevisions.
func revisionNames(vm *virtv1.VirtualMachine) (string, string) {
	if vm == nil {
		return "", ""
	}
	instancetypeName, preferenceName := "", ""
	if vm.Spec.Instancetype != nil {
		instancetypeName = vm.Spec.Instancetype.RevisionName
	}
	if vm.Spec.Preference != nil {
		preferenceName = vm.Spec.Preference.RevisionName
	}
	return instancetypeName, preferenceName
}
