//! An Application's `kustomize` options applied as Argo CD applies them: by editing the app's
//! kustomization before the build (util/kustomize `Build`: `kustomize edit set nameprefix`,
//! `namesuffix`, `image`, `replicas`, `edit add label`, `annotation`, `edit set namespace`,
//! the `patches` appended to the file, `edit add component`, in that order). kvlint performs
//! the same edits on its own copy of the kustomization (kubectl has no `kustomize edit`).

use serde_json::{Map, Value as Json, json};

/// Argo CD's build environment variables that kvlint knows offline (`newEnv`); the revision
/// variables are left as written.
#[derive(Clone, Debug, Default)]
pub(crate) struct Env {
    pub vars: Vec<(&'static str, String)>,
}

impl Env {
    /// `Env.Envsubst`: Go's `os.Expand` over the variables, `$$` an escaped `$`; a variable
    /// Argo CD would know but kvlint does not (the revision) keeps its text.
    pub(crate) fn substitute(&self, text: &str) -> String {
        let bytes = text.as_bytes();
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        let mut at = 0;
        while at < bytes.len() {
            if bytes[at] != b'$' || at + 1 >= bytes.len() {
                at += 1;
                continue;
            }
            out.push_str(&text[copied..at]);
            let (name, width) = shell_name(&text[at + 1..]);
            if name.is_empty() && width == 0 {
                out.push('$');
            } else if !name.is_empty() {
                if name == "$" {
                    out.push('$');
                } else if let Some((_, value)) = self.vars.iter().find(|(n, _)| *n == name) {
                    out.push_str(value);
                } else if name.starts_with("ARGOCD_APP_REVISION") {
                    out.push_str(&text[at..=at + width]);
                }
            }
            at += width + 1;
            copied = at;
        }
        out.push_str(&text[copied..]);
        out
    }
}

/// The variable name after a `$` and how many bytes it spans (Go's `getShellName`).
fn shell_name(text: &str) -> (&str, usize) {
    let bytes = text.as_bytes();
    let special = |b: u8| b"*#$@!?-".contains(&b) || b.is_ascii_digit();
    if bytes[0] == b'{' {
        if bytes.len() > 2 && special(bytes[1]) && bytes[2] == b'}' {
            return (&text[1..2], 3);
        }
        return match text[1..].find('}') {
            Some(0) => ("", 2),
            Some(end) => (&text[1..=end], end + 2),
            None => ("", 1),
        };
    }
    if special(bytes[0]) {
        return (&text[..1], 1);
    }
    let end = bytes
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
        .unwrap_or(bytes.len());
    (&text[..end], end)
}

/// An edit `kustomize edit` refuses, which fails Argo CD's build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct EditError {
    /// The option of the Application the edit came from (`commonLabels`, `components`...).
    pub option: &'static str,
    pub message: String,
}

/// What the edits need from the repository.
pub(crate) struct Paths<'a> {
    /// Turns a path relative to the app's directory into the one the edited kustomization
    /// writes (kvlint builds it from its temporary directory).
    pub rewrite: &'a dyn Fn(&str) -> String,
    /// Whether a component path (relative to the app's directory) exists.
    pub exists: &'a dyn Fn(&str) -> bool,
}

