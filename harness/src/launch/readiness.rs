//! `Readiness`: when a started service counts as ready, probed without side effects on the run.

use std::io::{Read, Seek, SeekFrom, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::time::Duration;

/// One probe per service; each is cheap and bounded, and is retried by the executor with a sleep.
#[derive(Debug, Clone)]
pub enum Readiness {
    /// A line of the service's log matches.
    Log(regex::Regex),
    /// A TCP connection to `host:port` succeeds.
    Tcp(String),
    /// An HTTP/1.0 GET of `http://host:port/path` answers with a 2xx status.
    Http(String),
}

/// How long one connection attempt or answer may take before the probe counts as "not yet".
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);

impl Readiness {
    /// `scanned`: how much of the log earlier probes read and found only complete non-matching lines
    /// in, so a server logging for twenty minutes is not re-read from the start every probe.
    pub fn is_ready(&self, log: &Path, scanned: &mut u64) -> bool {
        match self {
            Readiness::Log(pattern) => log_matches(pattern, log, scanned),
            Readiness::Tcp(address) => connect(address).is_some(),
            Readiness::Http(url) => http_ok(url),
        }
    }
}

/// Reads the log from `scanned` on; a partial last line is read again next time, when it is complete.
fn log_matches(pattern: &regex::Regex, log: &Path, scanned: &mut u64) -> bool {
    let Ok(mut file) = std::fs::File::open(log) else { return false };
    let mut fresh = Vec::new();
    if file.seek(SeekFrom::Start(*scanned)).is_err() || file.read_to_end(&mut fresh).is_err() {
        return false;
    }
    if pattern.is_match(&String::from_utf8_lossy(&fresh)) {
        return true;
    }
    if let Some(last_newline) = fresh.iter().rposition(|&byte| byte == b'\n') {
        *scanned += last_newline as u64 + 1;
    }
    false
}

fn connect(address: &str) -> Option<TcpStream> {
    let address = address.to_socket_addrs().ok()?.next()?;
    let stream = TcpStream::connect_timeout(&address, PROBE_TIMEOUT).ok()?;
    stream.set_read_timeout(Some(PROBE_TIMEOUT)).ok()?;
    stream.set_write_timeout(Some(PROBE_TIMEOUT)).ok()?;
    Some(stream)
}

/// A plain HTTP/1.0 GET (the server closes the connection after answering); only the status line is read.
fn http_ok(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("http://") else { return false };
    let (authority, path) = rest.split_once('/').map_or((rest, "/".to_string()), |(a, p)| (a, format!("/{p}")));
    let Some(mut stream) = connect(authority) else { return false };
    let request = format!("GET {path} HTTP/1.0\r\nHost: {authority}\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut head = [0u8; 64];
    let read = stream.read(&mut head).unwrap_or(0);
    let status_line = String::from_utf8_lossy(&head[..read]);
    let status = status_line.split_whitespace().nth(1).unwrap_or("");
    status.len() == 3 && status.starts_with('2')
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    #[test]
    fn tcp_is_ready_only_while_something_listens() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        assert!(Readiness::Tcp(address.clone()).is_ready(Path::new("/nonexistent"), &mut 0));
        drop(listener);
        assert!(!Readiness::Tcp(address).is_ready(Path::new("/nonexistent"), &mut 0));
    }

    #[test]
    fn http_needs_a_2xx_status() {
        for (answer, ready) in [("HTTP/1.0 200 OK\r\n\r\nok", true), ("HTTP/1.0 503 Busy\r\n\r\n", false)] {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let url = format!("http://{}/health", listener.local_addr().unwrap());
            let server = std::thread::spawn(move || {
                let (mut stream, _) = listener.accept().unwrap();
                let mut request = [0u8; 256];
                let read = stream.read(&mut request).unwrap();
                stream.write_all(answer.as_bytes()).unwrap();
                String::from_utf8_lossy(&request[..read]).into_owned()
            });
            assert_eq!(Readiness::Http(url).is_ready(Path::new("/nonexistent"), &mut 0), ready, "{answer}");
            assert!(server.join().unwrap().starts_with("GET /health HTTP/1.0\r\n"));
        }
    }

    #[test]
    fn log_is_ready_once_a_line_matches_and_complete_lines_are_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("service.log");
        let readiness = Readiness::Log(regex::Regex::new("Uvicorn running on").unwrap());
        let mut scanned = 0;
        assert!(!readiness.is_ready(&log, &mut scanned));
        std::fs::write(&log, "loading\nINFO: Uvicorn run").unwrap();
        assert!(!readiness.is_ready(&log, &mut scanned));
        assert_eq!(scanned, "loading\n".len() as u64, "the partial line is read again");
        std::fs::write(&log, "loading\nINFO: Uvicorn running on http://0.0.0.0:8000\n").unwrap();
        assert!(readiness.is_ready(&log, &mut scanned));
    }
}
