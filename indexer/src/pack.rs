//! A small build's index as one file: every tantivy file of the index and our statistics files,
//! back to back in `index.pack`, with a table of contents at the end.
//!
//! A tantivy index is a folder of about ten files per segment plus `meta.json`. On a small route
//! most of a build's time went to the files themselves rather than to indexing: creating,
//! writing and syncing each of them. A one-document index took 1.9 ms to build as a folder and
//! 0.7 ms with its files kept in memory and written as one file; finance_zh_rules (216 units)
//! 2.9 → 2.0 ms (README, "All ten release routes, session 14"). So a small build writes its
//! index in tantivy's `RamDirectory` and then [`write_pack`] writes the files the index needs
//! into one file, syncs it once, and syncs the folder. A search opens it with [`PackDirectory`]:
//! tantivy maps the file into memory and every file of the index is a slice of it, read as
//! tantivy reads a file of a folder.
//!
//! Layout (integers little-endian): [`MAGIC`]; each file's bytes, each starting at a multiple of
//! [`ALIGN`] (zero padding between); the table: for each file its name's length (u16), its name
//! (UTF-8), its offset and its length (u64 each); then the table's length (u64) and [`MAGIC`].

use std::{
    collections::BTreeMap,
    io::{self, Write},
    path::{Path, PathBuf},
    sync::Arc,
};

use tantivy::{
    Directory, HasLen,
    directory::{
        DirectoryLock, FileHandle, FileSlice, Lock, MmapDirectory, WatchCallback, WatchHandle, WritePtr,
        error::{DeleteError, LockError, OpenReadError, OpenWriteError},
    },
};

use crate::{Error, Result, le_reader::LeReader};

/// The pack's file name in an index folder.
pub(crate) const PACK_FILE: &str = "index.pack";

/// The first and last eight bytes of a pack.
const MAGIC: &[u8; 8] = b"ANSRPAK1";

/// Each file's offset in the pack is a multiple of this, as a folder's files each start a page
/// (a reader may load a number at its natural alignment).
const ALIGN: u64 = 16;

/// Write `files` of `from` (paths relative to it) as the pack of the existing folder `root`,
/// then sync the pack and the folder. The pack must not exist yet.
pub(crate) fn write_pack(root: &Path, from: &dyn Directory, files: &[PathBuf]) -> Result<()> {
    let path = root.join(PACK_FILE);
    let file = fs_err::OpenOptions::new().write(true).create_new(true).open(&path)?;
    let mut out = io::BufWriter::with_capacity(1 << 16, file);
    out.write_all(MAGIC)?;
    let mut at = MAGIC.len() as u64;
    let mut table = Vec::new();
    for rel in files {
        let name = rel.to_str().filter(|n| n.len() <= usize::from(u16::MAX)).ok_or_else(|| Error::IndexFile {
            path: rel.clone(),
            message: "an index file name that a pack cannot hold (not UTF-8, or too long)".into(),
        })?;
        let bytes = from.open_read(rel).map_err(tantivy::TantivyError::from)?.read_bytes()?;
        let pad = at.next_multiple_of(ALIGN) - at;
        out.write_all(&[0u8; ALIGN as usize][..pad as usize])?;
        at += pad;
        out.write_all(bytes.as_slice())?;
        table.extend_from_slice(&(name.len() as u16).to_le_bytes());
        table.extend_from_slice(name.as_bytes());
        table.extend_from_slice(&at.to_le_bytes());
        table.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        at += bytes.len() as u64;
    }
    out.write_all(&table)?;
    out.write_all(&(table.len() as u64).to_le_bytes())?;
    out.write_all(MAGIC)?;
    let file = out.into_inner().map_err(|e| Error::Io(e.into_error()))?;
    file.sync_all()?;
    fs_err::File::open(root)?.sync_all()?;
    Ok(())
}

/// Whether the index folder `root` holds a pack.
pub(crate) fn has_pack(root: &Path) -> bool {
    root.join(PACK_FILE).is_file()
}

/// A read-only tantivy directory over a pack (module docs). Writing to it is an error.
#[derive(Clone)]
pub(crate) struct PackDirectory {
    path: PathBuf,
    files: Arc<BTreeMap<PathBuf, FileSlice>>,
}

impl std::fmt::Debug for PackDirectory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PackDirectory").field("path", &self.path).field("files", &self.files.len()).finish()
    }
}

