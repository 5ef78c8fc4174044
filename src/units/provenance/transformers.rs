//! The transformers of a kustomization that write a field: name prefix and suffix,
//! namespace, labels, annotations and images.

use super::{Found, Layer, Mechanism, Search, entry_span};
use crate::yaml::{Node, Segment, Span};

impl Search<'_, '_> {
    /// `namePrefix` / `nameSuffix` for `metadata.name`, when the rendered name carries it.
    pub(super) fn name_affix(
        &self,
        layer: &Layer<'_>,
        key: &str,
        mechanism: Mechanism,
    ) -> Option<Found> {
        if self.path.0 != [key_segment("metadata"), key_segment("name")] {
            return None;
        }
        let entry = layer.root.entry(key)?;
        let affix = entry.value.as_str().filter(|affix| !affix.is_empty())?;
        let name = self.value?.as_str()?;
        let carries = match mechanism {
            Mechanism::NameSuffix => name.ends_with(affix),
            _ => name.starts_with(affix),
        };
        carries.then(|| Self::in_layer(layer, entry_span(entry), mechanism))
    }

    pub(super) fn namespace(&self, layer: &Layer<'_>) -> Option<Found> {
        if self.path.0 != [key_segment("metadata"), key_segment("namespace")] {
            return None;
        }
        let entry = layer.root.entry("namespace")?;
        (entry.value.as_str()? == self.value?.as_str()?)
            .then(|| Self::in_layer(layer, entry_span(entry), Mechanism::Namespace))
    }

    /// The key of `metadata.<field>[key]` when that is the path.
    fn metadata_key(&self, field: &str) -> Option<&str> {
        match &self.path.0[..] {
            [Segment::Key(metadata), Segment::Key(f), Segment::Key(key)]
                if metadata == "metadata" && f == field =>
            {
                Some(key)
            }
            _ => None,
        }
    }

    /// The entry of a `key: value` map of the kustomization that sets the field's key to its
    /// rendered value.
    fn pair(&self, map: Option<&Node>, key: &str) -> Option<Span> {
        let entry = map?.entry(key)?;
        (Some(&entry.value.to_json()) == self.value).then(|| entry_span(entry))
    }

    pub(super) fn labels(&self, layer: &Layer<'_>) -> Option<Found> {
        let key = self.metadata_key("labels")?;
        // Kustomize runs one LabelTransformer per `labels` entry, in order, then one for
        // `commonLabels`: the last of them that sets the key wrote it.
        self.pair(layer.root.get("commonLabels"), key)
            .map(|span| Self::in_layer(layer, span, Mechanism::CommonLabels))
            .or_else(|| {
                Self::list(layer, "labels")
                    .iter()
                    .rev()
                    .find_map(|labels| self.pair(labels.get("pairs"), key))
                    .map(|span| Self::in_layer(layer, span, Mechanism::Labels))
            })
    }

    pub(super) fn annotations(&self, layer: &Layer<'_>) -> Option<Found> {
        let key = self.metadata_key("annotations")?;
        self.pair(layer.root.get("commonAnnotations"), key)
            .map(|span| Self::in_layer(layer, span, Mechanism::CommonAnnotations))
    }

    /// An `images` entry for a container's `image` field, when the rendered image is the
    /// entry's new name, tag or digest.
    pub(super) fn images(&self, layer: &Layer<'_>) -> Option<Found> {
        let [
            ..,
            Segment::Key(list),
            Segment::Index(_),
            Segment::Key(field),
        ] = &self.path.0[..]
        else {
            return None;
        };
        if field != "image" || !matches!(list.as_str(), "containers" | "initContainers") {
            return None;
        }
        let image = self.value?.as_str()?;
        let (repository, version) = split_image(image);
        Self::list(layer, "images").iter().rev().find_map(|entry| {
            let text = |key: &str| entry.get(key).and_then(Node::as_str);
            let name = text("name")?;
            let new_name = text("newName");
            let new_tag = text("newTag");
            let digest = text("digest");
            if new_name.is_none() && new_tag.is_none() && digest.is_none() {
                return None;
            }
            let writes = repository == new_name.unwrap_or(name)
                && new_tag.is_none_or(|tag| version == Some(tag))
                && digest.is_none_or(|digest| version == Some(digest));
            writes.then(|| Self::in_layer(layer, entry.span, Mechanism::Images))
        })
    }
}

fn key_segment(key: &str) -> Segment {
    Segment::Key(key.to_owned())
}

/// An image reference's repository and its tag or digest.
pub(super) fn split_image(image: &str) -> (&str, Option<&str>) {
    if let Some((repository, digest)) = image.split_once('@') {
        return (repository, Some(digest));
    }
    match image.rsplit_once(':') {
        // A colon before the last slash is a registry port, not a tag.
        Some((repository, tag)) if !tag.contains('/') => (repository, Some(tag)),
        _ => (image, None),
    }
}
