//! Content-addressed on-disk response cache, for deterministic re-runs and debugging.
//!
//! The key of a request is the SHA-256 of its canonical JSON (object keys sorted, no
//! whitespace) together with the request kind and the endpoint's base URL; the request body
//! names the model, so a different model, prompt, tool list or sampling setting is a different
//! key. The API key is never part of the key nor of the stored entry. An entry is one file
//! `DIR/ab/abcdef….json` holding the request and the server's response body, written with
//! `anser_runstore::write_atomic` (unique temporary file in the same folder, fsync, rename,
//! directory fsync), so a crash never leaves a partial entry and concurrent writers of one key
//! both leave a complete one.
//!
//! Modes: [`CacheMode::ReadWrite`] answers hits from disk and records misses;
//! [`CacheMode::Replay`] answers strictly from disk and fails on the first miss without
//! touching the network.
//!
//! The cache never costs an answer: in read-write mode a folder that cannot be written, or an
//! entry that cannot be read back, is reported once per kind on stderr (later ones are only
//! counted: [`ResponseCache::write_failures`], [`ResponseCache::corrupt_entries`]) and the
//! request goes to the server as if the cache were not there. Only replay mode, which has no
//! server to fall back on, fails on a corrupt entry. The folder is created on the first write,
//! so a cache can be configured inside a run directory before the run creates it.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// Format version of the key and the entries; bump when either changes.
pub const CACHE_FORMAT_VERSION: u32 = 1;

/// How the cache is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheMode {
    /// Hits come from disk; misses go to the server and are recorded.
    ReadWrite,
    /// Every request must be a hit; a miss is an error and nothing is sent.
    Replay,
}

impl FromStr for CacheMode {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "read-write" | "readwrite" | "rw" => Ok(CacheMode::ReadWrite),
            "replay" => Ok(CacheMode::Replay),
            other => Err(format!("unknown cache mode `{other}`: use read-write or replay")),
        }
    }
}

/// Problems met so far, shared by the clones of one cache (each kind is printed once).
#[derive(Debug, Default)]
struct Problems {
    write_failures: AtomicU64,
    corrupt_entries: AtomicU64,
}

/// A response cache in one folder.
#[derive(Debug, Clone)]
pub struct ResponseCache {
    dir: PathBuf,
    mode: CacheMode,
    problems: Arc<Problems>,
}

impl ResponseCache {
    /// A cache in `dir`. Read-write mode creates the folder on the first write; replay mode
    /// requires it to exist.
    pub fn open(dir: impl Into<PathBuf>, mode: CacheMode) -> Result<Self> {
        let dir = dir.into();
        match mode {
            CacheMode::ReadWrite => {}
            CacheMode::Replay if !dir.is_dir() => {
                return Err(Error::InvalidSetting {
                    field: "replay cache".into(),
                    message: format!("{} is not a folder; record a run with the cache enabled first", dir.display()),
                });
            }
            CacheMode::Replay => {}
        }
        Ok(Self { dir, mode, problems: Arc::default() })
    }

    /// Writes that failed so far (the first one was printed as a warning).
    pub fn write_failures(&self) -> u64 {
        self.problems.write_failures.load(Ordering::Relaxed)
    }

    /// Entries that could not be read back so far (the first one was printed as a warning).
    pub fn corrupt_entries(&self) -> u64 {
        self.problems.corrupt_entries.load(Ordering::Relaxed)
    }

    /// Count a failed write; print the first one.
    pub(crate) fn warn_write_failure(&self, error: &Error) {
        if self.problems.write_failures.fetch_add(1, Ordering::Relaxed) == 0 {
            eprintln!(
                "warning: cannot write the LLM response cache in {} ({error}); answers are kept but not cached \
                 (reported once)",
                self.dir.display()
            );
        }
    }

