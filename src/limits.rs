//! Resource limits on every input path, and the one bounded way to open and read an input.
//!
//! Every limit has a default that real data does not come near (the largest real input
//! measured against it is noted beside each) and an environment variable that raises it;
//! crossing one is an [`InputError`] naming the file, the place and the limit, never an
//! allocation failure. Special files (FIFOs, sockets, character and block devices) are
//! refused by type before they are opened, so no path blocks on a FIFO or reads
//! `/dev/zero` forever; standard input is read only where a command documents `-`.

use std::io::Read;
use std::path::Path;

use crate::error::InputError;

/// One named limit with its override.
#[derive(Clone, Copy, Debug)]
pub struct Limit {
    /// What is limited, as printed in errors ("input bytes").
    pub what: &'static str,
    /// The environment variable that overrides the default.
    pub env: &'static str,
    pub default: u64,
    pub unit: Unit,
}

/// How a limit's value is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A size: KiB, MiB, GiB.
    Bytes,
    /// A plain count.
    Count,
    /// A ratio `N:1`.
    Ratio,
}

impl Limit {
    /// The limit in force: the environment override when it is set and valid, else the
    /// default. (An invalid override is reported by [`check_overrides`].)
    pub fn get(&self) -> u64 {
        std::env::var(self.env)
            .ok()
            .and_then(|v| parse_amount(&v))
            .unwrap_or(self.default)
    }

    /// `get()` as a usize (saturating on 32-bit targets).
    pub fn get_usize(&self) -> usize {
        usize::try_from(self.get()).unwrap_or(usize::MAX)
    }

    /// "the 4 GiB limit on input bytes (TOOLSCOPE_MAX_INPUT_BYTES raises it)".
    pub fn describe(&self) -> String {
        let v = self.get();
        let shown = match self.unit {
            Unit::Bytes => human_bytes(v),
            Unit::Count => v.to_string(),
            Unit::Ratio => format!("{v}:1"),
        };
        format!(
            "the {shown} limit on {} ({} raises it)",
            self.what, self.env
        )
    }

    /// The error for input that crossed this limit.
    pub fn exceeded(&self, file: &str, place: &str) -> InputError {
        InputError::new(file, place, format!("exceeds {}", self.describe()))
    }
}

/// Bytes of one file or stream read into memory (uncompressed files above
/// [`crate::model::load::MAP_FROM_BYTES`] are mapped, not read, and are bounded by this
/// too). Largest real input: the 50k-tool synthetic artifact, 1.86 GB.
pub const INPUT_BYTES: Limit = Limit {
    what: "input bytes",
    env: "TOOLSCOPE_MAX_INPUT_BYTES",
    default: 8 << 30,
    unit: Unit::Bytes,
};

/// Bytes a gzip stream may decompress to. Largest real input: 1.86 GB.
pub const GZIP_BYTES: Limit = Limit {
    what: "decompressed gzip bytes",
    env: "TOOLSCOPE_MAX_GZIP_BYTES",
    default: 8 << 30,
    unit: Unit::Bytes,
};

/// Decompressed-to-compressed ratio allowed once the output passes
/// [`GZIP_RATIO_FROM`]: deflate reaches ~1,030:1 only on degenerate data (a "gzip
/// bomb"); real JSON artifacts compress 5-25:1 (GitHub's full graph: 19:1).
pub const GZIP_RATIO: Limit = Limit {
    what: "gzip expansion",
    env: "TOOLSCOPE_MAX_GZIP_RATIO",
    default: 200,
    unit: Unit::Ratio,
};

/// The ratio check applies from this much output on (small files may compress better).
pub const GZIP_RATIO_FROM: u64 = 64 << 20;

/// Bytes of one JSON Lines record (a batch case, an evidence record, an MCP message).
/// Largest real record: a `--batch` output line on GitHub's full graph, 8.3 MB.
pub const RECORD_BYTES: Limit = Limit {
    what: "bytes per record",
    env: "TOOLSCOPE_MAX_RECORD_BYTES",
    default: 64 << 20,
    unit: Unit::Bytes,
};

/// Bytes of one query. Largest real query in the golden sets and suites: 8.8 KB.
pub const QUERY_BYTES: Limit = Limit {
    what: "query bytes",
    env: "TOOLSCOPE_MAX_QUERY_BYTES",
    default: 64 << 10,
    unit: Unit::Bytes,
};

