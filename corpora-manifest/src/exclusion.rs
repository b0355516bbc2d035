//! The ground-truth exclusion rule, in one place: which rows of a route no reader may see
//! (finance reports with `split = 'ground_truth'`, the manifest's `exclude`) and which rows of
//! other tables follow them. The indexer (rows it never reads into a unit) and the agent's SQL
//! views (rows no query can name) both build their filters from here, so search, `sql`,
//! `schema` and `open` hide the same rows.
//!
//! A row of the excluded table is hidden when its column holds the value (NULL-safe: a NULL is
//! not the value). A row of a table that follows it — joined on the excluded table's key, or
//! carrying a column of the key's name — is visible only when its key names a visible row:
//! children of hidden rows and orphans whose parent is unknown are hidden alike.

use std::collections::BTreeSet;

use crate::manifest::{Exclusion, RouteSpec};

/// `name` as an SQL identifier.
fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `value` as an SQL string literal.
fn quote_literal(value: &str) -> String {
    format!("'{}'", value.replace('\'', "''"))
}

impl Exclusion {
    /// The SQL condition a visible row of the excluded table satisfies.
    pub fn keep_when(&self) -> String {
        format!("{} IS NOT {}", quote_ident(&self.column), quote_literal(&self.value))
    }

    /// Why the rows are hidden, for schema output and traces.
    pub fn reason(&self) -> String {
        format!("{} = {} rows are the scorer's ground truth", self.column, quote_literal(&self.value))
    }
}

/// The SQL condition a row of a following table satisfies when its `column` names a row of
/// `visible_parents` (a table or view holding only the parent's visible rows) by `key`.
pub fn follows_visible_parent(column: &str, key: &str, visible_parents: &str) -> String {
    format!("{} IN (SELECT {} FROM {visible_parents})", quote_ident(column), quote_ident(key))
}

impl RouteSpec {
    /// Tables whose rows belong to a row of `table` through its `key`, with the column holding
    /// it: the route's joins on `table.key`, and any other table with a column of the key's name.
    pub fn followers(&self, table: &str, key: &str) -> Vec<(String, String)> {
        let mut out = BTreeSet::new();
        let parent_side = format!("{table}.{key}");
        for join in &self.joins {
            let sides: Vec<_> = join.split('=').map(str::trim).collect();
            if let [l, r] = sides.as_slice() {
                for (a, b) in [(l, r), (r, l)] {
                    if let (true, Some((t, c))) = (*a == parent_side, b.split_once('.')) {
                        out.insert((t.to_string(), c.to_string()));
                    }
                }
            }
        }
        // Defensive: a table carrying a column of the key's name follows the parent too.
        for t in &self.schema.tables {
            if t.name != table && t.columns.iter().any(|c| c.name == key) {
                out.insert((t.name.clone(), key.to_string()));
            }
        }
        out.into_iter().collect()
    }

    /// The exclusion as a condition on the rows of `table` read straight from the corpus file:
    /// `Ok(None)` when the route excludes nothing, the condition a visible row satisfies when
    /// `table` is the excluded table or follows it, and an error naming the table when the route
    /// excludes rows but `table` is unrelated to them (its rows cannot be told apart).
    pub fn exclusion_filter(&self, table: &str) -> Result<Option<String>, String> {
        let Some(ex) = &self.exclude else { return Ok(None) };
        if table == ex.table {
            return Ok(Some(ex.keep_when()));
        }
        let visible_parents = format!("{} WHERE {}", quote_ident(&ex.table), ex.keep_when());
        self.followers(&ex.table, &ex.key)
            .into_iter()
            .find(|(t, _)| t == table)
            .map(|(_, column)| Some(follows_visible_parent(&column, &ex.key, &visible_parents)))
            .ok_or_else(|| {
                format!(
                    "route {}: table {table} cannot apply the exclusion of {} rows (no column {} or join on it)",
                    self.route, ex.table, ex.key
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use crate::{Manifest, Route};

    /// The rule on a tiny report table: a ground-truth report, a visible one, one with no split,
    /// and chunks of each plus an orphan.
    #[test]
    fn filters_hide_ground_truth_rows_their_children_and_orphans() {
        let spec = Manifest::get().route(Route::FinanceZhReports);
        let conn = Connection::open_in_memory().expect("db");
        conn.execute_batch(
            "CREATE TABLE reports (report_id TEXT, split TEXT);
             CREATE TABLE report_chunks (report_id TEXT, chunk_text TEXT);
             INSERT INTO reports VALUES ('gt', 'ground_truth'), ('ok', 'corpus'), ('nul', NULL);
             INSERT INTO report_chunks VALUES ('gt', 'a'), ('ok', 'b'), ('nul', 'c'), ('orphan', 'd'), (NULL, 'e');",
        )
        .expect("fixture");
        let visible = |table: &str, id: &str| -> Vec<String> {
            let cond = spec.exclusion_filter(table).expect("applies").expect("excludes");
            let sql = format!("SELECT {id} FROM {table} WHERE {cond} ORDER BY 1");
            let mut stmt = conn.prepare(&sql).expect("prepare");
            stmt.query_map([], |r| r.get::<_, String>(0)).expect("query").map(|r| r.expect("row")).collect()
        };
        assert_eq!(visible("reports", "report_id"), ["nul", "ok"]);
        assert_eq!(visible("report_chunks", "chunk_text"), ["b", "c"]);
        assert!(spec.exclusion_filter("companies").is_err(), "companies hold no report key");
        let rules = Manifest::get().route(Route::LegalZhCases);
        assert_eq!(rules.exclusion_filter("cases"), Ok(None));
    }
}
