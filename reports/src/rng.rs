//! A small deterministic random number generator: xoshiro256** seeded through SplitMix64, from
//! `rand_xoshiro` (Blackman & Vigna, "Scrambled linear pseudorandom number generators", 2018).
//!
//! The statistics must give the same numbers on every machine and with every version of this
//! workspace. Both algorithms are fixed by their published reference code, which the tests pin
//! (reference vectors and the stream of a seed as the earlier hand-written generators gave it),
//! so a crate update that changed the stream would fail them.

use rand_xoshiro::{
    Xoshiro256StarStar,
    rand_core::{Rng as _, SeedableRng},
};

/// xoshiro256**.
#[derive(Debug, Clone)]
pub struct Rng {
    inner: Xoshiro256StarStar,
}

impl Rng {
    /// A generator whose state is four SplitMix64 outputs of `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng { inner: Xoshiro256StarStar::seed_from_u64(seed) }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }

    /// A uniform integer in `0..n` (`n > 0`), without modulo bias (Lemire's method).
    pub fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        loop {
            let m = u128::from(self.next_u64()) * u128::from(n);
            let low = m as u64;
            if low >= n.wrapping_neg() % n {
                return (m >> 64) as usize;
            }
        }
    }
}

/// FNV-1a over the parts, separated by a zero byte: a stable way to derive one seed per
/// (group, metric, run) so that a comparison's numbers do not depend on what else is compared.
pub fn stable_hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use rand_xoshiro::SplitMix64;

    use super::*;

    #[test]
    fn splitmix_reference_vector() {
        // splitmix64.c with x = 1234567: the first outputs.
        let mut sm = SplitMix64::seed_from_u64(1_234_567);
        assert_eq!(sm.next_u64(), 6_457_827_717_110_365_317);
        assert_eq!(sm.next_u64(), 3_203_168_211_198_807_973);
        assert_eq!(sm.next_u64(), 9_817_491_932_198_370_423);
    }

    #[test]
    fn seeded_stream_is_pinned() {
        // The first outputs of `Rng::new(20260101)` (and SplitMix64 of 0) as the hand-written
        // generators gave them before the crate implementations replaced them: every
        // bootstrap and permutation test of earlier reports depends on this stream.
        let mut r = Rng::new(20_260_101);
        let got: Vec<u64> = (0..5).map(|_| r.next_u64()).collect();
        assert_eq!(
            got,
            [
                6_332_780_174_000_220_894,
                12_543_275_776_149_051_043,
                34_711_071_102_197_583,
                10_967_436_174_577_842_923,
                17_608_665_420_244_242_308
            ]
        );
        let mut sm = SplitMix64::seed_from_u64(0);
        assert_eq!([sm.next_u64(), sm.next_u64()], [16_294_208_416_658_607_535, 7_960_286_522_194_355_700]);
    }

    #[test]
    fn xoshiro_reference_vector() {
        // xoshiro256starstar.c with s = {1, 2, 3, 4}: the first outputs.
        let mut seed = [0u8; 32];
        for (chunk, word) in seed.chunks_exact_mut(8).zip([1u64, 2, 3, 4]) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        let mut r = Rng { inner: Xoshiro256StarStar::from_seed(seed) };
        let got: Vec<u64> = (0..5).map(|_| r.next_u64()).collect();
        assert_eq!(got, [11_520, 0, 1_509_978_240, 1_215_971_899_390_074_240, 1_216_172_134_540_287_360]);
    }

    #[test]
    fn below_stays_in_range_and_covers_it() {
        let mut r = Rng::new(7);
        let mut seen = [0usize; 7];
        for _ in 0..7_000 {
            seen[r.below(7)] += 1;
        }
        assert!(seen.iter().all(|&c| (800..1200).contains(&c)), "{seen:?}");
    }

    #[test]
    fn stable_hash_separates_parts() {
        assert_ne!(stable_hash(&["ab", "c"]), stable_hash(&["a", "bc"]));
        assert_eq!(stable_hash(&[]), 0xcbf2_9ce4_8422_2325);
    }
}
