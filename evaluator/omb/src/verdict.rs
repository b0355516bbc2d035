//! Reading the judge's reply.
//!
//! [`parse_strict`] is EvalScope 1.14.1's output contract: exactly one top-level `{…}` object in
//! the reply (string-aware brace scan; prose, fences and `<think>` blocks around it are fine
//! unless they contain braces), strict JSON, a `results` list whose items carry a `rubric_id`
//! (pydantic lax int), a `status` that is one of 16 exact spellings and a string
//! `justification`, ids unique and equal to the prompt's set. Anything else is a
//! [`ContractError`]: the sample is excluded, never scored zero.
//!
//! [`parse_official`] is the humanlaya harness's tolerant reader: a JSON *array* found in a
//! fence, the first balanced `[...]` that parses, or first `[` to last `]`; trailing commas and
//! curly double quotes repaired; a later duplicate wins; unknown statuses are misses; missing
//! rubrics are NA.

use std::{
    collections::{BTreeSet, HashMap},
    fmt,
    sync::OnceLock,
};

use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::pycompat::{py_int, py_strip, pydantic_int};

/// Statuses EvalScope accepts as a hit (exact, case-sensitive, untrimmed).
pub const HIT_STATUSES: [&str; 8] = ["是", "Yes", "yes", "Y", "YES", "true", "True", "命中"];
/// Statuses EvalScope accepts as a miss.
pub const MISS_STATUSES: [&str; 8] = ["否", "No", "no", "N", "NO", "false", "False", "未命中"];

/// How judge replies are read and scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// EvalScope's strict contract (the default).
    #[default]
    Evalscope,
    /// The official humanlaya harness's leniencies.
    Official,
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::Evalscope => "evalscope",
            Mode::Official => "official",
        })
    }
}

impl std::str::FromStr for Mode {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "evalscope" => Ok(Mode::Evalscope),
            "official" => Ok(Mode::Official),
            other => Err(format!("unknown mode {other:?}: use evalscope or official")),
        }
    }
}

/// One rubric verdict as the judge gave it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Judgment {
    pub rubric_id: i64,
    /// The status exactly as written by the judge.
    pub status: String,
    pub hit: bool,
    pub justification: String,
}

/// Why a reply breaks EvalScope's contract (the sample's `excluded_reason`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContractError {
    /// Stable machine-readable kind (`empty_reply`, `no_json_object`, `multiple_json_objects`,
    /// `invalid_json`, `schema`, `duplicate_rubric_id`, `rubric_id_mismatch`).
    pub kind: String,
    /// Human-readable detail.
    pub message: String,
}

impl ContractError {
    fn new(kind: &str, message: impl Into<String>) -> Self {
        Self { kind: kind.into(), message: message.into() }
    }
}

impl fmt::Display for ContractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind, self.message)
    }
}

/// Every top-level `{…}` object in `reply` (EvalScope's `_payloads`): quotes toggle a string
/// state anywhere in the text, backslashes escape inside strings, a `}` at depth 0 is ignored.
pub fn top_level_objects(reply: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let (mut depth, mut start, mut in_string, mut escaped) = (0usize, 0usize, false, false);
    for (i, c) in reply.char_indices() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            }
            '}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    found.push(&reply[start..=i]);
                }
            }
            _ => {}
        }
    }
    found
}

