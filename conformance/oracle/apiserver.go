package main

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// What the API server does to a custom resource before any webhook sees it, for the parts
// that change what KubeVirt's code reads:
//   - field names match case-sensitively: a key that names no field of the schema exactly is
//     an unknown field and is pruned (Go's encoding/json alone would match it ignoring case);
//   - a null for a non-nullable field is pruned (PruneNonNullableNullsWithoutDefaults);
//   - the object's own metadata is coerced through Go's ObjectMeta (apiextensions-apiserver's
//     objectmeta.Coerce), so it reads as this release's ObjectMeta writes it (before
//     apimachinery 0.34 that includes `creationTimestamp: null`);
//   - embedded metadata (spec.template.metadata, dataVolumeTemplates[].metadata) is declared
//     x-kubernetes-preserve-unknown-fields in KubeVirt's CRDs and kept as written.
// The schema of KubeVirt's CRDs is generated from its Go types, so the Go type stands for it.

var (
	objectMetaType  = reflect.TypeOf(metav1.ObjectMeta{})
	jsonUnmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
	textUnmarshaler = reflect.TypeOf((*encoding.TextUnmarshaler)(nil)).Elem()
)

// pruneAsAPIServer returns the resource value with unknown fields and nulls removed,
// following typ, and its metadata coerced.
func pruneAsAPIServer(value interface{}, typ reflect.Type) interface{} {
	pruned := prune(value, typ)
	if object, ok := pruned.(map[string]interface{}); ok {
		if meta, ok := object["metadata"]; ok {
			object["metadata"] = coerceObjectMeta(pruneFields(meta, objectMetaType))
		}
	}
	return pruned
}

// coerceObjectMeta reads metadata into Go's ObjectMeta and writes it back; metadata that does
// not read as ObjectMeta is left as pruned.
func coerceObjectMeta(meta interface{}) interface{} {
	raw, err := json.Marshal(meta)
	if err != nil {
		return meta
	}
	var typed metav1.ObjectMeta
	if err := json.Unmarshal(raw, &typed); err != nil {
		return meta
	}
	if raw, err = json.Marshal(typed); err != nil {
		return meta
	}
	coerced, err := decodeJSON(raw)
	if err != nil {
		return meta
	}
	return coerced
}

func prune(value interface{}, typ reflect.Type) interface{} {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	if opaque(typ) || typ == objectMetaType {
		return value
	}
	switch typ.Kind() {
	case reflect.Struct:
		return pruneFields(value, typ)
	case reflect.Map:
		object, ok := value.(map[string]interface{})
		if !ok {
			return value
		}
		out := make(map[string]interface{}, len(object))
		for key, item := range object {
			if item == nil {
				continue
			}
			out[key] = prune(item, typ.Elem())
		}
		return out
	case reflect.Slice, reflect.Array:
		list, ok := value.([]interface{})
		if !ok {
			return value
		}
		out := make([]interface{}, len(list))
		for i, item := range list {
			out[i] = prune(item, typ.Elem())
		}
		return out
	default:
		return value
	}
}

// pruneFields keeps the members of an object that name a field of the struct typ exactly.
func pruneFields(value interface{}, typ reflect.Type) interface{} {
	object, ok := value.(map[string]interface{})
	if !ok {
		return value
	}
	fields := jsonFields(typ)
	out := make(map[string]interface{}, len(object))
	for key, item := range object {
		fieldType, known := fields[key]
		if !known || item == nil {
			continue
		}
		out[key] = prune(item, fieldType)
	}
	return out
}

// opaque types decode themselves (quantities, int-or-string, times, raw extensions): the
// schema does not look inside them.
func opaque(typ reflect.Type) bool {
	pointer := reflect.PointerTo(typ)
	return typ.Kind() == reflect.Interface ||
		pointer.Implements(jsonUnmarshaler) || pointer.Implements(textUnmarshaler)
}

// jsonFields maps each JSON field name of a struct (embedded and inline structs flattened)
// to its type.
func jsonFields(typ reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for i := 0; i < typ.NumField(); i++ {
		field := typ.Field(i)
		tag := field.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, options, _ := strings.Cut(tag, ",")
		inner := field.Type
		for inner.Kind() == reflect.Pointer {
			inner = inner.Elem()
		}
		if (field.Anonymous && name == "") || strings.Contains(options, "inline") {
			if inner.Kind() == reflect.Struct {
				for k, v := range jsonFields(inner) {
					fields[k] = v
				}
				continue
			}
		}
		if !field.IsExported() {
			continue
		}
		if name == "" {
			name = field.Name
		}
		fields[name] = field.Type
	}
	return fields
}

// requestOf is a VM manifest as the API server decodes it, in its namespace.
func requestOf(m manifest, namespace string) map[string]interface{} {
	return requestAs(m, namespace, vmType)
}

// requestAs is a manifest of type t as the API server decodes it, in its namespace.
func requestAs(m manifest, namespace string, t reflect.Type) map[string]interface{} {
	request, _ := pruneAsAPIServer(m.value, t).(map[string]interface{})
	if request == nil {
		request = map[string]interface{}{}
	}
	meta, _ := request["metadata"].(map[string]interface{})
	if meta == nil {
		meta = map[string]interface{}{}
		request["metadata"] = meta
	}
	meta["namespace"] = namespace
	return request
}
