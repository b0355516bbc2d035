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
//! 5. resource limits that hold (`watch`, `functions`, [`SqlParams`]): a statement stops at
//!    its time limit or the task's deadline, whichever comes first — checked between VM
//!    instructions by the progress handler and inside every built-in that could run long in
//!    one call (replaced by linear-time or deadline-checking versions); values are capped by
//!    `SQLITE_LIMIT_LENGTH`; temporary storage (sorts, DISTINCT, materialised subqueries) stays
//!    in memory under a heap ceiling, so a read-only tool writes no temp file; the row limit
//!    and cell-length limit bound the answer (truncation is reported, never silent).

mod functions;
mod guard;
mod schema;
mod views;
mod watch;

use std::{
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use anser_manifest::{CorpusFormat, Manifest, PublicTask, Route};
use rusqlite::{Connection, OpenFlags, config::DbConfig, limits::Limit, types::ValueRef};
use serde::Serialize;
use serde_json::Value;

pub(crate) use self::views::quote_ident;
use self::{functions::FnLimits, watch::Watch};
pub use self::{
    guard::{Policy, first_keyword},
    schema::{ColumnInfo, FeatureRegistry, RegistryEntry, SchemaReport, TableInfo},
    views::{HiddenRule, ViewPlan},
    watch::{SqlInterrupt, Stop},
};
use crate::{Error, Result, tools::boundary::Boundary};

/// Default time limit of one statement (wall clock, including time inside one function call).
pub const DEFAULT_TIME_LIMIT_MS: u64 = 2_000;
/// Default number of rows returned; more are reported as truncated.
pub const DEFAULT_MAX_ROWS: usize = 200;
/// Default characters kept of one text cell (long report and opinion texts).
pub const DEFAULT_MAX_CELL_CHARS: usize = 2_000;
/// Default `SQLITE_LIMIT_LENGTH`: the largest string, blob or row (bytes) a statement may read
/// or build — bounds `zeroblob`, `printf`, `replace`, sort records. 8 MiB is far above any
/// stored text cell of the release corpora (report sections, opinions) yet 8× below the old
/// 64 MiB and 128× below SQLite's 1 GB default.
pub const DEFAULT_MAX_VALUE_BYTES: usize = 8 << 20;
/// Default longest LIKE/GLOB pattern (bytes; SQLite's default is 50,000). The matcher
/// recurses once per wildcard and costs O(string × pattern) steps.
pub const DEFAULT_LIKE_PATTERN_BYTES: usize = 2_000;
/// Default ceiling of SQLite's heap in this process (bytes; `PRAGMA hard_heap_limit`). Temporary
/// storage lives in memory (`temp_store = MEMORY`, no temp files), so this is what stops a
/// huge sort: the statement fails with "out of memory", reported as a [`Error::SqlLimit`].
/// SQLite has no per-connection allocation cap; the ceiling is process-wide, only ever lowered
/// (the lowest value any guard asks for wins), and far above what normal queries use.
pub const DEFAULT_HEAP_LIMIT_BYTES: u64 = 512 << 20;
/// Most arguments of one function call (`SQLITE_LIMIT_FUNCTION_ARG`; SQLite allows 1,000):
/// `json_set(big, '$.a', 1, …)` rewrites its input once per argument pair.
pub const MAX_FUNCTION_ARGS: i32 = 127;
/// Longest SQL text accepted (characters).
pub const MAX_SQL_CHARS: usize = 20_000;
/// SQLite VM instructions between two deadline checks of the progress handler.
const PROGRESS_OPS: i32 = 1_000;

/// Limits of the SQL tool, valid by construction: built from a [`SqlParamsBuilder`] (ranges on
/// its fields' docs); read through the getters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SqlParams(SqlParamsBuilder);

/// The unchecked limits of the SQL tool; [`SqlParamsBuilder::build`] checks them. Usable in
/// `const` items: `SqlParamsBuilder { max_rows: 5, ..SqlParamsBuilder::DEFAULT }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SqlParamsBuilder {
    /// Wall-clock limit of one statement, ms (1..=600,000).
    pub time_limit_ms: u64,
    /// Rows returned (1..=1,000,000); more are reported as truncated.
    pub max_rows: usize,
    /// Characters kept of one text cell (≥ 16).
    pub max_cell_chars: usize,
    /// `SQLITE_LIMIT_LENGTH` in bytes (64 KiB..=256 MiB).
    pub max_value_bytes: usize,
    /// Longest LIKE/GLOB pattern in bytes (16..=10,000).
    pub like_pattern_bytes: usize,
    /// Process-wide SQLite heap ceiling in bytes (16 MiB..=64 GiB).
    pub heap_limit_bytes: u64,
}

impl Default for SqlParamsBuilder {
    fn default() -> Self {
        SqlParamsBuilder::DEFAULT
    }
}

