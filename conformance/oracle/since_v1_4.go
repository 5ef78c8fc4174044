//go:build !kubevirt_v1_0 && !kubevirt_v1_1 && !kubevirt_v1_2 && !kubevirt_v1_3

// What differs from v1.4 on: the fake clientsets at client-go's top level, the JSON patch
// library the API server applies webhook patches with, and admitters that take a context.

package main

import (
	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	cdifake "kubevirt.io/client-go/containerizeddataimporter/fake"
	snapshotfake "kubevirt.io/client-go/externalsnapshotter/fake"
	kubevirtfake "kubevirt.io/client-go/kubevirt/fake"
	instancetypeclient "kubevirt.io/client-go/kubevirt/typed/instancetype/v1beta1"
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

// contextual: the admitters' Admit already takes a context.
func contextual(admit admitFunc) admitFunc { return admit }
