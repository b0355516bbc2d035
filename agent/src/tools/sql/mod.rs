//! The `sql` tool: one read-only SELECT/WITH statement on the task's route, nothing else.
//!
//! Layers, each sufficient against a different mistake:
//! 1. the file is opened `SQLITE_OPEN_READ_ONLY` (no URI parsing), with `query_only`,
//!    `trusted_schema = off`, defensive mode and `SQLITE_LIMIT_ATTACHED = 0`;
//! 2. the authorizer (`guard`) allows only reads of the route's tables and denies writes,
//!    DDL, ATTACH, PRAGMA, transactions and `load_extension`;
//! 3. exactly one statement, which must start with SELECT or WITH, be read-only and not an
//!    EXPLAIN;
//! 4. ground-truth rows and rows after the task's cutoff live behind TEMP views (`views`);
//! 5. a progress handler interrupts a statement at its time limit, and the row limit and
//!    cell-length limit bound the answer (truncation is reported, never silent).

mod guard;
mod schema;
mod views;

use std::{
    path::{Path, PathBuf},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Instant,
};

use anser_manifest::{CorpusFormat, Manifest, PublicTask, Route};
use rusqlite::{Connection, OpenFlags, config::DbConfig, limits::Limit, types::ValueRef};
use serde::Serialize;
use serde_json::Value;

pub use self::{
    guard::{Policy, first_keyword},
    schema::{ColumnInfo, FeatureRegistry, RegistryEntry, SchemaReport, TableInfo},
    views::{HiddenRule, ViewPlan},
};
use crate::{Error, Result, tools::boundary::Boundary};

/// Default time limit of one statement.
pub const DEFAULT_TIME_LIMIT_MS: u64 = 2_000;
/// Default number of rows returned; more are reported as truncated.
pub const DEFAULT_MAX_ROWS: usize = 200;
/// Default characters kept of one text cell (long report and opinion texts).
pub const DEFAULT_MAX_CELL_CHARS: usize = 2_000;
/// Longest SQL text accepted (characters).
pub const MAX_SQL_CHARS: usize = 20_000;
/// Largest string or blob a statement may build (bytes): bounds `zeroblob`, `printf`, ...
pub const MAX_VALUE_BYTES: i32 = 64 << 20;
/// SQLite VM instructions between two time-limit checks.
const PROGRESS_OPS: i32 = 1_000;

/// Limits of the SQL tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SqlParams {
    pub time_limit_ms: u64,
    pub max_rows: usize,
    pub max_cell_chars: usize,
}

impl Default for SqlParams {
    fn default() -> Self {
        SqlParams {
            time_limit_ms: DEFAULT_TIME_LIMIT_MS,
            max_rows: DEFAULT_MAX_ROWS,
            max_cell_chars: DEFAULT_MAX_CELL_CHARS,
        }
    }
}

impl SqlParams {
    /// Check the limits are usable: a time limit of 1 ms..=10 min, 1..=1,000,000 rows and at
    /// least 16 characters per cell.
    pub fn validate(&self) -> Result<()> {
        if !(1..=600_000).contains(&self.time_limit_ms) {
            return Err(Error::Param(format!("time_limit_ms {} is outside 1..=600000", self.time_limit_ms)));
        }
        if !(1..=1_000_000).contains(&self.max_rows) {
            return Err(Error::Param(format!("max_rows {} is outside 1..=1000000", self.max_rows)));
        }
        if self.max_cell_chars < 16 {
            return Err(Error::Param(format!("max_cell_chars {} is below 16", self.max_cell_chars)));
        }
        Ok(())
    }
}

/// The answer to one statement.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SqlResult {
    pub route: Route,
    pub sql: String,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
    /// Rows returned (≤ `max_rows`).
    pub row_count: usize,
    /// More rows existed than `max_rows`; they were not read.
    pub truncated: bool,
    /// Text cells cut to `max_cell_chars` characters.
    pub truncated_cells: usize,
    /// The information cutoff in force.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boundary: Option<Boundary>,
    pub elapsed_ms: f64,
}

/// A read-only, filtered connection to one route's SQLite file.
pub struct GuardedDb {
    conn: Connection,
    route: Route,
    path: PathBuf,
    params: SqlParams,
    boundary: Option<Boundary>,
    plan: ViewPlan,
    base: Instant,
    deadline_ns: Arc<AtomicU64>,
    denial: Arc<Mutex<Option<String>>>,
}

impl std::fmt::Debug for GuardedDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GuardedDb")
            .field("route", &self.route)
            .field("path", &self.path)
            .field("params", &self.params)
            .field("boundary", &self.boundary)
            .finish_non_exhaustive()
    }
}

impl GuardedDb {
    /// Open the task's route under `corpus_root` with the task's information boundary.
    pub fn for_task(corpus_root: &Path, task: &PublicTask, params: SqlParams) -> Result<GuardedDb> {
        let boundary = Boundary::from_task(task)?;
        let spec = Manifest::get().route(task.route);
        GuardedDb::open(&corpus_root.join(&spec.file), task.route, boundary, params)
    }

