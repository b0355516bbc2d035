//! Endpoint settings (base URL, API key, model) resolved from layered sources with ANSER's
//! precedence: command line > process environment > `.env` file > defaults.
//!
//! The resolver is generic over the variable names, so one piece of code serves the
//! generation endpoint (`GENERATION_*`), the judge (`OPENAI_BASE_URL`, `OPENAI_API_KEY`,
//! `ANSER_JUDGE_MODEL`) and the embeddings API (`EMBEDDING_*`), and any other variable can be
//! looked up with the same precedence ([`Settings::lookup`]). Keys live in [`ApiKey`], which
//! never prints its value and cannot be serialised.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};

/// A secret API key. `Debug` shows only whether it is set; it has no `Serialize` or `Display`
/// on purpose. An empty key means "send no `Authorization` header" (local vLLM, Ollama).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ApiKey(Option<String>);

impl ApiKey {
    /// A key; an empty or whitespace-only string is no key.
    pub fn new(key: impl Into<String>) -> Self {
        let key = key.into().trim().to_string();
        Self((!key.is_empty()).then_some(key))
    }

    /// No key.
    pub fn none() -> Self {
        Self(None)
    }

    /// Whether a key is set.
    pub fn is_set(&self) -> bool {
        self.0.is_some()
    }

    /// The key itself, for building the `Authorization` header. Do not log or store it.
    pub fn expose_secret(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.is_set() { "ApiKey(<redacted>)" } else { "ApiKey(<none>)" })
    }
}

/// Where a resolved value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Cli,
    Env,
    DotEnv,
    Default,
}

/// The variable names, flags and defaults of one kind of endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndpointVars {
    /// Variable holding the base URL (ending in `/v1` for most servers).
    pub base_url: &'static str,
    /// Variable holding the API key.
    pub api_key: &'static str,
    /// Variable holding the model name.
    pub model: &'static str,
    /// Base URL used when no source sets one (`None`: it is required).
    pub default_base_url: Option<&'static str>,
    /// Model used when no source sets one (`None`: it is required).
    pub default_model: Option<&'static str>,
    /// Command-line flags that override the variables, for error messages.
    pub base_url_flag: &'static str,
    pub model_flag: &'static str,
}

/// The generation endpoint of every method: `GENERATION_BASE_URL`, `GENERATION_API_KEY`,
/// `GENERATION_MODEL`, flags `--base-url/--api-key/--model`; no defaults (both required).
pub const GENERATION: EndpointVars = EndpointVars {
    base_url: "GENERATION_BASE_URL",
    api_key: "GENERATION_API_KEY",
    model: "GENERATION_MODEL",
    default_base_url: None,
    default_model: None,
    base_url_flag: "--base-url",
    model_flag: "--model",
};

/// Default judge model, as in ANSER's evaluator.
pub const DEFAULT_JUDGE_MODEL: &str = "gpt-5.6-sol";
/// Default judge base URL (`OPENAI_BASE_URL` is optional in ANSER).
pub const DEFAULT_JUDGE_BASE_URL: &str = "https://api.openai.com/v1";

/// The LLM judge: `OPENAI_BASE_URL` (default [`DEFAULT_JUDGE_BASE_URL`]), `OPENAI_API_KEY`,
/// `ANSER_JUDGE_MODEL` (default [`DEFAULT_JUDGE_MODEL`]).
pub const JUDGE: EndpointVars = EndpointVars {
    base_url: "OPENAI_BASE_URL",
    api_key: "OPENAI_API_KEY",
    model: "ANSER_JUDGE_MODEL",
    default_base_url: Some(DEFAULT_JUDGE_BASE_URL),
    default_model: Some(DEFAULT_JUDGE_MODEL),
    base_url_flag: "--judge-base-url",
    model_flag: "--judge-model",
};

/// Default embeddings model, as in ANSER's `.env.example`.
pub const DEFAULT_EMBEDDING_MODEL: &str = "Qwen/Qwen3-Embedding-4B";

