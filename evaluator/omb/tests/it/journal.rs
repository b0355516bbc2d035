//! The JSON of a journaled generation and of a cached reply: the reply's fields stand inline, in
//! the order the journal and the judge cache have always written them, and a line written
//! before `plain`/`stop_reason` existed still reads (resume and cache reuse depend on both).

use anser_omb::{ChatReply, Delivery, Generation, TokenUsage};

fn delivery() -> Delivery {
    Delivery {
        usage: TokenUsage { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5, estimated: false },
        latency_ms: 1.5,
        attempts: 2,
        plain: false,
        stop_reason: Some("model_length".into()),
    }
}

const USAGE: &str = r#""usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"estimated":false}"#;

#[test]
fn generation_json_keeps_the_reply_fields_inline_and_in_order() {
    let g = Generation { id: "a".into(), ok: true, response: Some("r".into()), error: None, delivery: delivery() };
    let text = serde_json::to_string(&g).expect("serialises");
    assert_eq!(
        text,
        format!(
            r#"{{"id":"a","ok":true,"response":"r","error":null,{USAGE},"latency_ms":1.5,"attempts":2,"plain":false,"stop_reason":"model_length"}}"#
        )
    );
    assert_eq!(serde_json::from_str::<Generation>(&text).expect("reads back"), g);
}

#[test]
fn cached_reply_json_keeps_its_fields_inline_and_in_order() {
    let reply = ChatReply { text: "t".into(), delivery: delivery() };
    let text = serde_json::to_string(&reply).expect("serialises");
    assert_eq!(
        text,
        format!(r#"{{"text":"t",{USAGE},"latency_ms":1.5,"attempts":2,"plain":false,"stop_reason":"model_length"}}"#)
    );
    assert_eq!(serde_json::from_str::<ChatReply>(&text).expect("reads back"), reply);
}

#[test]
fn an_older_journal_line_without_plain_or_stop_reason_reads_with_their_defaults() {
    let line =
        format!(r#"{{"id":"b","ok":false,"response":null,"error":"timeout",{USAGE},"latency_ms":0,"attempts":0}}"#);
    let g: Generation = serde_json::from_str(&line).expect("reads");
    assert!(g.delivery.plain, "a missing `plain` means plain content");
    assert_eq!((g.delivery.stop_reason, g.delivery.latency_ms, g.delivery.attempts), (None, 0.0, 0));
}
