//! The Rust pipeline (tokenizers + ort) must reproduce sentence-transformers' vectors for the
//! 50 reference sentences shipped with the model (cosine ≥ 0.9999), and token-level outputs
//! must pool to the same vectors.

use std::path::PathBuf;

use anser_encoder::{Encoder, EncoderConfig, EncoderConfigBuilder, Pooling, cosine, mean_pool, ort_library_path};

/// The m3e-small directory and the ONNX Runtime library, or a printed reason to skip.
fn model_or_skip(what: &str) -> Option<PathBuf> {
    let shared = anser_manifest::shared_dir_or_skip(what)?;
    let dir = shared.join("models/m3e-small");
    if !dir.join("model.onnx").is_file() {
        anser_manifest::missing_prerequisite(what, &format!("{} has no model.onnx", dir.display()));
        return None;
    }
    if ort_library_path(None).is_none() {
        anser_manifest::missing_prerequisite(what, "ORT_DYLIB_PATH is not set (run scripts/fetch-ort.sh)");
        return None;
    }
    Some(dir)
}

fn reference(dir: &std::path::Path) -> (Vec<String>, Vec<Vec<f32>>) {
    let text = fs_err::read_to_string(dir.join("reference_vectors.json")).expect("reference file");
    let v: serde_json::Value = serde_json::from_str(&text).expect("reference JSON");
    let sentences =
        v["sentences"].as_array().expect("sentences").iter().map(|s| s.as_str().expect("str").to_string()).collect();
    let vectors = v["vectors"]
        .as_array()
        .expect("vectors")
        .iter()
        .map(|r| r.as_array().expect("row").iter().map(|x| x.as_f64().expect("num") as f32).collect())
        .collect();
    (sentences, vectors)
}

#[test]
fn vectors_match_sentence_transformers() {
    let Some(dir) = model_or_skip("m3e reference vectors") else { return };
    let (sentences, expected) = reference(&dir);
    assert_eq!(sentences.len(), 50);
    // A small batch size forces several padded batches of mixed lengths.
    let enc = Encoder::open(
        &dir,
        &EncoderConfigBuilder { batch_size: 7, threads: 2, ..Default::default() }.build().expect("valid config"),
    )
    .expect("open");
    let info = enc.info();
    assert_eq!((info.model_id.as_str(), info.dim, info.max_length), ("m3e-small", 512, 512));
    assert_eq!(info.pooling, Pooling::Mean);
    assert!(!info.normalize, "m3e vectors are not normalised by the model");
    let texts: Vec<&str> = sentences.iter().map(String::as_str).collect();
    let got = enc.embed(&texts).expect("embed");
    let worst = got.iter().zip(&expected).map(|(a, b)| cosine(a, b)).fold(f64::INFINITY, f64::min);
    assert!(worst >= 0.9999, "worst cosine {worst}");
    // Batch size 1 (no padding at all) gives the same vectors.
    let single = Encoder::open(
        &dir,
        &EncoderConfigBuilder { batch_size: 1, ..Default::default() }.build().expect("valid config"),
    )
    .expect("open");
    let one = single.embed(&texts[..3]).expect("embed");
    for (a, b) in one.iter().zip(&got) {
        assert!(cosine(a, b) > 0.99999);
    }
}

#[test]
fn token_outputs_pool_to_sentence_vectors() {
    let Some(dir) = model_or_skip("m3e token outputs") else { return };
    let enc = Encoder::open(&dir, &EncoderConfig::default()).expect("open");
    let texts = ["机器学习", "machine learning is fun", ""];
    let tokens = enc.encode_tokens(&texts).expect("tokens");
    let vectors = enc.embed(&texts).expect("embed");
    for (t, v) in tokens.iter().zip(&vectors) {
        assert_eq!(t.hidden.len(), t.len() * 512);
        assert_eq!(t.special_tokens_mask.first(), Some(&1), "[CLS] is special");
        assert_eq!(t.special_tokens_mask.last(), Some(&1), "[SEP] is special");
        assert!(t.attention_mask.iter().all(|&m| m == 1));
        let pooled = mean_pool(&t.hidden, &t.attention_mask, t.dim);
        assert!(cosine(&pooled, v) > 0.999999);
    }
    assert_eq!(tokens[0].len(), 6, "[CLS] 机 器 学 习 [SEP]");
    assert_eq!(tokens[2].len(), 2, "empty text is [CLS] [SEP]");
    let sim = cosine(&vectors[0], &enc.embed(&["machine learning"]).expect("embed")[0]);
    assert!(sim > 0.8, "cos(机器学习, machine learning) = {sim}");
}

#[test]
fn long_texts_are_truncated_and_normalisation_can_be_forced() {
    let Some(dir) = model_or_skip("m3e truncation") else { return };
    let cfg = EncoderConfigBuilder { max_length: 16, normalize: Some(true), ..Default::default() }
        .build()
        .expect("valid config");
    let enc = Encoder::open(&dir, &cfg).expect("open");
    let long = "很长的句子".repeat(40);
    let t = enc.encode_tokens(&[long.as_str()]).expect("tokens");
    assert_eq!(t[0].len(), 16);
    let v = enc.embed(&[long.as_str()]).expect("embed");
    let norm: f32 = v[0].iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-5, "norm {norm}");
    assert_eq!(enc.content_hash().expect("hash").len(), 64);
}

#[test]
fn missing_model_files_are_user_errors() {
    let dir = std::env::temp_dir().join(format!("anser-encoder-empty-{}", std::process::id()));
    fs_err::create_dir_all(&dir).expect("mkdir");
    let err = Encoder::open(&dir, &EncoderConfig::default()).expect_err("no model.onnx");
    fs_err::remove_dir_all(&dir).expect("cleanup");
    assert!(err.is_user_error());
    assert!(err.to_string().contains("model.onnx is missing"), "{err}");
}

#[test]
fn parallel_sessions_give_the_reference_vectors_in_input_order() {
    let Some(dir) = model_or_skip("m3e parallel sessions") else { return };
    let (sentences, expected) = reference(&dir);
    let texts: Vec<&str> = sentences.iter().map(String::as_str).collect();
    // Two sessions of one thread each, batches of 4: 13 batches taken turn about, finishing in
    // any order; every vector must still land on its own sentence.
    let cfg = EncoderConfigBuilder { batch_size: 4, threads: 2, sessions: 2, ..Default::default() }
        .build()
        .expect("valid config");
    let enc = Encoder::open(&dir, &cfg).expect("open");
    let got = enc.embed(&texts).expect("embed");
    assert_eq!(got.len(), expected.len());
    for (i, (a, b)) in got.iter().zip(&expected).enumerate() {
        let c = cosine(a, b);
        assert!(c >= 0.9999, "sentence {i}: cosine {c}");
    }
    let tokens = enc.encode_tokens(&texts[..9]).expect("tokens");
    for (t, v) in tokens.iter().zip(&got) {
        assert!(cosine(&mean_pool(&t.hidden, &t.attention_mask, t.dim), v) > 0.999999);
    }
    assert!(EncoderConfigBuilder { sessions: 0, ..Default::default() }.build().is_err());
}
