//! Property test of the SQL guard: ≥ 1,000 generated hostile statements (writes of every kind,
//! DDL, ATTACH/DETACH, PRAGMA, VACUUM INTO, multiple statements, extension loading, recursive
//! CTE and cross-join bombs, huge values, and ground-truth reach attempts), each mutated
//! (case, comments, quoting, whitespace) from a fixed seed. Properties checked for every one:
//! no write (the file's bytes and the absence of any new file), no escape (no hidden-row
//! marker in any answer; every write/escape refused), and every answer within its time limit.

use std::time::{Duration, Instant};

use anser_agent::{
    Error,
    tools::{
        boundary::{Boundary, Cutoff},
        compute::stats::SplitMix64,
        sql::{GuardedDb, SqlParamsBuilder},
    },
};
use anser_manifest::{Manifest, Route};
use tempfile::TempDir;

use crate::fixtures::{self, SECRET};

/// Statements generated per route.
const PER_ROUTE: usize = 420;
const TIME_LIMIT_MS: u64 = 100;
/// Allowance over the limit for the last progress-handler interval and result conversion.
const SLACK: Duration = Duration::from_millis(400);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Must be refused.
    Forbidden,
    /// Must be refused, fail or time out within the limit.
    Bomb,
    /// May run, but must not return a hidden row.
    Reach,
}

fn pick<'a>(rng: &mut SplitMix64, items: &'a [String]) -> &'a str {
    &items[rng.below(items.len())]
}