/// EvalScope's strict contract for a prompt whose rubric ids are `expected`.
pub fn parse_strict(reply: &str, expected: &BTreeSet<i64>) -> Result<Vec<Judgment>, ContractError> {
    if reply.is_empty() {
        return Err(ContractError::new("empty_reply", "empty response"));
    }
    let payloads = top_level_objects(reply);
    let payload = match payloads.as_slice() {
        [] => return Err(ContractError::new("no_json_object", "no JSON object found in the reply")),
        [one] => *one,
        many => {
            return Err(ContractError::new(
                "multiple_json_objects",
                format!("{} JSON objects found where exactly one is required", many.len()),
            ));
        }
    };
    let data = python_json(payload)
        .map_err(|e| ContractError::new("invalid_json", format!("reply is not valid JSON: {e}")))?;
    let schema = |m: String| ContractError::new("schema", m);
    let results = match data.get("results") {
        Some(Value::Array(items)) => items,
        Some(_) => return Err(schema("results is not a list".into())),
        None => return Err(schema("results is missing".into())),
    };
    let mut judgments = Vec::with_capacity(results.len());
    for (i, item) in results.iter().enumerate() {
        let obj = item.as_object().ok_or_else(|| schema(format!("results[{i}] is not an object")))?;
        let rubric_id = pydantic_int(obj.get("rubric_id").unwrap_or(&Value::Null))
            .ok_or_else(|| schema(format!("results[{i}].rubric_id is not a valid integer")))?;
        let status = match obj.get("status") {
            Some(Value::String(s)) if HIT_STATUSES.contains(&s.as_str()) || MISS_STATUSES.contains(&s.as_str()) => {
                s.clone()
            }
            Some(other) => return Err(schema(format!("results[{i}].status {other} is not an accepted spelling"))),
            None => return Err(schema(format!("results[{i}].status is missing"))),
        };
        let justification = match obj.get("justification") {
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err(schema(format!("results[{i}].justification is not a string"))),
            None => return Err(schema(format!("results[{i}].justification is missing"))),
        };
        let hit = HIT_STATUSES.contains(&status.as_str());
        judgments.push(Judgment { rubric_id, status, hit, justification });
    }
    let mut ids = BTreeSet::new();
    let duplicates: BTreeSet<i64> =
        judgments.iter().filter(|j| !ids.insert(j.rubric_id)).map(|j| j.rubric_id).collect();
    if !duplicates.is_empty() {
        return Err(ContractError::new(
            "duplicate_rubric_id",
            format!("rubric_id values must be unique: {duplicates:?} repeated"),
        ));
    }
    if &ids != expected {
        let missing: Vec<i64> = expected.difference(&ids).copied().collect();
        let extra: Vec<i64> = ids.difference(expected).copied().collect();
        return Err(ContractError::new(
            "rubric_id_mismatch",
            format!("rubric_id values must exactly match {expected:?}: missing {missing:?}, extra {extra:?}"),
        ));
    }
    Ok(judgments)
}

/// A key of the official parser's result map: an id that `int()` converted, or one it did not.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum OfficialKey {
    Int(i64),
    Other(String),
}

/// One verdict read by the official parser.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfficialVerdict {
    /// Stripped status as written; anything outside [`HIT_STATUSES`] is a miss.
    pub status: String,
    pub hit: bool,
    pub justification: String,
}

/// What the official parser read from one reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OfficialParse {
    verdicts: HashMap<OfficialKey, OfficialVerdict>,
    /// Why reading stopped early (the harness logs it and keeps what it had), if it did.
    pub warning: Option<String>,
}

impl OfficialParse {
    /// The verdict for a rubric id, `None` = NA.
    pub fn get(&self, rubric_id: i64) -> Option<&OfficialVerdict> {
        self.verdicts.get(&OfficialKey::Int(rubric_id))
    }

    /// True when nothing at all was read (every rubric NA): the harness asks again.
    pub fn is_empty(&self) -> bool {
        self.verdicts.is_empty()
    }
}

/// Python `json.loads` (both EvalScope and the humanlaya harness use it), as serde_json.
/// `NaN`/`Infinity` and out-of-range literals such as `1e400` parse as Python parses them and
/// become `null`; lone surrogates become U+FFFD. None of these can satisfy a field the contract
/// checks (an id, a status or a justification), so every verdict is decided as in Python.
fn python_json(text: &str) -> Result<Value, anser_pycompat::DecodeError> {
    anser_pycompat::loads(text).map(|v| v.to_serde())
}

fn trailing_comma_res() -> &'static (Regex, Regex) {
    static RES: OnceLock<(Regex, Regex)> = OnceLock::new();
    RES.get_or_init(|| {
        let compile = |p: &str| Regex::new(p).unwrap_or_else(|e| unreachable!("constant regex {p}: {e}"));
        (compile(r",\s*\]"), compile(r",\s*\}"))
    })
}

