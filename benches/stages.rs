//! Each stage of `kvlint check` on one repository, and the whole check end to end.
//!
//!     cargo bench --bench stages                                  # ../shared/bench/sample-200
//!     KVLINT_BENCH_REPO=/tmp/bench/r1000 cargo bench --bench stages
//!
//! The repository defaults to the 200-VM sample next to the project, else the demo repository.
//! Each stage is timed on its own, with the inputs of the stages before it prepared outside the
//! timed loop. `benches/compare.sh` measures whole runs against the parse floor.

use std::path::PathBuf;
use std::sync::{Arc, LazyLock};

use kvlint::check::vm::{Wanted, analyze_vm, is_vm};
use kvlint::check::{Options, Report};
use kvlint::cluster::profile::ClusterProfile;
use kvlint::config::CatalogChoice;
use kvlint::k8s::{Index, Object};
use kvlint::load::{LoadOptions, load};
use kvlint::model::{InstancetypeSpec, Matcher, MatcherRole, PreferenceSpec};
use kvlint::render::Specs;
use kvlint::resolve::catalog_source::{Catalog, load_catalog};
use kvlint::resolve::{self, Found, Repo, SpecCache};
use kvlint::source::{Input, Selection, discover};
use kvlint::yaml::{Limits, parse_stream};

#[allow(clippy::print_stderr)] // which repository the figures are for
fn main() {
    eprintln!("repository: {}", REPO.display());
    divan::main();
}

static REPO: LazyLock<PathBuf> = LazyLock::new(|| {
    std::env::var_os("KVLINT_BENCH_REPO").map_or_else(
        || {
            let sample = PathBuf::from("../shared/bench/sample-200");
            if sample.is_dir() {
                sample
            } else {
                PathBuf::from("examples/demo")
            }
        },
        PathBuf::from,
    )
});

fn selection() -> Selection {
    Selection {
        paths: vec![REPO.clone()],
        ..Selection::default()
    }
}

/// Everything the stages start from, prepared once.
struct Prepared {
    inputs: Vec<Input>,
    texts: Vec<String>,
    objects: Vec<Object>,
    index: Index,
    catalog: Arc<Catalog>,
    profile: ClusterProfile,
    report: Report,
}

static PREPARED: LazyLock<Prepared> = LazyLock::new(|| {
    let inputs = discover(&selection()).expect("the benchmark repository can be listed");
    let texts = inputs
        .iter()
        .filter_map(|input| match input {
            Input::File { path, .. } => std::fs::read_to_string(path).ok(),
            _ => None,
        })
        .collect();
    let objects = load(&inputs, &LoadOptions::default()).objects;
    let index = Index::build(&objects);
    let profile = ClusterProfile::default();
    let catalog = load_catalog(&CatalogChoice::Auto, &profile).expect("the built-in catalog loads");
    let report = kvlint::check::run(&check_options()).expect("the benchmark repository checks");
    Prepared {
        inputs,
        texts,
        objects,
        index,
        catalog,
        profile,
        report,
    }
});

fn check_options() -> Options {
    Options {
        selection: selection(),
        skip_rendered: true,
        ..Options::default()
    }
}

fn vms(prepared: &Prepared) -> impl Iterator<Item = &Object> {
    prepared.objects.iter().filter(|object| is_vm(object))
}

fn matcher(vm: &Object, role: MatcherRole) -> Option<Matcher> {
    Matcher::from_json(&vm.node.get("spec")?.get(role.field())?.to_json())
}

/// Parsing every file's text with positions (no file system, no objects).
#[divan::bench]
fn parse(bencher: divan::Bencher<'_, '_>) {
    let texts = &PREPARED.texts;
    bencher.bench(|| {
        texts
            .iter()
            .map(|text| parse_stream(text, Limits::default()).len())
            .sum::<usize>()
    });
}

