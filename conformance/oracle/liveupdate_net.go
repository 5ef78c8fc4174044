//go:build kubevirt_liveupdate && !kubevirt_v1_8 && !kubevirt_v1_5 && !kubevirt_v1_4

package main

import netcontrollers "kubevirt.io/kubevirt/pkg/network/controllers"

// newNetSynchronizer is virt-controller's network synchronizer of the VM controller (the same
// constructor at v1.6, v1.7 and from v1.9).
func newNetSynchronizer(w *liveWorld) *netcontrollers.VMController {
	return netcontrollers.NewVMController(w.virt)
}
