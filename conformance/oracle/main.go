// Command kvlint-oracle runs KubeVirt's own admission webhooks and expand over conformance
// cases and writes what they return, in the format of the shared conformance cases. It is
// built inside a KubeVirt source tree at a release tag (see README.md).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/google/uuid"
	"k8s.io/apimachinery/pkg/runtime"

	virtv1 "kubevirt.io/api/core/v1"
	"kubevirt.io/client-go/log"
)

var vmType = reflect.TypeOf(virtv1.VirtualMachine{})

// servedVMVersions: the VirtualMachine versions the API server accepts.
var servedVMVersions = map[string]bool{"kubevirt.io/v1": true, "kubevirt.io/v1alpha3": true}

// zeros makes every random UUID KubeVirt draws the pinned all-zero version 4 UUID
// 00000000-0000-4000-8000-000000000000 (firmware uuid and serial).
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	// A loop rather than clear: KubeVirt v1.0 and v1.1 declare Go 1.19, which lacks it.
	for i := range p {
		p[i] = 0
	}
	return len(p), nil
}

func main() {
	casesDir := flag.String("cases", "", "folder of case folders (each with input.yaml or inputs.txt)")
	outDir := flag.String("out", "", "folder to write <case>/expected.jsonl and expected-objects.jsonl into")
	catalogDir := flag.String("catalog", "", "folder of the catalog bundles for cases with uses-catalog (default: CASES/../../catalog)")
	sharedDir := flag.String("shared", "", "folder that inputs.txt paths are relative to (default: CASES/../..)")
	only := flag.String("case", "", "only cases whose name contains this")
	pairsDir := flag.String("liveupdate", "", "folder of live-update pairs (base.yaml, head.yaml) to run through the VM controller instead of cases")
	flag.Parse()
	if *pairsDir != "" && *outDir != "" {
		os.Exit(liveUpdateMain(*pairsDir, *outDir, *only))
	}
	if *casesDir == "" || *outDir == "" {
		fmt.Fprintln(os.Stderr, "usage: kvlint-oracle -cases DIR -out DIR [-catalog DIR] [-shared DIR] [-case SUBSTR]")
		os.Exit(2)
	}
	if *sharedDir == "" {
		*sharedDir = filepath.Join(*casesDir, "..", "..")
	}
	if *catalogDir == "" {
		*catalogDir = filepath.Join(*sharedDir, "catalog")
	}
	log.Log.SetIOWriter(io.Discard)
	uuid.SetRand(zeros{})

	entries, err := os.ReadDir(*casesDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	var names []string
	for _, entry := range entries {
		if entry.IsDir() && strings.Contains(entry.Name(), *only) {
			names = append(names, entry.Name())
		}
	}
	sort.Strings(names)
	failed := 0
	for _, name := range names {
		c := caseFiles{dir: filepath.Join(*casesDir, name), shared: *sharedDir, catalog: *catalogDir}
		if err := runCase(c, filepath.Join(*outDir, name)); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			failed++
		}
	}
	fmt.Printf("%d cases, %d failed\n", len(names), failed)
	if failed > 0 {
		os.Exit(1)
	}
}

type caseFiles struct{ dir, shared, catalog string }

// inputs: the case's own manifests, then the catalog bundles when the case uses them.
func (c caseFiles) inputs() (own []string, catalog []string, err error) {
	if _, err := os.Stat(filepath.Join(c.dir, "input.yaml")); err == nil {
		own = []string{filepath.Join(c.dir, "input.yaml")}
	} else {
		list, err := os.ReadFile(filepath.Join(c.dir, "inputs.txt"))
		if err != nil {
			return nil, nil, fmt.Errorf("neither input.yaml nor inputs.txt")
		}
		for _, line := range strings.Split(string(list), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				own = append(own, filepath.Join(c.shared, line))
			}
		}
	}
	if _, err := os.Stat(filepath.Join(c.dir, "uses-catalog")); err == nil {
		catalog = []string{
			filepath.Join(c.catalog, "common-clusterinstancetypes-bundle.yaml"),
			filepath.Join(c.catalog, "common-clusterpreferences-bundle.yaml"),
		}
	}
	return own, catalog, nil
}

