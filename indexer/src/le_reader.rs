//! A cursor over little-endian bytes, for the index's own binary files (the BM25 statistics
//! files, the pack's table of contents and the dense build's checkpoint records): each read is
//! `None` past the end instead of a panic, so a damaged file becomes an error that names it (or,
//! in a checkpoint, the end of its usable part).

/// Little-endian cursor over a byte slice.
pub(crate) struct LeReader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> LeReader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        Self { bytes, at: 0 }
    }

    /// Whether every byte has been read.
    pub(crate) fn is_empty(&self) -> bool {
        self.at >= self.bytes.len()
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }

    pub(crate) fn u16(&mut self) -> Option<u16> {
        self.take(2).and_then(|b| b.try_into().ok()).map(u16::from_le_bytes)
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        self.take(4).and_then(|b| b.try_into().ok()).map(u32::from_le_bytes)
    }

    pub(crate) fn u64(&mut self) -> Option<u64> {
        self.take(8).and_then(|b| b.try_into().ok()).map(u64::from_le_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_little_endian_and_stops_at_the_end() {
        let bytes = [1, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 9];
        let mut r = LeReader::new(&bytes);
        assert_eq!((r.u16(), r.u32(), r.u64()), (Some(1), Some(2), Some(3)));
        assert!(!r.is_empty());
        assert_eq!(r.u16(), None, "one byte left");
        assert_eq!(r.take(1), Some([9u8].as_slice()));
        assert!(r.is_empty());
        assert_eq!(r.take(usize::MAX), None);
    }
}
