package main

import (
	"context"
	"encoding/json"
	"fmt"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	virtv1 "kubevirt.io/api/core/v1"

	"kubevirt.io/kubevirt/pkg/virt-api/webhooks"
)

const oracleUser = "system:serviceaccount:default:kvlint-oracle"

// cause is a StatusCause as the case files write it: members named `type`, `message` and
// `field`, each written even when empty (v1.4's schema refusals carry no type or field).
type cause struct {
	Type    metav1.CauseType `json:"type"`
	Message string           `json:"message"`
	Field   string           `json:"field"`
}

// verdict is how one admission webhook answered, or that it panicked.
type verdict struct {
	Allowed  bool     `json:"allowed"`
	Stage    string   `json:"stage,omitempty"`
	Code     int32    `json:"code,omitempty"`
	Message  string   `json:"message,omitempty"`
	Causes   []cause  `json:"causes"`
	Warnings []string `json:"warnings,omitempty"`
	Panic    string   `json:"panic,omitempty"`
}

func verdictOf(stage string, response *admissionv1.AdmissionResponse) verdict {
	v := verdict{Allowed: response.Allowed, Causes: []cause{}, Warnings: response.Warnings}
	if result := response.Result; result != nil {
		v.Code = result.Code
		v.Message = result.Message
		if result.Details != nil {
			for _, c := range result.Details.Causes {
				v.Causes = append(v.Causes, cause{Type: c.Type, Message: c.Message, Field: c.Field})
			}
		}
	}
	if !v.Allowed {
		v.Stage = stage
	}
	return v
}

// guarded runs KubeVirt's code and turns its panic into a message, as the webhook server
// turns it into a failed request. A call into a client the oracle does not provide is an
// oracle fault and is returned as an error instead.
func guarded(run func() error) (panicked string, err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if call, ok := r.(unexpectedCall); ok {
			err = fmt.Errorf("oracle: KubeVirt used a client the oracle does not fake: %s", call.message)
			return
		}
		panicked = fmt.Sprint(r)
	}()
	return "", run()
}

func createRequest(resource metav1.GroupVersionResource, kind metav1.GroupVersionKind, name, namespace string, raw []byte) *admissionv1.AdmissionReview {
	dryRun := false
	return &admissionv1.AdmissionReview{Request: &admissionv1.AdmissionRequest{
		UID:       "kvlint-oracle",
		Kind:      kind,
		Resource:  resource,
		Name:      name,
		Namespace: namespace,
		Operation: admissionv1.Create,
		UserInfo:  authenticationv1.UserInfo{Username: oracleUser},
		Object:    runtime.RawExtension{Raw: raw},
		DryRun:    &dryRun,
	}}
}

// admission is the outcome of creating a VM: the verdict, and the object as stored after
// the mutating webhook (nil when the mutating webhook refused it).
type admission struct {
	verdict verdict
	mutated map[string]interface{}
}

// admitVM creates the VM as the API server would: its request object is the manifest as
// the API server decodes it, the mutating webhook's patch is applied and the result pruned
// again, then the validating webhook judges it.
func admitVM(c *cluster, request map[string]interface{}, name, namespace string) (admission, error) {
	raw, err := json.Marshal(request)
	if err != nil {
		return admission{}, err
	}
	kind := metav1.GroupVersionKind{Group: "kubevirt.io", Version: "v1", Kind: "VirtualMachine"}
	review := func(raw []byte) *admissionv1.AdmissionReview {
		return createRequest(webhooks.VirtualMachineGroupVersionResource, kind, name, namespace, raw)
	}
	return admitVMReview(c, raw, review)
}

// admitVMReview sends the VM through the mutating webhook (review builds its request from the
// object), applies the patch and prunes the result as the API server stores it, then sends
// that through the validating webhook.
func admitVMReview(c *cluster, raw []byte, review func([]byte) *admissionv1.AdmissionReview) (admission, error) {
	var response *admissionv1.AdmissionResponse
	panicked, err := guarded(func() error {
		response = newVMsMutator(c).Mutate(review(raw))
		return nil
	})
	if err != nil {
		return admission{}, err
	}
	if panicked != "" {
		return admission{verdict: verdict{Stage: "mutating", Causes: []cause{}, Panic: panicked}}, nil
	}
	if !response.Allowed {
		return admission{verdict: verdictOf("mutating", response)}, nil
	}
	if len(response.Patch) > 0 {
		patch, err := decodeJSONPatch(response.Patch)
		if err != nil {
			return admission{}, fmt.Errorf("oracle: mutating patch: %w", err)
		}
		if raw, err = patch.Apply(raw); err != nil {
			return admission{}, fmt.Errorf("oracle: applying the mutating patch: %w", err)
		}
	}
	stored, err := storedVM(raw)
	if err != nil {
		return admission{}, err
	}
	if raw, err = json.Marshal(stored); err != nil {
		return admission{}, err
	}

	admitter := newVMsAdmitter(c)
	panicked, err = guarded(func() error {
		response = admitter.Admit(context.Background(), review(raw))
		return nil
	})
	if err != nil {
		return admission{}, err
	}
	if panicked != "" {
		return admission{verdict: verdict{Stage: "validating", Causes: []cause{}, Panic: panicked}, mutated: stored}, nil
	}
	return admission{verdict: verdictOf("validating", response), mutated: stored}, nil
}

// storedVM is the VM JSON as the API server keeps it after mutation.
func storedVM(raw []byte) (map[string]interface{}, error) {
	value, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	pruned, _ := pruneAsAPIServer(value, vmType).(map[string]interface{})
	return pruned, nil
}

// expandVM is KubeVirt's expand-vm-spec on a VM: what `virtctl expand` prints, or its error.
func expandVM(c *cluster, vm *virtv1.VirtualMachine) (map[string]interface{}, string, error) {
	var expanded *virtv1.VirtualMachine
	var expandErr error
	panicked, err := guarded(func() error {
		expanded, expandErr = expandSpec(c, vm)
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	if panicked != "" {
		return nil, "panic: " + panicked, nil
	}
	if expandErr != nil {
		return nil, expandErr.Error(), nil
	}
	generic, err := toGeneric(expanded)
	if err != nil {
		return nil, "", err
	}
	// virtctl prints the VM as Go writes it (before apimachinery 0.34 with
	// `creationTimestamp: null` in each ObjectMeta).
	object, _ := generic.(map[string]interface{})
	return object, "", nil
}

// admitObject runs the instance type or preference admitter on the object's creation.
func admitObject(m manifest, raw []byte) (verdict, bool, error) {
	resource, run := objectAdmitter(m.kind)
	if run == nil {
		return verdict{}, false, nil
	}
	group, version := splitAPIVersion(m.apiVersion)
	review := createRequest(
		metav1.GroupVersionResource{Group: group, Version: version, Resource: resource},
		metav1.GroupVersionKind{Group: group, Version: version, Kind: m.kind},
		m.name, m.namespace, raw)
	var response *admissionv1.AdmissionResponse
	panicked, err := guarded(func() error {
		response = run(context.Background(), review)
		return nil
	})
	if err != nil {
		return verdict{}, false, err
	}
	if panicked != "" {
		return verdict{Stage: "validating", Causes: []cause{}, Panic: panicked}, true, nil
	}
	return verdictOf("validating", response), true, nil
}

func splitAPIVersion(apiVersion string) (string, string) {
	for i := len(apiVersion) - 1; i >= 0; i-- {
		if apiVersion[i] == '/' {
			return apiVersion[:i], apiVersion[i+1:]
		}
	}
	return "", apiVersion
}
