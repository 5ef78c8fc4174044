//go:build kubevirt_liveupdate

package main

// Live-update pairs: a running VM created from base.yaml and updated to head.yaml, judged by
// KubeVirt's own VM controller (pkg/virt-controller/watch/vm) as its unit tests build it: fake
// informers and clients, the controller's queue driven with Execute. See README.md, "Live
// updates".

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/uuid"
	admissionv1 "k8s.io/api/admission/v1"
	appsv1 "k8s.io/api/apps/v1"
	k8sv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"

	virtv1 "kubevirt.io/api/core/v1"
	instancetypev1beta1 "kubevirt.io/api/instancetype/v1beta1"
	"kubevirt.io/client-go/kubecli"
	kubevirtfake "kubevirt.io/client-go/kubevirt/fake"
	"kubevirt.io/client-go/log"

	virtcontroller "kubevirt.io/kubevirt/pkg/controller"
	"kubevirt.io/kubevirt/pkg/testutils"
	"kubevirt.io/kubevirt/pkg/virt-api/webhooks"
	virtconfig "kubevirt.io/kubevirt/pkg/virt-config"
	vmwatch "kubevirt.io/kubevirt/pkg/virt-controller/watch/vm"
)

// liveVMUID is the stored VM's UID; the VM controller names its ControllerRevisions after it.
const liveVMUID = types.UID("00000000-0000-4000-8000-00000000a11e")

// maxRounds bounds how often the controller's queue is worked for one step; a step ends
// earlier when a round changes nothing.
const maxRounds = 8

// runLiveUpdatePairs runs every pair folder under dir (or those whose name contains only)
// and writes OUT/NAME/expected.json; it returns the number of failed pairs.
func runLiveUpdatePairs(dir, out, only string) (int, int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 0, 1
	}
	var names []string
	for _, entry := range entries {
		if entry.IsDir() && strings.Contains(entry.Name(), only) {
			if _, err := os.Stat(filepath.Join(dir, entry.Name(), "base.yaml")); err == nil {
				names = append(names, entry.Name())
			}
		}
	}
	sort.Strings(names)
	failed := 0
	for _, name := range names {
		result, err := runPair(filepath.Join(dir, name))
		if err == nil {
			err = writeJSON(filepath.Join(out, name, "expected.json"), result)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			failed++
		}
	}
	return len(names), failed
}

func writeJSON(path string, value interface{}) error {
	raw, err := json.MarshalIndent(value, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o644)
}

// side is one file of a pair: its VirtualMachine and the other objects.
type side struct {
	vm      manifest
	objects []runtime.Object
	kv      *virtv1.KubeVirt
}

func readSide(path string) (side, error) {
	docs, err := readManifests(path)
	if err != nil {
		return side{}, err
	}
	var s side
	vms := 0
	for _, m := range docs {
		if m.kind == "VirtualMachine" {
			s.vm = m
			vms++
			continue
		}
		object, served, err := typedObject(m)
		if err != nil {
			return side{}, err
		}
		if !served {
			continue
		}
		if kv, ok := object.(*virtv1.KubeVirt); ok {
			s.kv = kv
		}
		s.objects = append(s.objects, object)
	}
	if vms != 1 {
		return side{}, fmt.Errorf("%s: %d VirtualMachines, want 1", path, vms)
	}
	return s, nil
}

// liveWorld: the fake cluster of a pair and the VM controller's view of it.
type liveWorld struct {
	*cluster
	virt     *kubevirtfake.Clientset
	kvStore  cache.Store
	recorder *record.FakeRecorder
	events   []string
	// claims: the PersistentVolumeClaims of both sides, for the controller's PVC informer.
	claims []*k8sv1.PersistentVolumeClaim
}

