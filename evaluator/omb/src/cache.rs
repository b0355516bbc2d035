//! The judge cache: every judge reply, keyed by what determines it — the SHA-256 of the exact
//! prompt (which contains the response), the judge model, the prompt version and template hash,
//! the request parameters, the repeat index and (official mode) the re-ask attempt. It is a
//! fsynced JSONL journal in the output directory, so a judge run killed half-way resumes from
//! where it stopped, and re-judging with another `--mode` costs no new calls.

use std::{collections::HashMap, path::Path, sync::Mutex};

use anser_runstore::{SharedJournal, read_journal_by_key, sha256_hex};
use serde::{Deserialize, Serialize};

use crate::{
    Result,
    backend::ChatReply,
    prompt::{JUDGE_MAX_TOKENS, JUDGE_TEMPERATURE, PROMPT_VERSION, template_sha256},
};

/// File name of the cache inside the output directory.
pub const CACHE_FILE: &str = "judge_cache.jsonl";

/// One cached reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheEntry {
    pub key: String,
    pub record_id: String,
    pub judge_model: String,
    pub repeat: u32,
    pub attempt: u32,
    pub prompt_sha256: String,
    pub reply: ChatReply,
}

/// The cache key of one judge request.
pub fn cache_key(prompt: &str, judge_model: &str, repeat: u32, attempt: u32) -> String {
    let material = serde_json::json!([
        PROMPT_VERSION,
        template_sha256(),
        judge_model,
        JUDGE_TEMPERATURE,
        JUDGE_MAX_TOKENS,
        repeat,
        attempt,
        sha256_hex(prompt.as_bytes()),
    ]);
    sha256_hex(material.to_string().as_bytes())
}

/// The open cache: entries read at start plus a journal for new ones.
#[derive(Debug)]
pub struct JudgeCache {
    entries: Mutex<HashMap<String, ChatReply>>,
    /// Group commit: judge workers whose replies arrive together share one fsync.
    journal: SharedJournal,
}

impl JudgeCache {
    /// Open (or create) the cache file in `dir`.
    pub fn open(dir: &Path) -> Result<Self> {
        let path = dir.join(CACHE_FILE);
        let contents = read_journal_by_key::<CacheEntry, _, _>(&path, |e| e.key.clone())?;
        let entries = contents.records.into_iter().map(|e| (e.key, e.reply)).collect();
        let journal = SharedJournal::open(&path)?;
        Ok(Self { entries: Mutex::new(entries), journal })
    }

    /// Number of cached replies.
    pub fn len(&self) -> usize {
        self.entries.lock().map_or(0, |e| e.len())
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The cached reply for `key`.
    pub fn get(&self, key: &str) -> Option<ChatReply> {
        self.entries.lock().ok()?.get(key).cloned()
    }

    /// Journal a new reply (fsynced before returning).
    pub fn put(&self, entry: CacheEntry) -> Result<()> {
        self.journal.append(&entry)?;
        if let Ok(mut entries) = self.entries.lock() {
            entries.insert(entry.key, entry.reply);
        }
        Ok(())
    }
}
