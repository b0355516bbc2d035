//! Dense vectors of a route: a flat matrix (exact search, the ground truth) and an hnsw_rs graph
//! over it (approximate search). Vectors are unit length, so the score of a hit (its inner
//! product) is its cosine similarity. The graph uses anndists' `DistCosine`, which clamps
//! rounding noise; its `DistDot` asserts `dot ≤ 1` and can panic on a vector's own duplicate.
//!
//! Filtered search ([`VectorIndex::search_filtered`]) takes a predicate over unit ordinals (the
//! route's per-unit attributes, `unit_attrs.bin`, see [`crate::filter`]): the graph is searched
//! with hnsw_rs's `search_filter`, which only lets admitted points into the result list; when
//! the predicate admits few units (at most [`EXACT_FILTERED_MAX`] or under
//! [`EXACT_FILTERED_FRACTION`] of the route) or the graph returns fewer than k admitted points,
//! the admitted units are searched exactly instead, since a sparse filter cuts a graph walk short.
//!
//! On disk: `vectors.f32` (little-endian f32, row-major) and the hnsw_rs dump
//! `hnsw.hnsw.graph` / `hnsw.hnsw.data`.

use std::path::{Path, PathBuf};

use hnsw_rs::{anndists::dist::DistCosine, filter::FilterT, hnsw::Hnsw, hnswio::HnswIo};
use serde::{Deserialize, Serialize};

use crate::{Error, Result, bm25::Scored};

/// Default graph degree (links per node and layer).
pub const DEFAULT_HNSW_M: usize = 16;
/// Default candidate list size while building.
pub const DEFAULT_EF_CONSTRUCTION: usize = 200;
/// Default candidate list size while searching (raised to k when k is larger).
pub const DEFAULT_EF_SEARCH: usize = 64;
/// A filtered search over at most this many admitted units is exact.
pub const EXACT_FILTERED_MAX: usize = 20_000;
/// A filtered search admitting less than this fraction of the units is exact.
pub const EXACT_FILTERED_FRACTION: f64 = 0.1;
/// hnsw_rs's maximum number of layers.
const MAX_LAYERS: usize = 16;
const VECTORS_FILE: &str = "vectors.f32";
const HNSW_BASENAME: &str = "hnsw";

/// HNSW parameters (validated).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HnswParams {
    /// In [2, 128].
    pub m: usize,
    /// In [m, 4096].
    pub ef_construction: usize,
    /// In [1, 4096].
    pub ef_search: usize,
}

impl Default for HnswParams {
    fn default() -> Self {
        Self { m: DEFAULT_HNSW_M, ef_construction: DEFAULT_EF_CONSTRUCTION, ef_search: DEFAULT_EF_SEARCH }
    }
}

impl HnswParams {
    pub fn new(m: usize, ef_construction: usize, ef_search: usize) -> Result<Self> {
        if !(2..=128).contains(&m) {
            return Err(Error::Param(format!("HNSW m = {m} must be in [2, 128]")));
        }
        if !(m..=4096).contains(&ef_construction) {
            return Err(Error::Param(format!("HNSW ef_construction = {ef_construction} must be in [m = {m}, 4096]")));
        }
        if !(1..=4096).contains(&ef_search) {
            return Err(Error::Param(format!("HNSW ef_search = {ef_search} must be in [1, 4096]")));
        }
        Ok(Self { m, ef_construction, ef_search })
    }
}

/// Inner product.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Vectors plus an optional HNSW graph.
pub struct VectorIndex {
    dim: usize,
    data: Vec<f32>,
    hnsw: Option<Hnsw<'static, f32, DistCosine>>,
    params: HnswParams,
}

impl std::fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorIndex")
            .field("dim", &self.dim)
            .field("len", &self.len())
            .field("hnsw", &self.hnsw.is_some())
            .field("params", &self.params)
            .finish()
    }
}

impl VectorIndex {
    /// Index `data` (`n × dim`, unit rows); builds the HNSW graph with `params`.
    pub fn build(data: Vec<f32>, dim: usize, params: HnswParams) -> Result<Self> {
        let mut this = Self::flat(data, dim, params)?;
        let n = this.len();
        let hnsw = Hnsw::new(params.m, n.max(1), MAX_LAYERS, params.ef_construction, DistCosine);
        let rows: Vec<(&[f32], usize)> = this.data.chunks_exact(dim).enumerate().map(|(i, r)| (r, i)).collect();
        hnsw.parallel_insert_slice(&rows);
        let mut hnsw = hnsw;
        hnsw.set_searching_mode(true);
        this.hnsw = Some(hnsw);
        Ok(this)
    }

