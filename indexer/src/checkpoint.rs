//! The dense build's checkpoint: vectors of every finished embedding batch, appended and fsynced
//! as each batch finishes, so that a killed `anser index` resumes without embedding (or paying
//! an API for) those batches again.
//!
//! The file lives beside the route folders (`<index-dir>/.<route>.dense-checkpoint`), outside
//! the temporary build folder, which a new process does not reuse. It starts with a key (a hash
//! of the embedder's identity, model, dimension, the corpus content hash, the chunking and the
//! batch size): a file with another key is from another build and is started afresh. Then come
//! records, one per finished batch:
//!
//! ```text
//! magic u32 | start u64 | count u32 | dim u32 | sha256(texts) [32] | count·dim f32 | sha256(record) [32]
//! ```
//!
//! all little-endian. A batch is reused only when its first unit ordinal, its length and the
//! hash of its texts all match, so a stale record can never put a vector on the wrong unit.
//! A record cut off by a crash, or whose checksum does not match, ends the usable part: it and
//! everything after it are truncated away before new records are appended.

use std::{
    collections::HashMap,
    io::{Seek, SeekFrom, Write},
    path::{Path, PathBuf},
};

use sha2::{Digest, Sha256};

use crate::{Result, le_reader::LeReader};

const FILE_MAGIC: &[u8; 8] = b"ANSRCKP1";
const RECORD_MAGIC: u32 = 0x4B43_4E41; // "ANCK"
/// Bytes of a record before its vectors: magic, start, count, dim, texts hash.
const RECORD_HEAD: usize = 4 + 8 + 4 + 4 + 32;

/// Hash identifying a batch's texts (length-prefixed, so `["ab"]` and `["a", "b"]` differ).
pub fn texts_hash(texts: &[&str]) -> [u8; 32] {
    let mut h = Sha256::new();
    for t in texts {
        h.update((t.len() as u64).to_le_bytes());
        h.update(t.as_bytes());
    }
    h.finalize().into()
}

/// A finished batch read back from the file.
#[derive(Debug, Clone)]
struct Finished {
    count: usize,
    hash: [u8; 32],
    vectors: Vec<f32>,
}

/// An open checkpoint, positioned for appending.
#[derive(Debug)]
pub struct DenseCheckpoint {
    path: PathBuf,
    file: fs_err::File,
    dim: usize,
    finished: HashMap<u64, Finished>,
    dropped_bytes: u64,
}

impl DenseCheckpoint {
    /// Where the checkpoint of `route_name` under `index_dir` lives.
    pub fn path_for(index_dir: &Path, route_name: &str) -> PathBuf {
        index_dir.join(format!(".{route_name}.dense-checkpoint"))
    }

    /// Open (or create) the checkpoint at `path` for a build identified by `key` whose vectors
    /// have `dim` values. Keeps the valid records of a file with the same key; anything else is
    /// started afresh.
    pub fn open(path: &Path, key: &str, dim: usize) -> Result<Self> {
        let bytes = match fs_err::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e.into()),
        };
        let header = header(key);
        let (finished, valid) =
            if bytes.starts_with(&header) { read_records(&bytes, header.len(), dim) } else { (HashMap::new(), 0) };
        let mut file = fs_err::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path)?;
        let dropped_bytes = if valid == 0 {
            // Another build's file, or an empty one: start with our header.
            file.set_len(0)?;
            file.seek(SeekFrom::Start(0))?;
            file.write_all(&header)?;
            file.sync_all()?;
            bytes.len() as u64
        } else {
            if (valid as u64) < bytes.len() as u64 {
                file.set_len(valid as u64)?;
                file.sync_all()?;
            }
            file.seek(SeekFrom::End(0))?;
            (bytes.len() - valid) as u64
        };
        Ok(Self { path: path.to_path_buf(), file, dim, finished, dropped_bytes })
    }

    /// Batches the file holds.
    pub fn len(&self) -> usize {
        self.finished.len()
    }

    /// Whether the file holds no batch.
    pub fn is_empty(&self) -> bool {
        self.finished.is_empty()
    }

    /// Bytes dropped when opening: a torn or corrupt tail, or another build's file.
    pub fn dropped_bytes(&self) -> u64 {
        self.dropped_bytes
    }

    /// The vectors of the finished batch starting at unit `start` with these texts, if any.
    pub fn take(&mut self, start: u64, count: usize, hash: &[u8; 32]) -> Option<Vec<f32>> {
        match self.finished.get(&start) {
            Some(f) if f.count == count && &f.hash == hash => self.finished.remove(&start).map(|f| f.vectors),
            _ => None,
        }
    }

    /// Record a finished batch (`vectors` holds `count × dim` values) and fsync it.
    pub fn append(&mut self, start: u64, hash: &[u8; 32], vectors: &[f32]) -> Result<()> {
        let count = vectors.len() / self.dim.max(1);
        let mut rec = Vec::with_capacity(RECORD_HEAD + vectors.len() * 4 + 32);
        rec.extend_from_slice(&RECORD_MAGIC.to_le_bytes());
        rec.extend_from_slice(&start.to_le_bytes());
        rec.extend_from_slice(&(count as u32).to_le_bytes());
        rec.extend_from_slice(&(self.dim as u32).to_le_bytes());
        rec.extend_from_slice(hash);
        for x in vectors {
            rec.extend_from_slice(&x.to_le_bytes());
        }
        let sum: [u8; 32] = Sha256::digest(&rec).into();
        rec.extend_from_slice(&sum);
        self.file.write_all(&rec)?;
        self.file.sync_data()?;
        Ok(())
    }

    /// Delete the file (the build it served is finished).
    pub fn remove(self) -> Result<()> {
        let path = self.path;
        drop(self.file);
        match fs_err::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
            _ => Ok(()),
        }
    }
}