/// The app's kustomization (`kustomization`, its paths already rewritten) edited with the
/// Application's `kustomize` options (`options`).
pub(crate) fn edit(
    kustomization: &mut Json,
    options: &Json,
    env: &Env,
    paths: &Paths<'_>,
) -> Result<(), EditError> {
    if !kustomization.is_object() {
        *kustomization = json!({});
    }
    let object = kustomization
        .as_object_mut()
        .expect("a kustomization is an object here");
    let text = |key: &str| options.get(key).and_then(Json::as_str).unwrap_or("");
    let flag = |key: &str| options.get(key).and_then(Json::as_bool) == Some(true);
    for (option, key) in [("namePrefix", "namePrefix"), ("nameSuffix", "nameSuffix")] {
        if !text(option).is_empty() {
            object.insert(key.to_owned(), json!(text(option)));
        }
    }
    if let Some(images) = options.get("images").and_then(Json::as_array)
        && !images.is_empty()
    {
        set_images(object, images, env)?;
    }
    if let Some(replicas) = options.get("replicas").and_then(Json::as_array)
        && !replicas.is_empty()
    {
        set_replicas(object, replicas)?;
    }
    if let Some(labels) = options.get("commonLabels").and_then(Json::as_object)
        && !labels.is_empty()
    {
        let labels: Vec<(String, String)> = labels
            .iter()
            .map(|(k, v)| (k.clone(), env.substitute(&scalar_text(v))))
            .collect();
        add_labels(
            object,
            &labels,
            flag("forceCommonLabels"),
            flag("labelWithoutSelector"),
            flag("labelIncludeTemplates"),
        )?;
    }
    if let Some(annotations) = options.get("commonAnnotations").and_then(Json::as_object)
        && !annotations.is_empty()
    {
        let substitute = flag("commonAnnotationsEnvsubst");
        let annotations: Vec<(String, String)> = annotations
            .iter()
            .map(|(k, v)| {
                let value = scalar_text(v);
                (
                    k.clone(),
                    if substitute {
                        env.substitute(&value)
                    } else {
                        value
                    },
                )
            })
            .collect();
        let map = map_field(object, "commonAnnotations");
        write_pairs(
            map,
            &annotations,
            flag("forceCommonAnnotations"),
            "annotation",
            "commonAnnotations",
        )?;
    }
    if !text("namespace").is_empty() {
        object.insert("namespace".to_owned(), json!(text("namespace")));
    }
    if let Some(patches) = options.get("patches").and_then(Json::as_array)
        && !patches.is_empty()
    {
        let list = object.entry("patches").or_insert_with(|| json!([]));
        let Some(list) = list.as_array_mut() else {
            return Err(EditError {
                option: "patches",
                message: "expected 'patches' field in kustomization.yaml to be a list".to_owned(),
            });
        };
        for patch in patches {
            let mut patch = patch.clone();
            if let Some(path) = patch.get("path").and_then(Json::as_str).map(str::to_owned) {
                patch["path"] = json!((paths.rewrite)(&path));
            }
            list.push(patch);
        }
    }
    if let Some(components) = options.get("components").and_then(Json::as_array)
        && !components.is_empty()
    {
        add_components(object, components, flag("ignoreMissingComponents"), paths)?;
    }
    Ok(())
}

fn scalar_text(value: &Json) -> String {
    match value {
        Json::String(text) => text.clone(),
        Json::Null => String::new(),
        other => other.to_string(),
    }
}

fn map_field<'a>(object: &'a mut Map<String, Json>, key: &str) -> &'a mut Map<String, Json> {
    let value = object.entry(key).or_insert_with(|| json!({}));
    if !value.is_object() {
        *value = json!({});
    }
    value.as_object_mut().expect("an object here")
}

/// `writeToMapEntry` for each pair: an existing key is an error unless `--force`.
fn write_pairs(
    map: &mut Map<String, Json>,
    pairs: &[(String, String)],
    force: bool,
    what: &str,
    option: &'static str,
) -> Result<(), EditError> {
    for (key, value) in pairs {
        if map.contains_key(key) && !force {
            return Err(EditError {
                option,
                message: format!(
                    "kustomize edit add {what}: {what} {key} already in kustomization file. Use --force to override."
                ),
            });
        }
        map.insert(key.clone(), json!(value));
    }
    Ok(())
}

/// `kustomize edit add label`: into `commonLabels`, or with `--without-selector` into the
/// `labels` entry with `includeSelectors: false` and the same `includeTemplates`.
fn add_labels(
    object: &mut Map<String, Json>,
    labels: &[(String, String)],
    force: bool,
    without_selector: bool,
    include_templates: bool,
) -> Result<(), EditError> {
    if !without_selector {
        let map = map_field(object, "commonLabels");
        return write_pairs(map, labels, force, "label", "commonLabels");
    }
    let list = object.entry("labels").or_insert_with(|| json!([]));
    if !list.is_array() {
        *list = json!([]);
    }
    let list = list.as_array_mut().expect("an array here");
    let same_settings = |label: &Json| {
        label.get("includeSelectors").and_then(Json::as_bool) != Some(true)
            && (label.get("includeTemplates").and_then(Json::as_bool) == Some(true))
                == include_templates
    };
    let index = if let Some(index) = list.iter().position(same_settings) {
        index
    } else {
        let mut label = json!({"pairs": {}});
        if include_templates {
            label["includeTemplates"] = json!(true);
        }
        list.push(label);
        list.len() - 1
    };
    let pairs = map_field(
        list[index].as_object_mut().expect("a label is an object"),
        "pairs",
    );
    write_pairs(pairs, labels, force, "label", "commonLabels")
}

