package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// manifest is one YAML document as Go's Kubernetes readers see it: the JSON that
// sigs.k8s.io/yaml produces, and that JSON decoded with numbers kept as written.
type manifest struct {
	raw        []byte
	value      map[string]interface{}
	apiVersion string
	kind       string
	name       string
	namespace  string
}

// readManifests splits a file into documents the way kubectl does and converts each to
// JSON; documents holding nothing (comments only) are skipped.
func readManifests(path string) ([]manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	reader := k8syaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out []manifest
	for index := 1; ; index++ {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", path, index, err)
		}
		raw, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", path, index, err)
		}
		value, err := decodeJSON(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", path, index, err)
		}
		object, ok := value.(map[string]interface{})
		if !ok {
			if value == nil {
				continue
			}
			return nil, fmt.Errorf("%s: document %d is not a mapping", path, index)
		}
		m := manifest{raw: raw, value: object}
		m.apiVersion, _ = object["apiVersion"].(string)
		m.kind, _ = object["kind"].(string)
		if meta, ok := object["metadata"].(map[string]interface{}); ok {
			m.name, _ = meta["name"].(string)
			m.namespace, _ = meta["namespace"].(string)
		}
		out = append(out, m)
	}
}

// decodeJSON decodes JSON keeping each number's text, so that output repeats it unchanged.
func decodeJSON(raw []byte) (interface{}, error) {
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	var value interface{}
	if err := decoder.Decode(&value); err != nil {
		return nil, err
	}
	return value, nil
}

// toGeneric turns any Go value into the generic JSON form (maps, slices, json.Number).
func toGeneric(v interface{}) (interface{}, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeJSON(raw)
}