func newLiveWorld(base side) (*liveWorld, error) {
	c := newCluster(base.objects)
	virt, ok := c.client.GeneratedKubeVirtClient().(*kubevirtfake.Clientset)
	if !ok {
		return nil, fmt.Errorf("oracle: the KubeVirt client is not the fake clientset")
	}
	mock, ok := c.client.(*kubecli.MockKubevirtClient)
	if !ok {
		return nil, fmt.Errorf("oracle: the client is not the mock client")
	}
	expect := mock.EXPECT()
	expect.VirtualMachineInstance(anyArgument()).DoAndReturn(func(namespace string) kubecli.VirtualMachineInstanceInterface {
		return virt.KubevirtV1().VirtualMachineInstances(namespace)
	}).AnyTimes()
	expect.VirtualMachine(anyArgument()).DoAndReturn(func(namespace string) kubecli.VirtualMachineInterface {
		return virt.KubevirtV1().VirtualMachines(namespace)
	}).AnyTimes()
	w := &liveWorld{cluster: c, virt: virt, recorder: record.NewFakeRecorder(1000)}
	for _, object := range base.objects {
		if claim, ok := object.(*k8sv1.PersistentVolumeClaim); ok {
			w.claims = append(w.claims, claim)
		}
	}
	config, kvStore := liveClusterConfig(base.kv)
	c.config = config
	w.kvStore = kvStore
	return w, nil
}

func liveClusterConfig(kv *virtv1.KubeVirt) (*virtconfig.ClusterConfig, cache.Store) {
	if kv == nil {
		kv = &virtv1.KubeVirt{}
	} else {
		kv = kv.DeepCopy()
	}
	kv.Name = "kubevirt"
	kv.Namespace = "kubevirt"
	kv.Status.DefaultArchitecture = clusterArch
	config, crdInformer, kvStore := testutils.NewFakeClusterConfigUsingKVWithCPUArch(kv, clusterArch)
	addCDIAPIs(crdInformer)
	return config, kvStore
}

func (w *liveWorld) setKubeVirt(kv *virtv1.KubeVirt) {
	if kv == nil {
		kv = &virtv1.KubeVirt{}
	} else {
		kv = kv.DeepCopy()
	}
	kv.Name = "kubevirt"
	kv.Namespace = "kubevirt"
	kv.Status.DefaultArchitecture = clusterArch
	testutils.UpdateFakeKubeVirtClusterConfig(w.kvStore, kv)
}

// vmController is KubeVirt's VM controller over informers filled from the fake clients.
type vmController struct {
	ctrl                               *vmwatch.Controller
	vmStore, vmiStore, crStore, pvcStr cache.Store
}

func (w *liveWorld) newVMController() (*vmController, error) {
	vmiInformer, _ := testutils.NewFakeInformerWithIndexersFor(&virtv1.VirtualMachineInstance{}, virtcontroller.GetVMIInformerIndexers())
	vmInformer, _ := testutils.NewFakeInformerWithIndexersFor(&virtv1.VirtualMachine{}, virtcontroller.GetVirtualMachineInformerIndexers())
	kvInformer, _ := testutils.NewFakeInformerFor(&virtv1.KubeVirt{})
	pvcInformer, _ := testutils.NewFakeInformerFor(&k8sv1.PersistentVolumeClaim{})
	crInformer, _ := testutils.NewFakeInformerWithIndexersFor(&appsv1.ControllerRevision{}, cache.Indexers{
		"vm": revisionOwnerIndex,
	})
	ctrl, err := w.newVMWatchController(controllerInformers{vmi: vmiInformer, vm: vmInformer, kv: kvInformer, pvc: pvcInformer, cr: crInformer})
	if err != nil {
		return nil, err
	}
	for _, claim := range w.claims {
		_ = pvcInformer.GetStore().Add(claim)
	}
	return &vmController{ctrl: ctrl, vmStore: vmInformer.GetStore(), vmiStore: vmiInformer.GetStore(),
		crStore: crInformer.GetStore(), pvcStr: pvcInformer.GetStore()}, nil
}

// controllerInformers: the VM controller's own informers (the cluster's are in liveWorld).
type controllerInformers struct {
	vmi, vm, kv, pvc, cr cache.SharedIndexInformer
}

// revisionOwnerIndex indexes ControllerRevisions by the UID of the VM that owns them, as
// virt-controller's informer does.
func revisionOwnerIndex(obj interface{}) ([]string, error) {
	cr := obj.(*appsv1.ControllerRevision)
	for _, ref := range cr.OwnerReferences {
		if ref.Kind == "VirtualMachine" {
			return []string{string(ref.UID)}, nil
		}
	}
	return nil, nil
}