impl PackDirectory {
    /// The pack in the index folder `root`, mapped into memory.
    pub(crate) fn open(root: &Path) -> Result<Self> {
        let path = root.join(PACK_FILE);
        let bad = |message: &str| Error::IndexFile {
            path: path.clone(),
            message: format!("{message}; rebuild the index with `anser index --rebuild`"),
        };
        let whole = MmapDirectory::open(root)
            .map_err(|e| Error::IndexFile { path: root.to_path_buf(), message: e.to_string() })?
            .open_read(Path::new(PACK_FILE))
            .map_err(|e| Error::IndexFile { path: path.clone(), message: e.to_string() })?;
        let len = whole.len() as u64;
        let magic = MAGIC.len() as u64;
        if len < 2 * magic + 8 {
            return Err(bad("too short to be an index pack"));
        }
        let head = whole.read_bytes_slice(0..MAGIC.len())?;
        let tail = whole.read_bytes_slice((len - magic - 8) as usize..len as usize)?;
        if head.as_slice() != MAGIC || &tail.as_slice()[8..] != MAGIC {
            return Err(bad("not an index pack of this format"));
        }
        let table_len = LeReader::new(tail.as_slice()).u64().ok_or_else(|| bad("truncated footer"))?;
        let table_end = len - magic - 8;
        let table_start =
            table_end.checked_sub(table_len).filter(|&s| s >= magic).ok_or_else(|| bad("table out of bounds"))?;
        let table = whole.read_bytes_slice(table_start as usize..table_end as usize)?;
        let mut rest = LeReader::new(table.as_slice());
        let mut files = BTreeMap::new();
        while !rest.is_empty() {
            let (name, offset, size) = entry(&mut rest).ok_or_else(|| bad("truncated table"))?;
            let end = offset.checked_add(size).filter(|&e| offset >= magic && e <= table_start);
            let end = end.ok_or_else(|| bad(&format!("{name}: out of bounds")))?;
            files.insert(PathBuf::from(name), whole.slice(offset as usize..end as usize));
        }
        Ok(Self { path, files: Arc::new(files) })
    }

    /// The error of a write to this directory.
    fn read_only(&self) -> io::Error {
        io::Error::new(io::ErrorKind::PermissionDenied, format!("{}: an index pack is read-only", self.path.display()))
    }

    fn missing(path: &Path) -> OpenReadError {
        OpenReadError::FileDoesNotExist(path.to_path_buf())
    }
}

/// The next table entry of `rest` (name, offset, length).
fn entry<'a>(rest: &mut LeReader<'a>) -> Option<(&'a str, u64, u64)> {
    let name_len = rest.u16()?;
    let name = std::str::from_utf8(rest.take(usize::from(name_len))?).ok()?;
    Some((name, rest.u64()?, rest.u64()?))
}

impl Directory for PackDirectory {
    fn get_file_handle(&self, path: &Path) -> std::result::Result<Arc<dyn FileHandle>, OpenReadError> {
        Ok(Arc::new(self.open_read(path)?))
    }

    fn open_read(&self, path: &Path) -> std::result::Result<FileSlice, OpenReadError> {
        self.files.get(path).cloned().ok_or_else(|| Self::missing(path))
    }

    fn delete(&self, path: &Path) -> std::result::Result<(), DeleteError> {
        Err(DeleteError::IoError { io_error: Arc::new(self.read_only()), filepath: path.to_path_buf() })
    }

    fn exists(&self, path: &Path) -> std::result::Result<bool, OpenReadError> {
        Ok(self.files.contains_key(path))
    }

    fn open_write(&self, path: &Path) -> std::result::Result<WritePtr, OpenWriteError> {
        Err(OpenWriteError::wrap_io_error(self.read_only(), path.to_path_buf()))
    }

    fn atomic_read(&self, path: &Path) -> std::result::Result<Vec<u8>, OpenReadError> {
        let slice = self.open_read(path)?;
        let bytes = slice.read_bytes().map_err(|e| OpenReadError::wrap_io_error(e, path.to_path_buf()))?;
        Ok(bytes.as_slice().to_vec())
    }

    fn atomic_write(&self, _: &Path, _: &[u8]) -> io::Result<()> {
        Err(self.read_only())
    }

    fn sync_directory(&self) -> io::Result<()> {
        Ok(())
    }

    /// A pack never changes (no writer can hold a lock on it), so every lock is granted at once.
    fn acquire_lock(&self, _: &Lock) -> std::result::Result<DirectoryLock, LockError> {
        Ok(DirectoryLock::from(Box::new(())))
    }

    /// A pack never changes, so there is nothing to watch.
    fn watch(&self, _: WatchCallback) -> tantivy::Result<WatchHandle> {
        Ok(WatchHandle::empty())
    }
}

#[cfg(test)]
mod tests {
    use tantivy::directory::RamDirectory;

