//! The corpora manifest: `manifest.toml` (routes, evidence kinds, groups and the task→route
//! mapping) and `schema.toml` (expected tables and columns), both embedded in the binary and
//! validated once at start-up. Keeping this as data means a reviewer can check the mapping
//! against the release README without reading code.

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::OnceLock,
};

use serde::Deserialize;

use crate::{
    Error, Result, Route, TaskGroup,
    evidence::{EvidenceFrom, EvidenceIdentity, EvidenceRecords, validate_kind},
};

const MANIFEST_TOML: &str = include_str!("../manifest.toml");
const SCHEMA_TOML: &str = include_str!("../schema.toml");

/// Storage format of a corpus file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CorpusFormat {
    Sqlite,
    Jsonl,
}

/// Rows that must never be retrievable (finance reports with `split = 'ground_truth'`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exclusion {
    pub table: String,
    pub column: String,
    pub value: String,
    /// The column of `table` that child tables join on (report_id, accession).
    pub key: String,
}

/// How a route's records are dated, for information boundaries. SQLite routes name the table
/// whose rows carry the date (`reports`, `filings`, `cases`, `case_record`), the key its child
/// tables join on, and SQL expressions over its columns for the record's year and its ISO date
/// text; JSONL routes name the field holding the date (`year` of science articles).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(untagged)]
pub enum Dating {
    Table(DatedTable),
    Field(DatedField),
}

/// The dated table of a SQLite route (see [`Dating`]).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct DatedTable {
    pub table: String,
    pub key: String,
    /// SQL expression of the record's (fiscal, report, decision) year; NULL when unknown.
    pub year_sql: String,
    /// SQL expression of the record's ISO date text (`YYYY-MM-DD`, or a prefix); NULL when unknown.
    pub date_sql: String,
}

/// The date field of a JSONL route's records (see [`Dating`]).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct DatedField {
    pub field: String,
}

/// One kind of retrieval unit of a route.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitSpec {
    pub name: String,
    /// Table (SQLite) or file stem (JSONL) the unit comes from.
    pub source: String,
    /// Column naming the evidence record the unit belongs to.
    pub id_column: String,
    pub text_columns: Vec<String>,
}

/// One corpus route as the manifest describes it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    #[serde(skip, default = "default_route")]
    pub route: Route,
    /// Path relative to the corpus root.
    pub file: String,
    pub format: CorpusFormat,
    pub description: String,
    pub joins: Vec<String>,
    #[serde(default)]
    pub exclude: Option<Exclusion>,
    /// How records are dated; routes without it have no information boundary.
    #[serde(default)]
    pub dated: Option<Dating>,
    pub units: Vec<UnitSpec>,
    #[serde(skip)]
    pub schema: FileSchema,
}

fn default_route() -> Route {
    Route::ScienceArticles
}

/// How an evidence identifier is written in results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceShape {
    /// The identifier itself (`"（2024）粤0106刑初1765号"`, `"cluster_123"`).
    Bare,
    /// `{key: id, "type": type_label}`.
    Object,
    /// `{"law": law_name, "item": item}`.
    LawItem,
}

/// The identifier the scorer expects for a task's evidence.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvidenceKind {
    #[serde(skip)]
    pub name: String,
    pub description: String,
    pub shape: EvidenceShape,
    #[serde(default)]
    pub key: Option<String>,
    #[serde(default)]
    pub type_label: Option<String>,
    /// Where the kind's identifiers are stored (SQLite routes; the answer tool's existence check).
    #[serde(default)]
    pub records: Option<EvidenceRecords>,
    /// How retrieval units reach the identifier, per unit source.
    #[serde(default)]
    pub from: Vec<EvidenceFrom>,
}

/// Set metrics over the whole population, or ranked-list metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EvidenceMetric {
    Population,
    Ranked,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TypeOverride {
    route: Option<Route>,
    evidence: Option<String>,
    evidence_metric: Option<EvidenceMetric>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct GroupToml {
    name: TaskGroup,
    types: Vec<String>,
    route: Option<Route>,
    evidence: Option<String>,
    evidence_metric: EvidenceMetric,
    #[serde(default)]
    by_type: BTreeMap<String, TypeOverride>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestToml {
    manifest_version: u32,
    routes: BTreeMap<String, RouteSpec>,
    evidence_identity: EvidenceIdentity,
    evidence: BTreeMap<String, EvidenceKind>,
    groups: Vec<GroupToml>,
}

/// Expected column of a SQLite table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ColumnSpec {
    pub name: String,
    #[serde(rename = "type")]
    pub decl_type: String,
    pub not_null: bool,
    /// Position in the primary key (1-based), 0 when not part of it.
    pub pk: u32,
}

/// Expected SQLite table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    pub name: String,
    pub columns: Vec<ColumnSpec>,
}

