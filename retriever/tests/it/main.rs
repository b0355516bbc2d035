//! Integration tests of anser-retriever: route binding, hybrid fusion over BM25 and (mock API)
//! embeddings, and the numbers on the real finance_zh_rules corpus and tasks.

mod binding;
mod boundary;
mod fixtures;
mod in_force;
mod real_rules;
