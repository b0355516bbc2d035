//! Character windows over a unit's text, as the official sparse baseline cuts them: the text
//! is stripped, windows of `size` characters start every `size − overlap` characters, each
//! window is stripped and empty windows are skipped.

use serde::{Deserialize, Serialize};

use crate::{Error, Result};

/// Default window length in characters (the official sparse baseline's).
pub const DEFAULT_CHUNK_SIZE: usize = 1200;
/// Default overlap between consecutive windows in characters (the official sparse baseline's).
pub const DEFAULT_CHUNK_OVERLAP: usize = 120;

/// Validated chunking parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunking {
    pub size: usize,
    pub overlap: usize,
}

impl Default for Chunking {
    fn default() -> Self {
        Self { size: DEFAULT_CHUNK_SIZE, overlap: DEFAULT_CHUNK_OVERLAP }
    }
}

impl Chunking {
    /// Chunking with `size ≥ 1` and `overlap < size`.
    pub fn new(size: usize, overlap: usize) -> Result<Self> {
        if size == 0 {
            return Err(Error::Param("chunk size must be at least 1 character".into()));
        }
        if overlap >= size {
            return Err(Error::Param(format!("chunk overlap {overlap} must be smaller than the chunk size {size}")));
        }
        Ok(Self { size, overlap })
    }

    /// The windows of `text`, in order.
    pub fn chunks(&self, text: &str) -> Vec<String> {
        let text = text.trim();
        let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
        let n = starts.len();
        let step = self.size - self.overlap;
        let byte = |c: usize| if c >= n { text.len() } else { starts[c] };
        (0..n)
            .step_by(step)
            .map(|c| text[byte(c)..byte(c + self.size)].trim())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_start_every_size_minus_overlap() {
        let c = Chunking::new(4, 1).expect("valid");
        assert_eq!(c.chunks("  abcdefghij  "), vec!["abcd", "defg", "ghij", "j"]);
        assert_eq!(c.chunks("   "), Vec::<String>::new());
        // Characters, not bytes.
        assert_eq!(c.chunks("上市公司规则"), vec!["上市公司", "司规则"]);
    }

    #[test]
    fn defaults_and_validation() {
        let d = Chunking::default();
        assert_eq!((d.size, d.overlap), (1200, 120));
        let text = "字".repeat(2500);
        let chunks = d.chunks(&text);
        // Starts at 0, 1080, 2160.
        assert_eq!(chunks.iter().map(|c| c.chars().count()).collect::<Vec<_>>(), vec![1200, 1200, 340]);
        assert!(Chunking::new(10, 10).is_err());
        assert!(Chunking::new(0, 0).is_err());
    }
}
