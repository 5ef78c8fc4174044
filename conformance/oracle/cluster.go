package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	k8sv1 "k8s.io/api/core/v1"
	extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v4/apis/volumesnapshot/v1"
	virtv1 "kubevirt.io/api/core/v1"
	instancetypev1beta1 "kubevirt.io/api/instancetype/v1beta1"
	"kubevirt.io/client-go/kubecli"
	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"

	"kubevirt.io/kubevirt/pkg/testutils"
	virtconfig "kubevirt.io/kubevirt/pkg/virt-config"
)

const (
	defaultNamespace = "default"
	clusterArch      = "amd64"
)

// cluster is everything KubeVirt's code reads besides the object under review: the objects
// of the case in fake clients, and the cluster configuration.
type cluster struct {
	client             kubecli.KubevirtClient
	config             *virtconfig.ClusterConfig
	dataSourceStore    cache.SharedIndexInformer
	dataVolumeInformer cache.SharedIndexInformer
	namespaceInformer  cache.SharedIndexInformer
}

// unexpectedCall is raised (as a panic) when KubeVirt's code uses a client the oracle does not
// provide; it is a fault of the oracle, never reported as KubeVirt's behaviour.
type unexpectedCall struct{ message string }

type panickingReporter struct{}

func (panickingReporter) Errorf(format string, args ...interface{}) {
	panic(unexpectedCall{fmt.Sprintf(format, args...)})
}

func (panickingReporter) Fatalf(format string, args ...interface{}) {
	panic(unexpectedCall{fmt.Sprintf(format, args...)})
}

// objectTypes: the kinds the oracle stores, by served apiVersion and kind (with the
// instance type versions only some releases serve: servedInstancetypeAlphas).
var objectTypes = withInstancetypeAlphas(map[string]reflect.Type{
	"instancetype.kubevirt.io/v1beta1/VirtualMachineInstancetype":        reflect.TypeOf(instancetypev1beta1.VirtualMachineInstancetype{}),
	"instancetype.kubevirt.io/v1beta1/VirtualMachineClusterInstancetype": reflect.TypeOf(instancetypev1beta1.VirtualMachineClusterInstancetype{}),
	"instancetype.kubevirt.io/v1beta1/VirtualMachinePreference":          reflect.TypeOf(instancetypev1beta1.VirtualMachinePreference{}),
	"instancetype.kubevirt.io/v1beta1/VirtualMachineClusterPreference":   reflect.TypeOf(instancetypev1beta1.VirtualMachineClusterPreference{}),
	"apps/v1/ControllerRevision":                                         reflect.TypeOf(appsv1.ControllerRevision{}),
	"v1/PersistentVolumeClaim":                                           reflect.TypeOf(k8sv1.PersistentVolumeClaim{}),
	"v1/Namespace":                                                       reflect.TypeOf(k8sv1.Namespace{}),
	"cdi.kubevirt.io/v1beta1/DataVolume":                                 reflect.TypeOf(cdiv1.DataVolume{}),
	"cdi.kubevirt.io/v1beta1/DataSource":                                 reflect.TypeOf(cdiv1.DataSource{}),
	"snapshot.storage.k8s.io/v1/VolumeSnapshot":                          reflect.TypeOf(snapshotv1.VolumeSnapshot{}),
	"kubevirt.io/v1/KubeVirt":                                            reflect.TypeOf(virtv1.KubeVirt{}),
})

func withInstancetypeAlphas(types map[string]reflect.Type) map[string]reflect.Type {
	for key, typ := range servedInstancetypeAlphas {
		types[key] = typ
	}
	return types
}

var clusterScoped = map[string]bool{
	"VirtualMachineClusterInstancetype": true,
	"VirtualMachineClusterPreference":   true,
	"Namespace":                         true,
}

