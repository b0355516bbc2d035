//! Replacements, on every tool connection, for the SQLite built-ins whose single call can take
//! quadratic time: `instr`, `replace`, two-argument `trim`/`ltrim`/`rtrim`/`unhex`, `LIKE`
//! (`like`, two and three arguments) and `GLOB`.
//!
//! Why: SQLite checks its time limit (progress handler, `sqlite3_interrupt`) only between VM
//! instructions, and one call of these functions is one instruction. `instr(printf('%.*c',
//! 4000000, 'a'), …)` or a long `LIKE` ran 15–20 s against a 2 s limit. These versions return
//! exactly what the built-ins return, but `instr`, `replace`, `trim` and `unhex` run in linear
//! time (`memchr::memmem`, hash sets instead of nested scans), and `LIKE`/`GLOB` — a faithful
//! port of SQLite's `patternCompare`, which stays O(string × pattern) — check the statement's
//! deadline every [`CHECK_EVERY`] steps.
//!
//! Arguments are converted to text as SQLite does (a REAL by SQLite itself); invalid UTF-8 in
//! a text result is replaced by U+FFFD (the built-ins pass it through).

use std::{
    borrow::Cow,
    collections::{HashMap, HashSet},
    sync::Arc,
};

use rusqlite::{
    Connection, Error as SqlError,
    ffi::{self, SQLITE_INTERRUPT, SQLITE_TOOBIG},
    functions::{Context, FunctionFlags},
    types::{ToSqlOutput, Value as SqlValue, ValueRef},
};

use super::watch::Watch;

/// Pattern-matching steps between two deadline checks.
pub const CHECK_EVERY: u64 = 1 << 14;

/// What the replacements need from the connection's limits.
#[derive(Debug, Clone, Copy)]
pub struct FnLimits {
    /// `SQLITE_LIMIT_LENGTH`: the largest string or blob a function may return.
    pub max_value_bytes: usize,
    /// Longest LIKE/GLOB pattern in bytes (the port recurses once per wildcard).
    pub like_pattern_bytes: usize,
}

/// Register the replacements on `conn`.
pub fn register(conn: &Connection, watch: &Arc<Watch>, limits: FnLimits) -> rusqlite::Result<()> {
    let flags = FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC | FunctionFlags::SQLITE_INNOCUOUS;
    conn.create_scalar_function("instr", 2, flags, |ctx| Ok(instr(ctx.get_raw(0), ctx.get_raw(1))))?;
    conn.create_scalar_function("replace", 3, flags, move |ctx| {
        replace(ctx.get_raw(0), ctx.get_raw(1), ctx.get_raw(2), limits.max_value_bytes)
    })?;
    for (name, ends) in [("trim", Ends::Both), ("ltrim", Ends::Left), ("rtrim", Ends::Right)] {
        conn.create_scalar_function(name, 2, flags, move |ctx| Ok(trim(ctx.get_raw(0), ctx.get_raw(1), ends)))?;
    }
    conn.create_scalar_function("unhex", 2, flags, |ctx| Ok(unhex(ctx.get_raw(0), ctx.get_raw(1))))?;
    for n_arg in [2, 3] {
        let w = Arc::clone(watch);
        conn.create_scalar_function("like", n_arg, flags, move |ctx| like_fn(ctx, &LIKE, &w, limits))?;
    }
    let w = Arc::clone(watch);
    conn.create_scalar_function("glob", 2, flags, move |ctx| like_fn(ctx, &GLOB, &w, limits))?;
    Ok(())
}

/// An error with `message`; the statement fails with SQLITE_ERROR.
fn failure(message: &str) -> SqlError {
    SqlError::SqliteFailure(ffi::Error::new(ffi::SQLITE_ERROR), Some(message.to_string()))
}

/// An error that keeps its result code (SQLite supplies the message): a message would turn
/// the code into SQLITE_ERROR.
fn coded(code: i32) -> SqlError {
    SqlError::SqliteFailure(ffi::Error::new(code), None)
}

fn too_big() -> SqlError {
    coded(SQLITE_TOOBIG)
}