/// One `edit set image` argument: `name`, and what it sets.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Image {
    name: String,
    new_name: String,
    new_tag: String,
    digest: String,
}

impl Image {
    fn parse(arg: &str) -> Option<Self> {
        let (key, value) = match arg.split_once('=') {
            Some((key, value)) => (key, value),
            None => ("", arg),
        };
        let (name, tag, digest) = split_image(value);
        if name == arg {
            return None;
        }
        let mut image = Self {
            new_tag: tag.to_owned(),
            digest: digest.to_owned(),
            ..Self::default()
        };
        if key.is_empty() {
            name.clone_into(&mut image.name);
        } else {
            key.clone_into(&mut image.name);
            name.clone_into(&mut image.new_name);
        }
        Some(image)
    }

    fn of(value: &Json) -> Self {
        let text = |key: &str| {
            value
                .get(key)
                .and_then(Json::as_str)
                .unwrap_or("")
                .to_owned()
        };
        Self {
            name: text("name"),
            new_name: text("newName"),
            new_tag: text("newTag"),
            digest: text("digest"),
        }
    }

    fn to_json(&self) -> Json {
        let mut out = Map::new();
        out.insert("name".to_owned(), json!(self.name));
        for (key, value) in [
            ("newName", &self.new_name),
            ("newTag", &self.new_tag),
            ("digest", &self.digest),
        ] {
            if !value.is_empty() {
                out.insert(key.to_owned(), json!(value));
            }
        }
        Json::Object(out)
    }
}

/// Kustomize's image name split: `name[:tag][@digest]`, a `:` before the first `/` being a
/// registry port.
fn split_image(image: &str) -> (&str, &str, &str) {
    let slash = image.find('/').filter(|&at| at > 0).unwrap_or(0);
    let search = &image[slash..];
    let digest_at = search.find('@').map(|at| at + slash);
    let colon_at = search.find(':').map(|at| at + slash);
    match (colon_at, digest_at) {
        (None, None) => (image, "", ""),
        (None, Some(digest)) => (&image[..digest], "", &image[digest + 1..]),
        (Some(colon), Some(digest)) if digest < colon => {
            (&image[..digest], "", &image[digest + 1..])
        }
        (Some(colon), Some(digest)) => (
            &image[..colon],
            &image[colon + 1..digest],
            &image[digest + 1..],
        ),
        (Some(colon), None) => (&image[..colon], &image[colon + 1..], ""),
    }
}

/// `kustomize edit set image`: the arguments replace the entries of the same name (`*` keeps
/// the entry's value), the other entries stay; sorted by name.
fn set_images(object: &mut Map<String, Json>, images: &[Json], env: &Env) -> Result<(), EditError> {
    let mut wanted: Vec<Image> = Vec::new();
    for arg in images {
        let arg = env.substitute(&scalar_text(arg));
        let image = Image::parse(&arg).ok_or_else(|| EditError {
            option: "images",
            message: format!(
                "kustomize edit set image {arg}: invalid format of image, use one of the following options: <image>=<newimage>:<newtag> <image>=<newimage>@<digest> <image>=<newimage> <image>:<newtag> <image>@<digest>"
            ),
        })?;
        wanted.retain(|known| known.name != image.name);
        wanted.push(image);
    }
    let existing: Vec<Image> = object
        .get("images")
        .and_then(Json::as_array)
        .map(|list| list.iter().map(Image::of).collect())
        .unwrap_or_default();
    for old in existing {
        if let Some(new) = wanted.iter_mut().find(|w| w.name == old.name) {
            for (value, kept) in [
                (&mut new.new_name, &old.new_name),
                (&mut new.new_tag, &old.new_tag),
                (&mut new.digest, &old.digest),
            ] {
                if value == "*" {
                    value.clone_from(kept);
                }
            }
        } else {
            wanted.push(old);
        }
    }
    for image in &mut wanted {
        for value in [&mut image.new_name, &mut image.new_tag, &mut image.digest] {
            if value == "*" {
                value.clear();
            }
        }
    }
    wanted.sort_by(|a, b| a.name.cmp(&b.name));
    object.insert(
        "images".to_owned(),
        Json::Array(wanted.iter().map(Image::to_json).collect()),
    );
    Ok(())
}