/// Reading and parsing the files and turning documents into objects.
#[divan::bench]
fn load_stage(bencher: divan::Bencher<'_, '_>) {
    let inputs = &PREPARED.inputs;
    bencher.bench(|| load(inputs, &LoadOptions::default()).objects.len());
}

/// Indexing the objects for reference lookups.
#[divan::bench]
fn index(bencher: divan::Bencher<'_, '_>) {
    let objects = &PREPARED.objects;
    bencher.bench(|| Index::build(objects));
}

/// Finding every VM's instance type and preference.
#[divan::bench]
fn resolve(bencher: divan::Bencher<'_, '_>) {
    let prepared = &*PREPARED;
    bencher.bench(|| {
        let specs = SpecCache::default();
        let repo = repo(prepared, &specs);
        let mut found = 0;
        for vm in vms(prepared) {
            for role in [MatcherRole::Instancetype, MatcherRole::Preference] {
                if let Some(matcher) = matcher(vm, role) {
                    found += usize::from(resolve::find(&repo, vm, role, &matcher, None).is_ok());
                }
            }
        }
        found
    });
}

fn repo<'a>(prepared: &'a Prepared, specs: &'a SpecCache) -> Repo<'a> {
    Repo {
        objects: &prepared.objects,
        index: &prepared.index,
        catalog: &prepared.catalog,
        version: prepared.profile.version,
        specs,
    }
}

/// Expanding every VM with its decoded instance type and preference (what `render` shows).
#[divan::bench]
fn render(bencher: divan::Bencher<'_, '_>) {
    let prepared = &*PREPARED;
    let specs = SpecCache::default();
    let repo = repo(prepared, &specs);
    let decoded = |vm: &Object, role| {
        let found: Found<'_> = resolve::find(&repo, vm, role, &matcher(vm, role)?, None).ok()?;
        Some(found)
    };
    let inputs: Vec<_> = vms(prepared)
        .map(|vm| {
            let instancetype = decoded(vm, MatcherRole::Instancetype)
                .map(|found| specs.decode::<InstancetypeSpec>(&found));
            let preference = decoded(vm, MatcherRole::Preference)
                .map(|found| specs.decode::<PreferenceSpec>(&found));
            (vm.node.to_json(), instancetype, preference)
        })
        .collect();
    bencher.bench(|| {
        inputs
            .iter()
            .filter(|(vm, instancetype, preference)| {
                let specs = Specs {
                    instancetype: instancetype.as_deref().and_then(|r| r.as_ref().ok()),
                    preference: preference.as_deref().and_then(|r| r.as_ref().ok()),
                };
                kvlint::render::expand(vm.clone(), specs, true, &prepared.profile).is_ok()
            })
            .count()
    });
}

/// Every per-VM rule: mutation, validation, drift, runtime fields and expand.
#[divan::bench]
fn rules(bencher: divan::Bencher<'_, '_>) {
    let prepared = &*PREPARED;
    bencher.bench(|| {
        let specs = SpecCache::default();
        let repo = repo(prepared, &specs);
        vms(prepared)
            .map(|vm| {
                analyze_vm(
                    &repo,
                    vm,
                    &prepared.profile,
                    Wanted::default(),
                    kvlint::controller::drift::DriftPolicy::default(),
                )
                .findings
                .len()
            })
            .sum::<usize>()
    });
}

/// Writing the JSON report.
#[divan::bench]
fn output_json(bencher: divan::Bencher<'_, '_>) {
    let report = &PREPARED.report;
    bencher.bench(|| kvlint::output::json::report(report).len());
}

/// The whole `check` (discovery, both passes, every rule, the report), in memory.
#[divan::bench(sample_count = 20)]
fn end_to_end(bencher: divan::Bencher<'_, '_>) {
    let options = check_options();
    bencher.bench(|| {
        kvlint::check::run(&options)
            .map(|report| kvlint::output::json::report(&report).len())
            .unwrap_or_default()
    });
}
