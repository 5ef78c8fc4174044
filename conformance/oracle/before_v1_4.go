//go:build kubevirt_v1_0 || kubevirt_v1_1 || kubevirt_v1_2 || kubevirt_v1_3

// What differs up to v1.3: the fake clientsets under client-go's generated/, the JSON patch
// library from github.com/evanphx, admitters whose Admit takes no context, the VM mutator built
// as a struct, and expand done by the expand-vm-spec handler itself (pkg/virt-api/rest/expand.go
// up to v1.3) rather than by an Expand method. What moved between v1.0 and v1.1 within that
// range is in v1_0.go and v1_1_to_v1_3.go.

package main

import (
	"context"
	"errors"

	jsonpatch "github.com/evanphx/json-patch"
	admissionv1 "k8s.io/api/admission/v1"

	virtv1 "kubevirt.io/api/core/v1"
	cdifake "kubevirt.io/client-go/generated/containerized-data-importer/clientset/versioned/fake"
	snapshotfake "kubevirt.io/client-go/generated/external-snapshotter/clientset/versioned/fake"
	kubevirtfake "kubevirt.io/client-go/generated/kubevirt/clientset/versioned/fake"
	instancetypeclient "kubevirt.io/client-go/generated/kubevirt/clientset/versioned/typed/instancetype/v1beta1"

	"kubevirt.io/kubevirt/pkg/instancetype"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks/mutating-webhook/mutators"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks/validating-webhook/admitters"
)

type (
	instancetypesClient = instancetypeclient.VirtualMachineInstancetypeInterface
	preferencesClient   = instancetypeclient.VirtualMachinePreferenceInterface
)

var (
	newKubevirtFake = kubevirtfake.NewSimpleClientset
	newCDIFake      = cdifake.NewSimpleClientset
	newSnapshotFake = snapshotfake.NewSimpleClientset
	decodeJSONPatch = jsonpatch.DecodePatch
)

type legacyAdmitFunc func(*admissionv1.AdmissionReview) *admissionv1.AdmissionResponse

// contextual adapts an Admit that takes no context to the form later releases have.
func contextual(admit legacyAdmitFunc) admitFunc {
	return func(_ context.Context, review *admissionv1.AdmissionReview) *admissionv1.AdmissionResponse {
		return admit(review)
	}
}

func newVMsMutator(c *cluster) *mutators.VMsMutator {
	return &mutators.VMsMutator{
		ClusterConfig:       c.config,
		InstancetypeMethods: &instancetype.InstancetypeMethods{Clientset: c.client},
	}
}

type vmsAdmitter struct{ admit admitFunc }

func (a vmsAdmitter) Admit(ctx context.Context, review *admissionv1.AdmissionReview) *admissionv1.AdmissionResponse {
	return a.admit(ctx, review)
}

func newVMsAdmitter(c *cluster) vmsAdmitter {
	admitter := admitters.NewVMsAdmitter(c.config, c.client, vmsAdmitterInformers(c))
	return vmsAdmitter{contextual(admitter.Admit)}
}

// errCannotExpand is the handler's error when the instance type conflicts with the VM.
var errCannotExpand = errors.New("cannot expand instancetype to VM")

// expandSpec does what expandSpecResponse does up to v1.3: no defaults are applied, a VM
// with neither an instance type nor a preference comes back as sent, and a conflict is one
// fixed message. It changes vm in place, as the handler does.
func expandSpec(c *cluster, vm *virtv1.VirtualMachine) (*virtv1.VirtualMachine, error) {
	methods := &instancetype.InstancetypeMethods{Clientset: c.client}
	instancetypeSpec, err := methods.FindInstancetypeSpec(vm)
	if err != nil {
		return nil, err
	}
	preferenceSpec, err := methods.FindPreferenceSpec(vm)
	if err != nil {
		return nil, err
	}
	if instancetypeSpec == nil && preferenceSpec == nil {
		return vm, nil
	}
	if conflicts := applyToTemplate(methods, instancetypeSpec, preferenceSpec, vm); len(conflicts) > 0 {
		return nil, errCannotExpand
	}
	vm.Spec.Instancetype = nil
	vm.Spec.Preference = nil
	return vm, nil
}
