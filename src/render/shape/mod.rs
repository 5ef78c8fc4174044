//! The Go `encoding/json` round trip of `kubevirt.io/api/core/v1.VirtualMachine`.
//!
//! The `KubeVirt` `expand` returns a `VirtualMachine` that went through Go: decoded into the typed
//! structs, then encoded again. This module replays that on a `serde_json::Value` tree with a
//! static description of the Go types (`KubeVirt` v1.9 API, CDI v1.64 `DataVolumeSpec`,
//! Kubernetes v0.34 core and meta types), written as [`Field`] tables:
//!
//! * `omitempty` drops `false`, `0`, `""`, empty lists and empty maps of non-pointer fields;
//!   fields without it are always emitted (a nil pointer, list or map as `null`).
//! * Non-pointer structs are always emitted (`domain.resources: {}`); present pointers to
//!   structs stay, even when empty (`bridge: {}`); pointers to scalars keep `false` and `0`.
//! * Quantities are canonicalised through a callback; `metav1.Time` is printed in UTC
//!   (RFC 3339, whole seconds) and a zero `creationTimestamp` is dropped (`omitzero`).
//! * The `KubeVirt` decoders normalise DNS nameservers, DHCP NTP servers and the pod network
//!   CIDR (`sanitizeIP` / `sanitizeCIDR`).
//! * Struct fields come out in Go declaration order and map keys sorted, as Go prints them.
//!
//! Departures from a real round trip, on purpose: fields that are not part of the Go type are
//! kept unchanged after the known ones (a schema rule reports them), keys match exactly
//! (Go would also accept other letter cases), and values of the wrong JSON type are left as
//! they are rather than failing the whole decode. Nothing here panics on any input.

use crate::model::value::same_key;
use serde_json::{Map, Value};

mod cdi;
mod goval;
mod k8s;
mod kubevirt;
#[cfg(test)]
mod tests;
mod unknown;

pub(crate) use unknown::{
    newer_fields, prune_unknown, prune_unknown_and, sibling_fields, unknown_fields,
};

/// A field of a Go struct, named by its JSON tag. Embedded (`json:",inline"`) structs are
/// flattened into the embedding struct at the place Go puts them.
#[derive(Debug)]
pub(crate) struct Field {
    /// The JSON name.
    pub(crate) json: &'static str,
    /// The Go type of the field.
    pub(crate) shape: Shape,
    /// How an empty value is treated when encoding.
    pub(crate) omit: Omit,
}

/// The encoding options of a field's JSON tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Omit {
    /// No `omitempty`: always emitted; when absent from the input as the Go zero value.
    Never,
    /// `omitempty`: dropped when `false`, `0`, `""`, a nil pointer, or an empty list or map.
    /// Never applies to non-pointer structs (including quantities and times).
    Empty,
    /// `omitzero`: dropped when the Go zero value (used by `metav1.Time` only).
    Zero,
}

