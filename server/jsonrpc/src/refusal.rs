//! Why a message body is not one a JSON-RPC 2.0 library will take, and whom to tell.

use serde_json::{Value, json};

/// JSON-RPC's error codes for what is refused here.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;

/// The error reply for a refused message: its code, the id to answer with (the request's own
/// when it can be read, else null), and what is wrong.
#[derive(Debug, PartialEq)]
pub struct Refusal {
    pub code: i64,
    pub id: Value,
    pub message: String,
}

impl Refusal {
    /// The JSON-RPC error reply that tells the client.
    pub fn reply(&self) -> Value {
        json!({"jsonrpc": "2.0", "id": self.id, "error": {"code": self.code, "message": self.message}})
    }
}

/// The message `parse` (the face's library reading the body) makes of `body`; if it cannot,
/// why not. The body is diagnosed only after a failed parse, so a good message is parsed once.
/// `batch_hint` tells a client that sent a JSON array how to send its messages instead.
pub fn parse<T>(
    body: &[u8],
    parse: impl FnOnce(&str) -> Result<T, serde_json::Error>,
    batch_hint: &str,
) -> Result<T, Refusal> {
    let text = match std::str::from_utf8(body) {
        Ok(text) => text,
        Err(e) => {
            return Err(Refusal {
                code: PARSE_ERROR,
                id: Value::Null,
                message: format!(
                    "the message is not UTF-8 (invalid byte at offset {})",
                    e.valid_up_to()
                ),
            });
        }
    };
    let error = match parse(text) {
        Ok(message) => return Ok(message),
        Err(error) => error,
    };
    if !error.is_data() {
        // Syntax, an early end, or nesting past serde_json's limit (128): not JSON we can read.
        // Too deep is still JSON: its request's id is read without the nesting, so the client
        // gets the answer to the request it is waiting for.
        let too_deep = error.to_string().starts_with("recursion limit exceeded");
        return Err(Refusal {
            code: PARSE_ERROR,
            id: too_deep
                .then(|| shallow_request_id(text))
                .flatten()
                .unwrap_or(Value::Null),
            message: if too_deep {
                format!(
                    "the message nests deeper than the 128 levels Tandem reads ({error}); send \
                     flatter params"
                )
            } else {
                format!("the message is not JSON: {error}")
            },
        });
    }
    // It is JSON (so parsing it again is safe): say what is wrong with its shape.
    let value: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let (id, why) = shape_problem(&value, &error, batch_hint);
    Err(Refusal {
        code: INVALID_REQUEST,
        id,
        message: format!("not a JSON-RPC 2.0 message: {why}"),
    })
}

/// Why a JSON value is not a message, and the id to answer with: the request's own id when it
/// is a valid one (an integer or a string), else null. A response-shaped value is answered with
/// null: its id names one of our requests, and the client would take our error as the answer to
/// its own request.
fn shape_problem(value: &Value, error: &serde_json::Error, batch_hint: &str) -> (Value, String) {
    let Some(object) = value.as_object() else {
        let why = if value.is_array() {
            format!("a batch (a JSON array) is not supported; {batch_hint}")
        } else {
            "a message is a JSON object".into()
        };
        return (Value::Null, why);
    };
    let id = object.get("id");
    let valid_id = id.filter(|id| id.is_string() || id.is_null() || id.is_i64());
    let request_shaped = object.contains_key("method");
    let answer_id = match valid_id {
        Some(id) if request_shaped => id.clone(),
        _ => Value::Null,
    };
    let why = if object.get("jsonrpc") != Some(&Value::from("2.0")) {
        "\"jsonrpc\" must be \"2.0\"".into()
    } else if let (Some(id), None) = (id, valid_id) {
        format!("\"id\" must be an integer or a string, not {}", brief(id))
    } else if request_shaped && !object["method"].is_string() {
        "\"method\" must be a string".into()
    } else if !request_shaped && !object.contains_key("result") && !object.contains_key("error") {
        "it has neither \"method\" (a request) nor \"result\" or \"error\" (a response)".into()
    } else if !request_shaped && id.is_none() {
        "a response needs an \"id\"".into()
    } else {
        error.to_string()
    };
    (answer_id, why)
}

