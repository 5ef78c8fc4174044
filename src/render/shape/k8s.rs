//! Kubernetes types used by the `VirtualMachine` (`k8s.io/api` and `k8s.io/apimachinery`
//! v0.34): object metadata, label selectors, scheduling, probes' actions, volume sources and
//! `PersistentVolumeClaimSpec`.

use super::{
    Field, INT, PTR_BOOL, PTR_INT, PTR_STR, QUANTITY, STR, STRINGS, Shape, opt, req, zero,
};

// ----- meta/v1 -----

/// `metav1.ObjectMeta`.
pub(super) const OBJECT_META: &[Field] = &[
    opt("name", STR),
    opt("generateName", STR),
    opt("namespace", STR),
    opt("selfLink", STR),
    opt("uid", STR),
    opt("resourceVersion", STR),
    opt("generation", INT),
    zero("creationTimestamp", Shape::Time { ptr: false }),
    opt("deletionTimestamp", Shape::Time { ptr: true }),
    opt("deletionGracePeriodSeconds", PTR_INT),
    opt("labels", Shape::StringMap),
    opt("annotations", Shape::StringMap),
    opt(
        "ownerReferences",
        Shape::Slice(&Shape::Struct(OWNER_REFERENCE)),
    ),
    opt("finalizers", STRINGS),
    opt(
        "managedFields",
        Shape::Slice(&Shape::Struct(MANAGED_FIELDS_ENTRY)),
    ),
];

const OWNER_REFERENCE: &[Field] = &[
    req("apiVersion", STR),
    req("kind", STR),
    req("name", STR),
    req("uid", STR),
    opt("controller", PTR_BOOL),
    opt("blockOwnerDeletion", PTR_BOOL),
];

const MANAGED_FIELDS_ENTRY: &[Field] = &[
    opt("manager", STR),
    opt("operation", STR),
    opt("apiVersion", STR),
    opt("time", Shape::Time { ptr: true }),
    opt("fieldsType", STR),
    opt("fieldsV1", Shape::Raw),
    opt("subresource", STR),
];

/// `metav1.LabelSelector`.
pub(super) const LABEL_SELECTOR: &[Field] = &[
    opt("matchLabels", Shape::StringMap),
    opt(
        "matchExpressions",
        Shape::Slice(&Shape::Struct(LABEL_SELECTOR_REQUIREMENT)),
    ),
];

const LABEL_SELECTOR_REQUIREMENT: &[Field] = &[
    req("key", STR),
    req("operator", STR),
    opt("values", STRINGS),
];

// ----- core/v1: scheduling -----

/// `corev1.Affinity`.
pub(super) const AFFINITY: &[Field] = &[
    opt("nodeAffinity", Shape::PtrStruct(NODE_AFFINITY)),
    opt("podAffinity", Shape::PtrStruct(POD_AFFINITY)),
    opt("podAntiAffinity", Shape::PtrStruct(POD_AFFINITY)),
];

const NODE_AFFINITY: &[Field] = &[
    opt(
        "requiredDuringSchedulingIgnoredDuringExecution",
        Shape::PtrStruct(NODE_SELECTOR),
    ),
    opt(
        "preferredDuringSchedulingIgnoredDuringExecution",
        Shape::Slice(&Shape::Struct(PREFERRED_SCHEDULING_TERM)),
    ),
];

const NODE_SELECTOR: &[Field] = &[req(
    "nodeSelectorTerms",
    Shape::Slice(&Shape::Struct(NODE_SELECTOR_TERM)),
)];

const NODE_SELECTOR_TERM: &[Field] = &[
    opt(
        "matchExpressions",
        Shape::Slice(&Shape::Struct(NODE_SELECTOR_REQUIREMENT)),
    ),
    opt(
        "matchFields",
        Shape::Slice(&Shape::Struct(NODE_SELECTOR_REQUIREMENT)),
    ),
];

const NODE_SELECTOR_REQUIREMENT: &[Field] = &[
    req("key", STR),
    req("operator", STR),
    opt("values", STRINGS),
];

const PREFERRED_SCHEDULING_TERM: &[Field] = &[
    req("weight", INT),
    req("preference", Shape::Struct(NODE_SELECTOR_TERM)),
];

/// `corev1.PodAffinity` and `corev1.PodAntiAffinity` (same fields).
const POD_AFFINITY: &[Field] = &[
    opt(
        "requiredDuringSchedulingIgnoredDuringExecution",
        Shape::Slice(&Shape::Struct(POD_AFFINITY_TERM)),
    ),
    opt(
        "preferredDuringSchedulingIgnoredDuringExecution",
        Shape::Slice(&Shape::Struct(WEIGHTED_POD_AFFINITY_TERM)),
    ),
];

const POD_AFFINITY_TERM: &[Field] = &[
    opt("labelSelector", Shape::PtrStruct(LABEL_SELECTOR)),
    opt("namespaces", STRINGS),
    req("topologyKey", STR),
    opt("namespaceSelector", Shape::PtrStruct(LABEL_SELECTOR)),
    opt("matchLabelKeys", STRINGS),
    opt("mismatchLabelKeys", STRINGS),
];

