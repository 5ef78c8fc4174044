//go:build kubevirt_liveupdate && !kubevirt_v1_8

package main

import netcontrollers "kubevirt.io/kubevirt/pkg/network/controllers"

// newNetSynchronizer is virt-controller's network synchronizer of the VM controller (the same
// constructor at every release the live-update mode builds at, except v1.8).
func newNetSynchronizer(w *liveWorld) *netcontrollers.VMController {
	return netcontrollers.NewVMController(w.virt)
}
