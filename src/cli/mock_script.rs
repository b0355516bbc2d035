//! `anser mock-llm --script FILE`: a recorded tool-calling session for the mock server, so an
//! agent run against the mock exercises the tools instead of receiving prose. The file is JSON:
//!
//! ```json
//! {"rules": [
//!   {"match": {"user_contains": "Task:\nHow many"},
//!    "replies": [
//!      {"tool_calls": [{"name": "schema", "arguments": {}}]},
//!      {"tool_calls": [{"name": "sql", "arguments": {"query": "SELECT count(*) AS n FROM cases"}}]},
//!      {"tool_calls": [{"name": "answer", "arguments": {"answer": "42", "evidence": []}}]}
//!    ]}
//! ]}
//! ```
//!
//! `match` is `"any"` (the default) or one of `user_contains`, `user_regex` (the last user
//! message), `tool_result_contains`, `tool_result_regex` (the tool results since the last
//! assistant turn). A rule answers the requests it matches with its `replies` in order —
//! `{"text": "..."}` or `{"tool_calls": [{"name", "arguments", "id"?}]}` — and is spent after the
//! last one unless `"repeat_last": true`. Rules are tried in file order; a request no rule
//! answers gets the mock's default prose reply.

use std::path::Path;

use anser_llm::{
    ToolCall,
    mock::{Matcher, Reply, Rule},
};
use serde::Deserialize;
use serde_json::Value;

use super::CliError;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptFile {
    rules: Vec<RuleSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleSpec {
    #[serde(default, rename = "match")]
    matcher: MatchSpec,
    replies: Vec<ReplySpec>,
    #[serde(default)]
    repeat_last: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
enum MatchSpec {
    #[default]
    Any,
    UserContains(String),
    UserRegex(String),
    ToolResultContains(String),
    ToolResultRegex(String),
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ReplySpec {
    Text(String),
    ToolCalls(Vec<CallSpec>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CallSpec {
    name: String,
    #[serde(default)]
    arguments: Value,
    id: Option<String>,
}

/// The rules of a script file, in file order. Errors name the file and what to fix.
pub fn load(path: &Path) -> Result<Vec<Rule>, CliError> {
    let text = fs_err::read_to_string(path).map_err(CliError::user)?;
    let file: ScriptFile = serde_json::from_str(&text).map_err(|e| {
        CliError::user(format!(
            "{}: not a mock script ({e}); expected {{\"rules\": [{{\"match\": ..., \"replies\": [...]}}]}}",
            path.display()
        ))
    })?;
    let mut rules = Vec::with_capacity(file.rules.len());
    for (r, spec) in file.rules.into_iter().enumerate() {
        let bad = |what: String| CliError::user(format!("{}: rules[{r}]: {what}", path.display()));
        if spec.replies.is_empty() {
            return Err(bad("has no replies".into()));
        }
        let matcher = match spec.matcher {
            MatchSpec::Any => Matcher::Any,
            MatchSpec::UserContains(s) => Matcher::UserContains(s),
            MatchSpec::ToolResultContains(s) => Matcher::ToolResultContains(s),
            MatchSpec::UserRegex(p) => Matcher::user_regex(&p).map_err(|e| bad(e.to_string()))?,
            MatchSpec::ToolResultRegex(p) => Matcher::tool_result_regex(&p).map_err(|e| bad(e.to_string()))?,
        };
        let mut rule = Rule::new(matcher);
        for (i, reply) in spec.replies.into_iter().enumerate() {
            rule = rule.reply(match reply {
                ReplySpec::Text(t) => Reply::Text(t),
                ReplySpec::ToolCalls(calls) if calls.is_empty() => {
                    return Err(bad(format!("replies[{i}]: tool_calls is empty")));
                }
                ReplySpec::ToolCalls(calls) => Reply::ToolCalls(
                    calls
                        .into_iter()
                        .enumerate()
                        .map(|(c, call)| {
                            let arguments = if call.arguments.is_null() {
                                Value::Object(Default::default())
                            } else {
                                call.arguments
                            };
                            ToolCall::new(
                                call.id.unwrap_or_else(|| format!("r{r}s{i}c{c}")),
                                call.name,
                                arguments.to_string(),
                            )
                        })
                        .collect(),
                ),
            });
        }
        if spec.repeat_last {
            rule = rule.repeat_last();
        }
        rules.push(rule);
    }
    Ok(rules)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("script.json");
        fs_err::write(&path, text).expect("write");
        (dir, path)
    }

    #[test]
    fn reads_rules_and_names_the_broken_part() {
        let (_d, ok) = write(
            r#"{"rules": [{"match": {"user_contains": "x"}, "replies": [{"tool_calls": [{"name": "schema"}]}, {"text": "done"}]},
                          {"replies": [{"text": "fallback"}], "repeat_last": true}]}"#,
        );
        assert_eq!(load(&ok).expect("valid script").len(), 2);
        let (_d, empty) = write(r#"{"rules": [{"replies": []}]}"#);
        let e = load(&empty).expect_err("no replies");
        assert!(e.message.contains("rules[0]: has no replies"), "{}", e.message);
        let (_d, unknown) = write(r#"{"rules": [{"match": {"user_startswith": "x"}, "replies": [{"text": "a"}]}]}"#);
        assert_eq!(load(&unknown).expect_err("unknown matcher").code, 2);
    }
}