// refresh puts the fake clients' state into the controller's informers, as the watches would.
func (w *liveWorld) refresh(vc *vmController) error {
	vms, err := w.virt.KubevirtV1().VirtualMachines("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return err
	}
	vmis, err := w.virt.KubevirtV1().VirtualMachineInstances("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return err
	}
	crs, err := w.client.AppsV1().ControllerRevisions("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return err
	}
	var vmObjects, vmiObjects, crObjects []interface{}
	for i := range vms.Items {
		vmObjects = append(vmObjects, &vms.Items[i])
	}
	for i := range vmis.Items {
		vmiObjects = append(vmiObjects, &vmis.Items[i])
	}
	for i := range crs.Items {
		crObjects = append(crObjects, &crs.Items[i])
	}
	for _, pair := range []struct {
		store   cache.Store
		objects []interface{}
	}{{vc.vmStore, vmObjects}, {vc.vmiStore, vmiObjects}, {vc.crStore, crObjects}} {
		if err := pair.store.Replace(pair.objects, ""); err != nil {
			return err
		}
	}
	return nil
}

// work runs the controller on the VM until a round changes neither the VM nor its VMI (at
// most maxRounds rounds, or until stop says so).
func (w *liveWorld) work(vc *vmController, key string, stop func() bool) error {
	previous := ""
	for round := 0; round < maxRounds; round++ {
		if err := w.refresh(vc); err != nil {
			return err
		}
		state := w.snapshot()
		if state == previous || (stop != nil && stop()) {
			return nil
		}
		previous = state
		vc.ctrl.Queue.Add(key)
		panicked, err := guarded(func() error {
			vc.ctrl.Execute()
			return nil
		})
		if err != nil {
			return err
		}
		if panicked != "" {
			return fmt.Errorf("oracle: the VM controller panicked: %s", panicked)
		}
		w.drainEvents()
	}
	return w.refresh(vc)
}

// snapshot is the fake cluster's VMs, VMIs and ControllerRevisions as text, to tell whether a
// round changed anything.
func (w *liveWorld) snapshot() string {
	vms, _ := w.virt.KubevirtV1().VirtualMachines("").List(context.Background(), metav1.ListOptions{})
	vmis, _ := w.virt.KubevirtV1().VirtualMachineInstances("").List(context.Background(), metav1.ListOptions{})
	crs, _ := w.client.AppsV1().ControllerRevisions("").List(context.Background(), metav1.ListOptions{})
	raw, _ := json.Marshal([]interface{}{vms.Items, vmis.Items, crs.Items})
	return string(raw)
}

func (w *liveWorld) drainEvents() {
	for {
		select {
		case event := <-w.recorder.Events:
			if strings.HasPrefix(event, k8sv1.EventTypeWarning) {
				// Events with IncludeObject off read "Warning Reason message".
				w.events = append(w.events, event)
			}
		default:
			return
		}
	}
}

// pairResult is expected.json.
type pairResult struct {
	BaseAdmission   interface{}            `json:"base_admission"`
	Started         bool                   `json:"started"`
	UpdateAdmission interface{}            `json:"update_admission,omitempty"`
	RestartRequired *string                `json:"restart_required"`
	VMIBefore       map[string]interface{} `json:"vmi_before,omitempty"`
	VMIAfter        map[string]interface{} `json:"vmi_after,omitempty"`
	LiveUpdated     []string               `json:"live_updated"`
	Instancetype    *revisionRefs          `json:"instancetype_revision,omitempty"`
	Preference      *revisionRefs          `json:"preference_revision,omitempty"`
	VMRevision      string                 `json:"vm_revision,omitempty"`
	Conditions      []string               `json:"vm_conditions"`
	VMIConditions   []string               `json:"vmi_conditions"`
	Warnings        []string               `json:"warnings"`
}

type revisionRefs struct {
	Before string `json:"before"`
	After  string `json:"after"`
}