/// Bytes of one string argument of an evidence tool other than the query (a metric id, a
/// tool or case name, a knob's relation or label). Largest real one: a tool name of
/// about 100 bytes.
pub const ARG_BYTES: Limit = Limit {
    what: "bytes per string argument",
    env: "TOOLSCOPE_MAX_ARG_BYTES",
    default: 4 << 10,
    unit: Unit::Bytes,
};

/// Items of one list argument of an evidence tool (the `history` knob). Largest real
/// one: a history of a few dozen tool calls.
pub const LIST_ITEMS: Limit = Limit {
    what: "items per list argument",
    env: "TOOLSCOPE_MAX_LIST_ITEMS",
    default: 1_000,
    unit: Unit::Count,
};

/// JSON values (keys included) in one MCP message: bounds the memory a line within
/// [`RECORD_BYTES`] can take once parsed (`[[],[],...]` costs ~40 bytes per 3 bytes read).
/// Largest real message: a `tools/call` with a full `history` list, about 1,000 values.
pub const MESSAGE_NODES: Limit = Limit {
    what: "JSON values per MCP message",
    env: "TOOLSCOPE_MAX_MESSAGE_NODES",
    default: 100_000,
    unit: Unit::Count,
};

/// Nesting depth of JSON and YAML documents (serde_json's own limit for JSON).
pub const DEPTH: usize = 128;

/// JSON nodes one operation's `$ref` expansion may produce. Largest real operation:
/// 19,301 nodes (GitHub's full REST API; `TOOLSCOPE_TIMING=1 toolscope build` reports it).
pub const REF_NODES: Limit = Limit {
    what: "nodes produced by $ref expansion in one operation",
    env: "TOOLSCOPE_MAX_REF_NODES",
    default: 500_000,
    unit: Unit::Count,
};

/// JSON nodes the `$ref` expansion of one spec may produce in all. Largest real specs:
/// 635,367 nodes (GitHub's full REST API), 5,430,726 (the 50k-operation synthetic spec).
pub const REF_NODES_TOTAL: Limit = Limit {
    what: "nodes produced by $ref expansion in one spec",
    env: "TOOLSCOPE_MAX_REF_NODES_TOTAL",
    default: 50_000_000,
    unit: Unit::Count,
};

/// YAML alias uses in one document.
pub const YAML_ALIASES: Limit = Limit {
    what: "YAML aliases",
    env: "TOOLSCOPE_MAX_YAML_ALIASES",
    default: 100_000,
    unit: Unit::Count,
};

/// Nodes YAML aliases may copy in one document (a "billion laughs" needs billions; real
/// specs alias a few small blocks).
pub const YAML_ALIAS_NODES: Limit = Limit {
    what: "nodes copied by YAML aliases",
    env: "TOOLSCOPE_MAX_YAML_ALIAS_NODES",
    default: 1_000_000,
    unit: Unit::Count,
};

/// Tools in one graph. Largest real graph: 50,000 tools.
pub const TOOLS: Limit = Limit {
    what: "tools per graph",
    env: "TOOLSCOPE_MAX_TOOLS",
    default: 2_000_000,
    unit: Unit::Count,
};

/// Edges in one graph. Largest real graph: 50k synthetic, 264,646 edges.
pub const EDGES: Limit = Limit {
    what: "edges per graph",
    env: "TOOLSCOPE_MAX_EDGES",
    default: 50_000_000,
    unit: Unit::Count,
};

/// `top_k` of a suite case or a regression fixture. Largest real value: 20 (golden cases).
pub const TOP_K: Limit = Limit {
    what: "top_k of a suite case or fixture",
    env: "TOOLSCOPE_MAX_TOP_K",
    default: 10_000,
    unit: Unit::Count,
};

/// Every limit, for `doctor`, the README table and [`check_overrides`].
pub const ALL: &[Limit] = &[
    INPUT_BYTES,
    GZIP_BYTES,
    GZIP_RATIO,
    RECORD_BYTES,
    QUERY_BYTES,
    ARG_BYTES,
    LIST_ITEMS,
    MESSAGE_NODES,
    REF_NODES,
    REF_NODES_TOTAL,
    YAML_ALIASES,
    YAML_ALIAS_NODES,
    TOOLS,
    EDGES,
    TOP_K,
];

