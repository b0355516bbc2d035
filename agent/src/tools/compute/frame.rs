//! Dataframe operations over SQL results with polars: filter, select, group with aggregates
//! (count, count distinct, sum, mean, median, min, max), row-wise rates, rankings,
//! period-over-period changes, sort, distinct and limit. A request is a JSON list of
//! operations applied in order, so an LLM can write one and the planner can build one.
//!
//! Columns are typed from the JSON values: all integers → Int64, all numbers → Float64, all
//! booleans → Boolean, anything else → String (numbers rendered as text).

use polars::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Error, Result, tools::sql::SqlResult};

/// A small table in JSON form: the input and output of frame operations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
}

impl From<&SqlResult> for Table {
    fn from(r: &SqlResult) -> Self {
        Table { columns: r.columns.clone(), rows: r.rows.clone() }
    }
}

impl Table {
    /// The values of one column.
    pub fn column(&self, name: &str) -> Result<impl Iterator<Item = &Value>> {
        let i =
            self.columns.iter().position(|c| c == name).ok_or_else(|| {
                Error::Compute(format!("no column {name:?}; the input has {}", self.columns.join(", ")))
            })?;
        Ok(self.rows.iter().map(move |r| r.get(i).unwrap_or(&Value::Null)))
    }
}

/// Comparison of a filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    IsNull,
    NotNull,
    /// `value` is a list; keeps rows equal to any element.
    In,
}

/// An aggregate function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AggFn {
    /// Rows in the group (no column needed).
    Count,
    CountDistinct,
    Sum,
    Mean,
    Median,
    Min,
    Max,
}

/// One aggregate of a group-by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Agg {
    #[serde(rename = "fn")]
    pub func: AggFn,
    #[serde(default)]
    pub column: Option<String>,
    #[serde(rename = "as")]
    pub alias: String,
}

/// How a period-over-period change is expressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// (v − previous) / |previous| × 100.
    Percent,
    /// v − previous.
    Difference,
}

/// One dataframe operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum FrameOp {
    Filter {
        column: String,
        cmp: Cmp,
        #[serde(default)]
        value: Value,
    },
    Select {
        columns: Vec<String>,
    },
    GroupBy {
        by: Vec<String>,
        aggs: Vec<Agg>,
    },
    /// Row-wise `numerator / denominator` (null when the denominator is 0 or null).
    Rate {
        numerator: String,
        denominator: String,
        #[serde(rename = "as")]
        alias: String,
    },
    /// Rank 1..n (ties share the lowest rank), optionally within partitions.
    Rank {
        column: String,
        #[serde(default = "yes")]
        descending: bool,
        #[serde(default)]
        by: Vec<String>,
        #[serde(rename = "as")]
        alias: String,
    },
    /// Change of `column` against the previous row in `order_by` order within `by` partitions.
    Change {
        column: String,
        order_by: String,
        #[serde(default)]
        by: Vec<String>,
        kind: ChangeKind,
        #[serde(rename = "as")]
        alias: String,
    },
    Sort {
        by: Vec<String>,
        #[serde(default)]
        descending: bool,
    },
    Distinct {
        #[serde(default)]
        columns: Vec<String>,
    },
    Limit {
        n: u32,
    },
}

fn yes() -> bool {
    true
}

fn to_column(name: &str, values: Vec<&Value>) -> Column {
    let non_null: Vec<&Value> = values.iter().copied().filter(|v| !v.is_null()).collect();
    let name: PlSmallStr = name.into();
    if !non_null.is_empty() && non_null.iter().all(|v| v.is_i64()) {
        Column::new(name, values.iter().map(|v| v.as_i64()).collect::<Vec<_>>())
    } else if !non_null.is_empty() && non_null.iter().all(|v| v.is_number()) {
        Column::new(name, values.iter().map(|v| v.as_f64()).collect::<Vec<_>>())
    } else if !non_null.is_empty() && non_null.iter().all(|v| v.is_boolean()) {
        Column::new(name, values.iter().map(|v| v.as_bool()).collect::<Vec<_>>())
    } else {
        let text: Vec<Option<String>> = values
            .iter()
            .map(|v| match v {
                Value::Null => None,
                Value::String(s) => Some(s.clone()),
                other => Some(other.to_string()),
            })
            .collect();
        Column::new(name, text)
    }
}