fn header(key: &str) -> Vec<u8> {
    let mut h = FILE_MAGIC.to_vec();
    h.extend_from_slice(&Sha256::digest(key.as_bytes()));
    h
}

/// The valid records after the header and the length of the valid prefix (header included).
fn read_records(bytes: &[u8], at: usize, dim: usize) -> (HashMap<u64, Finished>, usize) {
    let mut finished = HashMap::new();
    let mut valid = at;
    while let Some((start, batch, len)) = bytes.get(valid..).and_then(|rest| read_record(rest, dim)) {
        finished.insert(start, batch);
        valid += len;
    }
    (finished, valid)
}

/// The record at the start of `rest`: its first unit ordinal, its batch and its length in bytes;
/// `None` when it is cut off, of another dimension, or its checksum does not match.
fn read_record(rest: &[u8], dim: usize) -> Option<(u64, Finished, usize)> {
    let mut r = LeReader::new(rest);
    if r.u32()? != RECORD_MAGIC {
        return None;
    }
    let start = r.u64()?;
    let count = r.u32()? as usize;
    if r.u32()? as usize != dim {
        return None;
    }
    let hash: [u8; 32] = r.take(32)?.try_into().ok()?;
    let values = r.take(count.checked_mul(dim)?.checked_mul(4)?)?;
    let body = RECORD_HEAD + values.len();
    if Sha256::digest(&rest[..body]).as_slice() != r.take(32)? {
        return None;
    }
    let vectors = values.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    Some((start, Finished { count, hash, vectors }, body + 32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_survive_reopen_and_a_torn_tail_is_dropped() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(".r.dense-checkpoint");
        let (h0, h1) = (texts_hash(&["a", "b"]), texts_hash(&["c"]));
        let mut cp = DenseCheckpoint::open(&path, "k", 2).expect("open");
        cp.append(0, &h0, &[1.0, 2.0, 3.0, 4.0]).expect("append");
        cp.append(2, &h1, &[5.0, 6.0]).expect("append");
        drop(cp);
        // A crash in the middle of a third record.
        let full = fs_err::read(&path).expect("read");
        let mut torn = full.clone();
        torn.extend_from_slice(&RECORD_MAGIC.to_le_bytes());
        torn.extend_from_slice(&[7u8; 20]);
        fs_err::write(&path, &torn).expect("write");

        let mut cp = DenseCheckpoint::open(&path, "k", 2).expect("reopen");
        assert_eq!((cp.len(), cp.dropped_bytes()), (2, 24));
        assert_eq!(fs_err::read(&path).expect("read"), full, "the torn tail is cut off");
        assert_eq!(cp.take(2, 1, &texts_hash(&["other"])), None, "other texts are not reused");
        assert_eq!(cp.take(2, 1, &h1), Some(vec![5.0, 6.0]));
        assert_eq!(cp.take(0, 2, &h0), Some(vec![1.0, 2.0, 3.0, 4.0]));
    }

    #[test]
    fn a_corrupt_record_ends_the_usable_part_and_another_key_starts_afresh() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join(".r.dense-checkpoint");
        let h = texts_hash(&["a"]);
        let mut cp = DenseCheckpoint::open(&path, "k", 1).expect("open");
        for start in 0..3 {
            cp.append(start, &h, &[start as f32]).expect("append");
        }
        drop(cp);
        let mut bytes = fs_err::read(&path).expect("read");
        let record = RECORD_HEAD + 4 + 32;
        let second_vector = 40 + record + RECORD_HEAD;
        bytes[second_vector] ^= 0xff;
        fs_err::write(&path, &bytes).expect("write");
        let cp = DenseCheckpoint::open(&path, "k", 1).expect("reopen");
        assert_eq!(cp.len(), 1, "records from the corrupt one on are dropped");
        assert_eq!(cp.dropped_bytes(), 2 * record as u64);
        drop(cp);
        let cp = DenseCheckpoint::open(&path, "k", 2).expect("other dimension");
        assert_eq!((cp.len(), cp.dropped_bytes()), (0, record as u64), "a record of another dimension is not read");
        drop(cp);
        let cp = DenseCheckpoint::open(&path, "another build", 1).expect("other key");
        assert!(cp.is_empty());
        assert_eq!(fs_err::metadata(&path).expect("meta").len(), 40, "only the new header is left");
        cp.remove().expect("remove");
        assert!(!path.exists());
    }
}
