//! Debug files fetched by build-id from debuginfod servers, as elfutils'
//! client fetches them, and only when `DEBUGINFOD_URLS` is set (there is
//! no network access otherwise): each server of that space-separated
//! list is asked for `URL/buildid/BUILDID/debuginfo` in turn, the first
//! answer is stored in the client cache elfutils uses
//! (`$DEBUGINFOD_CACHE_PATH/BUILDID/debuginfo`, default
//! `$XDG_CACHE_HOME/debuginfod_client`, else `~/.cache/debuginfod_client`),
//! where the next run finds it without asking. A server that does not
//! answer within `DEBUGINFOD_TIMEOUT` seconds (default 90, as elfutils)
//! is skipped and named in the warning. Plain `http://` only: the
//! request is HTTP/1.0 over a socket, so no TLS stack is built in.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

/// The servers `DEBUGINFOD_URLS` names; empty when it is unset.
pub(super) fn servers() -> Vec<String> {
    std::env::var("DEBUGINFOD_URLS")
        .unwrap_or_default()
        .split_whitespace()
        .map(|u| u.trim_end_matches('/').to_string())
        .collect()
}

/// Where the cached debug file of `build_id` is (or would be).
pub(super) fn cached(build_id: &str) -> Option<PathBuf> {
    let root = match std::env::var_os("DEBUGINFOD_CACHE_PATH") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => match std::env::var_os("XDG_CACHE_HOME") {
            Some(x) if !x.is_empty() => PathBuf::from(x).join("debuginfod_client"),
            _ => PathBuf::from(std::env::var_os("HOME")?).join(".cache/debuginfod_client"),
        },
    };
    Some(root.join(build_id).join("debuginfo"))
}

/// How long a server may take to start answering.
fn timeout() -> Duration {
    let secs = std::env::var("DEBUGINFOD_TIMEOUT")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .filter(|&s| s > 0)
        .unwrap_or(90);
    Duration::from_secs(secs)
}

/// Fetches the debug file of `build_id` into the cache from the first
/// server that has it: its path, or what each server said.
pub(super) fn fetch(build_id: &str) -> Result<PathBuf, Vec<String>> {
    let mut said = Vec::new();
    let Some(target) = cached(build_id) else {
        return Err(vec!["no cache directory (HOME unset)".to_string()]);
    };
    for server in servers() {
        let url = format!("{server}/buildid/{build_id}/debuginfo");
        match get(&url, timeout()) {
            Ok(Some(body)) => match store(&target, &body) {
                Ok(()) => return Ok(target),
                Err(e) => said.push(format!("{}: cannot write ({e})", target.display())),
            },
            Ok(None) => said.push(format!("{server} does not have it")),
            Err(e) => said.push(format!("{server} did not answer ({e})")),
        }
    }
    Err(said)
}

/// Writes `body` to `target` whole: a temporary file beside it renamed
/// over it, so a concurrent reader never sees half a file.
fn store(target: &std::path::Path, body: &[u8]) -> std::io::Result<()> {
    let dir = target.parent().unwrap_or(std::path::Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(body)?;
    tmp.persist(target).map_err(|e| e.error)?;
    Ok(())
}

/// GETs `url` (`http://HOST[:PORT]/PATH`): the body on 200, None on
/// 404, else why not.
fn get(url: &str, timeout: Duration) -> Result<Option<Vec<u8>>, String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or("only http:// servers are supported")?;
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let with_port = match host.rsplit_once(':') {
        Some((_, p)) if p.parse::<u16>().is_ok() => host.to_string(),
        _ => format!("{host}:80"),
    };
    let addr = with_port
        .to_socket_addrs()
        .map_err(|e| e.to_string())?
        .next()
        .ok_or("no address")?;
    let mut stream = TcpStream::connect_timeout(&addr, timeout).map_err(|e| e.to_string())?;
    let io = |e: std::io::Error| e.to_string();
    stream.set_read_timeout(Some(timeout)).map_err(io)?;
    stream.set_write_timeout(Some(timeout)).map_err(io)?;
    let request = format!(
        "GET /{path} HTTP/1.0\r\nHost: {host}\r\nUser-Agent: calltrace\r\nAccept: */*\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).map_err(io)?;
    let mut reply = Vec::new();
    stream.read_to_end(&mut reply).map_err(io)?;
    response(&reply)
}

/// The body of an HTTP/1.0 response: on 200, the bytes after the headers
/// (as many as `Content-Length` says, when it says); None on 404.
fn response(reply: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let end = reply
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("no HTTP response")?;
    let head = String::from_utf8_lossy(&reply[..end]);
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse::<u16>().ok())
        .ok_or("no HTTP status")?;
    let body = &reply[end + 4..];
    match status {
        200 => {
            let length = lines.find_map(|l| {
                let (k, v) = l.split_once(':')?;
                k.eq_ignore_ascii_case("content-length")
                    .then(|| v.trim().parse::<usize>().ok())
                    .flatten()
            });
            match length {
                Some(n) if n > body.len() => Err(format!("cut short: {} of {n} bytes", body.len())),
                Some(n) => Ok(Some(body[..n].to_vec())),
                None => Ok(Some(body.to_vec())),
            }
        }
        404 => Ok(None),
        other => Err(format!("HTTP {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses_give_their_body_or_say_why_not() {
        let ok = b"HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nabcdef";
        assert_eq!(response(ok), Ok(Some(b"abc".to_vec())));
        assert_eq!(response(b"HTTP/1.0 404 Not Found\r\n\r\n"), Ok(None));
        assert_eq!(
            response(b"HTTP/1.0 503 Busy\r\n\r\n"),
            Err("HTTP 503".to_string())
        );
        let short = b"HTTP/1.0 200 OK\r\ncontent-length: 9\r\n\r\nabc";
        assert!(response(short).is_err());
        assert!(response(b"garbage").is_err());
    }

    #[test]
    fn a_dead_server_is_said_not_to_answer() {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let url = format!("http://127.0.0.1:{port}/buildid/ab/debuginfo");
        assert!(get(&url, Duration::from_secs(2)).is_err());
        assert!(get("https://example.invalid/x", Duration::from_secs(1)).is_err());
    }
}
