//! Record dates read straight from a raw SQLite corpus file with plain SQL, independently of the
//! code under test. Shared by the boundary tests here (`shifted.rs`) and the CLI's
//! (`tests/cli/boundary.rs`, which includes this file by path).

use std::{collections::HashMap, path::Path};

use rusqlite::{Connection, OpenFlags, types::Value};

/// Record id → year of every row of `sql`, which selects (id, year); rows with a NULL year or an
/// id that is neither text nor an integer are left out.
pub fn sql_years(path: &Path, sql: &str) -> HashMap<String, i32> {
    let raw = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).expect("raw");
    let mut stmt = raw.prepare(sql).expect("prepare");
    stmt.query_map([], |r| Ok((r.get::<_, Value>(0)?, r.get::<_, Option<i64>>(1)?)))
        .expect("query")
        .map(|r| r.expect("row"))
        .filter_map(|(id, y)| {
            let id = match id {
                Value::Text(t) => t,
                Value::Integer(i) => i.to_string(),
                _ => return None,
            };
            Some((id, i32::try_from(y?).ok()?))
        })
        .collect()
}
