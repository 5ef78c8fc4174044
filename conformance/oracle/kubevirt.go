package main

import (
	"context"
	"encoding/json"
	"fmt"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	virtv1 "kubevirt.io/api/core/v1"
	instancetypeapi "kubevirt.io/api/instancetype"

	"kubevirt.io/kubevirt/pkg/instancetype/expand"
	"kubevirt.io/kubevirt/pkg/instancetype/find"
	preferenceFind "kubevirt.io/kubevirt/pkg/instancetype/preference/find"
	preferencewebhooks "kubevirt.io/kubevirt/pkg/instancetype/preference/webhooks"
	instancetypewebhooks "kubevirt.io/kubevirt/pkg/instancetype/webhooks"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks/mutating-webhook/mutators"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks/validating-webhook/admitters"
)

const oracleUser = "system:serviceaccount:default:kvlint-oracle"

// cause is a StatusCause as the case files name its members.
type cause struct {
	Type    metav1.CauseType `json:"type,omitempty"`
	Message string           `json:"message,omitempty"`
	Field   string           `json:"field,omitempty"`
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
	review := createRequest(webhooks.VirtualMachineGroupVersionResource, kind, name, namespace, raw)

	var response *admissionv1.AdmissionResponse
	panicked, err := guarded(func() error {
		response = mutators.NewVMsMutator(c.config, c.client).Mutate(review)
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
		patch, err := jsonpatch.DecodePatch(response.Patch)
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

	review = createRequest(webhooks.VirtualMachineGroupVersionResource, kind, name, namespace, raw)
	admitter := admitters.NewVMsAdmitter(c.config, c.client, &webhooks.Informers{
		DataSourceInformer: c.dataSourceStore,
		NamespaceInformer:  c.namespaceInformer,
	}, map[string]struct{}{})
	panicked, err = guarded(func() error {
		response = admitter.Admit(context.Background(), review)
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
	expander := expand.New(c.config,
		find.NewSpecFinder(nil, nil, nil, c.client),
		preferenceFind.NewSpecFinder(nil, nil, nil, c.client))
	var expanded *virtv1.VirtualMachine
	var expandErr error
	panicked, err := guarded(func() error {
		expanded, expandErr = expander.Expand(vm)
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
	object, _ := dropNulls(generic).(map[string]interface{})
	return object, "", nil
}

// admitObject runs the instance type or preference admitter on the object's creation.
func admitObject(m manifest, raw []byte) (verdict, bool, error) {
	var resource string
	var run func(*admissionv1.AdmissionReview) *admissionv1.AdmissionResponse
	switch m.kind {
	case "VirtualMachineInstancetype":
		resource = instancetypeapi.PluralResourceName
		run = func(r *admissionv1.AdmissionReview) *admissionv1.AdmissionResponse {
			return (&instancetypewebhooks.InstancetypeAdmitter{}).Admit(context.Background(), r)
		}
	case "VirtualMachineClusterInstancetype":
		resource = instancetypeapi.ClusterPluralResourceName
		run = func(r *admissionv1.AdmissionReview) *admissionv1.AdmissionResponse {
			return (&instancetypewebhooks.ClusterInstancetypeAdmitter{}).Admit(context.Background(), r)
		}
	case "VirtualMachinePreference":
		resource = instancetypeapi.PluralPreferenceResourceName
		run = func(r *admissionv1.AdmissionReview) *admissionv1.AdmissionResponse {
			return (&preferencewebhooks.PreferenceAdmitter{}).Admit(context.Background(), r)
		}
	case "VirtualMachineClusterPreference":
		resource = instancetypeapi.ClusterPluralPreferenceResourceName
		run = func(r *admissionv1.AdmissionReview) *admissionv1.AdmissionResponse {
			return (&preferencewebhooks.ClusterPreferenceAdmitter{}).Admit(context.Background(), r)
		}
	default:
		return verdict{}, false, nil
	}
	group, version := splitAPIVersion(m.apiVersion)
	review := createRequest(
		metav1.GroupVersionResource{Group: group, Version: version, Resource: resource},
		metav1.GroupVersionKind{Group: group, Version: version, Kind: m.kind},
		m.name, m.namespace, raw)
	var response *admissionv1.AdmissionResponse
	panicked, err := guarded(func() error {
		response = run(review)
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

// dropNulls removes null members of objects, recursively: Go's serialisation writes nulls
// for unset pointers that a stored object does not hold.
func dropNulls(value interface{}) interface{} {
	switch v := value.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(v))
		for key, item := range v {
			if item != nil {
				out[key] = dropNulls(item)
			}
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(v))
		for i, item := range v {
			out[i] = dropNulls(item)
		}
		return out
	default:
		return value
	}
}
