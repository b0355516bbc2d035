//! The unit store of a route index: `units.jsonl` (one unit per line, in ordinal order) plus
//! `units.offsets` (little-endian u64 byte offset of every line). BM25 and vector hits are unit
//! ordinals; the store turns them back into text and evidence without holding the corpus in
//! memory.

use std::{
    io::{BufWriter, Read, Seek, SeekFrom, Write},
    path::{Path, PathBuf},
    sync::Mutex,
};

use crate::{Error, Result, units::Unit};

pub(crate) const UNITS_FILE: &str = "units.jsonl";
pub(crate) const OFFSETS_FILE: &str = "units.offsets";

/// Appends units in ordinal order.
#[derive(Debug)]
pub struct UnitStoreWriter {
    units: BufWriter<fs_err::File>,
    offsets: BufWriter<fs_err::File>,
    pos: u64,
    next: u32,
}

impl UnitStoreWriter {
    pub fn create(dir: &Path) -> Result<Self> {
        Ok(Self {
            units: BufWriter::new(fs_err::File::create(dir.join(UNITS_FILE))?),
            offsets: BufWriter::new(fs_err::File::create(dir.join(OFFSETS_FILE))?),
            pos: 0,
            next: 0,
        })
    }

    pub fn add(&mut self, unit: &Unit) -> Result<()> {
        if unit.ord != self.next {
            return Err(Error::Param(format!(
                "unit ordinal {} written out of order (expected {})",
                unit.ord, self.next
            )));
        }
        let mut line = serde_json::to_vec(unit).map_err(|e| Error::Param(format!("unit {}: {e}", unit.ord)))?;
        line.push(b'\n');
        self.units.write_all(&line)?;
        self.offsets.write_all(&self.pos.to_le_bytes())?;
        self.pos += line.len() as u64;
        self.next += 1;
        Ok(())
    }

    pub fn finish(mut self) -> Result<u32> {
        self.offsets.write_all(&self.pos.to_le_bytes())?;
        self.units.flush()?;
        self.offsets.flush()?;
        Ok(self.next)
    }
}

/// Random access to stored units.
#[derive(Debug)]
pub struct UnitStore {
    path: PathBuf,
    file: Mutex<fs_err::File>,
    offsets: Vec<u64>,
}

impl UnitStore {
    pub fn open(dir: &Path) -> Result<Self> {
        let path = dir.join(UNITS_FILE);
        let offsets_path = dir.join(OFFSETS_FILE);
        let raw = fs_err::read(&offsets_path)?;
        if raw.len() % 8 != 0 || raw.is_empty() {
            return Err(Error::IndexFile {
                path: offsets_path,
                message: "truncated offsets file; rebuild the index".into(),
            });
        }
        let offsets: Vec<u64> =
            raw.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8]))).collect();
        let file = fs_err::File::open(&path)?;
        let size = file.metadata()?.len();
        if offsets.last() != Some(&size) {
            return Err(Error::IndexFile {
                path,
                message: "size does not match its offsets; rebuild the index".into(),
            });
        }
        Ok(Self { path, file: Mutex::new(file), offsets })
    }

    /// Number of units.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The unit with ordinal `ord`.
    pub fn get(&self, ord: u32) -> Result<Unit> {
        let i = ord as usize;
        if i >= self.len() {
            return Err(Error::IndexFile { path: self.path.clone(), message: format!("no unit {ord}") });
        }
        let (start, end) = (self.offsets[i], self.offsets[i + 1]);
        let mut buf = vec![0u8; (end - start) as usize];
        {
            let mut f = self.file.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            f.seek(SeekFrom::Start(start))?;
            f.read_exact(&mut buf)?;
        }
        serde_json::from_slice(&buf)
            .map_err(|e| Error::IndexFile { path: self.path.clone(), message: format!("unit {ord}: {e}") })
    }

    /// Every unit in order (for exports and tests).
    pub fn iter(&self) -> impl Iterator<Item = Result<Unit>> + '_ {
        (0..self.len() as u32).map(|o| self.get(o))
    }
}
