//go:build !kubevirt_v1_0 && !kubevirt_v1_1 && !kubevirt_v1_2 && !kubevirt_v1_3 && !kubevirt_v1_4 && !kubevirt_v1_5

// What differs from v1.6 on: gomock from go.uber.org, the instance type and preference
// admitters in pkg/instancetype, and only instancetype.kubevirt.io/v1beta1 served.

package main

import (
	"context"
	"reflect"

	"go.uber.org/mock/gomock"
	admissionv1 "k8s.io/api/admission/v1"

	instancetypeapi "kubevirt.io/api/instancetype"
	"kubevirt.io/client-go/kubecli"

	preferencewebhooks "kubevirt.io/kubevirt/pkg/instancetype/preference/webhooks"
	instancetypewebhooks "kubevirt.io/kubevirt/pkg/instancetype/webhooks"
)

var servedInstancetypeAlphas = map[string]reflect.Type{}

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
		return instancetypeapi.PluralResourceName, (&instancetypewebhooks.InstancetypeAdmitter{}).Admit
	case "VirtualMachineClusterInstancetype":
		return instancetypeapi.ClusterPluralResourceName, (&instancetypewebhooks.ClusterInstancetypeAdmitter{}).Admit
	case "VirtualMachinePreference":
		return instancetypeapi.PluralPreferenceResourceName, (&preferencewebhooks.PreferenceAdmitter{}).Admit
	case "VirtualMachineClusterPreference":
		return instancetypeapi.ClusterPluralPreferenceResourceName, (&preferencewebhooks.ClusterPreferenceAdmitter{}).Admit
	}
	return "", nil
}