/// A value as SQLite's `sqlite3_value_text` sees it (`None` for NULL).
fn text(v: ValueRef<'_>) -> Option<Cow<'_, [u8]>> {
    match v {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(Cow::Owned(i.to_string().into_bytes())),
        ValueRef::Real(f) => Some(Cow::Owned(real_text(f).into_bytes())),
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(Cow::Borrowed(t)),
    }
}

/// SQLite's text of a REAL, from SQLite itself: its 17-digit rendering is not the exactly
/// rounded one, so no Rust formatting reproduces it. A per-thread in-memory connection does
/// the cast (REAL arguments to string functions are rare).
fn real_text(f: f64) -> String {
    thread_local! {
        static CAST: Option<Connection> = Connection::open_in_memory().ok();
    }
    CAST.with(|conn| {
        let conn = conn.as_ref()?;
        let mut stmt = conn.prepare_cached("SELECT CAST(?1 AS TEXT)").ok()?;
        stmt.query_row([f], |r| r.get::<_, String>(0)).ok()
    })
    .unwrap_or_else(|| format!("{f:?}"))
}

fn text_output(bytes: Vec<u8>) -> ToSqlOutput<'static> {
    let s = match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    };
    ToSqlOutput::Owned(SqlValue::Text(s))
}

fn null() -> ToSqlOutput<'static> {
    ToSqlOutput::Owned(SqlValue::Null)
}

fn is_continuation(b: u8) -> bool {
    b & 0xc0 == 0x80
}

/// `instr(X, Y)`: 1-based position of the first Y in X (characters for text, bytes when both
/// are blobs), 0 if none, NULL if either is NULL.
fn instr(haystack: ValueRef<'_>, needle: ValueRef<'_>) -> Option<i64> {
    let blobs = matches!((haystack, needle), (ValueRef::Blob(_), ValueRef::Blob(_)));
    let (h, n) = (text(haystack)?, text(needle)?);
    if n.is_empty() {
        return Some(1);
    }
    // SQLite compares only at character starts (text) or every byte (two blobs).
    let at = memchr::memmem::find_iter(&h, &n[..]).find(|&p| blobs || p == 0 || !is_continuation(h[p]));
    Some(match at {
        None => 0,
        Some(p) if blobs => p as i64 + 1,
        Some(0) => 1,
        Some(p) => 1 + h[1..=p].iter().filter(|&&b| !is_continuation(b)).count() as i64,
    })
}

/// `replace(X, Y, Z)`: every non-overlapping Y in X, left to right, replaced by Z (bytes).
fn replace(
    x: ValueRef<'_>,
    y: ValueRef<'_>,
    z: ValueRef<'_>,
    max_bytes: usize,
) -> rusqlite::Result<ToSqlOutput<'static>> {
    let Some(x) = text(x) else { return Ok(null()) };
    let Some(y) = text(y) else { return Ok(null()) };
    if y.first().is_none_or(|&b| b == 0) {
        return if x.len() > max_bytes { Err(too_big()) } else { Ok(text_output(x.into_owned())) };
    }
    let Some(z) = text(z) else { return Ok(null()) };
    let hits: Vec<usize> = memchr::memmem::find_iter(&x, &y[..]).collect();
    let out_len = (x.len() - hits.len() * y.len()).saturating_add(hits.len().saturating_mul(z.len()));
    if out_len > max_bytes {
        return Err(too_big());
    }
    let mut out = Vec::with_capacity(out_len);
    let mut from = 0;
    for p in hits {
        out.extend_from_slice(&x[from..p]);
        out.extend_from_slice(&z);
        from = p + y.len();
    }
    out.extend_from_slice(&x[from..]);
    Ok(text_output(out))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ends {
    Left,
    Right,
    Both,
}

/// SQLite's character units of a C string (stops at NUL; a lead byte takes its continuation
/// bytes, however many).
fn char_units(s: &[u8]) -> Vec<&[u8]> {
    let s = until_nul(s);
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let start = i;
        i += 1;
        if s[start] >= 0xc0 {
            while i < s.len() && is_continuation(s[i]) {
                i += 1;
            }
        }
        out.push(&s[start..i]);
    }
    out
}

fn until_nul(s: &[u8]) -> &[u8] {
    memchr::memchr(0, s).map_or(s, |n| &s[..n])
}