    /// Exact search only (no graph).
    pub fn flat(data: Vec<f32>, dim: usize, params: HnswParams) -> Result<Self> {
        if dim == 0 || data.len() % dim != 0 {
            return Err(Error::Param(format!("{} values do not form rows of dimension {dim}", data.len())));
        }
        Ok(Self { dim, data, hnsw: None, params })
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn len(&self) -> usize {
        self.data.len() / self.dim
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn params(&self) -> HnswParams {
        self.params
    }

    /// Row `i`.
    pub fn row(&self, i: usize) -> &[f32] {
        &self.data[i * self.dim..(i + 1) * self.dim]
    }

    fn check(&self, query: &[f32]) -> Result<()> {
        if query.len() != self.dim {
            return Err(Error::Param(format!("query vector has {} dimensions, the index {}", query.len(), self.dim)));
        }
        Ok(())
    }

    /// Exact top-k by cosine (ties by ordinal).
    pub fn exact_search(&self, query: &[f32], k: usize) -> Result<Vec<Scored>> {
        self.exact_search_where(query, k, &|_| true)
    }

    /// Exact top-k by cosine among the units `keep` admits (ties by ordinal).
    pub fn exact_search_where(&self, query: &[f32], k: usize, keep: &dyn Fn(u32) -> bool) -> Result<Vec<Scored>> {
        self.check(query)?;
        let mut hits: Vec<Scored> = self
            .data
            .chunks_exact(self.dim)
            .enumerate()
            .filter(|(i, _)| keep(*i as u32))
            .map(|(i, r)| Scored { ord: i as u32, score: f64::from(dot(query, r)) })
            .collect();
        let k = k.min(hits.len());
        if k == 0 {
            return Ok(Vec::new());
        }
        let cmp = |a: &Scored, b: &Scored| b.score.total_cmp(&a.score).then(a.ord.cmp(&b.ord));
        hits.select_nth_unstable_by(k - 1, cmp);
        hits.truncate(k);
        hits.sort_by(cmp);
        Ok(hits)
    }

    /// Approximate top-k through the HNSW graph (exact when there is no graph).
    pub fn search(&self, query: &[f32], k: usize) -> Result<Vec<Scored>> {
        self.search_ef(query, k, self.params.ef_search)
    }

    /// [`Self::search`] with an explicit ef.
    pub fn search_ef(&self, query: &[f32], k: usize, ef: usize) -> Result<Vec<Scored>> {
        self.check(query)?;
        let Some(hnsw) = &self.hnsw else { return self.exact_search(query, k) };
        if k == 0 || self.is_empty() {
            return Ok(Vec::new());
        }
        let mut hits: Vec<Scored> = hnsw
            .search(query, k, ef.max(k))
            .into_iter()
            .map(|n| Scored { ord: n.d_id as u32, score: f64::from(dot(query, self.row(n.d_id))) })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.ord.cmp(&b.ord)));
        Ok(hits)
    }

