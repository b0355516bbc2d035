//! Loading $OneMillion-Bench records (JSONL, the HF/ModelScope release layout) with EvalScope's
//! field semantics, after its dataset loader's file-wide rewriting of mixed-type fields
//! ([`crate::loader`]). A record EvalScope would reject — unknown language/domain pair, missing
//! or empty rubrics, `tags` not an object, a rubric field Python cannot convert — is reported
//! with its id and reason and skipped; the run goes on (EvalScope aborts the whole run
//! instead). A record without a positive weight is kept: it is judged, then excluded with its
//! reason (EvalScope aborts after the judge's reply).

use std::{collections::HashSet, path::Path};

use serde::Serialize;
use serde_json::Value;

use crate::{
    Error, Result,
    pycompat::{py_int, py_str, py_strip},
    subset::Subset,
};

/// One rubric as EvalScope uses it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Rubric {
    /// `int(rubric_number)`: the id the judge must answer with.
    pub id: i64,
    /// `str(rubric_number)` as pasted into the prompt (`3.0` stays `3.0`).
    pub number_text: String,
    /// `str(rubric_detail)` as pasted into the prompt.
    pub detail: String,
    /// `int(rubric_weight)`: the points awarded on a hit (negative = penalty).
    pub weight: i64,
    /// The raw weight (floats kept), used by the official harness's arithmetic.
    pub weight_raw: f64,
    /// `rubric_weight > 0` on the raw value: counts toward the maximum score.
    pub positive: bool,
    /// `rubric_tag`, unused in scoring.
    pub tag: Option<String>,
}

/// One valid record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    /// `str(id)`, or `line-N` when the record has no id.
    pub id: String,
    /// 1-based line in the dataset file.
    pub line: usize,
    pub subset: Subset,
    /// Stripped `language`.
    pub language: String,
    /// Stripped first topic.
    pub domain: String,
    /// `str(question)`, not stripped: sent verbatim.
    pub question: String,
    /// Stripped `system_prompt` when non-empty.
    pub system_prompt: Option<String>,
    /// Rubrics in dataset order (the prompt keeps this order).
    pub rubrics: Vec<Rubric>,
    /// `case_id`, carried into outputs only.
    pub case_id: Option<Value>,
    /// `tags.time_sensitivity`, carried into outputs only.
    pub time_sensitivity: Option<Value>,
    /// `uuid`, used to look the task up in a value table.
    pub uuid: Option<String>,
}

impl Record {
    /// Σ `int(weight)` over rubrics whose raw weight is > 0 (the denominator).
    pub fn max_score(&self) -> i64 {
        self.rubrics.iter().filter(|r| r.positive).map(|r| r.weight).sum()
    }

    /// Why no expert score can be computed (EvalScope raises `ValueError` and aborts the run
    /// after a valid judge reply), or `None`.
    pub fn no_positive_weight(&self) -> Option<String> {
        (self.max_score() <= 0).then(|| {
            format!(
                "no_positive_weight: the positive rubric weights sum to {} after int(); EvalScope aborts the whole run here",
                self.max_score()
            )
        })
    }
}

/// A skipped record and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InvalidRecord {
    /// The record's id when it has one, else `line-N`.
    pub id: String,
    pub line: usize,
    pub reason: String,
}

/// How field values are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Loading {
    /// As EvalScope's dataset loader leaves them (mixed-type fields rewritten file-wide).
    #[default]
    Evalscope,
    /// Verbatim, as the official harness's `json.load` reads them.
    Plain,
}

/// A loaded dataset: valid records in file order, and the skipped ones.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Dataset {
    pub records: Vec<Record>,
    pub invalid: Vec<InvalidRecord>,
}

impl Dataset {
    /// Load a JSONL dataset as EvalScope does. Only an unreadable file (or one with no record
    /// at all) is an error.
    pub fn load(path: &Path) -> Result<Self> {
        Self::load_with(path, Loading::Evalscope)
    }

    /// Load a JSONL dataset with the given field semantics.
    pub fn load_with(path: &Path, loading: Loading) -> Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Input { path: path.to_path_buf(), message: format!("cannot read the dataset: {e}") })?;
        let dataset = Self::parse_with(&text, loading);
        if dataset.records.is_empty() && dataset.invalid.is_empty() {
            return Err(Error::Input {
                path: path.to_path_buf(),
                message: "no records (expected one JSON object per line)".into(),
            });
        }
        Ok(dataset)
    }

    /// Parse JSONL text as EvalScope loads it (blank lines are ignored).
    pub fn parse(text: &str) -> Self {
        Self::parse_with(text, Loading::Evalscope)
    }

    /// Parse JSONL text with the given field semantics.
    pub fn parse_with(text: &str, loading: Loading) -> Self {
        let mut dataset = Dataset::default();
        let mut seen = HashSet::new();
        let mut lines: Vec<(usize, String)> = Vec::new();
        let mut values: Vec<Value> = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let line_no = index + 1;
            if line.trim().is_empty() {
                continue;
            }
            let value: Value = match serde_json::from_str(line) {
                Ok(v) => v,
                Err(e) => {
                    dataset.invalid.push(InvalidRecord {
                        id: format!("line-{line_no}"),
                        line: line_no,
                        reason: format!("not valid JSON: {e}"),
                    });
                    continue;
                }
            };
            // The id as written identifies the record (responses, outputs); the loader's
            // rewriting of it would only change EvalScope's metadata.
            let id = value.get("id").filter(|v| !v.is_null()).and_then(py_str).unwrap_or(format!("line-{line_no}"));
            lines.push((line_no, id));
            values.push(value);
        }
        if loading == Loading::Evalscope {
            crate::loader::rewrite_mixed_types(&mut values);
        }
        for ((line_no, id), value) in lines.into_iter().zip(values) {
            let parsed = parse_record(&value, &id, line_no)
                .and_then(|r| if seen.insert(r.id.clone()) { Ok(r) } else { Err(format!("duplicate id {:?}", r.id)) });
            match parsed {
                Ok(record) => dataset.records.push(record),
                Err(reason) => dataset.invalid.push(InvalidRecord { id, line: line_no, reason }),
            }
        }
        dataset
    }

    /// The record with this id.
    pub fn get(&self, id: &str) -> Option<&Record> {
        self.records.iter().find(|r| r.id == id)
    }
}

