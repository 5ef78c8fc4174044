//! Why a set of field-level actions cannot be turned into text edits: the layout is one kvlint
//! does not edit, or the change would reach text that other fields share.

use crate::yaml::FieldPath;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("cannot remove the whole object")]
    WholeObject,
    #[error("`{0}` moved")]
    Moved(FieldPath),
    #[error("the field moved")]
    FieldMoved,
    #[error("the mapping moved")]
    MappingMoved,
    #[error("`{0}` is not there")]
    NotThere(FieldPath),
    #[error("`{0}` is written as a different kind of value")]
    DifferentKind(FieldPath),
    #[error("`{0}` is a mapping")]
    IsMapping(FieldPath),
    #[error("`{0}` is a list")]
    IsList(FieldPath),
    #[error("`{0}` is not a mapping")]
    NotAMapping(FieldPath),
    #[error("not a mapping")]
    InsertIntoNonMapping,
    #[error("`{0}` is missing a list item")]
    MissingListItem(FieldPath),
    #[error("`{0}` is not a mapping key")]
    NotAMappingKey(FieldPath),
    #[error("not a key")]
    NotAKey,
    #[error("`{0}` is not a scalar")]
    NotAScalar(FieldPath),
    #[error("both `{path}` and `{key}` are set")]
    BothSet { path: FieldPath, key: String },
    #[error("`{0}` is both removed and changed")]
    RemovedAndChanged(FieldPath),
    #[error("`{0}` has an unexpected layout")]
    UnexpectedLayout(FieldPath),
    #[error("`{0}` shares its line with other content")]
    SharesLine(FieldPath),
    #[error("`{0}` is written in a style kvlint does not rewrite")]
    Style(FieldPath),
    #[error("an empty block mapping")]
    EmptyBlockMapping,
    #[error("the mapping's indentation cannot be read")]
    UnreadableIndentation,
    #[error("the mapping shares its last line with other content")]
    MappingSharesLastLine,
    #[error("`{0}` comes from an alias (edit the anchor by hand)")]
    FromAlias(FieldPath),
    #[error("`{0}` is inside an anchor that is used elsewhere (edit it by hand)")]
    InsideAnchor(FieldPath),
    #[error("the edit touches an anchor that is used elsewhere (edit it by hand)")]
    TouchesAnchor,
    #[error("two fixes edit the same text")]
    Overlap,
}