/// An override that is set but not a number: a usage error, reported once at start.
pub fn check_overrides() -> Result<(), String> {
    for l in ALL {
        if let Ok(v) = std::env::var(l.env)
            && parse_amount(&v).is_none()
        {
            return Err(format!(
                "{}={}: not an amount (a whole number, optionally with K, M, G or T)",
                l.env,
                crate::sanitize::line(&v)
            ));
        }
    }
    Ok(())
}

/// `123`, `64K`, `64KiB`, `512M`, `8G`, `1T` (binary multiples), `1_000_000`.
pub fn parse_amount(s: &str) -> Option<u64> {
    let s = s.trim().replace('_', "");
    let lower = s.to_ascii_lowercase();
    let (digits, shift) = [
        ("tib", 40),
        ("gib", 30),
        ("mib", 20),
        ("kib", 10),
        ("t", 40),
        ("g", 30),
        ("m", 20),
        ("k", 10),
    ]
    .iter()
    .find_map(|(suffix, shift)| lower.strip_suffix(suffix).map(|d| (d.trim(), *shift)))
    .unwrap_or((lower.as_str(), 0));
    let n: u64 = digits.parse().ok()?;
    n.checked_mul(1u64 << shift)
}

/// `8 GiB`, `64 MiB`, `512 KiB`, `100 bytes`.
pub fn human_bytes(n: u64) -> String {
    for (unit, shift) in [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)] {
        if n >= 1 << shift && n.is_multiple_of(1 << shift) {
            return format!("{} {unit}", n >> shift);
        }
    }
    for (unit, shift) in [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)] {
        if n >= 1 << shift {
            return format!("{:.1} {unit}", n as f64 / (1u64 << shift) as f64);
        }
    }
    format!("{n} bytes")
}

/// A file that cannot be opened or read: `FILE: no such file`, `FILE: permission denied`,
/// … — the one wording of I/O failures on inputs, whichever command reads the file.
pub fn io_error(file: &str, e: &std::io::Error) -> InputError {
    InputError::new(file, "", io_message(e))
}

/// The message for an I/O error, short and without the OS error number for the common
/// kinds.
pub fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        std::io::ErrorKind::IsADirectory => "is a folder, not a file".into(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_string(),
                None => s,
            }
        }
    }
}

/// Why a path that is not a regular file cannot be read as an input; `None` for regular
/// files (symlinks are followed).
fn special_kind(m: &std::fs::Metadata) -> Option<&'static str> {
    if m.is_dir() {
        return Some("is a folder, not a file");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_fifo() {
            return Some(
                "is a FIFO (named pipe), not a regular file: refused, it could block forever",
            );
        }
        if t.is_socket() {
            return Some("is a socket, not a regular file: refused");
        }
        if t.is_char_device() {
            return Some("is a character device, not a regular file: refused");
        }
        if t.is_block_device() {
            return Some("is a block device, not a regular file: refused");
        }
    }
    if !m.is_file() {
        return Some("is not a regular file: refused");
    }
    None
}

/// The path as shown in messages: sanitised, so a file name cannot carry escape
/// sequences to the terminal.
pub fn shown(path: &Path) -> String {
    crate::sanitize::line(&path.display().to_string())
}

/// Opens a regular file for reading. FIFOs, sockets and devices are refused by type
/// before opening (and the open never blocks: `O_NONBLOCK`, checked again on the open
/// file); returns the file and its length.
pub fn open_regular(path: &Path) -> Result<(std::fs::File, u64), InputError> {
    let name = shown(path);
    let meta = std::fs::metadata(path).map_err(|e| io_error(&name, &e))?;
    if let Some(why) = special_kind(&meta) {
        return Err(InputError::new(&name, "", why.into()));
    }
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK);
    }
    let file = opts.open(path).map_err(|e| io_error(&name, &e))?;
    let meta = file.metadata().map_err(|e| io_error(&name, &e))?;
    if let Some(why) = special_kind(&meta) {
        return Err(InputError::new(&name, "", why.into()));
    }
    if meta.len() > INPUT_BYTES.get() {
        return Err(INPUT_BYTES.exceeded(&name, ""));
    }
    Ok((file, meta.len()))
}