/// Validate one record the way EvalScope's `record_to_sample`, `judge_definition` and `reduce`
/// would, in that order; the error is the reason it is skipped.
pub fn parse_record(value: &Value, id: &str, line: usize) -> std::result::Result<Record, String> {
    let obj = value.as_object().ok_or("not a JSON object")?;
    let rubrics_value = match obj.get("rubrics") {
        Some(Value::Array(a)) if !a.is_empty() => a,
        Some(Value::Array(_)) => return Err("rubrics is empty".into()),
        Some(_) => return Err("rubrics is not a list".into()),
        None => return Err("rubrics is missing".into()),
    };
    // `record.get('tags') or {}`: a falsy value is an empty object, anything else must be one.
    let empty = serde_json::Map::new();
    let tags = match obj.get("tags") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(t)) => t,
        Some(v) if is_falsy(v) => &empty,
        Some(_) => return Err("tags is not an object".into()),
    };
    let first_topic = match tags.get("topics") {
        Some(Value::Array(t)) if !t.is_empty() => &t[0],
        Some(v) if !is_falsy(v) => return Err("tags.topics is not a list".into()),
        _ => return Err("tags.topics is missing or empty (no domain topic)".into()),
    };
    let language =
        py_strip(&obj.get("language").map_or(Some(String::new()), py_str).ok_or("language is not a string")?)
            .to_string();
    let domain = py_strip(&py_str(first_topic).ok_or("tags.topics[0] is not a string")?).to_string();
    let subset = Subset::from_pair(&language, &domain)
        .ok_or_else(|| format!("unknown language/domain pair ({language:?}, {domain:?})"))?;
    let question = py_str(obj.get("question").ok_or("question is missing")?).ok_or("question is not a string")?;
    let system_prompt = match obj.get("system_prompt") {
        None => None,
        Some(v) if is_falsy(v) => None,
        Some(v) => {
            let s = py_str(v).ok_or("system_prompt is not a string")?;
            Some(py_strip(&s).to_string()).filter(|s| !s.is_empty())
        }
    };
    let mut rubrics = Vec::with_capacity(rubrics_value.len());
    for (i, r) in rubrics_value.iter().enumerate() {
        rubrics.push(parse_rubric(r).map_err(|e| format!("rubrics[{i}]: {e}"))?);
    }
    let record = Record {
        id: id.to_string(),
        line,
        subset,
        language,
        domain,
        question,
        system_prompt,
        rubrics,
        case_id: obj.get("case_id").cloned(),
        time_sensitivity: tags.get("time_sensitivity").cloned(),
        uuid: obj.get("uuid").filter(|v| !v.is_null()).and_then(py_str),
    };
    Ok(record)
}

fn parse_rubric(r: &Value) -> std::result::Result<Rubric, String> {
    let obj = r.as_object().ok_or("not an object")?;
    let number = obj.get("rubric_number").ok_or("rubric_number is missing")?;
    let id = py_int(number).ok_or("rubric_number is not an integer")?;
    let number_text = py_str(number).ok_or("rubric_number is not an integer")?;
    let detail =
        py_str(obj.get("rubric_detail").ok_or("rubric_detail is missing")?).ok_or("rubric_detail is not a string")?;
    let weight_value = obj.get("rubric_weight").ok_or("rubric_weight is missing")?;
    // `rubric_weight > 0` runs on the raw value: it must really be a number (or a bool).
    let weight_raw = match weight_value {
        Value::Number(n) => n.as_f64().ok_or("rubric_weight is not a number")?,
        Value::Bool(b) => f64::from(u8::from(*b)),
        _ => return Err("rubric_weight is not a number".into()),
    };
    let weight = py_int(weight_value).ok_or("rubric_weight is not a finite number")?;
    let tag = obj.get("rubric_tag").and_then(Value::as_str).map(str::to_string);
    Ok(Rubric { id, number_text, detail, weight, weight_raw, positive: weight_raw > 0.0, tag })
}

/// Python truthiness of a JSON value.
fn is_falsy(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}