/// The Go type of a field, as far as the JSON round trip is concerned.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Shape {
    /// A non-pointer struct: always emitted, created as `{}` (with its own non-pointer
    /// members) when absent.
    Struct(&'static [Field]),
    /// A pointer to a struct: absent stays absent, present stays even when empty.
    PtrStruct(&'static [Field]),
    /// A non-pointer struct that is not described here (the `VirtualMachine` status): created
    /// as `{}` when absent, otherwise kept with `null` members dropped.
    OpaqueStruct,
    /// A value with its own JSON encoding that is kept verbatim (`metav1.FieldsV1`).
    Raw,
    /// A slice; `null` elements become the element's zero value.
    Slice(&'static Shape),
    /// `map[string]string`: keys sorted, `null` values become `""`.
    StringMap,
    /// `ResourceList` (`map[ResourceName]resource.Quantity`): keys sorted, values canonical.
    QuantityMap,
    /// `resource.Quantity` (`ptr: false`, zero value `"0"`) or `*resource.Quantity`.
    Quantity { ptr: bool },
    /// A bool, integer or string (including named string types), or a pointer to one.
    Scalar { kind: Kind, ptr: bool },
    /// `metav1.Time` or `*metav1.Time`: RFC 3339 in UTC; the zero time prints as `null`.
    Time { ptr: bool },
    /// `intstr.IntOrString` (zero value `0`) or a pointer to one.
    IntOrString { ptr: bool },
}

/// The kind of a scalar field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Bool,
    /// Any Go integer type.
    Int,
    Str,
    /// A string that the `KubeVirt` decoder rewrites with `sanitizeIP`.
    IpAddress,
    /// A string that the `KubeVirt` decoder rewrites with `sanitizeCIDR`.
    Cidr,
}

/// One step of a JSON path below the `VirtualMachine` root: an object key or a list index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PathSegment<'a> {
    Key(&'a str),
    Index(usize),
}

/// The owned `FieldPath` of a borrowed path.
pub(crate) fn field_path(path: &[PathSegment<'_>]) -> crate::yaml::FieldPath {
    crate::yaml::FieldPath(
        path.iter()
            .map(|segment| match *segment {
                PathSegment::Key(key) => crate::yaml::Segment::Key(key.to_owned()),
                PathSegment::Index(i) => crate::yaml::Segment::Index(i),
            })
            .collect(),
    )
}

/// The borrowed form of a `FieldPath`'s segments.
pub(crate) fn segments(path: &[crate::yaml::Segment]) -> Vec<PathSegment<'_>> {
    path.iter()
        .map(|segment| match segment {
            crate::yaml::Segment::Key(key) => PathSegment::Key(key),
            crate::yaml::Segment::Index(i) => PathSegment::Index(*i),
        })
        .collect()
}

/// The whole `v1.VirtualMachine`.
static VIRTUAL_MACHINE: Shape = Shape::Struct(kubevirt::VIRTUAL_MACHINE);
/// The values of a `map[string]string`.
static MAP_STRING: Shape = STR;
/// The values of a `ResourceList`.
static MAP_QUANTITY: Shape = Shape::Quantity { ptr: false };

// Building blocks for the tables in the submodules.
const STR: Shape = Shape::Scalar {
    kind: Kind::Str,
    ptr: false,
};
const PTR_STR: Shape = Shape::Scalar {
    kind: Kind::Str,
    ptr: true,
};
const BOOL: Shape = Shape::Scalar {
    kind: Kind::Bool,
    ptr: false,
};
const PTR_BOOL: Shape = Shape::Scalar {
    kind: Kind::Bool,
    ptr: true,
};
const INT: Shape = Shape::Scalar {
    kind: Kind::Int,
    ptr: false,
};
const PTR_INT: Shape = Shape::Scalar {
    kind: Kind::Int,
    ptr: true,
};
const IP: Shape = Shape::Scalar {
    kind: Kind::IpAddress,
    ptr: false,
};
const CIDR: Shape = Shape::Scalar {
    kind: Kind::Cidr,
    ptr: false,
};
const QUANTITY: Shape = Shape::Quantity { ptr: false };
const PTR_QUANTITY: Shape = Shape::Quantity { ptr: true };
const STRINGS: Shape = Shape::Slice(&STR);
/// An empty struct (`struct{}`), always used behind a pointer.
const EMPTY: &[Field] = &[];

/// A field with `omitempty`.
const fn opt(json: &'static str, shape: Shape) -> Field {
    Field {
        json,
        shape,
        omit: Omit::Empty,
    }
}

/// A field without `omitempty`.
const fn req(json: &'static str, shape: Shape) -> Field {
    Field {
        json,
        shape,
        omit: Omit::Never,
    }
}

/// A field with `omitzero`.
const fn zero(json: &'static str, shape: Shape) -> Field {
    Field {
        json,
        shape,
        omit: Omit::Zero,
    }
}

/// Applies a Go JSON round trip of `v1.VirtualMachine` to `vm` in place.
///
/// `canonical_quantity` returns the canonical string of a quantity, or `None` when it is not
/// a valid quantity (the value is then left unchanged).
pub(crate) fn normalize_vm(vm: &mut Value, canonical_quantity: &dyn Fn(&Value) -> Option<String>) {
    normalize_value(&VIRTUAL_MACHINE, vm, canonical_quantity);
}

/// [`normalize_vm`] as release `version` encodes the VM: its Go types print a few empty fields
/// that the current ones leave out (`crate::schema` lists them).
pub(crate) fn normalize_vm_at(
    vm: &mut Value,
    version: crate::cluster::version::KubeVirtVersion,
    canonical_quantity: &dyn Fn(&Value) -> Option<String>,
) {
    normalize_vm(vm, canonical_quantity);
    crate::schema::print_empty_fields_of_release(vm, version);
}

/// The shape of the value at `path` below the `VirtualMachine` root, or `None` when the path is
/// not part of the Go type.
///
/// Keys select struct fields and map values, indices select list elements; the empty path is
/// the `VirtualMachine` itself. Below a shape whose content is not described (the VM status,
/// `managedFields[].fieldsV1`) every path answers that same shape.
pub(crate) fn shape_at(path: &[PathSegment<'_>]) -> Option<&'static Shape> {
    let mut shape: &'static Shape = &VIRTUAL_MACHINE;
    for segment in path {
        shape = match (shape, segment) {
            (Shape::Struct(fields) | Shape::PtrStruct(fields), PathSegment::Key(key)) => {
                &fields.iter().find(|field| same_key(field.json, key))?.shape
            }
            (Shape::Slice(element), PathSegment::Index(_)) => element,
            (Shape::StringMap, PathSegment::Key(_)) => &MAP_STRING,
            (Shape::QuantityMap, PathSegment::Key(_)) => &MAP_QUANTITY,
            (Shape::OpaqueStruct | Shape::Raw, _) => shape,
            _ => return None,
        };
    }
    Some(shape)
}

type Canonical<'a> = &'a dyn Fn(&Value) -> Option<String>;

/// Re-encodes the members of a struct: known fields in declaration order, then the unknown
/// ones unchanged in their original order.
fn normalize_fields(object: &mut Map<String, Value>, fields: &[Field], canonical: Canonical<'_>) {
    if in_declaration_order(object, fields) {
        normalize_in_place(object, fields, canonical);
        return;
    }
    let mut given: Vec<Option<(String, Value)>> =
        std::mem::take(object).into_iter().map(Some).collect();
    *object = Map::with_capacity(given.len() + 2);
    for field in fields {
        let (key, value) = given
            .iter_mut()
            .find(|entry| {
                entry
                    .as_ref()
                    .is_some_and(|(key, _)| same_key(key, field.json))
            })
            .and_then(Option::take)
            .map_or((None, None), |(key, value)| (Some(key), Some(value)));
        if let Some(value) = encode_field(field, value, canonical) {
            object.insert(key.unwrap_or_else(|| field.json.to_owned()), value);
        }
    }
    for (key, value) in given.into_iter().flatten() {
        object.insert(key, value);
    }
}

/// Whether re-encoding keeps `object`'s keys where they are: its known fields come in
/// declaration order before any unknown member, and no absent field would be printed.
fn in_declaration_order(object: &Map<String, Value>, fields: &[Field]) -> bool {
    let mut keys = object.keys().peekable();
    for field in fields {
        if keys.peek().is_some_and(|key| same_key(key, field.json)) {
            keys.next();
        } else if printed_when_absent(field) {
            return false;
        }
    }
    keys.all(|key| !fields.iter().any(|field| same_key(field.json, key)))
}

fn printed_when_absent(field: &Field) -> bool {
    match field.omit {
        Omit::Never => true,
        Omit::Empty => is_value_struct(&field.shape),
        Omit::Zero => false,
    }
}

/// `normalize_fields` for an object `in_declaration_order`: values are re-encoded where they
/// stand and the omitted ones removed, without rebuilding the map.
fn normalize_in_place(object: &mut Map<String, Value>, fields: &[Field], canonical: Canonical<'_>) {
    let mut omitted = Vec::new();
    let mut next = 0;
    for (index, (key, value)) in object.iter_mut().enumerate() {
        let Some(offset) = fields[next..]
            .iter()
            .position(|field| same_key(field.json, key))
        else {
            break;
        };
        let field = &fields[next + offset];
        next += offset + 1;
        match encode_field(field, Some(std::mem::take(value)), canonical) {
            Some(encoded) => *value = encoded,
            None => omitted.push(index),
        }
    }
    if !omitted.is_empty() {
        let mut index = 0;
        object.retain(|_, _| {
            let keep = omitted.binary_search(&index).is_err();
            index += 1;
            keep
        });
    }
}

/// What Go prints for a field given its input value (`None` when absent); `None` when the
/// field is left out.
fn encode_field(field: &Field, value: Option<Value>, canonical: Canonical<'_>) -> Option<Value> {
    match value {
        // Decoding `null` leaves (or resets) the Go zero value, as an absent key does.
        None | Some(Value::Null) => match field.omit {
            Omit::Never => Some(zero_value(&field.shape, canonical)),
            Omit::Empty if is_value_struct(&field.shape) => {
                Some(zero_value(&field.shape, canonical))
            }
            Omit::Empty | Omit::Zero => None,
        },
        Some(mut value) => {
            let typed = normalize_value(&field.shape, &mut value, canonical);
            (!(typed && is_omitted(field, &value))).then_some(value)
        }
    }
}

/// Whether the Go type is a non-pointer struct, which `omitempty` never drops.
fn is_value_struct(shape: &Shape) -> bool {
    matches!(
        shape,
        Shape::Struct(_)
            | Shape::OpaqueStruct
            | Shape::Quantity { ptr: false }
            | Shape::Time { ptr: false }
            | Shape::IntOrString { ptr: false }
    )
}

/// Whether an (already normalised, well-typed) value is dropped by the field's tag.
fn is_omitted(field: &Field, value: &Value) -> bool {
    match field.omit {
        Omit::Never => false,
        Omit::Zero => value.is_null(),
        Omit::Empty => match field.shape {
            Shape::Scalar { ptr: false, .. } => match value {
                Value::Bool(flag) => !flag,
                Value::Number(number) => number.as_u64() == Some(0) || number.as_i64() == Some(0),
                Value::String(text) => text.is_empty(),
                _ => false,
            },
            Shape::Slice(_) => value.as_array().is_some_and(Vec::is_empty),
            Shape::StringMap | Shape::QuantityMap => value.as_object().is_some_and(Map::is_empty),
            _ => false,
        },
    }
}

/// How Go prints the zero value of a type.
fn zero_value(shape: &Shape, canonical: Canonical<'_>) -> Value {
    match *shape {
        Shape::Struct(fields) => {
            let mut object = Map::new();
            normalize_fields(&mut object, fields, canonical);
            Value::Object(object)
        }
        Shape::OpaqueStruct => Value::Object(Map::new()),
        Shape::Quantity { ptr: false } => Value::String("0".to_owned()),
        Shape::IntOrString { ptr: false } => Value::from(0),
        Shape::Scalar { kind, ptr: false } => match kind {
            Kind::Bool => Value::Bool(false),
            Kind::Int => Value::from(0),
            Kind::Str | Kind::IpAddress | Kind::Cidr => Value::String(String::new()),
        },
        _ => Value::Null,
    }
}

/// Re-encodes a present, non-null value in place. Returns `false` (leaving the value as it
/// is) when its JSON type does not fit the Go type.
fn normalize_value(shape: &Shape, value: &mut Value, canonical: Canonical<'_>) -> bool {
    match *shape {
        Shape::Struct(fields) | Shape::PtrStruct(fields) => match value {
            Value::Object(object) => {
                normalize_fields(object, fields, canonical);
                true
            }
            _ => false,
        },
        Shape::OpaqueStruct => {
            let typed = value.is_object();
            if typed {
                drop_null_members(value);
            }
            typed
        }
        Shape::Raw => true,
        Shape::Slice(element) => match value {
            Value::Array(items) => {
                for item in items {
                    if item.is_null() {
                        *item = zero_value(element, canonical);
                    } else {
                        normalize_value(element, item, canonical);
                    }
                }
                true
            }
            _ => false,
        },
        Shape::StringMap => match value {
            Value::Object(object) => {
                for item in object.values_mut() {
                    if item.is_null() {
                        *item = Value::String(String::new());
                    }
                }
                sort_keys(object);
                true
            }
            _ => false,
        },
        Shape::QuantityMap => match value {
            Value::Object(object) => {
                for item in object.values_mut() {
                    if item.is_null() {
                        *item = Value::String("0".to_owned());
                    } else if let Some(text) = canonical(item) {
                        *item = Value::String(text);
                    }
                }
                sort_keys(object);
                true
            }
            _ => false,
        },
        Shape::Quantity { .. } => match canonical(value) {
            Some(text) => {
                *value = Value::String(text);
                true
            }
            None => false,
        },
        Shape::Scalar { kind, .. } => normalize_scalar(kind, value),
        Shape::Time { .. } => match value.as_str().and_then(goval::canonical_time) {
            Some(time) => {
                *value = time;
                true
            }
            None => false,
        },
        Shape::IntOrString { .. } => value.is_string() || value.is_i64() || value.is_u64(),
    }
}

fn normalize_scalar(kind: Kind, value: &mut Value) -> bool {
    match kind {
        Kind::Bool => value.is_boolean(),
        Kind::Int => value.is_i64() || value.is_u64(),
        Kind::Str => value.is_string(),
        Kind::IpAddress | Kind::Cidr => match value {
            Value::String(text) => {
                let sanitized = if kind == Kind::IpAddress {
                    goval::sanitize_ip(text)
                } else {
                    goval::sanitize_cidr(text)
                };
                if let Some(sanitized) = sanitized {
                    *text = sanitized;
                }
                true
            }
            _ => false,
        },
    }
}

/// Go prints map keys in byte order.
fn sort_keys(object: &mut Map<String, Value>) {
    if !object.keys().is_sorted() {
        // Reorders the entries and rebuilds the index from their stored hashes (keys are
        // unique, so an unstable sort is exact).
        object.sort_keys();
    }
}

/// Drops `null` object members at any depth (list elements are kept).
fn drop_null_members(value: &mut Value) {
    match value {
        Value::Object(object) => {
            object.retain(|_, member| !member.is_null());
            object.values_mut().for_each(drop_null_members);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null_members),
        _ => {}
    }
}
