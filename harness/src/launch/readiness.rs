//! `Readiness`: when a started service counts as ready, probed without side effects on the run.

use std::io::{Read, Seek, SeekFrom, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::time::Duration;

use crate::os_error::reason as os_reason;

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

/// Most of an answer a probe reads: a health page is small; a larger one is cut off (and the connection
/// reset) rather than read forever.
const MOST_ANSWER_BYTES: usize = 1 << 20;

impl Readiness {
    /// Probes once: `Ok` when ready, else what the probe found (`connection refused`, `HTTP 503`, ...).
    /// `scanned`: how much of the log earlier probes read and found only complete non-matching lines
    /// in, so a server logging for twenty minutes is not re-read from the start every probe.
    pub fn probe(&self, log: &Path, scanned: &mut u64) -> Result<(), String> {
        match self {
            Readiness::Log(pattern) => log_matches(pattern, log, scanned),
            Readiness::Tcp(address) => connect(address).map(drop),
            Readiness::Http(url) => http_ok(url),
        }
    }

    /// What is probed, for a message: `GET http://127.0.0.1:8000/health`.
    pub fn describe(&self) -> String {
        match self {
            Readiness::Log(pattern) => format!("a log line matching `{pattern}`"),
            Readiness::Tcp(address) => format!("a TCP connection to {address}"),
            Readiness::Http(url) => format!("GET {url}"),
        }
    }
}

/// Reads the log from `scanned` on; a partial last line is read again next time, when it is complete.
fn log_matches(pattern: &regex::Regex, log: &Path, scanned: &mut u64) -> Result<(), String> {
    let mut file =
        std::fs::File::open(log).map_err(|error| format!("the log cannot be read: {}", os_reason(&error)))?;
    let mut fresh = Vec::new();
    file.seek(SeekFrom::Start(*scanned))
        .and_then(|_| file.read_to_end(&mut fresh))
        .map_err(|error| format!("the log cannot be read: {}", os_reason(&error)))?;
    if pattern.is_match(&String::from_utf8_lossy(&fresh)) {
        return Ok(());
    }
    if let Some(last_newline) = fresh.iter().rposition(|&byte| byte == b'\n') {
        *scanned += last_newline as u64 + 1;
    }
    Err("no line of its log matched".to_string())
}

fn connect(address: &str) -> Result<TcpStream, String> {
    let resolved =
        address.to_socket_addrs().map_err(|error| format!("`{address}` does not resolve: {}", os_reason(&error)))?;
    let address = resolved.into_iter().next().ok_or_else(|| format!("`{address}` resolves to no address"))?;
    let stream = TcpStream::connect_timeout(&address, PROBE_TIMEOUT).map_err(|error| os_reason(&error))?;
    stream
        .set_read_timeout(Some(PROBE_TIMEOUT))
        .and_then(|()| stream.set_write_timeout(Some(PROBE_TIMEOUT)))
        .map_err(|error| os_reason(&error))?;
    Ok(stream)
}

/// A plain HTTP/1.0 GET; the answer is read to its end (the server closes the connection after it), so
/// the probe's close is a clean one: a socket closed with unread bytes resets the connection, and the
/// server logs the reset as a traceback.
fn http_ok(url: &str) -> Result<(), String> {
    let rest = url.strip_prefix("http://").ok_or_else(|| format!("`{url}` is not an http:// URL"))?;
    let (authority, path) = rest.split_once('/').map_or((rest, "/".to_string()), |(a, p)| (a, format!("/{p}")));
    let mut stream = connect(authority)?;
    let request = format!("GET {path} HTTP/1.0\r\nHost: {authority}\r\n\r\n");
    stream.write_all(request.as_bytes()).map_err(|error| format!("the request was not sent: {}", os_reason(&error)))?;
    let mut answer = Vec::new();
    let read = (&mut stream).take(MOST_ANSWER_BYTES as u64).read_to_end(&mut answer);
    let status_line = String::from_utf8_lossy(&answer[..answer.len().min(256)]);
    let status_line = status_line.lines().next().unwrap_or_default();
    let status = status_line.split_whitespace().nth(1).unwrap_or("");
    match (status.len() == 3 && status.starts_with('2'), read) {
        (true, _) => Ok(()),
        (false, Err(error)) if answer.is_empty() => Err(format!("no answer: {}", os_reason(&error))),
        (false, _) if answer.is_empty() => Err("the connection closed without an answer".to_string()),
        (false, _) => Err(format!("it answered `{}`", status_line.trim())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// `http://.../health` of a server that answers one connection with `answer(stream, request)`.
    fn serve_once<T: Send + 'static>(
        answer: impl FnOnce(TcpStream, String) -> T + Send + 'static,
    ) -> (String, std::thread::JoinHandle<T>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/health", listener.local_addr().unwrap());
        let server = std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = [0u8; 256];
            let read = stream.read(&mut request).unwrap();
            answer(stream, String::from_utf8_lossy(&request[..read]).into_owned())
        });
        (url, server)
    }

    #[test]
    fn tcp_is_ready_only_while_something_listens() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        assert!(Readiness::Tcp(address.clone()).probe(Path::new("/nonexistent"), &mut 0).is_ok());
        drop(listener);
        let last = Readiness::Tcp(address).probe(Path::new("/nonexistent"), &mut 0);
        assert_eq!(last, Err("connection refused".to_string()));
    }

    /// The probe read 64 bytes and closed: the rest of the answer arrived at a closed socket, which resets
    /// the connection, and a python server logged ConnectionResetError tracebacks.
    #[test]
    fn an_http_probe_reads_the_whole_answer_so_its_close_resets_nothing() {
        let (url, server) = serve_once(|mut stream, _| {
            let head =
                format!("HTTP/1.0 200 OK\r\nServer: fixture\r\nContent-Length: 3\r\n{}\r\n", "X-Pad: x\r\n".repeat(8));
            stream.write_all(head.as_bytes()).unwrap();
            // The body follows a moment later, as a server that writes head and body apart sends it.
            std::thread::sleep(std::time::Duration::from_millis(200));
            let written = stream.write_all(b"ok\n");
            // A reset reaches the writer at its next write or at the close.
            std::thread::sleep(std::time::Duration::from_millis(50));
            written.and_then(|()| stream.shutdown(std::net::Shutdown::Both))
        });
        assert!(Readiness::Http(url).probe(Path::new("/nonexistent"), &mut 0).is_ok());
        assert!(server.join().unwrap().is_ok(), "the probe reset the connection before the answer ended");
    }

    #[test]
    fn http_needs_a_2xx_status() {
        for (answer, ready) in [("HTTP/1.0 200 OK\r\n\r\nok", true), ("HTTP/1.0 503 Busy\r\n\r\n", false)] {
            let (url, server) = serve_once(move |mut stream, request| {
                stream.write_all(answer.as_bytes()).unwrap();
                request
            });
            let probed = Readiness::Http(url).probe(Path::new("/nonexistent"), &mut 0);
            assert_eq!(probed.is_ok(), ready, "{answer}");
            if !ready {
                assert_eq!(probed, Err("it answered `HTTP/1.0 503 Busy`".to_string()));
            }
            assert!(server.join().unwrap().starts_with("GET /health HTTP/1.0\r\n"));
        }
    }

    #[test]
    fn log_is_ready_once_a_line_matches_and_complete_lines_are_read_once() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("service.log");
        let readiness = Readiness::Log(regex::Regex::new("Uvicorn running on").unwrap());
        let mut scanned = 0;
        assert!(readiness.probe(&log, &mut scanned).is_err());
        std::fs::write(&log, "loading\nINFO: Uvicorn run").unwrap();
        assert!(readiness.probe(&log, &mut scanned).is_err());
        assert_eq!(scanned, "loading\n".len() as u64, "the partial line is read again");
        std::fs::write(&log, "loading\nINFO: Uvicorn running on http://0.0.0.0:8000\n").unwrap();
        assert!(readiness.probe(&log, &mut scanned).is_ok());
    }
}