impl SqlParamsBuilder {
    /// The `DEFAULT_*` limits.
    pub const DEFAULT: SqlParamsBuilder = SqlParamsBuilder {
        time_limit_ms: DEFAULT_TIME_LIMIT_MS,
        max_rows: DEFAULT_MAX_ROWS,
        max_cell_chars: DEFAULT_MAX_CELL_CHARS,
        max_value_bytes: DEFAULT_MAX_VALUE_BYTES,
        like_pattern_bytes: DEFAULT_LIKE_PATTERN_BYTES,
        heap_limit_bytes: DEFAULT_HEAP_LIMIT_BYTES,
    };

    /// The limits, when every field is in its range (the error names the field and the range).
    pub fn build(self) -> Result<SqlParams> {
        if !(1..=600_000).contains(&self.time_limit_ms) {
            return Err(Error::Param(format!("time_limit_ms {} is outside 1..=600000", self.time_limit_ms)));
        }
        if !(1..=1_000_000).contains(&self.max_rows) {
            return Err(Error::Param(format!("max_rows {} is outside 1..=1000000", self.max_rows)));
        }
        if self.max_cell_chars < 16 {
            return Err(Error::Param(format!("max_cell_chars {} is below 16", self.max_cell_chars)));
        }
        if !((64 << 10)..=(256 << 20)).contains(&self.max_value_bytes) {
            return Err(Error::Param(format!(
                "max_value_bytes {} is outside 65536..=268435456 (64 KiB..=256 MiB)",
                self.max_value_bytes
            )));
        }
        if !(16..=10_000).contains(&self.like_pattern_bytes) {
            return Err(Error::Param(format!("like_pattern_bytes {} is outside 16..=10000", self.like_pattern_bytes)));
        }
        if !((16 << 20)..=(64 << 30)).contains(&self.heap_limit_bytes) {
            return Err(Error::Param(format!(
                "heap_limit_bytes {} is outside 16777216..=68719476736 (16 MiB..=64 GiB)",
                self.heap_limit_bytes
            )));
        }
        Ok(SqlParams(self))
    }
}

impl Default for SqlParams {
    fn default() -> Self {
        SqlParams::DEFAULT
    }
}

impl SqlParams {
    /// The `DEFAULT_*` limits.
    pub const DEFAULT: SqlParams = SqlParams(SqlParamsBuilder::DEFAULT);

    /// A builder holding these limits, to change some of them.
    pub fn to_builder(self) -> SqlParamsBuilder {
        self.0
    }

    /// Wall-clock limit of one statement, ms.
    pub fn time_limit_ms(&self) -> u64 {
        self.0.time_limit_ms
    }

    /// Rows returned; more are reported as truncated.
    pub fn max_rows(&self) -> usize {
        self.0.max_rows
    }

    /// Characters kept of one text cell.
    pub fn max_cell_chars(&self) -> usize {
        self.0.max_cell_chars
    }

    /// `SQLITE_LIMIT_LENGTH` in bytes.
    pub fn max_value_bytes(&self) -> usize {
        self.0.max_value_bytes
    }

    /// Longest LIKE/GLOB pattern in bytes.
    pub fn like_pattern_bytes(&self) -> usize {
        self.0.like_pattern_bytes
    }