fn fence_res() -> &'static [Regex; 2] {
    static RES: OnceLock<[Regex; 2]> = OnceLock::new();
    RES.get_or_init(|| {
        let compile = |p: &str| Regex::new(p).unwrap_or_else(|e| unreachable!("constant regex {p}: {e}"));
        [compile(r"```json\s*(\[[\s\S]*\])\s*```"), compile(r"```\s*(\[[\s\S]*\])\s*```")]
    })
}

/// The harness's `clean_and_parse_json`: as is, trailing commas removed, curly double quotes
/// straightened, both.
fn clean_and_parse(candidate: &str) -> Option<Value> {
    let s = py_strip(candidate);
    if s.is_empty() {
        return None;
    }
    let (brackets, braces) = trailing_comma_res();
    let fix_commas = |t: &str| braces.replace_all(&brackets.replace_all(t, "]"), "}").into_owned();
    let quotes = s.replace(['\u{201c}', '\u{201d}'], "\"");
    [s.to_string(), fix_commas(s), quotes.clone(), fix_commas(&quotes)].iter().find_map(|t| python_json(t).ok())
}

/// Find the JSON array the way the harness does; `None` when nothing parses.
fn find_array(reply: &str) -> Option<Value> {
    for re in fence_res() {
        if let Some(m) = re.captures(reply).and_then(|c| c.get(1))
            && let Some(v) = clean_and_parse(m.as_str())
        {
            return Some(v);
        }
    }
    for (start, _) in reply.char_indices().filter(|(_, c)| *c == '[') {
        let (mut count, mut in_string, mut escape_next) = (0i64, false, false);
        for (i, c) in reply[start..].char_indices() {
            if escape_next {
                escape_next = false;
                continue;
            }
            if c == '\\' {
                escape_next = true;
                continue;
            }
            if c == '"' {
                in_string = !in_string;
                continue;
            }
            if in_string {
                continue;
            }
            if c == '[' {
                count += 1;
            } else if c == ']' {
                count -= 1;
                if count == 0
                    && let Some(v) = clean_and_parse(&reply[start..start + i + 1])
                {
                    return Some(v);
                }
            }
        }
    }
    let (first, last) = (reply.find('[')?, reply.rfind(']')?);
    (last > first).then(|| clean_and_parse(&reply[first..=last])).flatten()
}

/// The official harness's tolerant reader (`parse_grading_response`).
pub fn parse_official(reply: &str) -> OfficialParse {
    let mut parse = OfficialParse::default();
    let Some(data) = find_array(reply) else {
        parse.warning = Some("no JSON array found".into());
        return parse;
    };
    let Value::Array(items) = data else {
        parse.warning = Some("the JSON found is not an array".into());
        return parse;
    };
    for (i, item) in items.iter().enumerate() {
        // Python raises (and the harness stops reading, keeping earlier items) on a non-object
        // item, a non-string status/justification/consistency, or an unhashable id.
        let Some(obj) = item.as_object() else {
            parse.warning = Some(format!("item {i} is not an object; later items were not read"));
            break;
        };
        let text = |key: &str| match obj.get(key) {
            None => Some(String::new()),
            Some(Value::String(s)) => Some(py_strip(s).to_string()),
            Some(_) => None,
        };
        let (Some(status), Some(justification), Some(_consistency)) =
            (text("status"), text("justification"), text("consistency"))
        else {
            parse.warning = Some(format!("item {i} has a non-string field; later items were not read"));
            break;
        };
        let id = obj.get("rubric_id").unwrap_or(&Value::Null);
        let key = match id {
            Value::Null | Value::Bool(false) => continue,
            Value::Number(n) if n.as_f64() == Some(0.0) => continue,
            Value::String(s) if s.is_empty() => continue,
            Value::Array(a) if a.is_empty() => continue,
            Value::Object(o) if o.is_empty() => continue,
            Value::Array(_) | Value::Object(_) => {
                parse.warning = Some(format!("item {i} has an unhashable rubric_id; later items were not read"));
                break;
            }
            other => match py_int(other) {
                Some(n) => OfficialKey::Int(n),
                None => OfficialKey::Other(other.to_string()),
            },
        };
        let hit = HIT_STATUSES.contains(&status.as_str());
        parse.verdicts.insert(key, OfficialVerdict { status, hit, justification });
    }
    parse
}