/// `kustomize edit set replicas name=count`: replaces the entries of the same name; sorted.
fn set_replicas(object: &mut Map<String, Json>, replicas: &[Json]) -> Result<(), EditError> {
    let mut wanted: Vec<(String, i64)> = Vec::new();
    for replica in replicas {
        let name = replica.get("name").and_then(Json::as_str).unwrap_or("");
        let count = match replica.get("count") {
            Some(Json::Number(n)) => n.as_i64(),
            Some(Json::String(text)) => text.trim().parse().ok(),
            _ => None,
        };
        let Some(count) = count else {
            return Err(EditError {
                option: "replicas",
                message: format!("the replica count of {name} is not an integer"),
            });
        };
        wanted.retain(|(known, _)| known != name);
        wanted.push((name.to_owned(), count));
    }
    let mut list: Vec<Json> = object
        .get("replicas")
        .and_then(Json::as_array)
        .map(|list| {
            list.iter()
                .filter(|r| {
                    let name = r.get("name").and_then(Json::as_str).unwrap_or("");
                    !wanted.iter().any(|(known, _)| known == name)
                })
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    list.extend(
        wanted
            .into_iter()
            .map(|(name, count)| json!({"name": name, "count": count})),
    );
    list.sort_by(|a, b| {
        let name = |r: &Json| {
            r.get("name")
                .and_then(Json::as_str)
                .unwrap_or("")
                .to_owned()
        };
        name(a).cmp(&name(b))
    });
    object.insert("replicas".to_owned(), Json::Array(list));
    Ok(())
}

/// `kustomize edit add component`: each path must exist (unless Argo CD was told to drop the
/// missing ones), and one already listed is not added again.
fn add_components(
    object: &mut Map<String, Json>,
    components: &[Json],
    ignore_missing: bool,
    paths: &Paths<'_>,
) -> Result<(), EditError> {
    let list = object.entry("components").or_insert_with(|| json!([]));
    if !list.is_array() {
        *list = json!([]);
    }
    let list = list.as_array_mut().expect("an array here");
    for component in components.iter().filter_map(Json::as_str) {
        if !(paths.exists)(component) {
            if ignore_missing {
                continue;
            }
            return Err(EditError {
                option: "components",
                message: format!("kustomize edit add component: {component} has no match"),
            });
        }
        let written = json!((paths.rewrite)(component));
        if !list.contains(&written) {
            list.push(written);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> Env {
        Env {
            vars: vec![
                ("ARGOCD_APP_NAME", "web".to_owned()),
                ("ARGOCD_APP_NAMESPACE", "web-prod".to_owned()),
            ],
        }
    }

    fn paths_edit(kustomization: &mut Json, options: &Json) -> Result<(), EditError> {
        let rewrite = |p: &str| format!("R/{p}");
        let exists = |p: &str| !p.contains("missing");
        edit(
            kustomization,
            options,
            &env(),
            &Paths {
                rewrite: &rewrite,
                exists: &exists,
            },
        )
    }

    #[test]
    fn envsubst_follows_go_os_expand() {
        let env = env();
        assert_eq!(env.substitute("$ARGOCD_APP_NAME-x"), "web-x");
        assert_eq!(env.substitute("${ARGOCD_APP_NAMESPACE}"), "web-prod");
        assert_eq!(env.substitute("a$$b"), "a$b");
        assert_eq!(env.substitute("$UNKNOWN/x"), "/x");
        assert_eq!(
            env.substitute("${ARGOCD_APP_REVISION}"),
            "${ARGOCD_APP_REVISION}"
        );
        assert_eq!(env.substitute("cost: 5$"), "cost: 5$");
        assert_eq!(env.substitute("${}x"), "x");
        assert_eq!(env.substitute("${x"), "x");
    }

    #[test]
    fn options_replace_and_append_as_kustomize_edit_does() {
        let mut kustomization = json!({
            "namePrefix": "dev-",
            "commonLabels": {"team": "a"},
            "patches": [{"path": "size.yaml"}],
            "components": ["R/../gpu"],
            "images": [{"name": "nginx", "newTag": "1.0"}, {"name": "redis", "newTag": "7"}],
        });
        let options = json!({
            "namePrefix": "argo-",
            "namespace": "web-prod",
            "commonLabels": {"app": "$ARGOCD_APP_NAME"},
            "commonAnnotations": {"note": "$ARGOCD_APP_NAME"},
            "images": ["nginx:2.0", "busybox=quay.io/busybox:1"],
            "replicas": [{"name": "web", "count": "3"}],
            "patches": [{"path": "extra.yaml"}, {"patch": "- op: add\n", "target": {"kind": "VirtualMachine"}}],
            "components": ["../gpu", "../missing"],
            "ignoreMissingComponents": true,
        });
        paths_edit(&mut kustomization, &options).unwrap();
        assert_eq!(kustomization["namePrefix"], "argo-");
        assert_eq!(kustomization["namespace"], "web-prod");
        assert_eq!(
            kustomization["commonLabels"],
            json!({"team": "a", "app": "web"})
        );
        assert_eq!(
            kustomization["commonAnnotations"],
            json!({"note": "$ARGOCD_APP_NAME"}),
            "annotations are substituted only with commonAnnotationsEnvsubst"
        );
        assert_eq!(
            kustomization["images"],
            json!([
                {"name": "busybox", "newName": "quay.io/busybox", "newTag": "1"},
                {"name": "nginx", "newTag": "2.0"},
                {"name": "redis", "newTag": "7"},
            ])
        );
        assert_eq!(
            kustomization["replicas"],
            json!([{"name": "web", "count": 3}])
        );
        assert_eq!(kustomization["patches"][0]["path"], "size.yaml");
        assert_eq!(kustomization["patches"][1]["path"], "R/extra.yaml");
        assert_eq!(
            kustomization["patches"][2]["target"]["kind"],
            "VirtualMachine"
        );
        assert_eq!(kustomization["components"], json!(["R/../gpu"]));
    }

    #[test]
    fn refused_edits_fail_the_build() {
        let mut kustomization = json!({"commonLabels": {"app": "x"}});
        let error =
            paths_edit(&mut kustomization, &json!({"commonLabels": {"app": "y"}})).unwrap_err();
        assert_eq!(error.option, "commonLabels");
        assert!(
            error
                .message
                .contains("label app already in kustomization file")
        );
        let mut kustomization = json!({"commonLabels": {"app": "x"}});
        paths_edit(
            &mut kustomization,
            &json!({"commonLabels": {"app": "y"}, "forceCommonLabels": true}),
        )
        .unwrap();
        assert_eq!(kustomization["commonLabels"]["app"], "y");
        let error = paths_edit(&mut json!({}), &json!({"components": ["../missing"]})).unwrap_err();
        assert_eq!(error.option, "components");
        let error = paths_edit(&mut json!({}), &json!({"images": ["nginx"]})).unwrap_err();
        assert_eq!(error.option, "images");
    }

    #[test]
    fn labels_without_selector_go_to_labels() {
        let mut kustomization =
            json!({"labels": [{"pairs": {"a": "1"}, "includeSelectors": true}]});
        paths_edit(
            &mut kustomization,
            &json!({"commonLabels": {"b": "2"}, "labelWithoutSelector": true}),
        )
        .unwrap();
        assert_eq!(
            kustomization["labels"],
            json!([{"pairs": {"a": "1"}, "includeSelectors": true}, {"pairs": {"b": "2"}}])
        );
    }

    #[test]
    fn image_names_split_like_kustomize() {
        assert_eq!(split_image("nginx"), ("nginx", "", ""));
        assert_eq!(split_image("nginx:1"), ("nginx", "1", ""));
        assert_eq!(split_image("reg:5000/nginx"), ("reg:5000/nginx", "", ""));
        assert_eq!(
            split_image("reg:5000/nginx:1@sha256:ab"),
            ("reg:5000/nginx", "1", "sha256:ab")
        );
        assert_eq!(split_image("nginx@sha256:ab"), ("nginx", "", "sha256:ab"));
    }
}
