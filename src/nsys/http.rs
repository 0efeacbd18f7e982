//! HTTP to the service being captured, through `ureq` (plain HTTP, no TLS):
//! enough to poll `GET /v1/models` and send one streaming chat request.
//! Every call has an end-to-end time limit and reads at most `MAX_BODY`
//! bytes, so a service that streams an endless body cannot hold dslint.

use std::io::Read;
use std::time::Duration;

/// The most of a body dslint reads.
pub const MAX_BODY: usize = 1024 * 1024;

pub struct Response {
    pub status: u16,
    pub body: String,
}

fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into()
}

/// Read the body until it ends, `MAX_BODY` bytes, a `data: [DONE]` event
/// (a streamed chat answer is complete), or the time limit (what was read
/// is kept).
fn read_body(mut resp: ureq::http::Response<ureq::Body>) -> std::io::Result<Response> {
    let status = resp.status().as_u16();
    let mut reader = resp.body_mut().with_config().limit(MAX_BODY as u64).reader();
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                // Only the new bytes (and a marker's length before them) are
                // searched: linear in the body.
                let from = buf.len().saturating_sub(11);
                buf.extend_from_slice(&chunk[..n]);
                if buf[from..].windows(12).any(|w| w == b"data: [DONE]") || buf.len() >= MAX_BODY {
                    break;
                }
            }
            // The time limit or the size limit: keep what was read.
            Err(_) if !buf.is_empty() => break,
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => break,
            Err(e) => return Err(e),
        }
    }
    buf.truncate(MAX_BODY);
    Ok(Response {
        status,
        body: String::from_utf8_lossy(&buf).into_owned(),
    })
}

fn url(host: &str, port: u16, path: &str) -> String {
    if host.contains(':') {
        format!("http://[{host}]:{port}{path}")
    } else {
        format!("http://{host}:{port}{path}")
    }
}

pub fn get(host: &str, port: u16, path: &str, timeout: Duration) -> std::io::Result<Response> {
    let resp = agent(timeout)
        .get(&url(host, port, path))
        .header("Accept", "application/json")
        .call()
        .map_err(std::io::Error::other)?;
    read_body(resp)
}

pub fn post_json(host: &str, port: u16, path: &str, body: &str, timeout: Duration) -> std::io::Result<Response> {
    let resp = agent(timeout)
        .post(&url(host, port, path))
        .header("Content-Type", "application/json")
        .header("Accept", "text/event-stream")
        .send(body)
        .map_err(std::io::Error::other)?;
    read_body(resp)
}
