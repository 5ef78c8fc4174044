// Command kvlint-yaml-reader prints how Kubernetes' Go readers read YAML files, so that kvlint's
// own reader can be compared with them: for each file, one JSON line with the documents as
// kubectl and the API machinery read them (k8s.io/apimachinery's document splitter, then
// sigs.k8s.io/yaml) and as kustomize's kyaml reads them (go.yaml.in/yaml/v3).
//
// It is built inside a KubeVirt source tree, which vendors both readers (see README.md).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	sigsyaml "sigs.k8s.io/yaml"

	yamlv3 "go.yaml.in/yaml/v3"
)

type reading struct {
	File           string            `json:"file"`
	Kubectl        []json.RawMessage `json:"kubectl"`
	KubectlError   string            `json:"kubectl_error,omitempty"`
	Kustomize      []json.RawMessage `json:"kustomize"`
	KustomizeError string            `json:"kustomize_error,omitempty"`
}

// canonical re-encodes JSON with sorted keys and numbers kept as written.
func canonical(data []byte) (json.RawMessage, error) {
	decoder := json.NewDecoder(bytes.NewReader(data))
	decoder.UseNumber()
	var value interface{}
	if err := decoder.Decode(&value); err != nil {
		return nil, err
	}
	return json.Marshal(value)
}

// kubectl splits the stream as k8s.io/apimachinery does and converts each document with
// sigs.k8s.io/yaml; documents that hold nothing (null) are skipped, as kubectl skips them.
func kubectl(text []byte) ([]json.RawMessage, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(text)))
	documents := []json.RawMessage{}
	for {
		chunk, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return documents, nil
		}
		if err != nil {
			return documents, err
		}
		converted, err := sigsyaml.YAMLToJSON(chunk)
		if err != nil {
			return documents, err
		}
		if string(bytes.TrimSpace(converted)) == "null" {
			continue
		}
		document, err := canonical(converted)
		if err != nil {
			return documents, err
		}
		documents = append(documents, document)
	}
}

// kustomize reads the stream with go.yaml.in/yaml/v3, the parser under kustomize's kyaml.
func kustomize(text []byte) ([]json.RawMessage, error) {
	decoder := yamlv3.NewDecoder(bytes.NewReader(text))
	documents := []json.RawMessage{}
	for {
		var value interface{}
		err := decoder.Decode(&value)
		if errors.Is(err, io.EOF) {
			return documents, nil
		}
		if err != nil {
			return documents, err
		}
		if value == nil {
			continue
		}
		encoded, err := json.Marshal(value)
		if err != nil {
			return documents, err
		}
		document, err := canonical(encoded)
		if err != nil {
			return documents, err
		}
		documents = append(documents, document)
	}
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: kvlint-yaml-reader FILE...")
		os.Exit(2)
	}
	out := json.NewEncoder(os.Stdout)
	for _, file := range os.Args[1:] {
		text, err := os.ReadFile(file)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		line := reading{File: file}
		line.Kubectl, err = kubectl(text)
		if err != nil {
			line.KubectlError = err.Error()
		}
		line.Kustomize, err = kustomize(text)
		if err != nil {
			line.KustomizeError = err.Error()
		}
		if err := out.Encode(line); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
	}
}
