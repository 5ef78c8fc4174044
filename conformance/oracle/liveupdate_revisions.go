//go:build kubevirt_liveupdate && !kubevirt_v1_4

package main

import virtv1 "kubevirt.io/api/core/v1"

// revisionNames: the instance type and preference ControllerRevisions the VM's status names.
func revisionNames(vm *virtv1.VirtualMachine) (string, string) {
	if vm == nil {
		return "", ""
	}
	name := func(ref *virtv1.InstancetypeStatusRef) string {
		if ref == nil || ref.ControllerRevisionRef == nil {
			return ""
		}
		return ref.ControllerRevisionRef.Name
	}
	return name(vm.Status.InstancetypeRef), name(vm.Status.PreferenceRef)
}