    use super::*;

    fn ram_with(files: &[(&str, &[u8])]) -> RamDirectory {
        let ram = RamDirectory::create();
        for (name, data) in files {
            ram.atomic_write(Path::new(name), data).expect("write");
        }
        ram
    }

    #[test]
    fn files_read_back_as_written_and_aligned() {
        let tmp = tempfile::tempdir().expect("tmp");
        let files: [(&str, &[u8]); 4] =
            [("meta.json", b"{}\n"), ("a.idx", &[7u8; 37]), ("empty.pos", b""), ("b-stats.bin", &[1, 2, 3])];
        let ram = ram_with(&files);
        let names: Vec<PathBuf> = files.iter().map(|(n, _)| PathBuf::from(n)).collect();
        write_pack(tmp.path(), &ram, &names).expect("pack");
        assert!(has_pack(tmp.path()));
        let pack = PackDirectory::open(tmp.path()).expect("open");
        for (name, data) in files {
            assert_eq!(pack.atomic_read(Path::new(name)).expect("read"), data, "{name}");
            assert!(pack.exists(Path::new(name)).expect("exists"));
        }
        assert!(!pack.exists(Path::new("other")).expect("exists"));
        assert!(matches!(pack.open_read(Path::new("other")), Err(OpenReadError::FileDoesNotExist(_))));
        // Offsets: the 8-byte magic padded to 16; "{}\n" at 16 (to 19, padded to 32); 37 bytes at
        // 32 (to 69, padded to 80); the empty file and the last one's 3 bytes at 80.
        let raw = fs_err::read(tmp.path().join(PACK_FILE)).expect("raw");
        assert_eq!(&raw[16..19], b"{}\n");
        assert_eq!(&raw[32..69], &[7u8; 37]);
        assert_eq!(&raw[80..83], &[1, 2, 3]);
        assert!(raw[8..16].iter().chain(&raw[19..32]).chain(&raw[69..80]).all(|&b| b == 0), "zero padding");
        // A pack is written once.
        assert!(write_pack(tmp.path(), &ram, &names).is_err());
    }

    #[test]
    fn writes_are_refused() {
        let tmp = tempfile::tempdir().expect("tmp");
        write_pack(tmp.path(), &ram_with(&[("x", b"1")]), &[PathBuf::from("x")]).expect("pack");
        let pack = PackDirectory::open(tmp.path()).expect("open");
        assert!(pack.atomic_write(Path::new("x"), b"2").is_err());
        assert!(pack.open_write(Path::new("y")).is_err());
        assert!(pack.delete(Path::new("x")).is_err());
        assert_eq!(pack.atomic_read(Path::new("x")).expect("read"), b"1");
    }

    #[test]
    fn damage_is_a_clear_error() {
        let tmp = tempfile::tempdir().expect("tmp");
        write_pack(tmp.path(), &ram_with(&[("x", b"12345")]), &[PathBuf::from("x")]).expect("pack");
        let path = tmp.path().join(PACK_FILE);
        let good = fs_err::read(&path).expect("raw");
        let mut cases: Vec<(&str, Vec<u8>)> = vec![
            ("too short", good[..10].to_vec()),
            ("not an index pack", [b"XXXXXXXX".as_slice(), &good[8..]].concat()),
            ("not an index pack", good[..good.len() - 1].to_vec()),
        ];
        // The table's length points before the first file; a file's offset past the table.
        let mut long_table = good.clone();
        let at = good.len() - 16;
        long_table[at..at + 8].copy_from_slice(&(good.len() as u64).to_le_bytes());
        cases.push(("table out of bounds", long_table));
        // A file past the end, one ending inside the table, one starting inside the magic.
        let offset_at = good.len() - 16 - 16;
        let table_start = (good.len() - 16 - (2 + 1 + 8 + 8)) as u64;
        for offset in [1000, table_start - 2, 0] {
            let mut bad = good.clone();
            bad[offset_at..offset_at + 8].copy_from_slice(&offset.to_le_bytes());
            cases.push(("x: out of bounds", bad));
        }
        let mut cut = good.clone();
        let at = good.len() - 16;
        cut[at..at + 8].copy_from_slice(&(1 + 2 + 8 + 8 - 1u64).to_le_bytes());
        cases.push(("truncated table", cut));
        for (want, bytes) in cases {
            fs_err::write(&path, &bytes).expect("damage");
            let err = PackDirectory::open(tmp.path()).expect_err(want).to_string();
            assert!(err.contains(want) && err.contains("index.pack") && err.contains("--rebuild"), "{want}: {err}");
        }
    }
}