/// `trim(X, Y)` and friends: remove characters of Y from the chosen ends of X.
fn trim(x: ValueRef<'_>, set: ValueRef<'_>, ends: Ends) -> ToSqlOutput<'static> {
    let Some(x) = text(x) else { return null() };
    let Some(set) = text(set) else { return null() };
    // First position of each character in Y: where two could match, SQLite takes the earlier.
    let mut rank: HashMap<&[u8], usize> = HashMap::new();
    for (i, unit) in char_units(&set).into_iter().enumerate() {
        rank.entry(unit).or_insert(i);
    }
    let mut lengths: Vec<usize> = rank.keys().map(|u| u.len()).collect::<HashSet<_>>().into_iter().collect();
    lengths.sort_unstable();
    let pick = |candidates: &mut dyn Iterator<Item = &[u8]>| -> Option<usize> {
        candidates.filter_map(|c| rank.get(c).map(|r| (*r, c.len()))).min().map(|(_, len)| len)
    };
    let (mut lo, mut hi) = (0, x.len());
    if !rank.is_empty() {
        if ends != Ends::Right {
            while lo < hi {
                let window = &x[lo..hi];
                match pick(&mut lengths.iter().filter(|&&l| l <= window.len()).map(|&l| &window[..l])) {
                    Some(len) => lo += len,
                    None => break,
                }
            }
        }
        if ends != Ends::Left {
            while lo < hi {
                let window = &x[lo..hi];
                let n = window.len();
                match pick(&mut lengths.iter().filter(|&&l| l <= n).map(|&l| &window[n - l..])) {
                    Some(len) => hi -= len,
                    None => break,
                }
            }
        }
    }
    text_output(x[lo..hi].to_vec())
}

/// `unhex(X, Y)`: hex digit pairs of X as a blob; characters of Y may stand between pairs.
fn unhex(x: ValueRef<'_>, pass: ValueRef<'_>) -> ToSqlOutput<'static> {
    let Some(hex) = text(x) else { return null() };
    let Some(pass) = text(pass) else { return null() };
    let mut allowed = HashSet::new();
    let mut i = 0;
    while i < pass.len() {
        allowed.insert(utf8_read(&pass, &mut i));
    }
    let hex = until_nul(&hex);
    let digit = |b: u8| char::from(b).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(hex.len() / 2);
    let mut i = 0;
    while i < hex.len() {
        while digit(hex[i]).is_none() {
            if !allowed.contains(&utf8_read(hex, &mut i)) {
                return null();
            }
            if i >= hex.len() {
                return ToSqlOutput::Owned(SqlValue::Blob(out));
            }
        }
        let (Some(hi), Some(lo)) = (digit(hex[i]), hex.get(i + 1).copied().and_then(digit)) else {
            return null();
        };
        out.push((hi << 4) | lo);
        i += 2;
    }
    ToSqlOutput::Owned(SqlValue::Blob(out))
}

/// SQLite's `sqlite3Utf8Trans1`: the value bits of a lead byte 0xc0..=0xff.
const UTF8_TRANS1: [u8; 64] = [
    0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12,
    0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05,
    0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x00,
    0x01, 0x02, 0x03, 0x00, 0x01, 0x00, 0x00,
];

fn byte(s: &[u8], i: usize) -> u8 {
    s.get(i).copied().unwrap_or(0)
}

/// SQLite's `sqlite3Utf8Read`: the next character (0 at the end), lenient about bad UTF-8.
fn utf8_read(s: &[u8], i: &mut usize) -> u32 {
    let mut c = u32::from(byte(s, *i));
    *i += 1;
    if c >= 0xc0 {
        c = u32::from(UTF8_TRANS1[(c - 0xc0) as usize]);
        while is_continuation(byte(s, *i)) {
            c = c.wrapping_shl(6).wrapping_add(u32::from(byte(s, *i) & 0x3f));
            *i += 1;
        }
        if c < 0x80 || (c & 0xFFFF_F800) == 0xD800 || (c & 0xFFFF_FFFE) == 0xFFFE {
            c = 0xFFFD;
        }
    }
    c
}

/// SQLite's `SQLITE_SKIP_UTF8`.
fn skip_utf8(s: &[u8], i: &mut usize) {
    let lead = byte(s, *i);
    *i += 1;
    if lead >= 0xc0 {
        while is_continuation(byte(s, *i)) {
            *i += 1;
        }
    }
}

/// SQLite's `compareInfo`.
#[derive(Debug, Clone, Copy)]
struct CompareInfo {
    match_all: u32,
    match_one: u32,
    match_set: u32,
    no_case: bool,
}