/// The embeddings API: `EMBEDDING_BASE_URL` (required), `EMBEDDING_API_KEY`, `EMBEDDING_MODEL`
/// (default [`DEFAULT_EMBEDDING_MODEL`]). `EMBEDDING_DIM` and `EMBEDDING_BACKEND` are read by
/// the indexer with [`Settings::lookup`].
pub const EMBEDDING: EndpointVars = EndpointVars {
    base_url: "EMBEDDING_BASE_URL",
    api_key: "EMBEDDING_API_KEY",
    model: "EMBEDDING_MODEL",
    default_base_url: None,
    default_model: Some(DEFAULT_EMBEDDING_MODEL),
    base_url_flag: "--embedding-base-url",
    model_flag: "--embedding-model",
};

/// Command-line values for one endpoint (`None` = flag not given).
#[derive(Clone, Default)]
pub struct Overrides {
    pub base_url: Option<String>,
    pub api_key: Option<String>,
    pub model: Option<String>,
}

impl fmt::Debug for Overrides {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Overrides")
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("model", &self.model)
            .finish()
    }
}

/// A resolved value and its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    pub value: String,
    pub source: Source,
}

/// A validated endpoint: where to send requests, with which model and key.
///
/// `Debug` hides the key; use [`EndpointConfig::public`] for metadata files.
#[derive(Debug, Clone)]
pub struct EndpointConfig {
    /// Base URL without a trailing slash, e.g. `http://127.0.0.1:8000/v1`.
    pub base_url: String,
    pub model: String,
    pub api_key: ApiKey,
}

/// What may be written to metadata and traces about an endpoint: never the key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PublicEndpoint {
    pub base_url: String,
    pub model: String,
    pub api_key_set: bool,
}

impl EndpointConfig {
    /// A validated endpoint: the base URL must be `http://` or `https://` with a host and no
    /// credentials; the model must not be empty.
    pub fn new(base_url: &str, model: &str, api_key: ApiKey) -> Result<Self> {
        Ok(Self { base_url: normalize_base_url(base_url)?, model: validate_model(model)?, api_key })
    }

    /// Base URL, model and whether a key is set: safe to write anywhere.
    pub fn public(&self) -> PublicEndpoint {
        PublicEndpoint {
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            api_key_set: self.api_key.is_set(),
        }
    }

    /// Full URL of an API path such as `chat/completions`.
    pub fn url(&self, path: &str) -> String {
        format!("{}/{}", self.base_url, path.trim_start_matches('/'))
    }
}

fn normalize_base_url(raw: &str) -> Result<String> {
    let url = raw.trim().trim_end_matches('/').to_string();
    let invalid =
        |message: &str| Error::InvalidSetting { field: "base URL".into(), message: format!("`{url}` {message}") };
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .ok_or_else(|| invalid("must start with http:// or https://"))?;
    let authority = rest.split('/').next().unwrap_or_default();
    if authority.is_empty() {
        return Err(invalid("has no host"));
    }
    if authority.contains('@') {
        return Err(invalid("must not contain credentials; pass the key as an API key instead"));
    }
    if url.contains(['?', '#', ' ']) {
        return Err(invalid("must not contain a query, fragment or spaces"));
    }
    Ok(url)
}

fn validate_model(model: &str) -> Result<String> {
    let model = model.trim();
    if model.is_empty() {
        return Err(Error::InvalidSetting { field: "model".into(), message: "is empty".into() });
    }
    Ok(model.to_string())
}

/// The layers below the command line: a snapshot of the process environment and of a `.env`
/// file. Empty values count as unset, so an exported `FOO=` does not hide `.env`'s `FOO`.
#[derive(Clone, Default)]
pub struct Settings {
    env: BTreeMap<String, String>,
    dotenv: BTreeMap<String, String>,
    dotenv_path: Option<PathBuf>,
}

impl fmt::Debug for Settings {
    // Only names: values may be keys.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Settings")
            .field("env_vars", &self.env.len())
            .field("dotenv_vars", &self.dotenv.keys().collect::<Vec<_>>())
            .field("dotenv_path", &self.dotenv_path)
            .finish()
    }
}

