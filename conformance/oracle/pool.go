package main

import (
	"context"
	"encoding/json"
	"reflect"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kubevirt.io/kubevirt/pkg/virt-api/webhooks"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks/validating-webhook/admitters"
)

const poolGroup = "pool.kubevirt.io"

// poolType is the VirtualMachinePool type of the release: the one its pool validator takes
// (pool/v1alpha1 up to v1.6, pool/v1beta1 from v1.7), so no import names the version.
var poolType = reflect.TypeOf(admitters.ValidateVMPoolSpec).In(2).Elem()

// isPool: a VirtualMachinePool of any version.
func isPool(m manifest) bool {
	group, _ := splitAPIVersion(m.apiVersion)
	return group == poolGroup && m.kind == "VirtualMachinePool"
}

// judgedPool: a VirtualMachinePool of the version the release's pool validator takes
// (pool.kubevirt.io/v1beta1 from v1.7, v1alpha1 before). A pool of another version is not
// judged: it is either not served by the release or converted before the validator sees it,
// which the oracle does not do.
func judgedPool(m manifest) bool {
	resource := webhooks.VirtualMachinePoolGroupVersionResource
	return isPool(m) && m.apiVersion == resource.Group+"/"+resource.Version
}

// poolLine is the expected-objects.jsonl line of a VirtualMachinePool: the pool validator's
// verdict on its creation (KubeVirt has no mutating webhook for pools).
func poolLine(c *cluster, m manifest) (string, error) {
	resource := webhooks.VirtualMachinePoolGroupVersionResource
	namespace := m.namespace
	if namespace == "" {
		namespace = defaultNamespace
	}
	raw, err := json.Marshal(requestAs(m, namespace, poolType))
	if err != nil {
		return "", err
	}
	review := createRequest(resource,
		metav1.GroupVersionKind{Group: resource.Group, Version: resource.Version, Kind: m.kind},
		m.name, namespace, raw)
	admit := contextual((&admitters.VMPoolAdmitter{ClusterConfig: c.config}).Admit)
	var response *admissionv1.AdmissionResponse
	panicked, err := guarded(func() error {
		response = admit(context.Background(), review)
		return nil
	})
	if err != nil {
		return "", err
	}
	v := verdict{Stage: "validating", Causes: []cause{}, Panic: panicked}
	if panicked == "" {
		v = verdictOf("validating", response)
	}
	line, err := json.Marshal(struct {
		Object    string  `json:"object"`
		Admission verdict `json:"admission"`
	}{m.kind + "/" + m.name, v})
	return string(line), err
}