const WEIGHTED_POD_AFFINITY_TERM: &[Field] = &[
    req("weight", INT),
    req("podAffinityTerm", Shape::Struct(POD_AFFINITY_TERM)),
];

/// `corev1.Toleration`.
pub(super) const TOLERATION: &[Field] = &[
    opt("key", STR),
    opt("operator", STR),
    opt("value", STR),
    opt("effect", STR),
    opt("tolerationSeconds", PTR_INT),
];

/// `corev1.TopologySpreadConstraint`.
pub(super) const TOPOLOGY_SPREAD_CONSTRAINT: &[Field] = &[
    req("maxSkew", INT),
    req("topologyKey", STR),
    req("whenUnsatisfiable", STR),
    opt("labelSelector", Shape::PtrStruct(LABEL_SELECTOR)),
    opt("minDomains", PTR_INT),
    opt("nodeAffinityPolicy", PTR_STR),
    opt("nodeTaintsPolicy", PTR_STR),
    opt("matchLabelKeys", STRINGS),
];

/// `corev1.PodDNSConfig`; the `KubeVirt` decoder sanitises the nameservers.
pub(super) const POD_DNS_CONFIG: &[Field] = &[
    opt("nameservers", Shape::Slice(&super::IP)),
    opt("searches", STRINGS),
    opt(
        "options",
        Shape::Slice(&Shape::Struct(POD_DNS_CONFIG_OPTION)),
    ),
];

const POD_DNS_CONFIG_OPTION: &[Field] = &[opt("name", STR), opt("value", PTR_STR)];

// ----- core/v1: probe actions -----

/// `corev1.ExecAction`.
pub(super) const EXEC_ACTION: &[Field] = &[opt("command", STRINGS)];

/// `corev1.HTTPGetAction`.
pub(super) const HTTP_GET_ACTION: &[Field] = &[
    opt("path", STR),
    req("port", Shape::IntOrString { ptr: false }),
    opt("host", STR),
    opt("scheme", STR),
    opt("httpHeaders", Shape::Slice(&Shape::Struct(HTTP_HEADER))),
];

const HTTP_HEADER: &[Field] = &[req("name", STR), req("value", STR)];

/// `corev1.TCPSocketAction`.
pub(super) const TCP_SOCKET_ACTION: &[Field] = &[
    req("port", Shape::IntOrString { ptr: false }),
    opt("host", STR),
];

// ----- core/v1: volumes -----

/// `corev1.LocalObjectReference`.
pub(super) const LOCAL_OBJECT_REFERENCE: &[Field] = &[opt("name", STR)];

/// `corev1.PersistentVolumeClaimVolumeSource`.
pub(super) const PVC_VOLUME_SOURCE: &[Field] =
    &[req("claimName", STR), opt("readOnly", super::BOOL)];

/// `corev1.DownwardAPIVolumeFile`.
pub(super) const DOWNWARD_API_VOLUME_FILE: &[Field] = &[
    req("path", STR),
    opt("fieldRef", Shape::PtrStruct(OBJECT_FIELD_SELECTOR)),
    opt(
        "resourceFieldRef",
        Shape::PtrStruct(RESOURCE_FIELD_SELECTOR),
    ),
    opt("mode", PTR_INT),
];

const OBJECT_FIELD_SELECTOR: &[Field] = &[opt("apiVersion", STR), req("fieldPath", STR)];

const RESOURCE_FIELD_SELECTOR: &[Field] = &[
    opt("containerName", STR),
    req("resource", STR),
    // A non-pointer quantity: printed as "0" when absent.
    opt("divisor", QUANTITY),
];

/// `corev1.PersistentVolumeClaimSpec`.
pub(super) const PVC_SPEC: &[Field] = &[
    opt("accessModes", STRINGS),
    opt("selector", Shape::PtrStruct(LABEL_SELECTOR)),
    opt("resources", Shape::Struct(VOLUME_RESOURCE_REQUIREMENTS)),
    opt("volumeName", STR),
    opt("storageClassName", PTR_STR),
    opt("volumeMode", PTR_STR),
    opt("dataSource", Shape::PtrStruct(TYPED_LOCAL_OBJECT_REFERENCE)),
    opt("dataSourceRef", Shape::PtrStruct(TYPED_OBJECT_REFERENCE)),
    opt("volumeAttributesClassName", PTR_STR),
];

/// `corev1.VolumeResourceRequirements`.
pub(super) const VOLUME_RESOURCE_REQUIREMENTS: &[Field] = &[
    opt("limits", Shape::QuantityMap),
    opt("requests", Shape::QuantityMap),
];

/// `corev1.TypedLocalObjectReference` (`apiGroup` has no `omitempty`).
pub(super) const TYPED_LOCAL_OBJECT_REFERENCE: &[Field] =
    &[req("apiGroup", PTR_STR), req("kind", STR), req("name", STR)];

/// `corev1.TypedObjectReference` (`apiGroup` has no `omitempty`).
pub(super) const TYPED_OBJECT_REFERENCE: &[Field] = &[
    req("apiGroup", PTR_STR),
    req("kind", STR),
    req("name", STR),
    opt("namespace", PTR_STR),
];
