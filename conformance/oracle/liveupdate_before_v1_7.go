//go:build kubevirt_liveupdate && (kubevirt_v1_6 || kubevirt_v1_5 || kubevirt_v1_4)

package main

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	virtv1 "kubevirt.io/api/core/v1"

	"kubevirt.io/kubevirt/pkg/testutils"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks/mutating-webhook/mutators"
)

// applyVMIMutations is what the VMI mutating webhook does to a new VMI: before v1.7 there
// is no ApplyNewVMIMutations, so the webhook itself judges the VMI's creation and its patch
// (spec, metadata and status replaced) is applied.
func (w *liveWorld) applyVMIMutations(vmi *virtv1.VirtualMachineInstance) error {
	raw, err := json.Marshal(vmi)
	if err != nil {
		return err
	}
	presets, _ := testutils.NewFakeInformerFor(&virtv1.VirtualMachineInstancePreset{})
	mutator := &mutators.VMIsMutator{ClusterConfig: w.config, VMIPresetInformer: presets}
	kind := metav1.GroupVersionKind{Group: "kubevirt.io", Version: "v1", Kind: "VirtualMachineInstance"}
	response := mutator.Mutate(createRequest(webhooks.VirtualMachineInstanceGroupVersionResource, kind, vmi.Name, vmi.Namespace, raw))
	if !response.Allowed {
		message := ""
		if response.Result != nil {
			message = response.Result.Message
		}
		return fmt.Errorf("%s", message)
	}
	if len(response.Patch) == 0 {
		return nil
	}
	patch, err := decodeJSONPatch(response.Patch)
	if err != nil {
		return err
	}
	if raw, err = patch.Apply(raw); err != nil {
		return err
	}
	mutated := &virtv1.VirtualMachineInstance{}
	if err := json.Unmarshal(raw, mutated); err != nil {
		return err
	}
	*vmi = *mutated
	return nil
}