fn templates(route: Route, escape: &str) -> Vec<(Kind, String)> {
    let spec = Manifest::get().route(route);
    let tables: Vec<String> = spec.schema.tables.iter().map(|t| t.name.clone()).collect();
    let mut out = Vec::new();
    for t in &tables {
        let col =
            spec.schema.tables.iter().find(|x| &x.name == t).map(|x| x.columns[0].name.clone()).unwrap_or_default();
        for s in [
            format!("DELETE FROM {t}"),
            format!("DELETE FROM main.{t} WHERE 1"),
            format!("UPDATE {t} SET {col} = NULL"),
            format!("INSERT INTO {t} DEFAULT VALUES"),
            format!("INSERT INTO main.{t} SELECT * FROM {t}"),
            format!("REPLACE INTO {t} SELECT * FROM {t} LIMIT 1"),
            format!("INSERT OR IGNORE INTO {t}({col}) VALUES (1) ON CONFLICT DO NOTHING"),
            format!("WITH x AS (SELECT 1) UPDATE {t} SET {col} = 1"),
            format!("WITH x AS (SELECT 1) DELETE FROM {t}"),
            format!("DROP TABLE {t}"),
            format!("DROP VIEW {t}"),
            format!("DROP TABLE IF EXISTS main.{t}"),
            format!("ALTER TABLE {t} RENAME TO x_{t}"),
            format!("ALTER TABLE {t} ADD COLUMN leak TEXT"),
            format!("CREATE INDEX ix_{t} ON {t}({col})"),
            format!("CREATE TEMP VIEW leak_{t} AS SELECT * FROM main.{t}"),
            format!("CREATE TEMP TABLE leak_{t} AS SELECT * FROM main.{t}"),
            format!("CREATE TRIGGER tr_{t} AFTER INSERT ON {t} BEGIN DELETE FROM {t}; END"),
            format!("CREATE VIRTUAL TABLE v_{t} USING fts5(x)"),
            format!("ANALYZE {t}"),
            format!("REINDEX {t}"),
            format!("PRAGMA table_info({t})"),
            format!("SELECT * FROM pragma_table_info('{t}')"),
            format!("SELECT 1; DELETE FROM {t}"),
            format!("SELECT * FROM {t}; SELECT * FROM main.{t}"),
            format!("SELECT * FROM {t} LIMIT 1; ATTACH '{escape}' AS x"),
        ] {
            out.push((Kind::Forbidden, s));
        }
        for s in [
            format!("SELECT * FROM main.{t}"),
            format!("SELECT count(*) FROM main.{t}"),
            format!("SELECT * FROM \"main\".\"{t}\""),
            format!("SELECT * FROM MAIN.[{t}]"),
            format!("WITH {t} AS (SELECT * FROM main.{t}) SELECT * FROM {t}"),
            format!("WITH RECURSIVE {t}(x) AS (SELECT * FROM main.{t} LIMIT 1) SELECT * FROM {t}"),
            format!("SELECT * FROM (SELECT * FROM main.{t}) {t}"),
            format!("SELECT * FROM {t} UNION ALL SELECT * FROM main.{t}"),
            format!("SELECT (SELECT count(*) FROM main.{t}) AS n"),
            format!("SELECT 1 WHERE EXISTS (SELECT 1 FROM main.{t})"),
            format!("SELECT * FROM {t}"),
            format!("SELECT * FROM {t} t1 CROSS JOIN {t} t2 LIMIT 50"),
            format!("SELECT group_concat({col}) FROM {t}"),
            format!("SELECT * FROM temp.{t}"),
        ] {
            out.push((Kind::Reach, s));
        }
    }
    if let Some(ex) = &spec.exclude {
        let (t, c, v) = (&ex.table, &ex.column, &ex.value);
        for s in [
            format!("SELECT * FROM {t} WHERE {c} = '{v}'"),
            format!("SELECT * FROM {t} WHERE {c} LIKE '%truth%' OR 1 = 1"),
            format!("SELECT * FROM {t} WHERE {c} IS NOT NULL ORDER BY {c}"),
            format!("SELECT * FROM main.{t} WHERE {c} = '{v}'"),
            format!("WITH g AS (SELECT * FROM main.{t} WHERE {c} = '{v}') SELECT * FROM g"),
            format!("SELECT * FROM anser_0000000000000000_{t}"),
            format!("SELECT * FROM temp.anser_{t}"),
            "SELECT name, sql FROM sqlite_temp_master".to_string(),
            "SELECT * FROM temp.sqlite_schema".to_string(),
            "SELECT * FROM pragma_table_list".to_string(),
        ] {
            out.push((Kind::Reach, s));
        }
    }
    for s in [
        format!("ATTACH DATABASE '{escape}' AS x"),
        format!("ATTACH '{escape}' AS main2"),
        "ATTACH ':memory:' AS m".to_string(),
        "DETACH DATABASE main".to_string(),
        "DETACH temp".to_string(),
        format!("VACUUM INTO '{escape}'"),
        "VACUUM".to_string(),
        "PRAGMA query_only = 0".to_string(),
        "PRAGMA query_only = OFF; DELETE FROM sqlite_master".to_string(),
        "PRAGMA writable_schema = 1".to_string(),
        "PRAGMA journal_mode = WAL".to_string(),
        "PRAGMA temp_store_directory = '/tmp'".to_string(),
        "SELECT * FROM pragma_database_list".to_string(),
        "SELECT * FROM pragma_compile_options".to_string(),
        "SELECT load_extension('/tmp/evil.so')".to_string(),
        "SELECT load_extension('mod_spatialite')".to_string(),
        "SELECT fts3_tokenizer('simple')".to_string(),
        "BEGIN IMMEDIATE".to_string(),
        "COMMIT".to_string(),
        "ROLLBACK".to_string(),
        "SAVEPOINT s1".to_string(),
        "RELEASE s1".to_string(),
        "EXPLAIN SELECT 1".to_string(),
        "EXPLAIN QUERY PLAN SELECT 1".to_string(),
        "CREATE TABLE x(a)".to_string(),
        "CREATE TEMP TABLE x(a)".to_string(),
        "SELECT 1; SELECT 2".to_string(),
        "SELECT ';'; DROP TABLE sqlite_master".to_string(),
        "/* hi */ DELETE FROM sqlite_master".to_string(),
        "-- comment\nDROP TABLE IF EXISTS x".to_string(),
        "VALUES (1)".to_string(),
        "".to_string(),
        "   ".to_string(),
    ] {
        out.push((Kind::Forbidden, s));
    }
    for s in [
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c",
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x FROM c) SELECT x FROM c ORDER BY x LIMIT 1 OFFSET 1000000000",
        "WITH RECURSIVE c(x, s) AS (SELECT 1, 'a' UNION ALL SELECT x + 1, s || 'a' FROM c) SELECT length(s) FROM c WHERE x = 100000000",
        "WITH RECURSIVE a(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM a WHERE x < 3000) SELECT count(*) FROM a a1, a a2, a a3",
        "WITH RECURSIVE a(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM a WHERE x < 100000) SELECT sum(x) FROM a a1, a a2",
        "SELECT zeroblob(1000000000)",
        "SELECT randomblob(2000000000)",
        "SELECT length(printf('%.*c', 2000000000, 'x'))",
        "SELECT replace(hex(zeroblob(100000000)), '0', 'xx')",
    ] {
        out.push((Kind::Bomb, s.to_string()));
    }
    out
}