func runCase(c caseFiles, out string) error {
	ownFiles, catalogFiles, err := c.inputs()
	if err != nil {
		return err
	}
	var own, catalog []manifest
	for _, file := range ownFiles {
		docs, err := readManifests(file)
		if err != nil {
			return err
		}
		own = append(own, docs...)
	}
	for _, file := range catalogFiles {
		docs, err := readManifests(file)
		if err != nil {
			return err
		}
		catalog = append(catalog, docs...)
	}

	var objects []runtime.Object
	var objectLines []string
	judged := false
	for i, m := range append(append([]manifest{}, own...), catalog...) {
		if m.kind == "VirtualMachine" {
			continue
		}
		object, served, err := typedObject(m)
		if err != nil {
			return err
		}
		if !served {
			continue
		}
		objects = append(objects, object)
		if i >= len(own) {
			continue
		}
		raw, err := json.Marshal(object)
		if err != nil {
			return err
		}
		v, isInstancetype, err := admitObject(m, raw)
		if err != nil {
			return err
		}
		if !isInstancetype {
			continue
		}
		if !v.Allowed || len(v.Warnings) > 0 {
			judged = true
		}
		line, err := json.Marshal(struct {
			Object    string  `json:"object"`
			Admission verdict `json:"admission"`
		}{m.kind + "/" + m.name, v})
		if err != nil {
			return err
		}
		objectLines = append(objectLines, string(line))
	}
	world := newCluster(objects)
	// Each VirtualMachinePool's verdict follows the instance types' and preferences'; a case
	// with a pool always has the file, so that an admitted pool is scored too.
	for _, m := range own {
		if !judgedPool(m) {
			continue
		}
		line, err := poolLine(world, m)
		if err != nil {
			return fmt.Errorf("VirtualMachinePool %s: %w", m.name, err)
		}
		objectLines = append(objectLines, line)
		judged = true
	}

	var lines []string
	for _, m := range own {
		if m.kind != "VirtualMachine" {
			continue
		}
		line, err := vmLine(world, m)
		if err != nil {
			return fmt.Errorf("VirtualMachine %s: %w", m.name, err)
		}
		lines = append(lines, pythonJSON(line))
	}

	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := writeLines(filepath.Join(out, "expected.jsonl"), lines); err != nil {
		return err
	}
	objectsFile := filepath.Join(out, "expected-objects.jsonl")
	if judged {
		return writeLines(objectsFile, objectLines)
	}
	if err := os.Remove(objectsFile); err != nil && !os.IsNotExist(err) {
		return err
	}
	return nil
}

func writeLines(path string, lines []string) error {
	text := strings.Join(lines, "\n")
	if len(lines) > 0 {
		text += "\n"
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// vmLine is one expected.jsonl line: the VM as written, its admission on CREATE, and the
// expand of the VM as written and of the VM as stored.
func vmLine(world *cluster, m manifest) (map[string]interface{}, error) {
	namespace := m.namespace
	if namespace == "" {
		namespace = defaultNamespace
	}
	line := map[string]interface{}{
		"vm":    namespace + "/" + m.name,
		"input": m.value,
	}

	request := requestOf(m, namespace)
	result, err := admitVM(world, request, m.name, namespace)
	if err != nil {
		return nil, err
	}
	line["admission"] = admissionJSON(result.verdict)
	if result.mutated != nil {
		line["mutated"] = result.mutated
	} else {
		line["mutated"] = nil
	}

	// virtctl expand --file: the file decoded by Go's encoding/json (field names matched
	// ignoring case), in the namespace of the request.
	var written virtv1.VirtualMachine
	if err := json.Unmarshal(m.raw, &written); err != nil {
		line["expand_error"] = err.Error()
	} else {
		written.Namespace = namespace
		expanded, expandErr, err := expandVM(world, &written)
		if err != nil {
			return nil, err
		}
		setExpand(line, "expanded", "expand_error", expanded, expandErr)
	}

	if result.verdict.Allowed {
		raw, err := json.Marshal(result.mutated)
		if err != nil {
			return nil, err
		}
		var stored virtv1.VirtualMachine
		if err := json.Unmarshal(raw, &stored); err != nil {
			return nil, err
		}
		expanded, expandErr, err := expandVM(world, &stored)
		if err != nil {
			return nil, err
		}
		setExpand(line, "expanded_stored", "expand_stored_error", expanded, expandErr)
	}
	return line, nil
}

func setExpand(line map[string]interface{}, key, errorKey string, expanded map[string]interface{}, expandErr string) {
	if expandErr != "" {
		line[errorKey] = expandErr
		return
	}
	line[key] = expanded
}

// admissionJSON is the verdict in the generic form written to expected.jsonl.
func admissionJSON(v verdict) interface{} {
	generic, err := toGeneric(v)
	if err != nil {
		panic(err)
	}
	return generic
}
