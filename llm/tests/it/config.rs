use anser_llm::mock::{Fault, Matcher, MockConfig, MockServer, Reply};
use anser_llm::{
    ApiKey, CacheMode, ChatRequest, Client, ClientOptions, EMBEDDING, Error, GENERATION, JUDGE, Message, Overrides,
    ResponseCache, Settings, Source,
};

use crate::fast_policy;

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

#[test]
fn precedence_is_cli_then_environment_then_dotenv_then_defaults() {
    let dir = tempfile::tempdir().expect("tempdir");
    let dotenv = dir.path().join(".env");
    fs_err::write(
        &dotenv,
        "GENERATION_BASE_URL=http://dotenv:8000/v1\nGENERATION_MODEL=dotenv-model\nGENERATION_API_KEY=dotenv-key\n\
         EMBEDDING_BASE_URL=http://embed/v1\nEMBEDDING_DIM=1024\n",
    )
    .expect("write .env");
    let settings = Settings::from_parts(
        env(&[("GENERATION_MODEL", "env-model"), ("GENERATION_API_KEY", ""), ("OPENAI_API_KEY", "judge-key")]),
        Some(&dotenv),
    )
    .expect("settings");

    let none = Overrides::default();
    let g = settings.endpoint(&GENERATION, &none).expect("generation");
    assert_eq!(g.base_url, "http://dotenv:8000/v1", ".env fills what the environment lacks");
    assert_eq!(g.model, "env-model", "environment beats .env");
    assert_eq!(g.api_key, ApiKey::new("dotenv-key"), "an empty exported value does not hide .env");

    let cli = Overrides { model: Some("cli-model".into()), base_url: Some("http://cli/v1/".into()), api_key: None };
    let g = settings.endpoint(&GENERATION, &cli).expect("generation");
    assert_eq!(
        (g.base_url.as_str(), g.model.as_str()),
        ("http://cli/v1", "cli-model"),
        "command line beats everything"
    );

    assert_eq!(settings.lookup("GENERATION_MODEL", None).map(|r| r.source), Some(Source::Env));
    assert_eq!(settings.lookup("GENERATION_MODEL", Some("x")).map(|r| r.source), Some(Source::Cli));
    assert_eq!(
        settings.lookup("EMBEDDING_DIM", None).map(|r| (r.value, r.source)),
        Some(("1024".into(), Source::DotEnv))
    );
    assert_eq!(settings.lookup("NOT_SET", None), None);

    let j = settings.endpoint(&JUDGE, &none).expect("judge has defaults");
    assert_eq!((j.base_url.as_str(), j.model.as_str()), ("https://api.openai.com/v1", "gpt-5.6-sol"));
    assert!(j.api_key.is_set());
    let e = settings.endpoint(&EMBEDDING, &none).expect("embedding");
    assert_eq!(
        (e.base_url.as_str(), e.model.as_str(), e.api_key.is_set()),
        ("http://embed/v1", "Qwen/Qwen3-Embedding-4B", false)
    );
}

#[test]
fn missing_and_invalid_settings_say_what_to_do() {
    let settings = Settings::from_parts(env(&[]), None).expect("settings");
    // Both missing: named together, so the user fixes them in one go.
    let err = settings.endpoint(&GENERATION, &Overrides::default()).expect_err("no base URL, no model");
    assert_eq!(
        err.to_string(),
        "no base URL and no model configured: pass --base-url and --model or set GENERATION_BASE_URL and \
         GENERATION_MODEL (in the environment or in .env)"
    );
    assert!(err.is_user_error());
    let settings = Settings::from_parts(env(&[("GENERATION_MODEL", "m")]), None).expect("settings");
    let err = settings.endpoint(&GENERATION, &Overrides::default()).expect_err("no base URL");
    assert_eq!(
        err.to_string(),
        "no base URL configured: pass --base-url or set GENERATION_BASE_URL (in the environment or in .env)"
    );
    let settings = Settings::from_parts(env(&[("GENERATION_BASE_URL", "http://h/v1")]), None).expect("settings");
    let err = settings.endpoint(&GENERATION, &Overrides::default()).expect_err("no model");
    assert!(err.to_string().contains("pass --model or set GENERATION_MODEL"), "{err}");
    let settings =
        Settings::from_parts(env(&[("GENERATION_BASE_URL", "localhost:8000"), ("GENERATION_MODEL", "m")]), None)
            .expect("settings");
    let err = settings.endpoint(&GENERATION, &Overrides::default()).expect_err("no scheme");
    assert!(
        err.to_string().contains("GENERATION_BASE_URL, from environment") && err.to_string().contains("http://"),
        "{err}"
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let dotenv = dir.path().join(".env");
    fs_err::write(&dotenv, "GOOD=1\nBAD LINE\n").expect("write");
    let err = Settings::from_parts(env(&[]), Some(&dotenv)).expect_err("bad .env");
    assert!(
        matches!(err, Error::DotEnv { line: 2, .. }) && err.to_string().starts_with(&dotenv.display().to_string()),
        "{err}"
    );
}

#[tokio::test]
async fn keys_are_sent_but_never_printed_or_stored() {
    const KEY: &str = "sk-test-SECRET-123";
    let dir = tempfile::tempdir().expect("tempdir");
    let server = MockServer::start(MockConfig::instant()).expect("mock");
    let settings = Settings::from_parts(
        env(&[("GENERATION_BASE_URL", &server.base_url()), ("GENERATION_MODEL", "m"), ("GENERATION_API_KEY", KEY)]),
        None,
    )
    .expect("settings");
    let endpoint = settings.endpoint(&GENERATION, &Overrides::default()).expect("endpoint");
    let cache = ResponseCache::open(dir.path(), CacheMode::ReadWrite).expect("cache");
    let client =
        Client::new(endpoint.clone(), ClientOptions { retry: fast_policy(), cache: Some(cache) }).expect("client");

    let ok = client.chat(&ChatRequest::new(vec![Message::user("q")])).await.expect("chat");
    server.script(Matcher::Any, [Reply::Fault(Fault::Status(401))]);
    let err = client.chat(&ChatRequest::new(vec![Message::user("other")])).await.expect_err("401");

    assert_eq!(server.requests()[0].authorization.as_deref(), Some("Bearer sk-test-SECRET-123"), "the key is sent");
    let printed = [
        format!("{settings:?}"),
        format!("{endpoint:?}"),
        format!("{client:?}"),
        format!("{err:?} {err}"),
        format!("{:?}", Overrides { api_key: Some(KEY.into()), ..Overrides::default() }),
        serde_json::to_string(&endpoint.public()).expect("json"),
        serde_json::to_string(&ok).expect("json"),
        serde_json::to_string(err.attempts()).expect("json"),
        serde_json::to_string(&server.requests()).expect("recorded requests serialise without the header"),
    ];
    for text in &printed {
        assert!(!text.contains(KEY), "key leaked into: {text}");
    }
    assert!(printed[1].contains("ApiKey(<redacted>)"));
    assert!(printed[5].contains("\"api_key_set\":true"));
    for entry in walk(dir.path()) {
        assert!(!fs_err::read_to_string(&entry).expect("read").contains(KEY), "key stored in {}", entry.display());
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in fs_err::read_dir(dir).expect("list").flatten() {
        let path = entry.path();
        if path.is_dir() { out.extend(walk(&path)) } else { out.push(path) }
    }
    out
}