fn mutate(rng: &mut SplitMix64, sql: &str) -> String {
    let comments = ["/**/", "/* x */", " ", "\n", "\t", " -- c\n"].map(String::from);
    let mut out = String::new();
    let case = rng.below(3);
    for (i, word) in sql.split(' ').enumerate() {
        if i > 0 {
            out.push_str(if rng.below(4) == 0 { pick(rng, &comments) } else { " " });
        }
        let w = match case {
            0 => word.to_string(),
            1 => word.to_ascii_lowercase(),
            _ => word.chars().enumerate().map(|(j, c)| if j % 2 == 0 { c.to_ascii_uppercase() } else { c }).collect(),
        };
        out.push_str(&w);
    }
    if rng.below(3) == 0 {
        out = format!("{} {out}", pick(rng, &comments));
    }
    if rng.below(4) == 0 {
        out.push(';');
    }
    out
}

#[test]
fn a_thousand_hostile_statements_neither_write_nor_escape_nor_overrun() {
    let mut rng = SplitMix64::new(0xA45E_2024);
    let mut total = 0;
    let mut refused = 0;
    let mut timeouts = 0;
    let boundary = Boundary { cutoff: Cutoff::FiscalYear { last: 2021 }, stated_by: vec!["test".into()] };
    for (route, boundary) in
        [(Route::FinanceZhReports, None), (Route::FinanceEnReports, Some(boundary)), (Route::LegalZhCases, None)]
    {
        let dir = TempDir::new().expect("tempdir");
        let path = dir.path().join("corpus.sqlite");
        fixtures::build(route, &path);
        let before = std::fs::read(&path).expect("read");
        let escape = dir.path().join("escape.sqlite");
        let params = SqlParamsBuilder {
            time_limit_ms: TIME_LIMIT_MS,
            max_rows: 1_000,
            max_cell_chars: 10_000,
            ..SqlParamsBuilder::DEFAULT
        }
        .build()
        .expect("valid limits");
        let db = GuardedDb::open(&path, route, boundary, params).expect("opens");
        let templates = templates(route, &escape.display().to_string());
        for i in 0..PER_ROUTE {
            // Every template at least once, then random picks.
            let (kind, base) = &templates[if i < templates.len() { i } else { rng.below(templates.len()) }];
            let mutated = i >= templates.len();
            let sql = if mutated { mutate(&mut rng, base) } else { base.clone() };
            let start = Instant::now();
            let outcome = db.query(&sql);
            let took = start.elapsed();
            total += 1;
            assert!(
                took <= Duration::from_millis(TIME_LIMIT_MS) + SLACK,
                "{route}: {sql:?} took {took:?} (limit {TIME_LIMIT_MS} ms)"
            );
            match (&outcome, kind) {
                (Err(Error::SqlRefused(_)), _) => refused += 1,
                (Err(Error::SqlTimeout { .. }), Kind::Bomb) => timeouts += 1,
                // A bomb may also fail outright (a value over the size limit, a mutated format).
                (Err(Error::Sql(_) | Error::SqlLimit(_)), Kind::Bomb | Kind::Reach) => {}
                // A mutation can defuse a bomb (`%.*C` is not a width); it still ran in time.
                (Ok(_), Kind::Bomb) if mutated => {}
                // Functions the bundled SQLite does not have cannot be called either.
                (Err(Error::Sql(msg)), Kind::Forbidden) if msg.contains("no such function") => {}
                (Ok(r), Kind::Reach) => {
                    let text = serde_json::to_string(&r.rows).expect("json");
                    assert!(!text.contains(SECRET), "{route}: {sql:?} leaked a hidden row");
                }
                (other, kind) => panic!("{route}: {kind:?} statement {sql:?} gave {other:?}"),
            }
        }
        drop(db);
        assert_eq!(std::fs::read(&path).expect("read"), before, "{route}: the corpus file changed");
        let files: Vec<_> = std::fs::read_dir(dir.path()).expect("ls").map(|e| e.expect("entry").file_name()).collect();
        assert_eq!(files, ["corpus.sqlite"], "{route}: files appeared next to the corpus");
    }
    eprintln!("hostile SQL: {total} statements, {refused} refused, {timeouts} interrupted at the time limit");
    assert!(total >= 1_000, "{total} statements");
    assert!(refused > 600 && timeouts >= 3, "refused {refused}, timeouts {timeouts} of {total}");
}