func runPair(dir string) (*pairResult, error) {
	base, err := readSide(filepath.Join(dir, "base.yaml"))
	if err != nil {
		return nil, err
	}
	head, err := readSide(filepath.Join(dir, "head.yaml"))
	if err != nil {
		return nil, err
	}
	if base.vm.name != head.vm.name || base.vm.namespace != head.vm.namespace {
		return nil, fmt.Errorf("base and head name different VirtualMachines")
	}
	w, err := newLiveWorld(base)
	if err != nil {
		return nil, err
	}
	namespace := base.vm.namespace
	if namespace == "" {
		namespace = defaultNamespace
	}
	key := namespace + "/" + base.vm.name
	result := &pairResult{LiveUpdated: []string{}, Warnings: []string{}, Conditions: []string{}, VMIConditions: []string{}}

	// Create: the webhooks, then the stored VM.
	request := requestOf(base.vm, namespace)
	created, err := admitVM(w.cluster, request, base.vm.name, namespace)
	if err != nil {
		return nil, err
	}
	result.BaseAdmission = admissionJSON(created.verdict)
	if !created.verdict.Allowed {
		return result, nil
	}
	stored, err := typedVM(created.mutated)
	if err != nil {
		return nil, err
	}
	stored.UID = liveVMUID
	stored.Generation = 1
	if _, err := w.virt.KubevirtV1().VirtualMachines(namespace).Create(context.Background(), stored, metav1.CreateOptions{}); err != nil {
		return nil, err
	}

	// Start: the controller creates the VMI; the VMI mutating webhook sets its defaults (the
	// hotplug limits among them); virt-handler reports it running.
	starter, err := w.newVMController()
	if err != nil {
		return nil, err
	}
	if err := w.work(starter, key, func() bool { return w.vmi(namespace, base.vm.name) != nil }); err != nil {
		return nil, err
	}
	vmi := w.vmi(namespace, base.vm.name)
	if vmi == nil {
		result.Warnings = sortedUnique(w.events)
		return result, nil
	}
	result.Started = true
	if err := w.boot(vmi); err != nil {
		return nil, err
	}
	settle, err := w.newVMController()
	if err != nil {
		return nil, err
	}
	if err := w.work(settle, key, nil); err != nil {
		return nil, err
	}
	w.events = nil
	before := w.vmi(namespace, base.vm.name)
	result.VMIBefore = liveFields(before)
	result.VMRevision = before.Status.VirtualMachineRevisionName
	running := w.vm(namespace, base.vm.name)
	itBefore, prefBefore := revisionNames(running)

	// Update: the cluster objects of the head side, then the VM as `kubectl apply` sends it.
	for _, object := range head.objects {
		if err := w.upsert(object); err != nil {
			return nil, err
		}
	}
	w.setKubeVirt(head.kv)
	live, err := liveObject(running)
	if err != nil {
		return nil, err
	}
	updateRequest := appliedRequest(base.vm, live, head.vm, namespace)
	updated, err := admitVMUpdate(w.cluster, updateRequest, running, head.vm.name, namespace)
	if err != nil {
		return nil, err
	}
	result.UpdateAdmission = admissionJSON(updated.verdict)
	if updated.verdict.Allowed {
		next, err := typedVM(updated.mutated)
		if err != nil {
			return nil, err
		}
		current := running.DeepCopy()
		current.Spec = next.Spec
		current.Labels = next.Labels
		current.Annotations = keepControllerAnnotations(next.Annotations, running.Annotations)
		if !equality.Semantic.DeepEqual(current.Spec, running.Spec) {
			current.Generation = running.Generation + 1
		}
		if _, err := w.virt.KubevirtV1().VirtualMachines(namespace).Update(context.Background(), current, metav1.UpdateOptions{}); err != nil {
			return nil, err
		}
	}
	updater, err := w.newVMController()
	if err != nil {
		return nil, err
	}
	if err := w.work(updater, key, nil); err != nil {
		return nil, err
	}
	final := w.vm(namespace, base.vm.name)
	result.Conditions = []string{}
	for _, condition := range final.Status.Conditions {
		result.Conditions = append(result.Conditions, fmt.Sprintf("%s=%s %s: %s", condition.Type, condition.Status, condition.Reason, condition.Message))
		if condition.Type == virtv1.VirtualMachineRestartRequired && condition.Status == k8sv1.ConditionTrue {
			message := condition.Message
			result.RestartRequired = &message
		}
	}
	result.VMIConditions = []string{}
	if after := w.vmi(namespace, base.vm.name); after != nil {
		for _, condition := range after.Status.Conditions {
			result.VMIConditions = append(result.VMIConditions, fmt.Sprintf("%s=%s %s: %s", condition.Type, condition.Status, condition.Reason, condition.Message))
		}
		result.VMIAfter = liveFields(after)
		for field, value := range result.VMIAfter {
			if !equality.Semantic.DeepEqual(value, result.VMIBefore[field]) {
				result.LiveUpdated = append(result.LiveUpdated, field)
			}
		}
		sort.Strings(result.LiveUpdated)
	}
	itAfter, prefAfter := revisionNames(final)
	if itBefore != "" || itAfter != "" {
		result.Instancetype = &revisionRefs{Before: itBefore, After: itAfter}
	}
	if prefBefore != "" || prefAfter != "" {
		result.Preference = &revisionRefs{Before: prefBefore, After: prefAfter}
	}
	result.Warnings = sortedUnique(w.events)
	return result, nil
}