impl Settings {
    /// The process environment and `./.env` (if present), as ANSER's runner loads its root
    /// `.env` automatically.
    pub fn load() -> Result<Self> {
        Self::load_with_dotenv(Path::new(".env"))
    }

    /// The process environment and the given `.env` file (a missing file is an empty layer).
    pub fn load_with_dotenv(path: &Path) -> Result<Self> {
        Self::from_parts(std::env::vars(), Some(path))
    }

    /// Explicit layers, for tests and embedding: `env` pairs and an optional `.env` file.
    pub fn from_parts(env: impl IntoIterator<Item = (String, String)>, dotenv: Option<&Path>) -> Result<Self> {
        let dotenv_vars = match dotenv {
            Some(p) if p.is_file() => parse_dotenv(p, &fs_err::read_to_string(p)?)?,
            _ => BTreeMap::new(),
        };
        Ok(Self {
            env: env.into_iter().collect(),
            dotenv: dotenv_vars,
            dotenv_path: dotenv.filter(|p| p.is_file()).map(Path::to_path_buf),
        })
    }

    /// The `.env` file that was read, if any.
    pub fn dotenv_path(&self) -> Option<&Path> {
        self.dotenv_path.as_deref()
    }

    /// `var` with precedence `cli` > environment > `.env`; `None` when no layer sets it.
    pub fn lookup(&self, var: &str, cli: Option<&str>) -> Option<Resolved> {
        let non_empty = |v: &str| (!v.trim().is_empty()).then(|| v.trim().to_string());
        if let Some(v) = cli.and_then(non_empty) {
            return Some(Resolved { value: v, source: Source::Cli });
        }
        if let Some(v) = self.env.get(var).and_then(|v| non_empty(v)) {
            return Some(Resolved { value: v, source: Source::Env });
        }
        self.dotenv.get(var).and_then(|v| non_empty(v)).map(|value| Resolved { value, source: Source::DotEnv })
    }

    /// The endpoint described by `vars`, with command-line `cli` values on top.
    pub fn endpoint(&self, vars: &EndpointVars, cli: &Overrides) -> Result<EndpointConfig> {
        let pick = |var: &str, cli: Option<&str>, default: Option<&str>| {
            self.lookup(var, cli)
                .or_else(|| default.map(|d| Resolved { value: d.to_string(), source: Source::Default }))
        };
        let base_url = pick(vars.base_url, cli.base_url.as_deref(), vars.default_base_url);
        let model = pick(vars.model, cli.model.as_deref(), vars.default_model);
        let (base_url, model) = match (base_url, model) {
            (Some(b), Some(m)) => (b, m),
            (None, Some(_)) => {
                return Err(Error::MissingSetting {
                    what: "base URL",
                    flag: vars.base_url_flag,
                    var: vars.base_url.to_string(),
                });
            }
            (Some(_), None) => {
                return Err(Error::MissingSetting {
                    what: "model",
                    flag: vars.model_flag,
                    var: vars.model.to_string(),
                });
            }
            // Both missing: one error naming both, not one at a time.
            (None, None) => {
                return Err(Error::MissingSettings {
                    whats: vec!["base URL", "model"],
                    flags: vec![vars.base_url_flag, vars.model_flag],
                    vars: vec![vars.base_url.to_string(), vars.model.to_string()],
                });
            }
        };
        let key = self.lookup(vars.api_key, cli.api_key.as_deref()).map(|r| r.value).unwrap_or_default();
        EndpointConfig::new(&base_url.value, &model.value, ApiKey::new(key)).map_err(|e| match e {
            Error::InvalidSetting { field, message } => {
                let var = if field == "model" { vars.model } else { vars.base_url };
                let from = match base_url.source {
                    Source::Cli => "command line",
                    Source::Env => "environment",
                    Source::DotEnv => ".env",
                    Source::Default => "default",
                };
                Error::InvalidSetting { field: format!("{field} ({var}, from {from})"), message }
            }
            other => other,
        })
    }
}