const GLOB: CompareInfo =
    CompareInfo { match_all: b'*' as u32, match_one: b'?' as u32, match_set: b'[' as u32, no_case: false };
const LIKE: CompareInfo = CompareInfo { match_all: b'%' as u32, match_one: b'_' as u32, match_set: 0, no_case: true };

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Match,
    NoMatch,
    /// No match even with the wildcards' help: the caller stops trying later starts.
    NoWildcardMatch,
    /// The statement's deadline passed.
    Stopped,
}

/// `patternCompare` with a step counter that consults the deadline.
struct Matcher<'a> {
    info: CompareInfo,
    /// The escape character (LIKE) or `[` (GLOB).
    other: u32,
    steps: u64,
    next_check: u64,
    watch: &'a Watch,
}

impl Matcher<'_> {
    fn tick(&mut self, n: u64) -> bool {
        self.steps += n;
        if self.steps >= self.next_check {
            self.next_check = self.steps + CHECK_EVERY;
            return self.watch.expired();
        }
        false
    }

    fn compare(&mut self, pat: &[u8], mut p: usize, s: &[u8], mut si: usize) -> Outcome {
        let CompareInfo { match_all, match_one, match_set, no_case } = self.info;
        let mut escaped_end: Option<usize> = None;
        loop {
            if self.tick(1) {
                return Outcome::Stopped;
            }
            let mut c = utf8_read(pat, &mut p);
            if c == 0 {
                break;
            }
            if c == match_all {
                loop {
                    c = utf8_read(pat, &mut p);
                    if c == match_all {
                        continue;
                    }
                    if c == match_one && match_one != 0 {
                        if utf8_read(s, &mut si) == 0 {
                            return Outcome::NoWildcardMatch;
                        }
                        continue;
                    }
                    break;
                }
                if c == 0 {
                    return Outcome::Match;
                } else if c == self.other {
                    if match_set == 0 {
                        c = utf8_read(pat, &mut p);
                        if c == 0 {
                            return Outcome::NoWildcardMatch;
                        }
                    } else {
                        // "[...]" right after "*": try every start.
                        while byte(s, si) != 0 {
                            let r = self.compare(pat, p - 1, s, si);
                            if r != Outcome::NoMatch {
                                return r;
                            }
                            skip_utf8(s, &mut si);
                        }
                        return Outcome::NoWildcardMatch;
                    }
                }
                if c < 0x80 {
                    let c = c as u8;
                    let stop = if no_case { [c.to_ascii_uppercase(), c.to_ascii_lowercase()] } else { [c, c] };
                    loop {
                        // `s` holds no NUL (cut by the caller), like the C string strcspn scans.
                        let rest = s.get(si..).unwrap_or_default();
                        let found = memchr::memchr2(stop[0], stop[1], rest);
                        if self.tick(found.unwrap_or(rest.len()) as u64 / 16 + 1) {
                            return Outcome::Stopped;
                        }
                        let Some(off) = found else { break };
                        si += off + 1;
                        let r = self.compare(pat, p, s, si);
                        if r != Outcome::NoMatch {
                            return r;
                        }
                    }
                } else {
                    loop {
                        let c2 = utf8_read(s, &mut si);
                        if c2 == 0 {
                            break;
                        }
                        if c2 != c {
                            if self.tick(1) {
                                return Outcome::Stopped;
                            }
                            continue;
                        }
                        let r = self.compare(pat, p, s, si);
                        if r != Outcome::NoMatch {
                            return r;
                        }
                    }
                }
                return Outcome::NoWildcardMatch;
            }
            if c == self.other {
                if match_set == 0 {
                    c = utf8_read(pat, &mut p);
                    if c == 0 {
                        return Outcome::NoMatch;
                    }
                    escaped_end = Some(p);
                } else {
                    let mut prior = 0u32;
                    let mut seen = false;
                    let mut invert = false;
                    let c = utf8_read(s, &mut si);
                    if c == 0 {
                        return Outcome::NoMatch;
                    }
                    let mut c2 = utf8_read(pat, &mut p);
                    if c2 == u32::from(b'^') {
                        invert = true;
                        c2 = utf8_read(pat, &mut p);
                    }
                    if c2 == u32::from(b']') {
                        if c == u32::from(b']') {
                            seen = true;
                        }
                        c2 = utf8_read(pat, &mut p);
                    }
                    while c2 != 0 && c2 != u32::from(b']') {
                        if c2 == u32::from(b'-') && byte(pat, p) != b']' && byte(pat, p) != 0 && prior > 0 {
                            c2 = utf8_read(pat, &mut p);
                            if c >= prior && c <= c2 {
                                seen = true;
                            }
                            prior = 0;
                        } else {
                            if c == c2 {
                                seen = true;
                            }
                            prior = c2;
                        }
                        c2 = utf8_read(pat, &mut p);
                    }
                    if c2 == 0 || seen == invert {
                        return Outcome::NoMatch;
                    }
                    continue;
                }
            }
            let c2 = utf8_read(s, &mut si);
            if c == c2 {
                continue;
            }
            if no_case && c < 0x80 && c2 < 0x80 && (c as u8).eq_ignore_ascii_case(&(c2 as u8)) {
                continue;
            }
            if c == match_one && escaped_end != Some(p) && c2 != 0 {
                continue;
            }
            return Outcome::NoMatch;
        }
        if byte(s, si) == 0 { Outcome::Match } else { Outcome::NoMatch }
    }
}

