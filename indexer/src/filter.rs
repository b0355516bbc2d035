//! Per-unit filter attributes and the filter a query applies inside its search.
//!
//! Every unit carries its record's dates (as the manifest's `dated` entry of its route reads
//! them, see [`anser_manifest::boundary`]) and a bitmask of the evidence kinds it names. They are
//! stored twice, once per search structure, so that each search filters *while* it ranks rather
//! than re-searching deeper after dropping hits:
//!
//! - in every BM25 index's statistics files, per segment in document order beside each
//!   document's token count ([`crate::bm25_stats`]), read by the scorer for each posting before
//!   it scores the document (held in memory as a fast-field column would be, without the
//!   segment writer's per-document column cost);
//! - in `unit_attrs.bin` beside the vectors (16 bytes per unit, in ordinal order), read by the
//!   HNSW filter (`hnsw_rs` `search_filter`) and the exact search.
//!
//! Both use the same 16 bytes per unit ([`UnitAttrs::to_bytes`]).
//!
//! A [`UnitFilter`] combines a [`DateWindow`] (a task's information boundary) and an evidence
//! mask. A unit whose record has no date never passes a date window: its availability is
//! unknown (as NULL dates are hidden by the SQL views).

use std::{
    io::{BufWriter, Write},
    path::{Path, PathBuf},
};

use anser_manifest::boundary::{DateWindow, RecordDate};

use crate::{Error, Result, units::Unit};

pub(crate) const ATTRS_FILE: &str = "unit_attrs.bin";
/// Bytes per unit in [`ATTRS_FILE`] and the BM25 statistics: year (i32), first day, last day,
/// evidence mask (u32 each).
pub(crate) const ATTRS_BYTES: usize = 16;
/// Year stored for a record without one.
const NO_YEAR: i32 = i32::MIN;
/// Most evidence kinds one route can serve (bits of the mask). Bit 31 is never a kind, so
/// [`NO_UNIT`] requires a bit no unit has.
pub const MAX_EVIDENCE_KINDS: usize = 31;
/// An evidence requirement no unit meets (asked for a kind the route does not serve).
pub const NO_UNIT: u32 = 1 << 31;

/// What filters know about one unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UnitAttrs {
    /// The dates of the unit's record (undated on routes without `dated`).
    pub date: RecordDate,
    /// Bit `i` set when the unit names the route's `i`-th evidence kind (sorted by name).
    pub evidence: u32,
}

impl UnitAttrs {
    /// A unit's attributes: its record's dates and the mask of the evidence kinds it names
    /// (`kinds`, the route's, in bit order).
    pub fn of_unit(unit: &Unit, kinds: &[String]) -> UnitAttrs {
        let evidence =
            kinds.iter().enumerate().filter(|(_, k)| unit.evidence.contains_key(*k)).fold(0u32, |m, (i, _)| m | 1 << i);
        UnitAttrs { date: unit.date, evidence }
    }

    pub(crate) fn to_bytes(self) -> [u8; ATTRS_BYTES] {
        let mut out = [0u8; ATTRS_BYTES];
        let (first, last) = self.date.days.unwrap_or((0, 0));
        out[0..4].copy_from_slice(&self.date.year.unwrap_or(NO_YEAR).to_le_bytes());
        out[4..8].copy_from_slice(&first.to_le_bytes());
        out[8..12].copy_from_slice(&last.to_le_bytes());
        out[12..16].copy_from_slice(&self.evidence.to_le_bytes());
        out
    }

    pub(crate) fn from_bytes(b: &[u8]) -> UnitAttrs {
        let word = |i: usize| [b[i], b[i + 1], b[i + 2], b[i + 3]];
        let year = i32::from_le_bytes(word(0));
        let (first, last) = (u32::from_le_bytes(word(4)), u32::from_le_bytes(word(8)));
        UnitAttrs {
            date: RecordDate {
                year: (year != NO_YEAR).then_some(year),
                days: (first != 0 && last != 0).then_some((first, last)),
            },
            evidence: u32::from_le_bytes(word(12)),
        }
    }
}

/// A filter applied inside a search: only units it admits are ever scored or returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UnitFilter {
    /// The information boundary (applied only on dated routes; see `RouteIndex::unit_filter`).
    pub window: Option<DateWindow>,
    /// Units must name every evidence kind of this mask.
    pub evidence: Option<u32>,
}

