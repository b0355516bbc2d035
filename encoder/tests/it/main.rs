//! Integration tests of anser-encoder against the real m3e-small export in ../shared.

mod reference;