/// Reads at most `limit` bytes from `r`; more is an error naming `file` and the limit.
pub fn read_bounded(mut r: impl Read, file: &str, limit: &Limit) -> Result<Vec<u8>, InputError> {
    let max = limit.get();
    let mut out = Vec::new();
    r.by_ref()
        .take(max.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| io_error(file, &e))?;
    if out.len() as u64 > max {
        return Err(limit.exceeded(file, ""));
    }
    Ok(out)
}

/// Reads a whole regular file (bounded by [`INPUT_BYTES`]), decompressing gzip within
/// [`GZIP_BYTES`] and [`GZIP_RATIO`].
pub fn read_file(path: &Path) -> Result<Vec<u8>, InputError> {
    let name = shown(path);
    let (file, len) = open_regular(path)?;
    let mut bytes = Vec::with_capacity(len.min(INPUT_BYTES.get()) as usize + 1);
    file.take(INPUT_BYTES.get().saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(&name, &e))?;
    if bytes.len() as u64 > INPUT_BYTES.get() {
        return Err(INPUT_BYTES.exceeded(&name, ""));
    }
    gunzip(&name, bytes)
}

/// Reads a path, or standard input for `-` (bounded the same way).
pub fn read_file_or_stdin(path: &str) -> Result<Vec<u8>, InputError> {
    if path == "-" {
        let bytes = read_bounded(std::io::stdin().lock(), "-", &INPUT_BYTES)?;
        return gunzip("-", bytes);
    }
    read_file(Path::new(path))
}

/// True for the two gzip magic bytes.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.len() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b
}

/// Decompresses gzip (several members, as `gzip -c a b` writes them) within the limits;
/// other bytes are returned as they are.
pub fn gunzip(name: &str, bytes: Vec<u8>) -> Result<Vec<u8>, InputError> {
    gunzip_progress(name, bytes, &mut |_, _, _| {})
}

/// [`gunzip`] reporting `(compressed bytes consumed, compressed total, bytes out)` about
/// every MiB of output.
pub fn gunzip_progress(
    name: &str,
    bytes: Vec<u8>,
    progress: &mut dyn FnMut(u64, u64, u64),
) -> Result<Vec<u8>, InputError> {
    if !is_gzip(&bytes) {
        return Ok(bytes);
    }
    // ISIZE (last 4 bytes) is the uncompressed size mod 2^32 of the last member: a hint
    let hint = if bytes.len() >= 18 {
        let n = bytes.len();
        u32::from_le_bytes([bytes[n - 4], bytes[n - 3], bytes[n - 2], bytes[n - 1]]) as u64
    } else {
        0
    };
    let max = GZIP_BYTES.get();
    let ratio = GZIP_RATIO.get();
    let compressed = bytes.len() as u64;
    let cap = hint
        .max(compressed.saturating_mul(4))
        .min(max)
        .min(compressed.saturating_mul(ratio).max(GZIP_RATIO_FROM));
    let mut out = Vec::with_capacity(cap as usize + 1);
    let mut input = &bytes[..];
    let mut dec = flate2::bufread::MultiGzDecoder::new(&mut input);
    let mut buf = vec![0u8; 1 << 16];
    let mut reported = 0u64;
    loop {
        let n = match dec.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => {
                return Err(InputError::new(
                    name,
                    "",
                    format!("corrupt gzip data: {}", io_message(&e)),
                ));
            }
        };
        out.extend_from_slice(&buf[..n]);
        let len = out.len() as u64;
        if len - reported >= 1 << 20 {
            reported = len;
            let left = dec.get_ref().len() as u64;
            progress(compressed - left, compressed, len);
        }
        if len > max {
            return Err(GZIP_BYTES.exceeded(name, ""));
        }
        if len > GZIP_RATIO_FROM && len > compressed.saturating_mul(ratio) {
            return Err(InputError::new(
                name,
                "",
                format!(
                    "gzip data expands more than {ratio}:1, a likely decompression bomb: exceeds {}",
                    GZIP_RATIO.describe()
                ),
            ));
        }
    }
    Ok(out)
}