/// Expected layout of one corpus file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSchema {
    pub path: String,
    #[serde(default, rename = "table")]
    pub tables: Vec<TableSpec>,
    /// JSONL: fields every line must have.
    #[serde(default)]
    pub fields: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SchemaToml {
    file: Vec<FileSchema>,
}

/// Where a task of a given group and type goes, and how its evidence is named.
#[derive(Debug, Clone)]
pub struct Resolution<'m> {
    pub route: Route,
    pub evidence: &'m EvidenceKind,
    pub evidence_metric: EvidenceMetric,
}

/// A task group with its known types and mapping rules.
#[derive(Debug, Clone)]
pub struct GroupSpec {
    pub group: TaskGroup,
    /// Types the release uses (`"null"` for JSON null).
    pub types: Vec<String>,
    route: Option<Route>,
    evidence: Option<String>,
    evidence_metric: EvidenceMetric,
    by_type: BTreeMap<String, TypeOverride>,
}

/// The validated manifest.
#[derive(Debug)]
pub struct Manifest {
    pub version: u32,
    routes: BTreeMap<Route, RouteSpec>,
    pub(crate) identity: EvidenceIdentity,
    pub(crate) evidence: BTreeMap<String, EvidenceKind>,
    groups: BTreeMap<TaskGroup, GroupSpec>,
}

/// The task type as the manifest spells it: JSON null is `"null"`.
pub fn type_key(task_type: Option<&str>) -> &str {
    task_type.unwrap_or("null")
}

impl Manifest {
    /// The embedded manifest, parsed and validated on first use.
    pub fn get() -> &'static Manifest {
        static MANIFEST: OnceLock<Manifest> = OnceLock::new();
        MANIFEST.get_or_init(|| match Manifest::parse(MANIFEST_TOML, SCHEMA_TOML) {
            Ok(m) => m,
            // The manifest is compiled in and validated by a unit test, so a failure here is a
            // build of a broken repository; there is nothing a user could do about it.
            Err(e) => panic!("{e}"),
        })
    }

    /// Parse and validate a manifest and schema (public for tests of broken manifests).
    pub fn parse(manifest_toml: &str, schema_toml: &str) -> Result<Manifest> {
        let raw: ManifestToml =
            toml::from_str(manifest_toml).map_err(|e| Error::Manifest(format!("manifest.toml: {e}")))?;
        let schema: SchemaToml =
            toml::from_str(schema_toml).map_err(|e| Error::Manifest(format!("schema.toml: {e}")))?;
        let bad = |msg: String| Error::Manifest(msg);

        let mut routes = BTreeMap::new();
        for (name, mut spec) in raw.routes {
            let route: Route = name.parse().map_err(bad)?;
            spec.route = route;
            spec.schema = schema
                .file
                .iter()
                .find(|f| f.path == spec.file)
                .cloned()
                .ok_or_else(|| bad(format!("route {name}: no schema for file {}", spec.file)))?;
            validate_route(&spec).map_err(bad)?;
            routes.insert(route, spec);
        }
        for route in Route::ALL {
            if !routes.contains_key(&route) {
                return Err(bad(format!("route {route} is missing")));
            }
        }

        let mut evidence = BTreeMap::new();
        for (name, mut kind) in raw.evidence {
            if kind.shape == EvidenceShape::Object && (kind.key.is_none() || kind.type_label.is_none()) {
                return Err(bad(format!("evidence {name}: object shape needs key and type_label")));
            }
            kind.name.clone_from(&name);
            validate_kind(&kind, &routes.values().collect::<Vec<_>>()).map_err(bad)?;
            evidence.insert(name, kind);
        }

        let mut groups = BTreeMap::new();
        for g in raw.groups {
            let spec = GroupSpec {
                group: g.name,
                types: g.types,
                route: g.route,
                evidence: g.evidence,
                evidence_metric: g.evidence_metric,
                by_type: g.by_type,
            };
            for ty in spec.by_type.keys() {
                if !spec.types.contains(ty) {
                    return Err(bad(format!("group {}: by_type names unknown type {ty}", spec.group)));
                }
            }
            // Every known type must resolve to one route and one evidence kind.
            for ty in &spec.types {
                let (route, ev, _) = spec.resolve_raw(ty);
                if route.is_none() {
                    return Err(bad(format!("group {}: type {ty} has no route", spec.group)));
                }
                match ev {
                    Some(ev) if evidence.contains_key(ev) => {}
                    Some(ev) => return Err(bad(format!("group {}: unknown evidence kind {ev}", spec.group))),
                    None => return Err(bad(format!("group {}: type {ty} has no evidence kind", spec.group))),
                }
            }
            if groups.insert(spec.group, spec).is_some() {
                return Err(bad(format!("group {} is listed twice", g.name)));
            }
        }
        for group in TaskGroup::all() {
            if !groups.contains_key(&group) {
                return Err(bad(format!("group {group} is missing")));
            }
        }
        if raw.evidence_identity.keys.is_empty() {
            return Err(bad("evidence_identity: `keys` is empty".into()));
        }
        Ok(Manifest { version: raw.manifest_version, routes, identity: raw.evidence_identity, evidence, groups })
    }

    /// The route's specification.
    pub fn route(&self, route: Route) -> &RouteSpec {
        // Parse() checked that all ten routes are present.
        &self.routes[&route]
    }

    /// All route specifications in canonical order.
    pub fn routes(&self) -> impl Iterator<Item = &RouteSpec> {
        Route::ALL.into_iter().map(|r| self.route(r))
    }

    /// The group's specification.
    pub fn group(&self, group: TaskGroup) -> &GroupSpec {
        &self.groups[&group]
    }

    /// An evidence kind by name.
    pub fn evidence_kind(&self, name: &str) -> Option<&EvidenceKind> {
        self.evidence.get(name)
    }

    /// Map a task to exactly one route. Fails (naming the task) when the group has no route for
    /// the type: an unknown FinAuditing/RegBench-style type is never guessed.
    pub fn resolve(&self, id: &str, group: TaskGroup, task_type: Option<&str>) -> Result<Resolution<'_>> {
        let spec = self.group(group);
        let key = type_key(task_type);
        let (route, ev, metric) = spec.resolve_raw(key);
        let route = route.ok_or_else(|| Error::Mapping {
            id: id.to_string(),
            message: format!(
                "group {group} has no corpus route for type {key:?} (known types: {}); fix the task's `type`",
                spec.types.join(", ")
            ),
        })?;
        let ev = ev.and_then(|e| self.evidence.get(e)).ok_or_else(|| Error::Mapping {
            id: id.to_string(),
            message: format!("group {group} has no evidence kind for type {key:?}"),
        })?;
        Ok(Resolution { route, evidence: ev, evidence_metric: metric })
    }
}