func sortedUnique(items []string) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, item := range items {
		if !seen[item] {
			seen[item] = true
			out = append(out, item)
		}
	}
	sort.Strings(out)
	return out
}

func (w *liveWorld) vm(namespace, name string) *virtv1.VirtualMachine {
	vm, err := w.virt.KubevirtV1().VirtualMachines(namespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return vm
}

func (w *liveWorld) vmi(namespace, name string) *virtv1.VirtualMachineInstance {
	vmi, err := w.virt.KubevirtV1().VirtualMachineInstances(namespace).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return vmi
}

// boot gives the created VMI what the VMI mutating webhook and virt-handler give a running
// one: the webhook's defaults, phase Running, the booted CPU topology and memory, and the
// LiveMigratable condition (hotplug migrates the VMI).
func (w *liveWorld) boot(vmi *virtv1.VirtualMachineInstance) error {
	if err := w.applyVMIMutations(vmi); err != nil {
		return fmt.Errorf("oracle: the VMI mutating webhook refused the VMI the controller created: %w", err)
	}
	vmi.Status.Phase = virtv1.Running
	vmi.Status.NodeName = "node01"
	if cpu := vmi.Spec.Domain.CPU; cpu != nil {
		vmi.Status.CurrentCPUTopology = &virtv1.CPUTopology{Sockets: cpu.Sockets, Cores: cpu.Cores, Threads: cpu.Threads}
	}
	if memory := vmi.Spec.Domain.Memory; memory != nil && memory.Guest != nil {
		guest := memory.Guest.DeepCopy()
		vmi.Status.Memory = &virtv1.MemoryStatus{
			GuestAtBoot:    quantity(guest),
			GuestCurrent:   quantity(guest),
			GuestRequested: quantity(guest),
		}
	}
	vmi.Status.Conditions = append(vmi.Status.Conditions,
		virtv1.VirtualMachineInstanceCondition{Type: virtv1.VirtualMachineInstanceReady, Status: k8sv1.ConditionTrue},
		virtv1.VirtualMachineInstanceCondition{Type: virtv1.VirtualMachineInstanceIsMigratable, Status: k8sv1.ConditionTrue},
	)
	_, err := w.virt.KubevirtV1().VirtualMachineInstances(vmi.Namespace).Update(context.Background(), vmi, metav1.UpdateOptions{})
	return err
}

func quantity(q resource.Quantity) *resource.Quantity { return &q }

// upsert creates or replaces a head-side instance type, preference or ControllerRevision in
// the fake cluster (other kinds keep their base state).
func (w *liveWorld) upsert(object runtime.Object) error {
	ctx := context.Background()
	create, update := metav1.CreateOptions{}, metav1.UpdateOptions{}
	var err error
	switch o := object.(type) {
	case *k8sv1.PersistentVolumeClaim:
		client := w.client.CoreV1().PersistentVolumeClaims(o.Namespace)
		if _, err = client.Create(ctx, o, create); apierrors.IsAlreadyExists(err) {
			_, err = client.Update(ctx, o, update)
		}
		if err == nil {
			w.claims = append(w.claims, o)
		}
	case *appsv1.ControllerRevision:
		client := w.client.AppsV1().ControllerRevisions(o.Namespace)
		if _, err = client.Create(ctx, o, create); apierrors.IsAlreadyExists(err) {
			_, err = client.Update(ctx, o, update)
		}
	case *instancetypev1beta1.VirtualMachineInstancetype:
		client := w.virt.InstancetypeV1beta1().VirtualMachineInstancetypes(o.Namespace)
		if _, err = client.Create(ctx, o, create); apierrors.IsAlreadyExists(err) {
			_, err = client.Update(ctx, o, update)
		}
	case *instancetypev1beta1.VirtualMachineClusterInstancetype:
		client := w.virt.InstancetypeV1beta1().VirtualMachineClusterInstancetypes()
		if _, err = client.Create(ctx, o, create); apierrors.IsAlreadyExists(err) {
			_, err = client.Update(ctx, o, update)
		}
	case *instancetypev1beta1.VirtualMachinePreference:
		client := w.virt.InstancetypeV1beta1().VirtualMachinePreferences(o.Namespace)
		if _, err = client.Create(ctx, o, create); apierrors.IsAlreadyExists(err) {
			_, err = client.Update(ctx, o, update)
		}
	case *instancetypev1beta1.VirtualMachineClusterPreference:
		client := w.virt.InstancetypeV1beta1().VirtualMachineClusterPreferences()
		if _, err = client.Create(ctx, o, create); apierrors.IsAlreadyExists(err) {
			_, err = client.Update(ctx, o, update)
		}
	}
	return err
}

// liveObject is the stored VM as the controller left it, without its status: what
// `kubectl apply` (or a server-side apply) patches. Up to v1.4 the controller has written the
// matchers' revisionName into its spec by then (InstancetypeMethods.StoreControllerRevisions).
func liveObject(vm *virtv1.VirtualMachine) (map[string]interface{}, error) {
	generic, err := toGeneric(vm)
	if err != nil {
		return nil, err
	}
	object, ok := generic.(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf("oracle: the stored VM is not an object")
	}
	delete(object, "status")
	return object, nil
}

// appliedRequest is what `kubectl apply` sends when the manifest changes from base to head:
// head, plus what the server and the controllers set on the stored object that base did not
// write and head does not write either (the firmware UUID and serial the mutating webhook
// drew, annotations it added, up to v1.4 the matchers' revisionName). Only mapping keys are
// merged; lists are taken from head as written.
func appliedRequest(base manifest, stored map[string]interface{}, head manifest, namespace string) map[string]interface{} {
	request := requestOf(head, namespace)
	written := requestOf(base, namespace)
	keepServerFields(request, written, stored)
	return request
}

func keepServerFields(target, written, stored map[string]interface{}) {
	for key, value := range stored {
		if key == "status" {
			continue
		}
		writtenValue, wasWritten := written[key]
		targetValue, inTarget := target[key]
		storedMap, storedIsMap := value.(map[string]interface{})
		if !wasWritten {
			if !inTarget {
				target[key] = value
			} else if targetMap, ok := targetValue.(map[string]interface{}); ok && storedIsMap {
				keepServerFields(targetMap, map[string]interface{}{}, storedMap)
			}
			continue
		}
		writtenMap, writtenIsMap := writtenValue.(map[string]interface{})
		targetMap, targetIsMap := targetValue.(map[string]interface{})
		if storedIsMap && writtenIsMap && targetIsMap {
			keepServerFields(targetMap, writtenMap, storedMap)
		}
	}
}

// keepControllerAnnotations: the head's annotations, with those KubeVirt's controllers keep on
// the object (the observed API versions) carried over.
func keepControllerAnnotations(head, running map[string]string) map[string]string {
	out := map[string]string{}
	for key, value := range head {
		out[key] = value
	}
	for _, key := range []string{virtv1.ControllerAPILatestVersionObservedAnnotation, virtv1.ControllerAPIStorageVersionObservedAnnotation} {
		if value, ok := running[key]; ok {
			out[key] = value
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func typedVM(object map[string]interface{}) (*virtv1.VirtualMachine, error) {
	raw, err := json.Marshal(object)
	if err != nil {
		return nil, err
	}
	vm := &virtv1.VirtualMachine{}
	if err := json.Unmarshal(raw, vm); err != nil {
		return nil, err
	}
	return vm, nil
}

// liveFields: the parts of a running VMI that LiveUpdate may change.
func liveFields(vmi *virtv1.VirtualMachineInstance) map[string]interface{} {
	fields := map[string]interface{}{}
	generic := func(v interface{}) interface{} {
		g, _ := toGeneric(v)
		return g
	}
	if cpu := vmi.Spec.Domain.CPU; cpu != nil {
		fields["cpu.sockets"] = cpu.Sockets
		fields["cpu.cores"] = cpu.Cores
		fields["cpu.threads"] = cpu.Threads
		fields["cpu.maxSockets"] = cpu.MaxSockets
	}
	if memory := vmi.Spec.Domain.Memory; memory != nil {
		if memory.Guest != nil {
			fields["memory.guest"] = memory.Guest.String()
		}
		if memory.MaxGuest != nil {
			fields["memory.maxGuest"] = memory.MaxGuest.String()
		}
	}
	fields["nodeSelector"] = generic(vmi.Spec.NodeSelector)
	fields["affinity"] = generic(vmi.Spec.Affinity)
	fields["tolerations"] = generic(vmi.Spec.Tolerations)
	// Volumes by name, with the claim or DataVolume they use (a volume migration changes it).
	var volumes []string
	for _, volume := range vmi.Spec.Volumes {
		source := ""
		switch {
		case volume.PersistentVolumeClaim != nil:
			source = "=" + volume.PersistentVolumeClaim.ClaimName
		case volume.DataVolume != nil:
			source = "=" + volume.DataVolume.Name
		}
		volumes = append(volumes, volume.Name+source)
	}
	sort.Strings(volumes)
	fields["volumes"] = generic(volumes)
	var interfaces []string
	for _, iface := range vmi.Spec.Domain.Devices.Interfaces {
		name := iface.Name
		if iface.State != "" {
			name += " (" + string(iface.State) + ")"
		}
		interfaces = append(interfaces, name)
	}
	sort.Strings(interfaces)
	fields["interfaces"] = generic(interfaces)
	return fields
}

// admitVMUpdate updates the VM as the API server would: as admitVM creates it, with the
// stored VM as the old object.
func admitVMUpdate(c *cluster, request map[string]interface{}, old *virtv1.VirtualMachine, name, namespace string) (admission, error) {
	oldRaw, err := json.Marshal(old)
	if err != nil {
		return admission{}, err
	}
	raw, err := json.Marshal(request)
	if err != nil {
		return admission{}, err
	}
	kind := metav1.GroupVersionKind{Group: "kubevirt.io", Version: "v1", Kind: "VirtualMachine"}
	review := func(raw []byte) *admissionv1.AdmissionReview {
		return updateRequest(kind, name, namespace, raw, oldRaw)
	}
	return admitVMReview(c, raw, review)
}

func updateRequest(kind metav1.GroupVersionKind, name, namespace string, raw, oldRaw []byte) *admissionv1.AdmissionReview {
	review := createRequest(webhooks.VirtualMachineGroupVersionResource, kind, name, namespace, raw)
	review.Request.Operation = admissionv1.Update
	review.Request.OldObject = runtime.RawExtension{Raw: oldRaw}
	return review
}

// liveUpdateMain is the -liveupdate mode: the last line is `N pairs, M failed`.
func liveUpdateMain(dir, out, only string) int {
	log.Log.SetIOWriter(io.Discard)
	uuid.SetRand(zeros{})
	pairs, failed := runLiveUpdatePairs(dir, out, only)
	fmt.Printf("%d pairs, %d failed\n", pairs, failed)
	if failed > 0 {
		return 1
	}
	return 0
}