    /// Process-wide SQLite heap ceiling in bytes.
    pub fn heap_limit_bytes(&self) -> u64 {
        self.0.heap_limit_bytes
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
    watch: Arc<Watch>,
    interrupt: SqlInterrupt,
    /// The task's deadline: a statement gets min(time limit, time left until it).
    task_deadline: Mutex<Option<Instant>>,
    /// SQLite's process-wide heap ceiling in force (bytes).
    heap_limit: u64,
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
        let setup = |conn: &Connection| -> rusqlite::Result<u64> {
            conn.set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)?;
            conn.set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)?;
            conn.set_limit(Limit::SQLITE_LIMIT_ATTACHED, 0)?;
            // Validated to ≤ 256 MiB and ≤ 10,000: both fit an i32.
            conn.set_limit(Limit::SQLITE_LIMIT_LENGTH, params.max_value_bytes() as i32)?;
            conn.set_limit(Limit::SQLITE_LIMIT_LIKE_PATTERN_LENGTH, params.like_pattern_bytes() as i32)?;
            conn.set_limit(Limit::SQLITE_LIMIT_FUNCTION_ARG, MAX_FUNCTION_ARGS)?;
            conn.set_limit(Limit::SQLITE_LIMIT_SQL_LENGTH, (MAX_SQL_CHARS * 4) as i32)?;
            // Sorts, DISTINCT, GROUP BY and materialised subqueries: in memory, never in a
            // temp file (a read-only tool writes nothing), bounded by the heap ceiling. The
            // pragma only lowers the process-wide ceiling, never raises it, and answers with
            // the ceiling in force.
            conn.pragma_update(None, "temp_store", "MEMORY")?;
            let limit = i64::try_from(params.heap_limit_bytes()).unwrap_or(i64::MAX);
            let in_force: i64 = conn.pragma_update_and_check(None, "hard_heap_limit", limit, |r| r.get(0))?;
            Ok(u64::try_from(in_force).unwrap_or(params.heap_limit_bytes()))
        };
        let heap_limit = setup(&conn).map_err(|e| open_err(format!("configuring the connection: {e}")))?;

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

        let watch = Watch::new();
        let limits =
            FnLimits { max_value_bytes: params.max_value_bytes(), like_pattern_bytes: params.like_pattern_bytes() };
        functions::register(&conn, &watch, limits).map_err(|e| open_err(format!("registering functions: {e}")))?;
        let handler_watch = Arc::clone(&watch);
        conn.progress_handler(PROGRESS_OPS, Some(move || handler_watch.expired()))
            .map_err(|e| open_err(e.to_string()))?;
        let interrupt = SqlInterrupt { watch: Arc::clone(&watch), handle: Arc::new(conn.get_interrupt_handle()) };

        Ok(GuardedDb {
            conn,
            route,
            path: path.to_path_buf(),
            params,
            boundary,
            plan,
            watch,
            interrupt,
            task_deadline: Mutex::new(None),
            heap_limit,
            denial,
        })
    }

    /// Bound every later statement by the task's deadline as well: a statement then stops at
    /// min(time limit, time left until `deadline`) and reports which one stopped it.
    pub fn set_task_deadline(&self, deadline: Option<Instant>) {
        if let Ok(mut d) = self.task_deadline.lock() {
            *d = deadline;
        }
    }

    /// A handle another thread can use to stop the running statement (`sqlite3_interrupt`)
    /// and refuse later ones — e.g. when the task's deadline or Ctrl-C ends the task.
    pub fn interrupt_handle(&self) -> SqlInterrupt {
        self.interrupt.clone()
    }

    pub fn route(&self) -> Route {
        self.route
    }

    /// The route's SQLite file.
    pub fn path(&self) -> &Path {
        &self.path
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
        self.query_with(sql, self.params.max_rows())
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
        if self.watch.cancelled() {
            return Err(Error::SqlLimit("the task was interrupted (deadline or stop); no further SQL runs".into()));
        }
        let task_deadline = self.task_deadline.lock().ok().and_then(|d| *d);
        let limit = Duration::from_millis(self.params.time_limit_ms());
        let (left, stop) = self.watch.arm(limit, task_deadline);
        if stop == Stop::TaskDeadline && task_deadline.is_some_and(|t| t <= Instant::now()) {
            self.watch.disarm();
            return Err(Error::SqlLimit("the task's deadline has passed; answer with what you have".into()));
        }
        let _deadline = Disarm(&self.watch);
        let (columns, rows, truncated, truncated_cells) =
            self.run(sql, max_rows).map_err(|e| self.map_error(e, left))?;
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
                out.push(cell(row.get_ref(i)?, self.params.max_cell_chars(), &mut cut));
            }
            rows_out.push(out);
        }
        Ok((columns, rows_out, truncated, cut))
    }

    /// `left`: the time the statement had when it started.
    fn map_error(&self, e: RunError, left: Duration) -> Error {
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
        let code = e.sqlite_error_code();
        // A cancel can reach SQLite (sqlite3_interrupt) before any deadline check saw it.
        let stop = if self.watch.cancelled() { Some(Stop::Interrupted) } else { self.watch.stopped() };
        if code == Some(rusqlite::ErrorCode::OperationInterrupted) || stop.is_some() {
            return match stop {
                Some(Stop::TaskDeadline) => Error::SqlLimit(format!(
                    "stopped at the task's deadline, {} ms after the statement started (before its own {} ms \
                     limit); answer with what you have",
                    left.as_millis(),
                    self.params.time_limit_ms()
                )),
                Some(Stop::Interrupted) => {
                    Error::SqlLimit("the task was interrupted (deadline or stop); no further SQL runs".into())
                }
                Some(Stop::TimeLimit) | None => Error::SqlTimeout { limit_ms: self.params.time_limit_ms() },
            };
        }
        if code == Some(rusqlite::ErrorCode::TooBig) {
            return Error::SqlLimit(format!(
                "a value or row would exceed the {} MiB size limit; select shorter columns (substr) or fewer of them",
                self.params.max_value_bytes() >> 20
            ));
        }
        if code == Some(rusqlite::ErrorCode::OutOfMemory) {
            return Error::SqlLimit(format!(
                "the statement needed more memory than SQLite may use ({} MiB, shared by the process): \
                 sorting, DISTINCT, GROUP BY or a subquery over too many or too large rows; aggregate, add \
                 LIMIT or select fewer and shorter columns",
                self.heap_limit >> 20
            ));
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

/// Disarms the statement deadline when the call returns, however it returns.
struct Disarm<'a>(&'a Watch);

impl Drop for Disarm<'_> {
    fn drop(&mut self) {
        self.0.disarm();
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