/// `like(pattern, string[, escape])` and `glob(pattern, string)`.
fn like_fn(ctx: &Context<'_>, base: &CompareInfo, watch: &Watch, limits: FnLimits) -> rusqlite::Result<Option<bool>> {
    let pattern = text(ctx.get_raw(0));
    if pattern.as_ref().map_or(0, |p| p.len()) > limits.like_pattern_bytes {
        return Err(failure("LIKE or GLOB pattern too complex"));
    }
    let mut info = *base;
    let other = if ctx.len() == 3 {
        let Some(esc) = text(ctx.get_raw(2)) else { return Ok(None) };
        let esc = until_nul(&esc);
        if char_units(esc).len() != 1 {
            return Err(failure("ESCAPE expression must be a single character"));
        }
        let escape = utf8_read(esc, &mut 0);
        if escape == info.match_all {
            info.match_all = 0;
        }
        if escape == info.match_one {
            info.match_one = 0;
        }
        escape
    } else {
        info.match_set
    };
    let (Some(pattern), Some(string)) = (pattern, text(ctx.get_raw(1))) else { return Ok(None) };
    let mut m = Matcher { info, other, steps: 0, next_check: CHECK_EVERY, watch };
    match m.compare(until_nul(&pattern), 0, until_nul(&string), 0) {
        Outcome::Match => Ok(Some(true)),
        Outcome::NoMatch | Outcome::NoWildcardMatch => Ok(Some(false)),
        Outcome::Stopped => Err(coded(SQLITE_INTERRUPT)),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn real_arguments_read_as_sqlite_renders_them() {
        // SQLite's renderings (its 17th digit of 1/3 is not the exactly rounded 1), not Rust's
        // shortest round-trip forms ("0.6666666666666666", "100", "1e20").
        assert_eq!(real_text(2.0 / 3.0), "0.66666666666666663");
        assert_eq!(real_text(1.0 / 3.0), "0.33333333333333332");
        assert_eq!(real_text(100.0), "100.0");
        assert_eq!(real_text(1e20), "1.0e+20");
    }

    #[test]
    fn char_units_follow_sqlite() {
        assert_eq!(char_units("aé€".as_bytes()), [&b"a"[..], "é".as_bytes(), "€".as_bytes()]);
        assert_eq!(char_units(b"ab\0cd"), [&b"a"[..], b"b"]);
    }

    #[test]
    fn a_stopped_watch_stops_pattern_matching() {
        let watch = Watch::new();
        watch.arm(Duration::ZERO, None);
        std::thread::sleep(Duration::from_millis(1));
        let s = vec![b'a'; 200_000];
        let pat = format!("%{}b", "a".repeat(1_000));
        let mut m = Matcher { info: LIKE, other: 0, steps: 0, next_check: CHECK_EVERY, watch: &watch };
        assert_eq!(m.compare(pat.as_bytes(), 0, &s, 0), Outcome::Stopped);
        assert!(m.steps < 2 * CHECK_EVERY, "stopped at the first check, after {} steps", m.steps);
    }
}
