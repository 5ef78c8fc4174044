//! CDI types (`kubevirt.io/containerized-data-importer-api` v1.64, `core/v1beta1`) used by
//! `spec.dataVolumeTemplates[].spec`.

use super::k8s::{
    LABEL_SELECTOR, PVC_SPEC, TYPED_LOCAL_OBJECT_REFERENCE, TYPED_OBJECT_REFERENCE,
    VOLUME_RESOURCE_REQUIREMENTS,
};
use super::{BOOL, EMPTY, Field, PTR_BOOL, PTR_STR, STR, STRINGS, Shape, opt, req};

/// `DataVolumeSpec`.
pub(super) const DATA_VOLUME_SPEC: &[Field] = &[
    opt("source", Shape::PtrStruct(DATA_VOLUME_SOURCE)),
    opt("sourceRef", Shape::PtrStruct(DATA_VOLUME_SOURCE_REF)),
    opt("pvc", Shape::PtrStruct(PVC_SPEC)),
    opt("storage", Shape::PtrStruct(STORAGE_SPEC)),
    opt("priorityClassName", STR),
    opt("contentType", STR),
    opt(
        "checkpoints",
        Shape::Slice(&Shape::Struct(DATA_VOLUME_CHECKPOINT)),
    ),
    opt("finalCheckpoint", BOOL),
    opt("preallocation", PTR_BOOL),
];

/// `StorageSpec`: a `PersistentVolumeClaimSpec` without `volumeAttributesClassName`.
const STORAGE_SPEC: &[Field] = &[
    opt("accessModes", STRINGS),
    opt("selector", Shape::PtrStruct(LABEL_SELECTOR)),
    opt("resources", Shape::Struct(VOLUME_RESOURCE_REQUIREMENTS)),
    opt("volumeName", STR),
    opt("storageClassName", PTR_STR),
    opt("volumeMode", PTR_STR),
    opt("dataSource", Shape::PtrStruct(TYPED_LOCAL_OBJECT_REFERENCE)),
    opt("dataSourceRef", Shape::PtrStruct(TYPED_OBJECT_REFERENCE)),
];

const DATA_VOLUME_CHECKPOINT: &[Field] = &[req("previous", STR), req("current", STR)];

const DATA_VOLUME_SOURCE: &[Field] = &[
    opt("http", Shape::PtrStruct(SOURCE_HTTP)),
    opt("s3", Shape::PtrStruct(SOURCE_S3)),
    opt("gcs", Shape::PtrStruct(SOURCE_GCS)),
    opt("registry", Shape::PtrStruct(SOURCE_REGISTRY)),
    opt("pvc", Shape::PtrStruct(NAMESPACED_NAME)),
    opt("upload", Shape::PtrStruct(EMPTY)),
    opt("blank", Shape::PtrStruct(EMPTY)),
    opt("imageio", Shape::PtrStruct(SOURCE_IMAGEIO)),
    opt("vddk", Shape::PtrStruct(SOURCE_VDDK)),
    opt("snapshot", Shape::PtrStruct(NAMESPACED_NAME)),
];

/// `DataVolumeSourcePVC` and `DataVolumeSourceSnapshot`.
const NAMESPACED_NAME: &[Field] = &[req("namespace", STR), req("name", STR)];

const SOURCE_HTTP: &[Field] = &[
    req("url", STR),
    opt("secretRef", STR),
    opt("certConfigMap", STR),
    opt("extraHeaders", STRINGS),
    opt("secretExtraHeaders", STRINGS),
];

const SOURCE_S3: &[Field] = &[
    req("url", STR),
    opt("secretRef", STR),
    opt("certConfigMap", STR),
];

const SOURCE_GCS: &[Field] = &[req("url", STR), opt("secretRef", STR)];

const SOURCE_REGISTRY: &[Field] = &[
    opt("url", PTR_STR),
    opt("imageStream", PTR_STR),
    opt("pullMethod", PTR_STR),
    opt("secretRef", PTR_STR),
    opt("certConfigMap", PTR_STR),
    opt("platform", Shape::PtrStruct(PLATFORM_OPTIONS)),
];

const PLATFORM_OPTIONS: &[Field] = &[opt("architecture", STR)];

const SOURCE_IMAGEIO: &[Field] = &[
    req("url", STR),
    req("diskId", STR),
    opt("secretRef", STR),
    opt("certConfigMap", STR),
    opt("insecureSkipVerify", PTR_BOOL),
];

const SOURCE_VDDK: &[Field] = &[
    opt("url", STR),
    opt("uuid", STR),
    opt("backingFile", STR),
    opt("thumbprint", STR),
    opt("secretRef", STR),
    opt("initImageURL", STR),
    opt("extraArgs", STR),
];

const DATA_VOLUME_SOURCE_REF: &[Field] = &[
    req("kind", STR),
    opt("namespace", PTR_STR),
    req("name", STR),
];
