//! anser-mcp: bring your own agent. The ANSER tools over the Model Context Protocol and a
//! token-accounting LLM proxy, both writing the run directory `anser run` writes.
//!
//! - [`coordinator`]: one server's run — the task selection, which task each session holds, the
//!   run directory (through [`anser_agent::run::RunWriter`], the writer `anser run` uses).
//! - [`server`]: one MCP session ([`rmcp::ServerHandler`]): `list_tasks`, `next_task`, then the
//!   task-bound tools dispatched through [`anser_agent::method::ToolBox`] (the built-in agent's
//!   own dispatch: same guards, boundaries and tool-message limits) and `submit_answer`.
//! - [`http`]: Streamable HTTP hosting of the sessions (and of the proxy, on the same port).
//! - [`proxy`]: an OpenAI-compatible pass-through that records tokens and latency per task.
//! - [`usage`]: the proxy's usage log in the run directory, folded into a task's record and trace
//!   when it is submitted.

mod error;

pub mod coordinator;
pub mod http;
pub mod proxy;
pub mod server;
pub mod usage;

pub use coordinator::{Coordinator, METHOD};
pub use error::{Error, Result};
pub use server::McpSession;

/// The tool server's name and version, recorded in run metadata and sent to MCP clients.
pub const SERVER_NAME: &str = "anser-mcp";
pub const SERVER_VERSION: &str = env!("CARGO_PKG_VERSION");