    /// Top-k among the units `keep` admits: through the graph with hnsw_rs's `search_filter`,
    /// or exactly when the filter is selective (see the module docs). Never returns a unit
    /// `keep` refuses.
    pub fn search_filtered(
        &self,
        query: &[f32],
        k: usize,
        ef: usize,
        keep: &dyn Fn(u32) -> bool,
    ) -> Result<Vec<Scored>> {
        self.check(query)?;
        let n = self.len();
        let admitted = (0..n as u32).filter(|&i| keep(i)).count();
        if admitted == n {
            return self.search_ef(query, k, ef);
        }
        let want = k.min(admitted);
        if want == 0 {
            return Ok(Vec::new());
        }
        let Some(hnsw) = &self.hnsw else { return self.exact_search_where(query, k, keep) };
        if admitted <= EXACT_FILTERED_MAX || (admitted as f64) < EXACT_FILTERED_FRACTION * n as f64 {
            return self.exact_search_where(query, k, keep);
        }
        let filter = |id: &usize| keep(*id as u32);
        let mut hits: Vec<Scored> = hnsw
            .search_filter(query, k, ef.max(k), Some(&filter as &dyn FilterT))
            .into_iter()
            .filter(|n| keep(n.d_id as u32))
            .map(|n| Scored { ord: n.d_id as u32, score: f64::from(dot(query, self.row(n.d_id))) })
            .collect();
        if hits.len() < want {
            return self.exact_search_where(query, k, keep);
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.ord.cmp(&b.ord)));
        hits.truncate(k);
        Ok(hits)
    }

    /// Write vectors and graph into `dir`.
    pub fn save(&self, dir: &Path) -> Result<()> {
        let mut bytes = Vec::with_capacity(self.data.len() * 4);
        for x in &self.data {
            bytes.extend_from_slice(&x.to_le_bytes());
        }
        anser_runstore::write_atomic(&dir.join(VECTORS_FILE), &bytes).map_err(std::io::Error::from)?;
        if let Some(h) = &self.hnsw {
            use hnsw_rs::api::AnnT;
            h.file_dump(dir, HNSW_BASENAME).map_err(|e| Error::Vectors {
                path: dir.to_path_buf(),
                message: format!("cannot write the HNSW graph: {e}"),
            })?;
        }
        Ok(())
    }

    /// Read what [`Self::save`] wrote.
    pub fn load(dir: &Path, dim: usize, params: HnswParams) -> Result<Self> {
        let path: PathBuf = dir.join(VECTORS_FILE);
        let bytes = fs_err::read(&path)?;
        if dim == 0 || bytes.len() % (4 * dim) != 0 {
            return Err(Error::Vectors { path, message: format!("size is not a multiple of {dim} f32 values") });
        }
        let data: Vec<f32> = bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let mut this = Self::flat(data, dim, params)?;
        let graph = dir.join(format!("{HNSW_BASENAME}.hnsw.graph"));
        if graph.is_file() {
            // hnsw_rs ties the loaded graph's lifetime to its loader; the loader is a few
            // hundred bytes and lives as long as the process, one per opened route.
            let io: &'static mut HnswIo = Box::leak(Box::new(HnswIo::new(dir, HNSW_BASENAME)));
            let mut hnsw: Hnsw<'static, f32, DistCosine> = io.load_hnsw::<f32, DistCosine>().map_err(|e| {
                Error::Vectors { path: graph.clone(), message: format!("cannot load the HNSW graph: {e}") }
            })?;
            if hnsw.get_nb_point() != this.len() {
                return Err(Error::Vectors {
                    path: graph,
                    message: format!("graph has {} points, vectors.f32 {}; rebuild", hnsw.get_nb_point(), this.len()),
                });
            }
            hnsw.set_searching_mode(true);
            this.hnsw = Some(hnsw);
        }
        Ok(this)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_defaults_and_validation() {
        let p = HnswParams::default();
        assert_eq!((p.m, p.ef_construction, p.ef_search), (16, 200, 64));
        assert!(HnswParams::new(1, 200, 64).is_err());
        assert!(HnswParams::new(16, 8, 64).is_err());
        assert!(HnswParams::new(16, 200, 0).is_err());
        assert!(HnswParams::new(300, 400, 64).is_err(), "hnsw_rs exits the process above 256");
    }

    #[test]
    fn exact_search_by_hand() {
        let s = std::f32::consts::FRAC_1_SQRT_2;
        let data = vec![1.0, 0.0, 0.0, 1.0, s, s];
        let idx = VectorIndex::flat(data, 2, HnswParams::default()).expect("index");
        let hits = idx.exact_search(&[1.0, 0.0], 2).expect("search");
        assert_eq!(hits.iter().map(|h| h.ord).collect::<Vec<_>>(), vec![0, 2]);
        assert!((hits[1].score - f64::from(s)).abs() < 1e-6);
        assert!(idx.exact_search(&[1.0], 1).is_err());
        let odd = idx.search_filtered(&[1.0, 0.0], 2, 8, &|o| o % 2 == 1).expect("filtered");
        assert_eq!(odd.iter().map(|h| h.ord).collect::<Vec<_>>(), vec![1]);
    }

    #[test]
    fn filtered_graph_search_never_returns_refused_units() {
        // 30,000 two-dimensional unit vectors around the circle; the filter admits 60% of them,
        // so the graph (not the exact fallback) answers.
        let n = 30_000usize;
        let data: Vec<f32> = (0..n)
            .flat_map(|i| {
                let a = i as f32 * 0.000_2;
                [a.cos(), a.sin()]
            })
            .collect();
        let params = HnswParams::new(8, 32, 32).expect("params");
        let idx = VectorIndex::build(data, 2, params).expect("index");
        let keep = |o: u32| o % 5 >= 2;
        let hits = idx.search_filtered(&[1.0, 0.0], 10, 64, &keep).expect("filtered");
        assert_eq!(hits.len(), 10);
        assert!(hits.iter().all(|h| keep(h.ord)), "{hits:?}");
        let exact = idx.exact_search_where(&[1.0, 0.0], 10, &keep).expect("exact");
        assert_eq!(hits[0].ord, exact[0].ord);
    }
}