// typedObject decodes a manifest as the API server stores it; ok is false for kinds or
// versions this release does not serve (such an object does not exist in the cluster).
func typedObject(m manifest) (runtime.Object, bool, error) {
	typ, ok := objectTypes[m.apiVersion+"/"+m.kind]
	if !ok {
		return nil, false, nil
	}
	pruned := pruneAsAPIServer(m.value, typ)
	if meta, ok := pruned.(map[string]interface{})["metadata"].(map[string]interface{}); ok && !clusterScoped[m.kind] {
		if meta["namespace"] == nil {
			meta["namespace"] = defaultNamespace
		}
	}
	typ = storedType(m, typ, pruned)
	raw, err := json.Marshal(pruned)
	if err != nil {
		return nil, false, err
	}
	object := reflect.New(typ).Interface().(runtime.Object)
	if err := json.Unmarshal(raw, object); err != nil {
		return nil, false, fmt.Errorf("%s %s: %w", m.kind, m.name, err)
	}
	return object, true, nil
}

// storedType is the type an object is stored as. The instance type CRDs convert with the None
// strategy: an object written in an older served version keeps its fields (pruned by that
// version's schema) and is relabelled with the storage version, v1beta1.
func storedType(m manifest, typ reflect.Type, pruned interface{}) reflect.Type {
	const storageVersion = "instancetype.kubevirt.io/v1beta1"
	if _, older := servedInstancetypeAlphas[m.apiVersion+"/"+m.kind]; !older {
		return typ
	}
	if object, ok := pruned.(map[string]interface{}); ok {
		object["apiVersion"] = storageVersion
	}
	return objectTypes[storageVersion+"/"+m.kind]
}

// newCluster puts the objects into fake clients, as KubeVirt's own unit tests do.
func newCluster(objects []runtime.Object) *cluster {
	var kubevirtObjects, k8sObjects, cdiObjects, snapshotObjects []runtime.Object
	var kv *virtv1.KubeVirt
	dataSourceInformer, _ := testutils.NewFakeInformerFor(&cdiv1.DataSource{})
	dataVolumeInformer, _ := testutils.NewFakeInformerFor(&cdiv1.DataVolume{})
	namespaceInformer, _ := testutils.NewFakeInformerFor(&k8sv1.Namespace{})
	namespaces := map[string]bool{defaultNamespace: true}
	for _, object := range objects {
		switch o := object.(type) {
		case *virtv1.KubeVirt:
			kv = o
		case *instancetypev1beta1.VirtualMachineInstancetype, *instancetypev1beta1.VirtualMachineClusterInstancetype,
			*instancetypev1beta1.VirtualMachinePreference, *instancetypev1beta1.VirtualMachineClusterPreference:
			kubevirtObjects = append(kubevirtObjects, object)
		case *cdiv1.DataSource:
			cdiObjects = append(cdiObjects, object)
			_ = dataSourceInformer.GetStore().Add(o)
		case *cdiv1.DataVolume:
			cdiObjects = append(cdiObjects, object)
			_ = dataVolumeInformer.GetStore().Add(o)
		case *snapshotv1.VolumeSnapshot:
			snapshotObjects = append(snapshotObjects, object)
		case *k8sv1.Namespace:
			namespaces[o.Name] = false
			k8sObjects = append(k8sObjects, object)
		default:
			k8sObjects = append(k8sObjects, object)
		}
		if meta, ok := object.(metav1.Object); ok && meta.GetNamespace() != "" {
			if _, seen := namespaces[meta.GetNamespace()]; !seen {
				namespaces[meta.GetNamespace()] = true
			}
		}
	}
	for name, implicit := range namespaces {
		if implicit {
			k8sObjects = append(k8sObjects, &k8sv1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})
		}
	}
	for _, object := range k8sObjects {
		if ns, ok := object.(*k8sv1.Namespace); ok {
			_ = namespaceInformer.GetStore().Add(ns)
		}
	}

	k8sClient := k8sfake.NewSimpleClientset(k8sObjects...)
	// Clone and other permission checks are approved: the oracle judges manifests, not RBAC.
	k8sClient.PrependReactor("create", "subjectaccessreviews", func(action k8stesting.Action) (bool, runtime.Object, error) {
		review := action.(k8stesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		review = review.DeepCopy()
		review.Status.Allowed = true
		return true, review, nil
	})
	kubevirtClient := newKubevirtFake(kubevirtObjects...)
	cdiClient := newCDIFake(cdiObjects...)
	snapshotClient := newSnapshotFake(snapshotObjects...)
	for _, fake := range []*k8stesting.Fake{&k8sClient.Fake, &kubevirtClient.Fake, &cdiClient.Fake, &snapshotClient.Fake} {
		fake.PrependReactor("get", "*", refuseEmptyName)
	}

	client := newMockClient(panickingReporter{})
	expect := client.EXPECT()
	expect.AppsV1().Return(k8sClient.AppsV1()).AnyTimes()
	expect.CoreV1().Return(k8sClient.CoreV1()).AnyTimes()
	expect.AuthorizationV1().Return(k8sClient.AuthorizationV1()).AnyTimes()
	expect.CdiClient().Return(cdiClient).AnyTimes()
	expect.KubernetesSnapshotClient().Return(snapshotClient).AnyTimes()
	expect.GeneratedKubeVirtClient().Return(kubevirtClient).AnyTimes()
	expect.VirtualMachineInstancetype(anyArgument()).DoAndReturn(func(namespace string) instancetypesClient {
		return kubevirtClient.InstancetypeV1beta1().VirtualMachineInstancetypes(namespace)
	}).AnyTimes()
	expect.VirtualMachineClusterInstancetype().Return(kubevirtClient.InstancetypeV1beta1().VirtualMachineClusterInstancetypes()).AnyTimes()
	expect.VirtualMachinePreference(anyArgument()).DoAndReturn(func(namespace string) preferencesClient {
		return kubevirtClient.InstancetypeV1beta1().VirtualMachinePreferences(namespace)
	}).AnyTimes()
	expect.VirtualMachineClusterPreference().Return(kubevirtClient.InstancetypeV1beta1().VirtualMachineClusterPreferences()).AnyTimes()

	return &cluster{
		client:             client,
		config:             clusterConfig(kv),
		dataSourceStore:    dataSourceInformer,
		dataVolumeInformer: dataVolumeInformer,
		namespaceInformer:  namespaceInformer,
	}
}