impl GroupSpec {
    fn resolve_raw(&self, ty: &str) -> (Option<Route>, Option<&str>, EvidenceMetric) {
        let o = self.by_type.get(ty);
        let route = o.and_then(|o| o.route).or(self.route);
        let ev = o.and_then(|o| o.evidence.as_deref()).or(self.evidence.as_deref());
        let metric = o.and_then(|o| o.evidence_metric).unwrap_or(self.evidence_metric);
        (route, ev, metric)
    }

    /// Routes this group's tasks can go to (more than one only for finance_en_prescriptive).
    pub fn routes(&self) -> BTreeSet<Route> {
        self.types.iter().filter_map(|t| self.resolve_raw(t).0).collect()
    }
}

fn validate_route(spec: &RouteSpec) -> std::result::Result<(), String> {
    let name = spec.route;
    let sqlite = spec.format == CorpusFormat::Sqlite;
    if sqlite == spec.schema.tables.is_empty() {
        return Err(format!("route {name}: format does not match the schema of {}", spec.file));
    }
    let has_column = |table: &str, column: &str| -> bool {
        if sqlite {
            spec.schema.tables.iter().any(|t| t.name == table && t.columns.iter().any(|c| c.name == column))
        } else {
            spec.schema.fields.iter().any(|f| f == column)
        }
    };
    if spec.units.is_empty() {
        return Err(format!("route {name}: no retrieval units"));
    }
    for unit in &spec.units {
        for col in std::iter::once(&unit.id_column).chain(&unit.text_columns) {
            if !has_column(&unit.source, col) {
                return Err(format!("route {name}: unit {} reads unknown column {}.{col}", unit.name, unit.source));
            }
        }
    }
    if let Some(ex) = &spec.exclude {
        if !has_column(&ex.table, &ex.column) || !has_column(&ex.table, &ex.key) {
            return Err(format!("route {name}: exclusion names unknown column of {}", ex.table));
        }
    }
    match &spec.dated {
        Some(Dating::Table(d)) => {
            if !sqlite {
                return Err(format!("route {name}: `dated` names a table, but the corpus is JSONL (use `field`)"));
            }
            if !has_column(&d.table, &d.key) {
                return Err(format!("route {name}: `dated` names unknown column {}.{}", d.table, d.key));
            }
            // Every unit must reach its record's date: from the dated table itself or its key.
            for unit in &spec.units {
                if unit.source != d.table && !has_column(&unit.source, &d.key) {
                    return Err(format!("route {name}: unit {} has no column {} to find its date", unit.name, d.key));
                }
            }
        }
        Some(Dating::Field(f)) => {
            if sqlite {
                return Err(format!("route {name}: `dated` names a field, but the corpus is SQLite (use a table)"));
            }
            if !spec.schema.fields.contains(&f.field) {
                return Err(format!("route {name}: `dated` names unknown field {}", f.field));
            }
        }
        None => {}
    }
    for join in &spec.joins {
        for side in join.split('=').map(str::trim) {
            let (t, c) = side.split_once('.').ok_or_else(|| format!("route {name}: bad join {join:?}"))?;
            if !has_column(t, c) {
                return Err(format!("route {name}: join {join:?} names unknown column {side}"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Domain, Language, Split};

    #[test]
    fn embedded_manifest_is_valid() {
        let m = Manifest::parse(MANIFEST_TOML, SCHEMA_TOML).expect("manifest parses");
        assert_eq!(m.routes().count(), 10);
        assert_eq!(m.groups.len(), 14);
    }

    #[test]
    fn finauditing_and_regbench_never_mix() {
        let m = Manifest::get();
        let g = TaskGroup { domain: Domain::Finance, language: Language::En, split: Split::Prescriptive };
        let audit = m.resolve("x", g, Some("FinAuditing")).expect("routes");
        let reg = m.resolve("x", g, Some("RegBench")).expect("routes");
        assert_eq!(audit.route, Route::FinanceEnAudit);
        assert_eq!(reg.route, Route::FinanceEnCapitalRules);
        assert_eq!(audit.evidence.name, "filing_fact");
        assert_eq!(reg.evidence.name, "regulatory_paragraph");
        assert!(m.resolve("x", g, None).is_err(), "a null type has no route in this group");
        assert!(m.resolve("x", g, Some("Other")).is_err());
    }

    #[test]
    fn statistic_tasks_use_company_populations() {
        let m = Manifest::get();
        let zh = TaskGroup { domain: Domain::Finance, language: Language::Zh, split: Split::Descriptive };
        let r = m.resolve("x", zh, Some("statistic")).expect("routes");
        assert_eq!(r.evidence.name, "company_stock_code");
        assert_eq!(r.evidence_metric, EvidenceMetric::Population);
        let r = m.resolve("x", zh, Some("ranking")).expect("routes");
        assert_eq!(r.evidence_metric, EvidenceMetric::Ranked);
    }

    #[test]
    fn finance_report_routes_exclude_ground_truth_rows() {
        let m = Manifest::get();
        for route in [Route::FinanceZhReports, Route::FinanceEnReports] {
            let ex = m.route(route).exclude.as_ref().expect("exclusion");
            assert_eq!((ex.column.as_str(), ex.value.as_str()), ("split", "ground_truth"));
        }
    }

    #[test]
    fn dated_routes_are_the_ones_tasks_state_cutoffs_for() {
        let m = Manifest::get();
        let dated: Vec<Route> = m.routes().filter(|s| s.dated.is_some()).map(|s| s.route).collect();
        assert_eq!(
            dated,
            [
                Route::ScienceArticles,
                Route::FinanceZhReports,
                Route::FinanceEnReports,
                Route::LegalZhCases,
                Route::LegalEnCases
            ]
        );
        // Every predictive group's routes are dated.
        for group in TaskGroup::all().into_iter().filter(|g| g.split == Split::Predictive) {
            for route in m.group(group).routes() {
                assert!(m.route(route).dated.is_some(), "{group} reads undated {route}");
            }
        }
        let wrong = MANIFEST_TOML.replace("dated = { field = \"year\" }", "dated = { field = \"published\" }");
        let err = Manifest::parse(&wrong, SCHEMA_TOML).expect_err("unknown field");
        assert!(err.to_string().contains("published"), "{err}");
    }

    #[test]
    fn broken_manifests_are_rejected() {
        let missing_route = MANIFEST_TOML.replace("[routes.legal_en_precedents]", "[routes.legal_en_precedentz]");
        assert!(Manifest::parse(&missing_route, SCHEMA_TOML).is_err());
        let bad_column = MANIFEST_TOML.replace("id_column = \"docid\"", "id_column = \"doc_id\"");
        let err = Manifest::parse(&bad_column, SCHEMA_TOML).expect_err("unknown column");
        assert!(err.to_string().contains("documents.doc_id"), "{err}");
    }
}
