use foldhash::{HashMap, HashMapExt};

use super::Object;

/// Position of an object in the loaded list.
pub type ObjectId = usize;

/// Every object by (group, kind, namespace, name): each cross-reference is a hash lookup.
#[derive(Debug, Default)]
pub struct Index {
    by_identity: HashMap<(String, String, Option<String>, String), Vec<ObjectId>>,
}

impl Index {
    pub fn build(objects: &[Object]) -> Self {
        let mut by_identity: HashMap<_, Vec<ObjectId>> = HashMap::new();
        for (id, object) in objects.iter().enumerate() {
            by_identity
                .entry((
                    object.group.clone(),
                    object.kind.clone(),
                    object.namespace.clone(),
                    object.name.clone(),
                ))
                .or_default()
                .push(id);
        }
        Self { by_identity }
    }

    /// All objects of that identity, in load order.
    pub fn get(&self, group: &str, kind: &str, namespace: Option<&str>, name: &str) -> &[ObjectId] {
        self.by_identity
            .get(&(
                group.to_owned(),
                kind.to_owned(),
                namespace.map(str::to_owned),
                name.to_owned(),
            ))
            .map_or(&[], Vec::as_slice)
    }

    /// The object of that identity that is applied together with `unit` when there is one,
    /// else the first one loaded.
    pub fn find<'a>(
        &self,
        objects: &'a [Object],
        unit: &str,
        group: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<&'a Object> {
        let ids = self.get(group, kind, namespace, name);
        ids.iter()
            .map(|&id| &objects[id])
            .find(|o| &*o.unit == unit)
            .or_else(|| ids.first().map(|&id| &objects[id]))
    }

    /// Groups of objects that share an identity, in load order.
    pub fn groups(&self) -> impl Iterator<Item = &[ObjectId]> {
        let mut groups: Vec<&[ObjectId]> = self
            .by_identity
            .values()
            .filter(|ids| ids.len() > 1)
            .map(Vec::as_slice)
            .collect();
        groups.sort_unstable();
        groups.into_iter()
    }
}
