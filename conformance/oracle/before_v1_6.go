//go:build kubevirt_v1_0 || kubevirt_v1_1 || kubevirt_v1_2 || kubevirt_v1_3 || kubevirt_v1_4 || kubevirt_v1_5

// What differs up to v1.5: gomock from github.com/golang/mock, the instance type and
// preference admitters in virt-api's admitters package, and instancetype.kubevirt.io
// v1alpha1 and v1alpha2 still served (stored as v1beta1, see storedType).

package main

import (
	"context"
	"reflect"

	"github.com/golang/mock/gomock"
	admissionv1 "k8s.io/api/admission/v1"

	instancetypeapi "kubevirt.io/api/instancetype"
	instancetypev1alpha1 "kubevirt.io/api/instancetype/v1alpha1"
	instancetypev1alpha2 "kubevirt.io/api/instancetype/v1alpha2"
	"kubevirt.io/client-go/kubecli"

	"kubevirt.io/kubevirt/pkg/virt-api/webhooks/validating-webhook/admitters"
)

var servedInstancetypeAlphas = map[string]reflect.Type{
	"instancetype.kubevirt.io/v1alpha1/VirtualMachineInstancetype":        reflect.TypeOf(instancetypev1alpha1.VirtualMachineInstancetype{}),
	"instancetype.kubevirt.io/v1alpha1/VirtualMachineClusterInstancetype": reflect.TypeOf(instancetypev1alpha1.VirtualMachineClusterInstancetype{}),
	"instancetype.kubevirt.io/v1alpha1/VirtualMachinePreference":          reflect.TypeOf(instancetypev1alpha1.VirtualMachinePreference{}),
	"instancetype.kubevirt.io/v1alpha1/VirtualMachineClusterPreference":   reflect.TypeOf(instancetypev1alpha1.VirtualMachineClusterPreference{}),
	"instancetype.kubevirt.io/v1alpha2/VirtualMachineInstancetype":        reflect.TypeOf(instancetypev1alpha2.VirtualMachineInstancetype{}),
	"instancetype.kubevirt.io/v1alpha2/VirtualMachineClusterInstancetype": reflect.TypeOf(instancetypev1alpha2.VirtualMachineClusterInstancetype{}),
	"instancetype.kubevirt.io/v1alpha2/VirtualMachinePreference":          reflect.TypeOf(instancetypev1alpha2.VirtualMachinePreference{}),
	"instancetype.kubevirt.io/v1alpha2/VirtualMachineClusterPreference":   reflect.TypeOf(instancetypev1alpha2.VirtualMachineClusterPreference{}),
}

func newMockClient(reporter gomock.TestReporter) *kubecli.MockKubevirtClient {
	return kubecli.NewMockKubevirtClient(gomock.NewController(reporter))
}

func anyArgument() interface{} { return gomock.Any() }

type admitFunc func(context.Context, *admissionv1.AdmissionReview) *admissionv1.AdmissionResponse

// objectAdmitter is the validating webhook of an instance type or preference kind and the
// resource it is registered for; nil for other kinds.
func objectAdmitter(kind string) (string, admitFunc) {
	switch kind {
	case "VirtualMachineInstancetype":
		return instancetypeapi.PluralResourceName, contextual((&admitters.InstancetypeAdmitter{}).Admit)
	case "VirtualMachineClusterInstancetype":
		return instancetypeapi.ClusterPluralResourceName, contextual((&admitters.ClusterInstancetypeAdmitter{}).Admit)
	case "VirtualMachinePreference":
		return instancetypeapi.PluralPreferenceResourceName, contextual((&admitters.PreferenceAdmitter{}).Admit)
	case "VirtualMachineClusterPreference":
		return instancetypeapi.ClusterPluralPreferenceResourceName, contextual((&admitters.ClusterPreferenceAdmitter{}).Admit)
	}
	return "", nil
}
