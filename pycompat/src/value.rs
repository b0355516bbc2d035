//! Python's JSON value model: what `json.loads` returns and `json.dumps` takes.
//!
//! A leaf module (no other module of this crate is used here), so the scanner/printer in
//! [`crate::json`] and the string helpers can both depend on it without a cycle. Integers keep
//! Python's arbitrary precision as canonical decimal text; dictionaries keep insertion order.

/// A JSON value as Python's `json` module holds it.
#[derive(Debug, Clone, PartialEq)]
pub enum Py {
    Null,
    Bool(bool),
    /// Python `int` (arbitrary precision), kept as canonical decimal text.
    Int(PyInt),
    Float(f64),
    Str(String),
    List(Vec<Py>),
    Dict(Dict),
}

/// An arbitrary-precision integer as canonical decimal text (`-12`, `0`; never `-0` or `007`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PyInt(pub(crate) String);

impl PyInt {
    /// Canonicalise a decimal literal made of an optional `-` and ASCII digits.
    pub(crate) fn from_literal(text: &str) -> PyInt {
        let (negative, digits) = match text.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let digits = digits.trim_start_matches('0');
        if digits.is_empty() {
            PyInt("0".into())
        } else if negative {
            PyInt(format!("-{digits}"))
        } else {
            PyInt(digits.into())
        }
    }

    /// `float(int)`: correctly rounded (infinite beyond the f64 range, where Python raises).
    pub fn to_f64(&self) -> f64 {
        self.0.parse().unwrap_or(f64::NAN)
    }

    /// The decimal text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the value is zero (Python truthiness).
    pub fn is_zero(&self) -> bool {
        self.0 == "0"
    }
}

impl From<i64> for PyInt {
    fn from(v: i64) -> Self {
        PyInt(v.to_string())
    }
}

impl From<u64> for PyInt {
    fn from(v: u64) -> Self {
        PyInt(v.to_string())
    }
}

/// A Python `dict` with string keys: insertion order, a repeated key keeps its first position
/// and takes the last value (what `json.loads` does with duplicate keys).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Dict(Vec<(String, Py)>);

impl Dict {
    pub fn new() -> Dict {
        Dict(Vec::new())
    }

    pub fn get(&self, key: &str) -> Option<&Py> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.0.iter().any(|(k, _)| k == key)
    }

    /// Insert or replace in place.
    pub fn insert(&mut self, key: impl Into<String>, value: Py) {
        let key = key.into();
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key, value)),
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Py)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl IntoIterator for Dict {
    type Item = (String, Py);
    type IntoIter = std::vec::IntoIter<(String, Py)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl FromIterator<(String, Py)> for Dict {
    fn from_iter<T: IntoIterator<Item = (String, Py)>>(iter: T) -> Self {
        let mut d = Dict::new();
        for (k, v) in iter {
            d.insert(k, v);
        }
        d
    }
}

impl Py {
    /// `value.get(key)` on a dict; `None` for any other value.
    pub fn get(&self, key: &str) -> Option<&Py> {
        match self {
            Py::Dict(d) => d.get(key),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Py::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_dict(&self) -> Option<&Dict> {
        match self {
            Py::Dict(d) => Some(d),
            _ => None,
        }
    }

    /// Python truthiness.
    pub fn truthy(&self) -> bool {
        match self {
            Py::Null => false,
            Py::Bool(b) => *b,
            Py::Int(i) => !i.is_zero(),
            Py::Float(f) => *f != 0.0,
            Py::Str(s) => !s.is_empty(),
            Py::List(l) => !l.is_empty(),
            Py::Dict(d) => !d.is_empty(),
        }
    }

    /// `isinstance(v, (int, float))` — booleans included, as in Python.
    pub fn is_number_or_bool(&self) -> bool {
        matches!(self, Py::Bool(_) | Py::Int(_) | Py::Float(_))
    }

    /// The value as f64 when it is an int or float (not a bool).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Py::Int(i) => Some(i.to_f64()),
            Py::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// Convert a serde_json value (task files are loaded with serde_json by anser-manifest).
    /// Integers stay integers, everything with a fraction or exponent is a float.
    pub fn from_serde(v: &serde_json::Value) -> Py {
        match v {
            serde_json::Value::Null => Py::Null,
            serde_json::Value::Bool(b) => Py::Bool(*b),
            serde_json::Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Py::Int(i.into())
                } else if let Some(u) = n.as_u64() {
                    Py::Int(u.into())
                } else {
                    Py::Float(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            serde_json::Value::String(s) => Py::Str(s.clone()),
            serde_json::Value::Array(a) => Py::List(a.iter().map(Py::from_serde).collect()),
            serde_json::Value::Object(o) => Py::Dict(o.iter().map(|(k, v)| (k.clone(), Py::from_serde(v))).collect()),
        }
    }

    /// Convert to serde_json (non-finite floats become null, which serde_json cannot hold).
    pub fn to_serde(&self) -> serde_json::Value {
        match self {
            Py::Null => serde_json::Value::Null,
            Py::Bool(b) => serde_json::Value::Bool(*b),
            Py::Int(i) => serde_json::from_str(i.as_str()).unwrap_or_else(|_| {
                serde_json::Number::from_f64(i.to_f64()).map_or(serde_json::Value::Null, Into::into)
            }),
            Py::Float(f) => serde_json::Number::from_f64(*f).map_or(serde_json::Value::Null, Into::into),
            Py::Str(s) => serde_json::Value::String(s.clone()),
            Py::List(l) => serde_json::Value::Array(l.iter().map(Py::to_serde).collect()),
            Py::Dict(d) => serde_json::Value::Object(d.iter().map(|(k, v)| (k.to_string(), v.to_serde())).collect()),
        }
    }
}
