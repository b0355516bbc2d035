//! The SQL guard: what a statement may do, decided by SQLite's authorizer while the statement
//! is prepared (not by string matching, which comments, quoting and CTEs defeat), plus two
//! cheap pre-checks that give clearer messages.
//!
//! Allowed: SELECT, recursive CTEs, reading the route's manifest tables (filtered ones only
//! through their views), `sqlite_master`, and functions other than the dangerous few. Denied:
//! everything else — writes of every kind, CREATE/DROP/ALTER, ATTACH/DETACH, PRAGMA (also the
//! `pragma_*` table-valued functions), transactions, savepoints, ANALYZE, REINDEX, virtual
//! tables, `load_extension`. The denial reason is kept so the error tells the caller why.

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, Mutex},
};

use rusqlite::hooks::{AuthAction, AuthContext, Authorization};

/// Functions never allowed (extension loading, file access in shells that register them,
/// tokenizer pointers).
const DENIED_FUNCTIONS: &[&str] = &["load_extension", "fts3_tokenizer", "readfile", "writefile", "edit", "zipfile"];

/// What the authorizer allows on one connection.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// TEMP views the caller may name (public shadows) and the internal ones they read.
    pub temp_views: HashSet<String>,
    /// Filtered main table (lower case) → its internal view (lower case).
    pub protected: HashMap<String, String>,
    /// Main tables readable directly (lower case).
    pub readable: HashSet<String>,
}

/// The last denial, for the error message.
pub type Denial = Arc<Mutex<Option<String>>>;

impl Policy {
    /// Decide one authorizer request.
    pub fn decide(&self, ctx: &AuthContext<'_>) -> Result<(), String> {
        match ctx.action {
            AuthAction::Select | AuthAction::Recursive => Ok(()),
            AuthAction::Read { table_name, .. } => self.read(table_name, ctx.database_name, ctx.accessor),
            AuthAction::Function { function_name } => {
                let f = function_name.to_ascii_lowercase();
                if DENIED_FUNCTIONS.contains(&f.as_str()) {
                    Err(format!("function {function_name}() is not allowed"))
                } else {
                    Ok(())
                }
            }
            AuthAction::Pragma { pragma_name, .. } => Err(format!("PRAGMA {pragma_name} is not allowed")),
            AuthAction::Attach { .. } => Err("ATTACH is not allowed: only the task's route can be read".into()),
            AuthAction::Detach { .. } => Err("DETACH is not allowed".into()),
            AuthAction::Insert { .. }
            | AuthAction::Update { .. }
            | AuthAction::Delete { .. }
            | AuthAction::AlterTable { .. }
            | AuthAction::Reindex { .. }
            | AuthAction::Analyze { .. } => Err("the SQL tool is read-only: only SELECT/WITH queries run".into()),
            AuthAction::Transaction { .. } | AuthAction::Savepoint { .. } => {
                Err("transactions and savepoints are not allowed".into())
            }
            _ => Err("only SELECT/WITH queries run: creating, dropping or changing objects is not allowed".into()),
        }
    }

    fn read(&self, table: &str, db: Option<&str>, accessor: Option<&str>) -> Result<(), String> {
        let t = table.to_ascii_lowercase();
        match db.map(str::to_ascii_lowercase).as_deref() {
            // No schema: a CTE or subquery, or an unqualified FROM item none of whose columns
            // is used (SQLite reports those with an empty column name). An unqualified name
            // resolves to the TEMP view before the main table, so nothing hidden is reached.
            None => Ok(()),
            Some("temp") if self.temp_views.contains(&t) => Ok(()),
            Some("main") => {
                if let Some(internal) = self.protected.get(&t) {
                    if accessor.map(str::to_ascii_lowercase).as_deref() == Some(internal.as_str()) {
                        return Ok(());
                    }
                    return Err(format!(
                        "main.{table} cannot be read directly; name the table without a schema ({table}) \
                         so that its hidden rows stay hidden"
                    ));
                }
                if self.readable.contains(&t) {
                    Ok(())
                } else {
                    Err(format!("table {table} is not part of this route; list the tables with the schema tool"))
                }
            }
            _ => Err(format!("table {table} is not part of this route; list the tables with the schema tool")),
        }
    }

    /// The authorizer callback: allow or deny, remembering why it denied.
    pub fn into_hook(self, denial: Denial) -> impl for<'r> FnMut(AuthContext<'r>) -> Authorization + Send + 'static {
        move |ctx| match self.decide(&ctx) {
            Ok(()) => Authorization::Allow,
            Err(reason) => {
                if let Ok(mut slot) = denial.lock() {
                    slot.get_or_insert(reason);
                }
                Authorization::Deny
            }
        }
    }
}

/// The statement's first keyword after whitespace and comments, upper-cased.
pub fn first_keyword(sql: &str) -> Option<String> {
    let mut rest = sql;
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix("--") {
            rest = r.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.split_once("*/").map_or("", |(_, after)| after);
        } else {
            break;
        }
    }
    let word: String = rest.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
    (!word.is_empty()).then(|| word.to_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_keyword_skips_comments() {
        assert_eq!(first_keyword("  -- hi\n /* x */ select 1").as_deref(), Some("SELECT"));
        assert_eq!(first_keyword("WITH a AS (SELECT 1) SELECT * FROM a").as_deref(), Some("WITH"));
        assert_eq!(first_keyword("/* unterminated").as_deref(), None);
        assert_eq!(first_keyword("(select 1)"), None);
        assert_eq!(first_keyword("pragma query_only=0").as_deref(), Some("PRAGMA"));
    }

    #[test]
    fn protected_tables_only_through_the_internal_view() {
        let policy = Policy {
            temp_views: ["reports", "anser_n_reports"].into_iter().map(String::from).collect(),
            protected: [("reports".to_string(), "anser_n_reports".to_string())].into(),
            readable: ["companies".to_string()].into(),
        };
        assert!(policy.read("reports", Some("main"), Some("anser_n_reports")).is_ok());
        assert!(policy.read("reports", Some("main"), Some("ANSER_N_REPORTS")).is_ok());
        assert!(policy.read("reports", Some("main"), Some("reports")).is_err(), "a CTE named like the view");
        assert!(policy.read("reports", Some("main"), None).is_err());
        assert!(policy.read("reports", Some("temp"), None).is_ok());
        assert!(policy.read("companies", Some("main"), None).is_ok());
        assert!(policy.read("sqlite_temp_master", Some("temp"), None).is_err(), "the nonce stays secret");
        assert!(policy.read("companies", Some("aux"), None).is_err());
        assert!(policy.read("c", None, None).is_ok(), "a CTE");
    }
}