/// Parses `.env` text: `KEY=VALUE` lines, optional `export `, `#` comments, single quotes
/// (literal), double quotes (with `\n`, `\"`, `\\` escapes), inline ` #` comments after
/// unquoted values. No variable expansion.
fn parse_dotenv(path: &Path, text: &str) -> Result<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    for (i, raw) in text.lines().enumerate() {
        let err = |message: String| Error::DotEnv { path: path.to_path_buf(), line: i + 1, message };
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").map(str::trim_start).unwrap_or(line);
        let (key, value) =
            line.split_once('=').ok_or_else(|| err("expected KEY=VALUE; fix or comment out this line".into()))?;
        let key = key.trim();
        let valid_key = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid_key {
            return Err(err(format!("`{key}` is not a variable name (letters, digits, _)")));
        }
        let value = value.trim();
        let parsed = if let Some(rest) = value.strip_prefix('"') {
            let mut s = String::new();
            let mut chars = rest.chars();
            let mut closed = false;
            while let Some(c) = chars.next() {
                match c {
                    '"' => {
                        closed = true;
                        break;
                    }
                    '\\' => match chars.next() {
                        Some('n') => s.push('\n'),
                        Some('t') => s.push('\t'),
                        Some(other) => s.push(other),
                        None => break,
                    },
                    c => s.push(c),
                }
            }
            if !closed {
                return Err(err(format!("unterminated double quote in the value of {key}")));
            }
            s
        } else if let Some(rest) = value.strip_prefix('\'') {
            let end = rest.find('\'').ok_or_else(|| err(format!("unterminated single quote in the value of {key}")))?;
            rest[..end].to_string()
        } else {
            let cut = value.find(" #").unwrap_or(value.len());
            value[..cut].trim_end().to_string()
        };
        out.insert(key.to_string(), parsed);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotenv_syntax() {
        let text = "# comment\n\nexport A=1\nB = two words # note\nC=\"x\\ny # kept\"\nD='lit\\n'\nE=\n";
        let vars = parse_dotenv(Path::new(".env"), text).expect("parses");
        assert_eq!(vars["A"], "1");
        assert_eq!(vars["B"], "two words");
        assert_eq!(vars["C"], "x\ny # kept");
        assert_eq!(vars["D"], "lit\\n");
        assert_eq!(vars["E"], "");
        let e = parse_dotenv(Path::new("x/.env"), "A=1\nnot a line\n").expect_err("bad line");
        assert_eq!(e.to_string(), "x/.env:2: expected KEY=VALUE; fix or comment out this line");
        assert!(parse_dotenv(Path::new(".env"), "A=\"open\n").is_err());
        assert!(parse_dotenv(Path::new(".env"), "1A=x\n").is_err());
    }

    #[test]
    fn base_url_validation() {
        let ok = |u: &str| EndpointConfig::new(u, "m", ApiKey::none()).map(|c| c.base_url);
        assert_eq!(ok("http://127.0.0.1:8000/v1/").expect("valid"), "http://127.0.0.1:8000/v1");
        assert_eq!(ok(" https://api.openai.com/v1 ").expect("valid"), "https://api.openai.com/v1");
        assert!(ok("127.0.0.1:8000/v1").is_err());
        assert!(ok("http:///v1").is_err());
        assert!(ok("https://user:secret@host/v1").is_err());
        assert!(EndpointConfig::new("http://h/v1", "  ", ApiKey::none()).is_err());
        let c = EndpointConfig::new("http://h/v1", "m", ApiKey::none()).expect("valid");
        assert_eq!(c.url("/chat/completions"), "http://h/v1/chat/completions");
    }

    #[test]
    fn api_key_debug_is_redacted() {
        assert_eq!(format!("{:?}", ApiKey::new("sk-123")), "ApiKey(<redacted>)");
        assert_eq!(format!("{:?}", ApiKey::new("  ")), "ApiKey(<none>)");
        let o = Overrides { api_key: Some("sk-123".into()), ..Default::default() };
        assert!(!format!("{o:?}").contains("sk-123"));
    }
}
