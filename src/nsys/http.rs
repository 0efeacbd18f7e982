//! A minimal HTTP/1.1 client for a service on this machine: enough to poll
//! `GET /v1/models` and send one streaming chat request. Loopback only in
//! practice; no TLS, no redirects, no proxies.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

pub struct Response {
    pub status: u16,
    pub body: String,
}

fn connect(host: &str, port: u16, timeout: Duration) -> std::io::Result<TcpStream> {
    let addr = (host, port)
        .to_socket_addrs()?
        .next()
        .ok_or_else(|| std::io::Error::other("no address"))?;
    let s = TcpStream::connect_timeout(&addr, timeout)?;
    s.set_read_timeout(Some(timeout))?;
    s.set_write_timeout(Some(timeout))?;
    Ok(s)
}

fn read_response(mut s: TcpStream, deadline: Instant) -> std::io::Result<Response> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if Instant::now() > deadline {
            break;
        }
        match s.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                if buf.windows(12).any(|w| w == b"data: [DONE]") {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock || e.kind() == std::io::ErrorKind::TimedOut => break,
            Err(e) => return Err(e),
        }
    }
    let text = String::from_utf8_lossy(&buf).to_string();
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, b)| b.to_string());
    Ok(Response { status, body })
}

pub fn get(host: &str, port: u16, path: &str, timeout: Duration) -> std::io::Result<Response> {
    let mut s = connect(host, port, timeout)?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: application/json\r\nConnection: close\r\n\r\n"
    )?;
    read_response(s, Instant::now() + timeout)
}

pub fn post_json(host: &str, port: u16, path: &str, body: &str, timeout: Duration) -> std::io::Result<Response> {
    let mut s = connect(host, port, timeout)?;
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    read_response(s, Instant::now() + timeout)
}