/// The id of a request (an object with a `method`) read from its top level alone, skipping each
/// nested value by counting brackets (no recursion, so any depth): `None` when the text is not
/// such an object or its id is not an integer or a string.
fn shallow_request_id(text: &str) -> Option<Value> {
    let b = text.as_bytes();
    let ws = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let mut i = ws(0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    let (mut id, mut method) = (None, false);
    i = ws(i + 1);
    while b.get(i) != Some(&b'}') {
        let key_end = skip_string(b, i)?;
        let key: String = serde_json::from_str(&text[i..key_end]).ok()?;
        i = ws(key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let start = ws(i + 1);
        let end = skip_value(b, start)?;
        match key.as_str() {
            "id" => id = serde_json::from_str::<Value>(&text[start..end]).ok(),
            "method" => method = true,
            _ => {}
        }
        i = ws(end);
        match b.get(i) {
            Some(b',') => i = ws(i + 1),
            Some(b'}') => {}
            _ => return None,
        }
    }
    id.filter(|id| method && (id.is_i64() || id.is_string()))
}

/// The end of the string starting at `i` (just past its closing quote).
fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

/// The end of the value starting at `i`: a string, a bracketed value at any depth, or a scalar.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let (mut depth, mut j) = (0usize, i);
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']') && !b[j].is_ascii_whitespace()
            {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

/// A JSON value named by its kind, for an error message (never the whole value).
fn brief(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(_) => "a boolean".into(),
        Value::Number(n) => format!("the number {n}"),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in library that takes only JSON-RPC 2.0 requests with a string method.
    fn strict(text: &str) -> Result<(), serde_json::Error> {
        let v: Value = serde_json::from_str(text)?;
        let ok = v["jsonrpc"] == "2.0"
            && v["method"].is_string()
            && v.get("id").is_none_or(|id| id.is_i64() || id.is_string());
        if ok {
            Ok(())
        } else {
            Err(<serde_json::Error as serde::de::Error>::custom(
                "not a request",
            ))
        }
    }

    fn refusal(body: &[u8]) -> Option<Refusal> {
        parse(body, strict, "send one at a time").err()
    }

    fn refused(body: &str) -> Refusal {
        refusal(body.as_bytes()).expect("refused")
    }

    #[test]
    fn each_kind_of_bad_message_is_named_and_a_readable_request_id_kept() {
        assert!(refusal(br#"{"jsonrpc":"2.0","method":"m"}"#).is_none());
        let r = refusal(b"\xff{}").unwrap();
        assert_eq!((r.code, r.id.clone()), (PARSE_ERROR, Value::Null));
        assert!(r.message.contains("not UTF-8"), "{}", r.message);
        assert_eq!(refused("{").code, PARSE_ERROR);
        let r = refused("[1]");
        assert!(r.message.contains("batch") && r.message.contains("send one at a time"));
        let r = refused(r#"{"jsonrpc":"1.0","id":7,"method":"m"}"#);
        assert_eq!((r.code, r.id.clone()), (INVALID_REQUEST, Value::from(7)));
        assert!(r.message.contains("\"jsonrpc\" must be \"2.0\""));
        let r = refused(r#"{"jsonrpc":"2.0","id":{"a":1},"method":"m"}"#);
        assert_eq!(r.id, Value::Null);
        assert!(r.message.contains("not an object"), "{}", r.message);
        let r = refused(r#"{"jsonrpc":"2.0","id":3,"method":5}"#);
        assert!(r.message.contains("\"method\" must be a string"));
        let r = refused(r#"{"jsonrpc":"2.0","id":3}"#);
        assert!(r.message.contains("neither"), "{}", r.message);
        // A response's id is ours: never answered with it.
        let r = refused(r#"{"jsonrpc":"2.0","result":1}"#);
        assert!(r.message.contains("needs an \"id\""), "{}", r.message);
    }

    #[test]
    fn a_request_nested_too_deep_is_answered_with_its_own_id() {
        let deep = |id: &str, depth: usize| {
            format!(
                r#"{{"jsonrpc":"2.0","params":{{"s":"]}}\"","x":{}{}}},"id":{id},"method":"m"}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            )
        };
        let r = refused(&deep("7", 100_000));
        assert_eq!((r.code, r.id.clone()), (PARSE_ERROR, Value::from(7)));
        assert!(
            r.message.contains("deeper than the 128 levels"),
            "{}",
            r.message
        );
        assert_eq!(refused(&deep("\"a\\\"b\"", 200)).id, Value::from("a\"b"));
        // Not a request, or no usable id: null, as for any parse error.
        assert_eq!(refused(&deep("{}", 200)).id, Value::Null);
        let response = format!(
            r#"{{"jsonrpc":"2.0","id":1,"result":{}{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        assert_eq!(refused(&response).id, Value::Null);
        // Cut off: nothing to read.
        assert_eq!(refused(&deep("7", 200)[..300]).code, PARSE_ERROR);
    }
}

#[cfg(test)]
mod props {
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_body_is_taken_or_refused_never_a_panic(body in prop::collection::vec(any::<u8>(), 0..500)) {
            let _ = super::parse(&body, |t| serde_json::from_str::<serde_json::Value>(t), "");
        }
    }
}