// refuseEmptyName answers a get without a name as client-go's REST client does, before any
// request is sent (the fake clients would answer "not found").
func refuseEmptyName(action k8stesting.Action) (bool, runtime.Object, error) {
	if get, ok := action.(k8stesting.GetAction); ok && get.GetName() == "" {
		return true, nil, errors.New("resource name may not be empty")
	}
	return false, nil, nil
}

// clusterConfig: the case's KubeVirt CR, or KubeVirt's defaults; amd64 nodes; CDI installed.
func clusterConfig(kv *virtv1.KubeVirt) *virtconfig.ClusterConfig {
	if kv == nil {
		kv = &virtv1.KubeVirt{}
	} else {
		kv = kv.DeepCopy()
	}
	kv.Name = "kubevirt"
	kv.Namespace = "kubevirt"
	kv.Status.DefaultArchitecture = clusterArch
	config, crdInformer, _ := testutils.NewFakeClusterConfigUsingKVWithCPUArch(kv, clusterArch)
	addCDIAPIs(crdInformer)
	return config
}

// addCDIAPIs registers CDI's DataVolume and DataSource CRDs (CDI is installed), as
// testutils.AddDataSourceAPI does for DataSource from v1.8 on (older releases lack that
// helper). Up to v1.1 the VMI spec validation refuses DataVolume volumes when the cluster
// configuration sees no DataVolume CRD (HasDataVolumeAPI); later releases do not ask.
func addCDIAPIs(crdInformer cache.SharedIndexInformer) {
	for _, kind := range []string{"DataVolume", "DataSource"} {
		_ = crdInformer.GetStore().Add(&extv1.CustomResourceDefinition{
			ObjectMeta: metav1.ObjectMeta{Name: strings.ToLower(kind) + "s.cdi.kubevirt.io"},
			Spec: extv1.CustomResourceDefinitionSpec{
				Group: "cdi.kubevirt.io",
				Names: extv1.CustomResourceDefinitionNames{Kind: kind},
			},
		})
	}
}
