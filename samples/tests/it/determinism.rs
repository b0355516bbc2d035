//! Same seed and size give byte-identical files; another seed gives other data.

use std::{collections::BTreeMap, path::Path};

use anser_samples::{DEFAULT_SEED, MARKER_FILE, SampleOptions, Size, generate};
use sha2::{Digest, Sha256};

use crate::common::{sample, tempdir};

pub(crate) fn hashes(root: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).expect("read_dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(root, &path, out);
            } else {
                let bytes = std::fs::read(&path).expect("read");
                let rel = path.strip_prefix(root).expect("prefix").to_string_lossy().replace('\\', "/");
                out.insert(rel, format!("{:x}", Sha256::digest(&bytes)));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

#[test]
fn same_seed_gives_byte_identical_files() {
    let other = tempdir();
    let dir = other.path().join("again");
    generate(&SampleOptions { seed: DEFAULT_SEED, size: Size::Small, ..Default::default() }, &dir).expect("generate");
    let a = hashes(&sample().out_dir);
    let b = hashes(&dir);
    assert_eq!(a.len(), 25, "10 corpus files, 14 task files and the marker: {:?}", a.keys().collect::<Vec<_>>());
    assert_eq!(a, b);
    assert!(a.contains_key(MARKER_FILE));
}

#[test]
fn another_seed_changes_every_corpus_and_task_file() {
    let other = tempdir();
    let dir = other.path().join("seed7");
    generate(&SampleOptions { seed: 7, size: Size::Small, ..Default::default() }, &dir).expect("generate");
    let a = hashes(&sample().out_dir);
    let b = hashes(&dir);
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (path, hash) in &a {
        assert_ne!(Some(hash), b.get(path), "{path} did not change with the seed");
    }
}