    /// Open `path` as route `route`. `boundary` hides records after its cutoff.
    pub fn open(path: &Path, route: Route, boundary: Option<Boundary>, params: SqlParams) -> Result<GuardedDb> {
        params.validate()?;
        let spec = Manifest::get().route(route);
        if spec.format != CorpusFormat::Sqlite {
            return Err(Error::NotSqlite(route));
        }
        let open_err = |message: String| Error::Open { route, path: path.to_path_buf(), message };
        if !path.is_file() {
            return Err(open_err("file not found (check --corpus-root; `anser corpus check` lists the routes)".into()));
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = Connection::open_with_flags(path, flags).map_err(|e| open_err(e.to_string()))?;
        let setup = |conn: &Connection| -> rusqlite::Result<()> {
            conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
            conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
            conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)?;
            conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)?;
            conn.set_limit(Limit::SQLITE_LIMIT_SQL_LENGTH, (MAX_SQL_CHARS * 4) as i32)?;
            Ok(())
        };
        setup(&conn).map_err(|e| open_err(format!("configuring the connection: {e}")))?;

        let present: Vec<String> = {
            let mut stmt = conn
                .prepare("SELECT name FROM main.sqlite_master WHERE type IN ('table', 'view')")
                .map_err(|e| open_err(e.to_string()))?;
            let names = stmt.query_map([], |r| r.get::<_, String>(0)).map_err(|e| open_err(e.to_string()))?;
            names.collect::<rusqlite::Result<_>>().map_err(|e| open_err(e.to_string()))?
        };
        for t in &spec.schema.tables {
            if !present.iter().any(|p| p.eq_ignore_ascii_case(&t.name)) {
                return Err(open_err(format!("table {} is missing (run `anser corpus check`)", t.name)));
            }
        }

        let plan = ViewPlan::new(spec, boundary.as_ref());
        for stmt in plan.create_statements() {
            conn.execute_batch(&stmt).map_err(|e| open_err(format!("creating filter views: {e}")))?;
        }
        conn.execute_batch("PRAGMA query_only = 1").map_err(|e| open_err(e.to_string()))?;

        let mut policy = Policy::default();
        for t in plan.filtered_tables() {
            let internal = plan.internal_name(t).to_ascii_lowercase();
            policy.temp_views.insert(t.to_ascii_lowercase());
            policy.temp_views.insert(internal.clone());
            policy.protected.insert(t.to_ascii_lowercase(), internal);
        }
        for t in &spec.schema.tables {
            let lower = t.name.to_ascii_lowercase();
            if !policy.protected.contains_key(&lower) {
                policy.readable.insert(lower);
            }
        }
        // The schema table (DDL text only) and the JSON table-valued functions, which read
        // nothing but their arguments. Other eponymous tables (`dbstat`, `pragma_*`) stay denied.
        policy.readable.extend(["sqlite_master", "sqlite_schema", "json_each", "json_tree"].map(String::from));
        let denial: Arc<Mutex<Option<String>>> = Arc::default();
        conn.authorizer(Some(policy.into_hook(Arc::clone(&denial)))).map_err(|e| open_err(e.to_string()))?;

        let base = Instant::now();
        let deadline_ns = Arc::new(AtomicU64::new(u64::MAX));
        let handler_deadline = Arc::clone(&deadline_ns);
        conn.progress_handler(
            PROGRESS_OPS,
            Some(move || (base.elapsed().as_nanos() as u64) > handler_deadline.load(Ordering::Relaxed)),
        )
        .map_err(|e| open_err(e.to_string()))?;

