//! Python `json.loads` on top of serde_json. Python accepts three things serde_json rejects:
//! the bare constants `NaN`, `Infinity` and `-Infinity`, and `\uXXXX` escapes of lone
//! surrogates. A judge reply using them must parse (or fail) the way it does in EvalScope, so
//! the text is first rewritten: the constants become `null` and lone surrogates become U+FFFD.
//! Neither can satisfy any field the contract checks (an id, a status or a justification), so
//! every verdict is decided exactly as in Python; only an ignored extra key's value differs.

use serde_json::Value;

/// Parse `text` with Python `json.loads` acceptance.
pub fn loads(text: &str) -> Result<Value, serde_json::Error> {
    match serde_json::from_str(text) {
        Ok(v) => Ok(v),
        Err(first) => {
            let rewritten = rewrite(text);
            if rewritten == text { Err(first) } else { serde_json::from_str(&rewritten) }
        }
    }
}

fn rewrite(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut in_string = false;
    while let Some(c) = rest.chars().next() {
        if in_string {
            if c == '\\' {
                if let Some(hex) = rest.get(2..6).filter(|_| rest[1..].starts_with('u')) {
                    if let Ok(unit) = u16::from_str_radix(hex, 16) {
                        let next_low = rest
                            .get(8..12)
                            .filter(|_| rest[6..].starts_with("\\u"))
                            .and_then(|h| u16::from_str_radix(h, 16).ok())
                            .is_some_and(|u| (0xDC00..0xE000).contains(&u));
                        if (0xD800..0xDC00).contains(&unit) && next_low {
                            out.push_str(&rest[..12]);
                            rest = &rest[12..];
                            continue;
                        }
                        if (0xD800..0xE000).contains(&unit) {
                            out.push_str("\\ufffd");
                            rest = &rest[6..];
                            continue;
                        }
                    }
                }
                let escaped_len = rest[1..].chars().next().map_or(0, char::len_utf8);
                out.push_str(&rest[..1 + escaped_len]);
                rest = &rest[1 + escaped_len..];
                continue;
            }
            if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else {
            let constant = ["-Infinity", "Infinity", "NaN"].into_iter().find(|k| rest.starts_with(k));
            if let Some(k) = constant {
                out.push_str("null");
                rest = &rest[k.len()..];
                continue;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn python_only_constants_and_surrogates() {
        assert_eq!(
            loads(r#"{"a": NaN, "b": [Infinity, -Infinity], "s": "NaN"}"#).ok(),
            Some(json!({"a": null, "b": [null, null], "s": "NaN"}))
        );
        assert_eq!(loads(r#"{"s": "x\ud800y"}"#).ok(), Some(json!({"s": "x\u{fffd}y"})));
        assert_eq!(loads(r#"{"s": "\ud83d\ude00"}"#).ok(), Some(json!({"s": "😀"})));
        assert_eq!(loads(r#"{"s": "\\ud800"}"#).ok(), Some(json!({"s": "\\ud800"})));
        assert!(loads("{\"a\": 1,}").is_err());
    }
}