/// Build a DataFrame from a table.
pub fn to_frame(table: &Table) -> Result<DataFrame> {
    let mut cols = Vec::with_capacity(table.columns.len());
    for (i, name) in table.columns.iter().enumerate() {
        if table.columns[..i].contains(name) {
            return Err(Error::Compute(format!("column {name:?} appears twice; alias it in the SQL")));
        }
        let values: Vec<&Value> = table.rows.iter().map(|r| r.get(i).unwrap_or(&Value::Null)).collect();
        cols.push(to_column(name, values));
    }
    Ok(DataFrame::new(table.rows.len(), cols)?)
}

fn any_to_json(v: AnyValue<'_>) -> Value {
    match v {
        AnyValue::Null => Value::Null,
        AnyValue::Boolean(b) => Value::Bool(b),
        AnyValue::String(s) => Value::String(s.to_string()),
        AnyValue::StringOwned(s) => Value::String(s.to_string()),
        AnyValue::Int8(i) => Value::from(i),
        AnyValue::Int16(i) => Value::from(i),
        AnyValue::Int32(i) => Value::from(i),
        AnyValue::Int64(i) => Value::from(i),
        AnyValue::UInt8(i) => Value::from(i),
        AnyValue::UInt16(i) => Value::from(i),
        AnyValue::UInt32(i) => Value::from(i),
        AnyValue::UInt64(i) => Value::from(i),
        AnyValue::Float32(f) => serde_json::Number::from_f64(f64::from(f)).map_or(Value::Null, Value::Number),
        AnyValue::Float64(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        other => Value::String(other.to_string()),
    }
}

/// Turn a DataFrame back into a table.
pub fn from_frame(df: &DataFrame) -> Result<Table> {
    let columns: Vec<String> = df.columns().iter().map(|c| c.name().to_string()).collect();
    let mut rows = Vec::with_capacity(df.height());
    for i in 0..df.height() {
        let mut row = Vec::with_capacity(columns.len());
        for c in df.columns() {
            row.push(any_to_json(c.get(i)?));
        }
        rows.push(row);
    }
    Ok(Table { columns, rows })
}

fn literal(v: &Value) -> Result<Expr> {
    Ok(match v {
        Value::Bool(b) => lit(*b),
        Value::Number(n) if n.is_i64() => lit(n.as_i64().unwrap_or_default()),
        Value::Number(n) => lit(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => lit(s.clone()),
        other => {
            return Err(Error::Compute(format!("a filter value must be a number, string or boolean, not {other}")));
        }
    })
}

fn require(df: &LazyFrame, names: &[&str]) -> Result<()> {
    let schema = df.clone().collect_schema()?;
    for n in names {
        if !schema.contains(n) {
            let have: Vec<_> = schema.iter_names().map(|s| s.to_string()).collect();
            return Err(Error::Compute(format!("no column {n:?}; the table has {}", have.join(", "))));
        }
    }
    Ok(())
}

fn apply(df: LazyFrame, op: &FrameOp) -> Result<LazyFrame> {
    Ok(match op {
        FrameOp::Filter { column, cmp, value } => {
            require(&df, &[column])?;
            let c = col(column.as_str());
            let pred = match cmp {
                Cmp::IsNull => c.is_null(),
                Cmp::NotNull => c.is_not_null(),
                Cmp::In => {
                    let Value::Array(items) = value else {
                        return Err(Error::Compute("cmp \"in\" needs a list value".into()));
                    };
                    let mut any = lit(false);
                    for item in items {
                        any = any.or(c.clone().eq(literal(item)?));
                    }
                    any
                }
                Cmp::Eq => c.eq(literal(value)?),
                Cmp::Ne => c.neq(literal(value)?),
                Cmp::Lt => c.lt(literal(value)?),
                Cmp::Le => c.lt_eq(literal(value)?),
                Cmp::Gt => c.gt(literal(value)?),
                Cmp::Ge => c.gt_eq(literal(value)?),
            };
            df.filter(pred)
        }
        FrameOp::Select { columns } => {
            require(&df, &columns.iter().map(String::as_str).collect::<Vec<_>>())?;
            df.select(columns.iter().map(|c| col(c.as_str())).collect::<Vec<_>>())
        }
        FrameOp::GroupBy { by, aggs } => {
            require(&df, &by.iter().map(String::as_str).collect::<Vec<_>>())?;
            if aggs.is_empty() {
                return Err(Error::Compute("group_by needs at least one aggregate".into()));
            }
            let mut exprs = Vec::new();
            for a in aggs {
                let column = match (&a.column, a.func) {
                    (None, AggFn::Count) => None,
                    (None, f) => return Err(Error::Compute(format!("aggregate {f:?} needs a column"))),
                    (Some(c), _) => {
                        require(&df, &[c])?;
                        Some(col(c.as_str()))
                    }
                };
                let e = match (a.func, column) {
                    (AggFn::Count, None) => len(),
                    (AggFn::Count, Some(c)) => c.count(),
                    (AggFn::CountDistinct, Some(c)) => c.drop_nulls().n_unique(),
                    (AggFn::Sum, Some(c)) => c.sum(),
                    (AggFn::Mean, Some(c)) => c.mean(),
                    (AggFn::Median, Some(c)) => c.median(),
                    (AggFn::Min, Some(c)) => c.min(),
                    (AggFn::Max, Some(c)) => c.max(),
                    (f, None) => return Err(Error::Compute(format!("aggregate {f:?} needs a column"))),
                };
                exprs.push(e.alias(a.alias.as_str()));
            }
            let keys: Vec<Expr> = by.iter().map(|c| col(c.as_str())).collect();
            df.group_by_stable(keys).agg(exprs)
        }
        FrameOp::Rate { numerator, denominator, alias } => {
            require(&df, &[numerator, denominator])?;
            let d = col(denominator.as_str()).cast(DataType::Float64);
            let n = col(numerator.as_str()).cast(DataType::Float64);
            df.with_columns([when(d.clone().eq(lit(0.0))).then(lit(NULL)).otherwise(n / d).alias(alias.as_str())])
        }
        FrameOp::Rank { column, descending, by, alias } => {
            require(&df, &[column])?;
            require(&df, &by.iter().map(String::as_str).collect::<Vec<_>>())?;
            let r = col(column.as_str()).rank(RankOptions { method: RankMethod::Min, descending: *descending }, None);
            let r = if by.is_empty() { r } else { r.over(by.iter().map(|c| col(c.as_str())).collect::<Vec<_>>())? };
            df.with_columns([r.alias(alias.as_str())])
        }
        FrameOp::Change { column, order_by, by, kind, alias } => {
            require(&df, &[column, order_by])?;
            require(&df, &by.iter().map(String::as_str).collect::<Vec<_>>())?;
            let mut sort_cols: Vec<PlSmallStr> = by.iter().map(|c| c.as_str().into()).collect();
            sort_cols.push(order_by.as_str().into());
            let sorted = df.sort(sort_cols, SortMultipleOptions::default().with_maintain_order(true));
            let v = col(column.as_str()).cast(DataType::Float64);
            let prev = v.clone().shift(lit(1));
            let change = match kind {
                ChangeKind::Difference => v - prev,
                ChangeKind::Percent => {
                    let magnitude =
                        when(prev.clone().lt(lit(0.0))).then(lit(0.0) - prev.clone()).otherwise(prev.clone());
                    when(prev.clone().eq(lit(0.0))).then(lit(NULL)).otherwise((v - prev) / magnitude * lit(100.0))
                }
            };
            let change = if by.is_empty() {
                change
            } else {
                change.over(by.iter().map(|c| col(c.as_str())).collect::<Vec<_>>())?
            };
            sorted.with_columns([change.alias(alias.as_str())])
        }
        FrameOp::Sort { by, descending } => {
            require(&df, &by.iter().map(String::as_str).collect::<Vec<_>>())?;
            let names: Vec<PlSmallStr> = by.iter().map(|c| c.as_str().into()).collect();
            df.sort(
                names,
                SortMultipleOptions::default()
                    .with_order_descending(*descending)
                    .with_nulls_last(true)
                    .with_maintain_order(true),
            )
        }
        FrameOp::Distinct { columns } => {
            require(&df, &columns.iter().map(String::as_str).collect::<Vec<_>>())?;
            let subset = (!columns.is_empty()).then(|| cols(columns.iter().map(|c| c.as_str()).collect::<Vec<_>>()));
            df.unique_stable(subset, UniqueKeepStrategy::First)
        }
        FrameOp::Limit { n } => df.limit(*n as IdxSize),
    })
}

/// Apply `ops` in order to `table`.
pub fn run_frame(table: &Table, ops: &[FrameOp]) -> Result<Table> {
    let mut lf = to_frame(table)?.lazy();
    for op in ops {
        lf = apply(lf, op)?;
    }
    from_frame(&lf.collect()?)
}