    /// Count an unreadable entry; print the first one.
    pub(crate) fn warn_corrupt(&self, error: &Error) {
        if self.problems.corrupt_entries.fetch_add(1, Ordering::Relaxed) == 0 {
            eprintln!("warning: {error}; asking the server instead and re-recording it (reported once)");
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn mode(&self) -> CacheMode {
        self.mode
    }

    /// The content address of a request: lowercase hex SHA-256 of the canonical JSON of
    /// `{"v": CACHE_FORMAT_VERSION, "kind": kind, "base_url": base_url, "body": body}`.
    pub fn key(kind: &str, base_url: &str, body: &Value) -> String {
        let doc = json!({"v": CACHE_FORMAT_VERSION, "kind": kind, "base_url": base_url, "body": body});
        let mut canonical = String::new();
        write_canonical(&doc, &mut canonical);
        let digest = Sha256::digest(canonical.as_bytes());
        digest.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Where the entry of `key` lives.
    pub fn path(&self, key: &str) -> PathBuf {
        self.dir.join(key.get(..2).unwrap_or("__")).join(format!("{key}.json"))
    }

    /// The stored response body of `key`, if any.
    pub fn get(&self, key: &str) -> Result<Option<Value>> {
        let path = self.path(key);
        if !path.is_file() {
            return Ok(None);
        }
        let corrupt = |message: String| Error::CorruptCache { path: path.clone(), message };
        let text = std::fs::read_to_string(&path).map_err(|e| corrupt(format!("cannot read it: {e}")))?;
        let entry: Value = serde_json::from_str(&text).map_err(|e| corrupt(e.to_string()))?;
        if entry.get("key").and_then(Value::as_str) != Some(key) {
            return Err(corrupt("its `key` field does not match its file name".into()));
        }
        entry.get("response").cloned().map(Some).ok_or_else(|| corrupt("no `response` field".into()))
    }

    /// Stores `response` for `key` atomically (`anser_runstore::write_atomic`), creating the
    /// folders it needs.
    pub fn put(&self, key: &str, kind: &str, request: &Value, response: &Value) -> Result<()> {
        let path = self.path(key);
        let folder = path.parent().unwrap_or(&self.dir).to_path_buf();
        fs_err::create_dir_all(&folder)?;
        let entry =
            json!({"v": CACHE_FORMAT_VERSION, "key": key, "kind": kind, "request": request, "response": response});
        let bytes =
            serde_json::to_vec_pretty(&entry).map_err(|e| Error::Setup(format!("cannot encode cache entry: {e}")))?;
        anser_runstore::write_atomic(&path, &bytes).map_err(|e| Error::Io(e.into()))
    }
}

/// Canonical JSON: object keys sorted by their UTF-8 bytes, no whitespace, serde_json's
/// number and string formatting.
fn write_canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(&map[k], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_ignores_key_order_but_not_content() {
        let a = json!({"model": "m", "messages": [{"role": "user", "content": "q"}], "temperature": 0.0});
        let b = json!({"temperature": 0.0, "messages": [{"content": "q", "role": "user"}], "model": "m"});
        let k = ResponseCache::key("chat", "http://h/v1", &a);
        assert_eq!(k, ResponseCache::key("chat", "http://h/v1", &b));
        assert_eq!(k.len(), 64);
        assert_ne!(k, ResponseCache::key("chat", "http://other/v1", &a));
        assert_ne!(k, ResponseCache::key("embeddings", "http://h/v1", &a));
        let c = json!({"model": "m2", "messages": [{"role": "user", "content": "q"}], "temperature": 0.0});
        assert_ne!(k, ResponseCache::key("chat", "http://h/v1", &c));
    }

    #[test]
    fn canonical_form_is_sorted_and_compact() {
        let mut s = String::new();
        write_canonical(&json!({"b": [1, {"d": "x", "c": null}], "a": "é"}), &mut s);
        assert_eq!(s, r#"{"a":"é","b":[1,{"c":null,"d":"x"}]}"#);
        // SHA-256 of `{"base_url":"u","body":{},"kind":"chat","v":1}` (computed with Python's
        // hashlib), pinned so that a change of the key format is noticed.
        assert_eq!(
            ResponseCache::key("chat", "u", &json!({})),
            "6d8ace1326397da706ae9d3e85cd2ab0a98f9ca715d52fa4da38e3f2b94793b4"
        );
    }

    #[test]
    fn put_then_get_and_corruption_is_reported() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = ResponseCache::open(dir.path().join("c"), CacheMode::ReadWrite).expect("open");
        let key = ResponseCache::key("chat", "u", &json!({}));
        assert_eq!(cache.get(&key).expect("read"), None);
        cache.put(&key, "chat", &json!({}), &json!({"ok": 1})).expect("write");
        assert_eq!(cache.get(&key).expect("read"), Some(json!({"ok": 1})));
        let leftovers: Vec<_> = fs_err::read_dir(cache.path(&key).parent().expect("folder"))
            .expect("list")
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "temporary files left behind");
        fs_err::write(cache.path(&key), "{not json").expect("corrupt it");
        assert!(matches!(cache.get(&key), Err(Error::CorruptCache { .. })));
        assert!(ResponseCache::open(dir.path().join("missing"), CacheMode::Replay).is_err());
    }
}