        Ok(GuardedDb { conn, route, path: path.to_path_buf(), params, boundary, plan, base, deadline_ns, denial })
    }

    pub fn route(&self) -> Route {
        self.route
    }

    pub fn params(&self) -> SqlParams {
        self.params
    }

    /// The information boundary in force.
    pub fn boundary(&self) -> Option<&Boundary> {
        self.boundary.as_ref()
    }

    /// Which rows this connection hides, and why.
    pub fn hidden_rules(&self) -> &[HiddenRule] {
        &self.plan.rules
    }

    /// Run one SELECT/WITH statement under the tool's limits.
    pub fn query(&self, sql: &str) -> Result<SqlResult> {
        self.query_with(sql, self.params.max_rows)
    }

    /// [`query`](Self::query) with another row limit (the planner reads whole populations).
    pub fn query_with(&self, sql: &str, max_rows: usize) -> Result<SqlResult> {
        let start = Instant::now();
        if sql.chars().count() > MAX_SQL_CHARS {
            return Err(Error::SqlRefused(format!("the statement is longer than {MAX_SQL_CHARS} characters")));
        }
        match first_keyword(sql).as_deref() {
            Some("SELECT" | "WITH") => {}
            Some(other) => {
                return Err(Error::SqlRefused(format!(
                    "{other} statements are not allowed; send exactly one SELECT or WITH query"
                )));
            }
            None => return Err(Error::SqlRefused("send exactly one SELECT or WITH query".into())),
        }
        let _deadline = Deadline::arm(self);
        let (columns, rows, truncated, truncated_cells) = self.run(sql, max_rows).map_err(|e| self.map_error(e))?;
        Ok(SqlResult {
            route: self.route,
            sql: sql.to_string(),
            row_count: rows.len(),
            columns,
            rows,
            truncated,
            truncated_cells,
            boundary: self.boundary.clone(),
            elapsed_ms: start.elapsed().as_secs_f64() * 1000.0,
        })
    }

    #[allow(clippy::type_complexity)]
    fn run(&self, sql: &str, max_rows: usize) -> Result<(Vec<String>, Vec<Vec<Value>>, bool, usize), RunError> {
        if let Ok(mut d) = self.denial.lock() {
            *d = None;
        }
        let mut stmt = self.conn.prepare(sql)?;
        if !stmt.readonly() {
            return Err(RunError::Refused("the statement would write; only SELECT/WITH queries run".into()));
        }
        if stmt.is_explain() != 0 {
            return Err(RunError::Refused("EXPLAIN is not allowed; send the query itself".into()));
        }
        let columns: Vec<String> = stmt.column_names().map(String::from).collect();
        let width = columns.len();
        let mut rows_out = Vec::new();
        let mut truncated = false;
        let mut cut = 0usize;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            if rows_out.len() == max_rows {
                truncated = true;
                break;
            }
            let mut out = Vec::with_capacity(width);
            for i in 0..width {
                out.push(cell(row.get_ref(i)?, self.params.max_cell_chars, &mut cut));
            }
            rows_out.push(out);
        }
        Ok((columns, rows_out, truncated, cut))
    }

    fn map_error(&self, e: RunError) -> Error {
        // An authorizer denial surfaces as SQLITE_AUTH, SQLITE_ERROR ("not authorized to use
        // function …") or an input error of the prepare step: the recorded reason says why.
        let denial = self.denial.lock().ok().and_then(|mut d| d.take());
        let e = match e {
            RunError::Refused(msg) => return Error::SqlRefused(msg),
            RunError::Sqlite(rusqlite::Error::MultipleStatement) => {
                return Error::SqlRefused("send exactly one statement (no `;` followed by another)".into());
            }
            RunError::Sqlite(e) => e,
        };
        if e.sqlite_error_code() == Some(rusqlite::ErrorCode::OperationInterrupted) {
            return Error::SqlTimeout { limit_ms: self.params.time_limit_ms };
        }
        if let Some(why) = denial {
            return Error::SqlRefused(why);
        }
        let msg = e.to_string();
        if e.sqlite_error_code() == Some(rusqlite::ErrorCode::AuthorizationForStatementDenied) {
            return Error::SqlRefused(msg);
        }
        if msg.contains("cannot modify") {
            return Error::SqlRefused("the SQL tool is read-only: only SELECT/WITH queries run".into());
        }
        Error::Sql(msg)
    }

    /// Schema introspection: tables, columns with types, sample values, visible row counts and
    /// (legal routes) the feature registry — all read through the same guard.
    pub fn schema(&self, samples_per_column: usize) -> Result<SchemaReport> {
        schema::describe(self, samples_per_column)
    }
}

/// Arms the statement deadline for one call and disarms it afterwards.
struct Deadline<'a>(&'a GuardedDb);

impl<'a> Deadline<'a> {
    fn arm(db: &'a GuardedDb) -> Deadline<'a> {
        let limit = db.params.time_limit_ms.saturating_mul(1_000_000);
        let now = db.base.elapsed().as_nanos() as u64;
        db.deadline_ns.store(now.saturating_add(limit), Ordering::Relaxed);
        Deadline(db)
    }
}

impl Drop for Deadline<'_> {
    fn drop(&mut self) {
        self.0.deadline_ns.store(u64::MAX, Ordering::Relaxed);
    }
}

enum RunError {
    Refused(String),
    Sqlite(rusqlite::Error),
}

impl From<rusqlite::Error> for RunError {
    fn from(e: rusqlite::Error) -> Self {
        RunError::Sqlite(e)
    }
}

fn cell(v: ValueRef<'_>, max_chars: usize, cut: &mut usize) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => Value::from(i),
        ValueRef::Real(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        ValueRef::Text(t) => {
            let s = String::from_utf8_lossy(t);
            match s.char_indices().nth(max_chars) {
                Some((end, _)) => {
                    *cut += 1;
                    Value::String(format!("{}…", &s[..end]))
                }
                None => Value::String(s.into_owned()),
            }
        }
        ValueRef::Blob(b) => Value::String(format!("<blob of {} bytes>", b.len())),
    }
}
