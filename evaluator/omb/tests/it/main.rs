//! Integration tests of anser-omb: EvalScope probes (contract, pydantic ints, rubric format,
//! rounding), the acceptance run against EvalScope 1.14.1's measured output, exclusion rules,
//! the official mode, judging (cache, repeats) and crash-safe generation.

mod acceptance;
mod addenda;
mod journal;
mod judging;
mod mock_verdicts;
mod official;
mod probes;
mod records;
mod scoring;
mod values;

use std::{
    collections::HashMap,
    path::PathBuf,
    sync::{
        Mutex,
        atomic::{AtomicUsize, Ordering},
    },
};

use anser_omb::{ChatBackend, ChatCall, ChatReply, Delivery, TokenUsage};

/// `tests/data/NAME` parsed as JSON.
pub fn data(name: &str) -> serde_json::Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `../shared/golden/omb`, or `None` (and a printed reason) when the shared folder is absent.
pub fn golden_dir(what: &str) -> Option<PathBuf> {
    let dir = anser_manifest::shared_dir_or_skip(what)?.join("golden/omb");
    if dir.is_dir() {
        Some(dir)
    } else {
        anser_manifest::missing_prerequisite(what, &format!("{} not found", dir.display()));
        None
    }
}

/// A backend answering from a function of the call and the running call number; counts calls.
pub struct Scripted<F: Fn(&ChatCall, usize) -> Result<String, String> + Sync> {
    pub answer: F,
    pub calls: AtomicUsize,
    pub seen: Mutex<Vec<ChatCall>>,
}

impl<F: Fn(&ChatCall, usize) -> Result<String, String> + Sync> Scripted<F> {
    pub fn new(answer: F) -> Self {
        Self { answer, calls: AtomicUsize::new(0), seen: Mutex::new(Vec::new()) }
    }

    pub fn count(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

impl<F: Fn(&ChatCall, usize) -> Result<String, String> + Sync> std::fmt::Debug for Scripted<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scripted").field("calls", &self.calls).finish()
    }
}

impl<F: Fn(&ChatCall, usize) -> Result<String, String> + Sync> ChatBackend for Scripted<F> {
    fn chat(&self, call: &ChatCall) -> Result<ChatReply, String> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut seen) = self.seen.lock() {
            seen.push(call.clone());
        }
        let text = (self.answer)(call, n)?;
        Ok(ChatReply {
            text,
            delivery: Delivery {
                usage: TokenUsage { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12, estimated: false },
                latency_ms: 1.5,
                attempts: 1,
                plain: true,
                stop_reason: None,
            },
        })
    }
}

/// A backend answering by exact prompt text from a map (judge) — used with replies stored in
/// test data.
pub fn by_prompt(map: HashMap<String, String>) -> Scripted<impl Fn(&ChatCall, usize) -> Result<String, String> + Sync> {
    Scripted::new(move |call: &ChatCall, _| {
        let prompt = &call.messages.last().ok_or("no message")?.1;
        map.get(prompt).cloned().ok_or_else(|| "unexpected prompt".to_string())
    })
}

/// A minimal record as JSON.
pub fn record_json(id: &str, rubrics: &[(serde_json::Value, i64)]) -> serde_json::Value {
    serde_json::json!({
        "id": id,
        "language": "global",
        "tags": {"topics": ["Industry"]},
        "question": format!("question {id}"),
        "rubrics": rubrics.iter().map(|(n, w)| serde_json::json!({
            "rubric_number": n, "rubric_detail": format!("detail {n}"), "rubric_weight": w, "rubric_tag": "t"
        })).collect::<Vec<_>>(),
    })
}

/// A judge reply object giving `status` for each id.
pub fn reply(items: &[(i64, &str)]) -> String {
    serde_json::json!({"results": items.iter().map(|(i, s)| serde_json::json!({
        "rubric_id": i, "status": s, "justification": "because"
    })).collect::<Vec<_>>()})
    .to_string()
}