impl UnitFilter {
    /// The filter that admits every unit.
    pub fn none() -> UnitFilter {
        UnitFilter::default()
    }

    /// Whether this filter admits every unit.
    pub fn is_none(&self) -> bool {
        self.window.is_none() && self.evidence.is_none()
    }

    pub fn admits(&self, attrs: &UnitAttrs) -> bool {
        self.window.is_none_or(|w| w.admits(&attrs.date)) && self.evidence.is_none_or(|m| attrs.evidence & m == m)
    }
}

/// A set of unit ordinals (a bitset), for filters whose rule is decided per query and unit
/// rather than from the stored attributes (e.g. the retriever's `/in_force`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnitSet {
    bits: Vec<u64>,
}

impl UnitSet {
    /// The units among `0..units` for which `keep` is true.
    pub fn from_fn(units: u32, mut keep: impl FnMut(u32) -> bool) -> UnitSet {
        let mut bits = vec![0u64; (units as usize).div_ceil(64)];
        for ord in 0..units {
            if keep(ord) {
                bits[ord as usize / 64] |= 1 << (ord % 64);
            }
        }
        UnitSet { bits }
    }

    pub fn contains(&self, ord: u32) -> bool {
        self.bits.get(ord as usize / 64).is_some_and(|w| w & (1 << (ord % 64)) != 0)
    }
}

/// Writes [`ATTRS_FILE`] in ordinal order.
#[derive(Debug)]
pub(crate) struct AttrsWriter {
    out: BufWriter<fs_err::File>,
}

impl AttrsWriter {
    pub(crate) fn create(dir: &Path) -> Result<Self> {
        Ok(Self { out: BufWriter::new(fs_err::File::create(dir.join(ATTRS_FILE))?) })
    }

    pub(crate) fn add(&mut self, attrs: &UnitAttrs) -> Result<()> {
        self.out.write_all(&attrs.to_bytes())?;
        Ok(())
    }

    pub(crate) fn finish(mut self) -> Result<()> {
        self.out.flush()?;
        Ok(())
    }
}

/// Read [`ATTRS_FILE`] of a route index holding `units` units.
pub(crate) fn read_attrs(dir: &Path, units: usize) -> Result<Vec<UnitAttrs>> {
    let path: PathBuf = dir.join(ATTRS_FILE);
    let bytes = fs_err::read(&path)?;
    if bytes.len() != units * ATTRS_BYTES {
        return Err(Error::IndexFile {
            path,
            message: format!("{} bytes for {units} units; rebuild the index with `anser index --rebuild`", bytes.len()),
        });
    }
    Ok(bytes.chunks_exact(ATTRS_BYTES).map(UnitAttrs::from_bytes).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attrs_round_trip_through_the_attrs_file() {
        for attrs in [
            UnitAttrs { date: RecordDate::parse("2019-05-12"), evidence: 0b10 },
            UnitAttrs { date: RecordDate::of_parts(Some(2021), None), evidence: 1 },
            UnitAttrs::default(),
        ] {
            assert_eq!(UnitAttrs::from_bytes(&attrs.to_bytes()), attrs);
        }
    }

    #[test]
    fn filters_combine_dates_and_evidence() {
        let dated = UnitAttrs { date: RecordDate::parse("2020-06-01"), evidence: 0b01 };
        let undated = UnitAttrs { date: RecordDate::default(), evidence: 0b11 };
        let window = DateWindow { max_year: Some(2020), ..DateWindow::default() };
        assert!(UnitFilter::none().admits(&undated));
        let f = UnitFilter { window: Some(window), evidence: None };
        assert!(f.admits(&dated) && !f.admits(&undated), "undated units never pass a window");
        let f = UnitFilter { window: None, evidence: Some(0b10) };
        assert!(!f.admits(&dated) && f.admits(&undated));
        assert!(!UnitFilter { window: None, evidence: Some(NO_UNIT) }.admits(&undated));
        let early = DateWindow { max_year: Some(2019), ..DateWindow::default() };
        assert!(!UnitFilter { window: Some(early), evidence: None }.admits(&dated));
    }
}
