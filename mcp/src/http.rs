//! Streamable HTTP: every MCP session of one server on `/mcp` (a fresh [`McpSession`] per
//! session, all sharing one [`Coordinator`]), and optionally the proxy's routes on the same port.

use std::{net::SocketAddr, sync::Arc};

use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tokio_util::sync::CancellationToken;

use crate::{Coordinator, McpSession, Result, proxy::Proxy};

/// Path of the MCP endpoint.
pub const MCP_PATH: &str = "/mcp";

/// The router: `/mcp` (when a coordinator is given) and the proxy's routes (when one is given).
pub fn router(
    coordinator: Option<Arc<Coordinator>>,
    proxy: Option<Arc<Proxy>>,
    cancel: &CancellationToken,
) -> axum::Router {
    let mut router = axum::Router::new();
    if let Some(coordinator) = coordinator {
        let config = StreamableHttpServerConfig::default().with_cancellation_token(cancel.child_token());
        let service: StreamableHttpService<McpSession, LocalSessionManager> =
            StreamableHttpService::new(move || Ok(McpSession::new(coordinator.clone())), Arc::default(), config);
        router = router.nest_service(MCP_PATH, service);
    }
    if let Some(proxy) = proxy {
        router = router.merge(crate::proxy::routes(proxy));
    }
    router
}

/// Serve `router` on `addr` until `cancel` fires; `on_bound` learns the bound address (port 0
/// picks a free one).
pub async fn serve(
    addr: SocketAddr,
    router: axum::Router,
    cancel: CancellationToken,
    on_bound: impl FnOnce(SocketAddr),
) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    on_bound(listener.local_addr()?);
    axum::serve(listener, router).with_graceful_shutdown(async move { cancel.cancelled_owned().await }).await?;
    Ok(())
}

/// Serve `/mcp` and/or the proxy on `addr` until Ctrl-C.
pub async fn serve_until_ctrl_c(
    addr: SocketAddr,
    coordinator: Option<Arc<Coordinator>>,
    proxy: Option<Arc<Proxy>>,
    on_bound: impl FnOnce(SocketAddr),
) -> Result<()> {
    let cancel = CancellationToken::new();
    let router = router(coordinator, proxy, &cancel);
    let stop = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            stop.cancel();
        }
    });
    serve(addr, router, cancel, on_bound).await
}
