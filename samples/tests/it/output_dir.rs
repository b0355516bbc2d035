//! Output folder rules: an existing identical sample is reused, anything else is refused with a
//! message that says which case it is, and nothing is overwritten.

use anser_samples::{DEFAULT_SEED, SampleOptions, Size, generate};

use crate::common::{sample, tempdir};

#[test]
fn existing_same_sample_is_reused_without_writing() {
    let s = sample();
    let marker = s.out_dir.join(anser_samples::MARKER_FILE);
    let before = std::fs::metadata(&marker).expect("marker").modified().expect("mtime");
    let again = generate(&SampleOptions { seed: DEFAULT_SEED, size: Size::Small, ..Default::default() }, &s.out_dir)
        .expect("reuse");
    assert!(again.reused);
    assert_eq!(again.files, s.files);
    assert_eq!(again.tasks, s.tasks);
    let after = std::fs::metadata(&marker).expect("marker").modified().expect("mtime");
    assert_eq!(before, after);
}

#[test]
fn a_different_sample_or_foreign_content_is_refused() {
    let s = sample();
    let err = generate(&SampleOptions { seed: DEFAULT_SEED + 1, size: Size::Small, ..Default::default() }, &s.out_dir)
        .expect_err("other seed");
    assert!(err.is_user_error());
    let msg = err.to_string();
    assert!(msg.contains("different sample") && msg.contains(&format!("seed {DEFAULT_SEED}")), "{msg}");

    let dir = tempdir();
    let keep = dir.path().join("notes.txt");
    std::fs::write(&keep, "mine").expect("write");
    let err = generate(&SampleOptions::default(), dir.path()).expect_err("foreign folder");
    assert!(err.is_user_error());
    assert!(err.to_string().contains("holds no sample"), "{err}");
    assert_eq!(std::fs::read_to_string(&keep).expect("kept"), "mine");
    assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 1, "nothing else was written");
}

#[test]
fn a_modified_sample_is_refused() {
    let dir = tempdir();
    let out = dir.path().join("s");
    let first = generate(&SampleOptions::default(), &out).expect("generate");
    let victim = out.join(&first.files[0].path);
    std::fs::write(&victim, b"tampered").expect("tamper");
    let err = generate(&SampleOptions::default(), &out).expect_err("modified");
    assert!(err.to_string().contains("missing or modified"), "{err}");
    assert_eq!(std::fs::read(&victim).expect("kept"), b"tampered");
}

#[test]
fn an_empty_existing_folder_is_filled() {
    let dir = tempdir();
    let s = generate(&SampleOptions::default(), dir.path()).expect("generate into empty folder");
    assert!(!s.reused);
    assert!(s.corpus_dir().join("legal/zh/legal_wenshu.db").is_file());
    assert!(s.query_dir().join("science/descriptive.json").is_file());
}