/// Counts the bytes read through it.
struct Counted<R> {
    inner: R,
    n: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let k = self.inner.read(buf)?;
        self.n
            .fetch_add(k as u64, std::sync::atomic::Ordering::Relaxed);
        Ok(k)
    }
}

/// A gzip stream decompressed as it is read, within [`GZIP_BYTES`] and [`GZIP_RATIO`]
/// (the same bounds as [`gunzip`]); crossing one, or corrupt data, is a read error whose
/// message says which.
pub struct GzipReader<R: Read> {
    dec: flate2::read::MultiGzDecoder<Counted<R>>,
    compressed: std::sync::Arc<std::sync::atomic::AtomicU64>,
    out: u64,
}

impl<R: Read> GzipReader<R> {
    pub fn new(inner: R) -> Self {
        let compressed = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        GzipReader {
            dec: flate2::read::MultiGzDecoder::new(Counted {
                inner,
                n: compressed.clone(),
            }),
            compressed,
            out: 0,
        }
    }
}

impl<R: Read> Read for GzipReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.dec.read(buf).map_err(|e| {
            std::io::Error::new(e.kind(), format!("corrupt gzip data: {}", io_message(&e)))
        })?;
        self.out += n as u64;
        if self.out > GZIP_BYTES.get() {
            return Err(std::io::Error::other(format!(
                "exceeds {}",
                GZIP_BYTES.describe()
            )));
        }
        let compressed = self.compressed.load(std::sync::atomic::Ordering::Relaxed);
        let ratio = GZIP_RATIO.get();
        if self.out > GZIP_RATIO_FROM && self.out > compressed.saturating_mul(ratio) {
            return Err(std::io::Error::other(format!(
                "gzip data expands more than {ratio}:1, a likely decompression bomb: exceeds {}",
                GZIP_RATIO.describe()
            )));
        }
        Ok(n)
    }
}

/// Checks a query's size against [`QUERY_BYTES`]; the error text names the limit.
pub fn check_query(q: &str) -> Result<(), String> {
    check_query_len(q.len())
}

/// [`check_query`] for a query of `len` bytes.
pub fn check_query_len(len: usize) -> Result<(), String> {
    if len as u64 > QUERY_BYTES.get() {
        return Err(format!(
            "the query is {} long: exceeds {}",
            human_bytes(len as u64),
            QUERY_BYTES.describe()
        ));
    }
    Ok(())
}

/// Checks a string argument's size against [`ARG_BYTES`]; the error names the argument.
pub fn check_arg(name: &str, s: &str) -> Result<(), String> {
    if s.len() as u64 > ARG_BYTES.get() {
        return Err(format!(
            "{name} is {} long: exceeds {}",
            human_bytes(s.len() as u64),
            ARG_BYTES.describe()
        ));
    }
    Ok(())
}

/// Checks a list argument's length against [`LIST_ITEMS`]; the error names the argument.
pub fn check_list(name: &str, len: usize) -> Result<(), String> {
    if len as u64 > LIST_ITEMS.get() {
        return Err(format!(
            "{name} has {len} items: exceeds {}",
            LIST_ITEMS.describe()
        ));
    }
    Ok(())
}

/// One line of a JSON Lines stream: its bytes (without the newline), or that it was over
/// [`RECORD_BYTES`] (the rest of the line was skipped, so the next line is read normally).
pub enum Line {
    Text(Vec<u8>),
    TooLong { bytes: u64 },
}

/// Reads newline-delimited records with a bound on each line's length; never holds more
/// than one bounded line in memory. Invalid UTF-8 is left to the caller.
pub struct Lines<R> {
    inner: R,
    max: u64,
    /// 1-based number of the line last returned.
    pub line: usize,
    done: bool,
}

impl<R: std::io::BufRead> Lines<R> {
    pub fn new(inner: R) -> Self {
        Lines {
            inner,
            max: RECORD_BYTES.get(),
            line: 0,
            done: false,
        }
    }

    /// A reader with an explicit bound (tests, callers with their own limit).
    pub fn with_max(inner: R, max: u64) -> Self {
        Lines {
            inner,
            max,
            line: 0,
            done: false,
        }
    }

    /// Changes the bound on the lines read from now on.
    pub fn set_max(&mut self, max: u64) {
        self.max = max;
    }

    /// Consumes the blank lines and whitespace ahead (counting the lines they end), never
    /// more: true when the stream ends there. It blocks as a read does, so only callers
    /// reading a file (not a pipe that may stall) look ahead with it.
    pub fn skip_blank(&mut self) -> std::io::Result<bool> {
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                self.done = true;
                return Ok(true);
            }
            let blank = chunk
                .iter()
                .take_while(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
                .count();
            self.line += chunk[..blank].iter().filter(|b| **b == b'\n').count();
            let more = blank < chunk.len();
            self.inner.consume(blank);
            if more {
                return Ok(false);
            }
        }
    }

    /// The next line; `None` at the end of the stream.
    pub fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        if self.done {
            return Ok(None);
        }
        let mut buf = Vec::new();
        let mut seen: u64 = 0;
        let mut over = false;
        loop {
            let chunk = match self.inner.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                self.done = true;
                if seen == 0 {
                    return Ok(None);
                }
                break;
            }
            let (take, end) = match memchr::memchr(b'\n', chunk) {
                Some(i) => (i, true),
                None => (chunk.len(), false),
            };
            seen += take as u64;
            if !over {
                if seen > self.max {
                    over = true;
                    buf = Vec::new();
                } else {
                    buf.extend_from_slice(&chunk[..take]);
                }
            }
            let consumed = if end { take + 1 } else { take };
            self.inner.consume(consumed);
            if end {
                break;
            }
        }
        self.line += 1;
        if over {
            return Ok(Some(Line::TooLong { bytes: seen }));
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        Ok(Some(Line::Text(buf)))
    }
}

/// What an input with nothing but whitespace in it is called: `empty file`, or how many
/// bytes of whitespace it holds.
pub fn blank_input(text: &str) -> String {
    if text.is_empty() {
        "empty file".into()
    } else {
        format!(
            "nothing but whitespace ({}): no JSON or YAML in it",
            crate::sanitize::count(text.len() as u64, "byte")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts() {
        assert_eq!(parse_amount("64K"), Some(64 << 10));
        assert_eq!(parse_amount("8GiB"), Some(8 << 30));
        assert_eq!(parse_amount(" 1_000 "), Some(1000));
        assert_eq!(parse_amount("x"), None);
        assert_eq!(parse_amount("99999999999T"), None);
        assert_eq!(human_bytes(8 << 30), "8 GiB");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(10), "10 bytes");
    }

    #[test]
    fn lines_are_bounded_and_resume() {
        let data = b"short\nthis line is too long\r\nok\r\nlast".to_vec();
        let mut l = Lines::with_max(std::io::BufReader::with_capacity(4, &data[..]), 8);
        let mut got = Vec::new();
        while let Some(x) = l.next_line().unwrap() {
            got.push(match x {
                Line::Text(b) => String::from_utf8(b).unwrap(),
                Line::TooLong { bytes } => format!("<{bytes}>"),
            });
        }
        assert_eq!(got, ["short", "<22>", "ok", "last"]);
        assert_eq!(l.line, 4);
    }

    #[test]
    fn special_files_are_refused_without_blocking() {
        let e = read_file(Path::new("/dev/zero")).unwrap_err();
        assert!(e.message.contains("character device"), "{e}");
        let dir = std::env::temp_dir().join(format!("toolscope-fifo-{}", std::process::id()));
        let _ = std::fs::remove_file(&dir);
        let c = std::ffi::CString::new(dir.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a NUL-terminated path.
        if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } == 0 {
            let e = read_file(&dir).unwrap_err();
            assert!(e.message.contains("FIFO"), "{e}");
            let _ = std::fs::remove_file(&dir);
        }
        let e = read_file(Path::new("/")).unwrap_err();
        assert!(e.message.contains("folder"), "{e}");
    }

    #[test]
    fn gzip_bombs_stop_early() {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![b' '; 1 << 20];
        for _ in 0..200 {
            enc.write_all(&zeros).unwrap();
        }
        let gz = enc.finish().unwrap();
        let e = gunzip("bomb.gz", gz).unwrap_err();
        assert!(e.message.contains("expands more than"), "{e}");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(b"{\"a\": 1}").unwrap();
        assert_eq!(gunzip("x", enc.finish().unwrap()).unwrap(), b"{\"a\": 1}");
    }
}
