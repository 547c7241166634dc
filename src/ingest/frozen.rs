//! Frozen subtrees: parts of a tool's metadata that no later build phase reads (field rows,
//! resolved schemas, examples, response rows) are kept as their compact JSON text instead of
//! a tree of maps — a tenth of the memory and no per-node allocations. They still serialise
//! exactly as the tree would (pretty or compact) and still report their `$ref` strings.
//!
//! A frozen subtree is a `Value::String` that starts with [`mark`] (two control characters
//! and a number drawn when the process starts, so no spec text can start with it),
//! then the length of a JSON array of the subtree's
//! `$ref` strings in walk order, `\u{1}`, that array (empty when there are none), and the
//! subtree's compact JSON.
//!
//! A process that builds one artifact and exits (`toolscope build`) may call [`share`]:
//! from then on a frozen subtree's text after the mark is kept once per distinct text, in
//! a table that lives until the process ends, and the value holds the mark, `\u{2}` and
//! the text's number there. A generated spec's tools repeat the same schemas and rows (the
//! 50k benchmark's frozen text is 932 MB, 412 MB of it distinct). Both forms read, write
//! and compare alike through [`thaw`].

use serde_json::{Map, Value};

use super::artifact::write_compact;

/// The start of every frozen subtree's text: `\0\x01`, 16 hex digits drawn from the OS's
/// randomness when the process starts, and `\x01`. Specs are untrusted and a spec string
/// may hold any characters, a fixed tag included; it cannot hold a number it never saw, so
/// no input string is ever taken for a frozen subtree (whose text is written into the
/// artifact as JSON, unescaped).
pub fn mark() -> &'static str {
    static MARK: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    MARK.get_or_init(|| {
        use std::hash::{BuildHasher, Hasher};
        // std seeds its hash keys from the OS's random source (getrandom on Linux)
        let n = std::collections::hash_map::RandomState::new()
            .build_hasher()
            .finish();
        format!("\u{0}\u{1}{n:016x}\u{1}")
    })
}

/// Frozen text is kept once per distinct text from now until the process ends (see the
/// module's documentation): for a process that builds one artifact, writes it and exits.
pub fn share() {
    SHARING.store(true, std::sync::atomic::Ordering::Relaxed);
}

static SHARING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Texts shorter than this stay in their value: a number in the table would save little.
const SHARE_FROM: usize = 64;

/// The table of shared texts: 16 shards chosen by the text's hash, each with its texts
/// (leaked: they live as long as the process) in slots that are filled once and read
/// without a lock, and an index from hash to number. Number `n` is text `n / 16` of shard
/// `n % 16`.
mod table {
    use rustc_hash::FxHashMap;
    use std::sync::{Mutex, OnceLock};

    const SHARDS: usize = 16;
    /// Slots per block; a shard has at most `BLOCKS` blocks (a billion texts in all).
    const BLOCK: usize = 1 << 14;
    const BLOCKS: usize = 1 << 12;

    type Block = Box<[OnceLock<&'static str>]>;

    struct Shard {
        blocks: Box<[OnceLock<Block>]>,
        /// hash → number within the shard, and how many slots are filled
        index: Mutex<(FxHashMap<u64, u32>, usize)>,
    }

    fn shards() -> &'static [Shard] {
        static TABLE: OnceLock<Vec<Shard>> = OnceLock::new();
        TABLE.get_or_init(|| {
            (0..SHARDS)
                .map(|_| Shard {
                    blocks: (0..BLOCKS).map(|_| OnceLock::new()).collect(),
                    index: Mutex::default(),
                })
                .collect()
        })
    }

    fn slot(shard: &Shard, i: usize) -> Option<&OnceLock<&'static str>> {
        shard.blocks.get(i / BLOCK)?.get()?.get(i % BLOCK)
    }

    /// The number of the text `head` + `body` in the table (added when new); `None` when
    /// another text has the same hash (the caller then keeps the text in its value) or
    /// the table is full.
    pub(super) fn number(head: &str, body: &str) -> Option<u64> {
        use std::hash::{BuildHasher, Hasher};
        let mut h = rustc_hash::FxBuildHasher.build_hasher();
        h.write(head.as_bytes());
        h.write(body.as_bytes());
        let hash = h.finish();
        let s = (hash >> 60) as usize;
        let shard = &shards()[s];
        let number = |i: usize| i as u64 * SHARDS as u64 + s as u64;
        let mut index = shard.index.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&i) = index.0.get(&hash) {
            let t = slot(shard, i as usize)?.get()?;
            let same = t.len() == head.len() + body.len()
                && t.starts_with(head)
                && &t[head.len()..] == body;
            return same.then(|| number(i as usize));
        }
        let i = index.1;
        let block = shard.blocks.get(i / BLOCK)?;
        let block = block.get_or_init(|| (0..BLOCK).map(|_| OnceLock::new()).collect());
        let mut text = String::with_capacity(head.len() + body.len());
        text.push_str(head);
        text.push_str(body);
        block[i % BLOCK]
            .set(Box::leak(text.into_boxed_str()))
            .ok()?;
        index.0.insert(hash, u32::try_from(i).ok()?);
        index.1 += 1;
        Some(number(i))
    }

    /// The text numbered `n`.
    pub(super) fn text(n: u64) -> Option<&'static str> {
        let shard = shards().get((n % SHARDS as u64) as usize)?;
        slot(shard, usize::try_from(n / SHARDS as u64).ok()?)?
            .get()
            .copied()
    }
}

/// Replaces a non-empty container by its frozen form.
pub fn freeze(v: Value) -> Value {
    if !has_items(&v) {
        return v;
    }
    frozen_text(&v)
}

/// A non-empty object or array (what is worth freezing).
fn has_items(v: &Value) -> bool {
    match v {
        Value::Object(m) => !m.is_empty(),
        Value::Array(a) => !a.is_empty(),
        _ => false,
    }
}

/// The frozen form of a borrowed value: what `freeze(v.clone())` gives, without copying
/// the tree first.
pub fn freeze_ref(v: &Value) -> Value {
    if !has_items(v) {
        return v.clone();
    }
    frozen_text(v)
}

fn frozen_text(v: &Value) -> Value {
    written(|out, refs| write_compact_refs(out, v, refs))
}

/// Appends `v`'s compact JSON (as [`write_compact`] writes it) and its `$ref` strings in
/// the order `collect_refs` finds them: an object's own `$ref` first, then those under
/// each member in turn; a frozen subtree contributes the ones it carries.
pub fn write_compact_refs(out: &mut String, v: &Value, refs: &mut Vec<String>) {
    match v {
        Value::String(s) => match thaw(s) {
            Some((r, body)) => {
                if !r.is_empty()
                    && let Ok(list) = serde_json::from_str::<Vec<String>>(r)
                {
                    refs.extend(list);
                }
                out.push_str(body);
            }
            None => crate::jsonout::write_escaped(out, s),
        },
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_compact_refs(out, x, refs);
            }
            out.push(']');
        }
        Value::Object(m) => {
            refs.extend(own_ref(m.iter().map(|(k, x)| (k.as_str(), x))));
            out.push('{');
            for (i, (k, x)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                crate::jsonout::write_escaped(out, k);
                out.push(':');
                write_compact_refs(out, x, refs);
            }
            out.push('}');
        }
        other => write_compact(out, other),
    }
}

/// The `$ref` string among an object's members, if it has one.
pub fn own_ref<'v>(mut members: impl Iterator<Item = (&'v str, &'v Value)>) -> Option<String> {
    members.find_map(|(k, x)| match x {
        Value::String(s) if k == "$ref" => Some(s.clone()),
        _ => None,
    })
}

thread_local! {
    /// The text of the subtree being frozen, reused: the frozen string is then allocated
    /// once at its final size instead of growing by doubling.
    static SCRATCH: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// A frozen subtree from the compact JSON `write` appends and the `$ref`s it collects.
pub fn written(write: impl FnOnce(&mut String, &mut Vec<String>)) -> Value {
    let mut buf = SCRATCH.with(|s| s.take());
    buf.clear();
    let mut found = Vec::new();
    write(&mut buf, &mut found);
    let v = if SHARING.load(std::sync::atomic::Ordering::Relaxed) && buf.len() >= SHARE_FROM {
        shared(&found, &buf)
    } else {
        from_parts(&found, &buf)
    };
    SCRATCH.with(|s| s.replace(buf));
    v
}

thread_local! {
    /// What follows the mark before the body of the subtree being shared, reused.
    static HEAD: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// The shared form of a frozen subtree (see [`share`]): the mark, `\u{2}` and the number
/// of its text in the table.
fn shared(found: &[String], body: &str) -> Value {
    let mut head = HEAD.with(|s| s.take());
    head.clear();
    after_mark(&mut head, found);
    let v = match table::number(&head, body) {
        Some(n) => {
            let mark = mark();
            let mut out = String::with_capacity(mark.len() + 21);
            out.push_str(mark);
            out.push('\u{2}');
            out.push_str(itoa::Buffer::new().format(n));
            Value::String(out)
        }
        None => from_parts(found, body),
    };
    HEAD.with(|s| s.replace(head));
    v
}

/// Appends what follows [`mark`] before the body: the length of the `$ref` array's JSON,
/// `\u{1}` and that JSON.
fn after_mark(out: &mut String, found: &[String]) {
    if found.is_empty() {
        out.push_str("0\u{1}");
        return;
    }
    let start = out.len();
    out.push('[');
    for (i, r) in found.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        crate::jsonout::write_escaped(out, r);
    }
    out.push(']');
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(out.len() - start);
    out.insert_str(start, digits);
    out.insert(start + digits.len(), '\u{1}');
}

/// The start of a frozen subtree's text: [`mark`], the length of the `$ref` array's JSON,
/// `\u{1}` and that JSON (room for `body` more bytes).
fn header(found: &[String], body: usize) -> String {
    let mark = mark();
    let refs: usize = found.iter().map(|r| r.len() + 3).sum();
    let mut out = String::with_capacity(mark.len() + refs + 24 + body);
    out.push_str(mark);
    after_mark(&mut out, found);
    out
}

/// Whether a value is a frozen subtree.
pub fn is_frozen(v: &Value) -> bool {
    matches!(v, Value::String(s) if s.starts_with(mark()))
}

/// The `$ref` array text and the compact JSON of a frozen subtree.
pub fn thaw(s: &str) -> Option<(&str, &str)> {
    thaw_numbered(s).map(|(_, refs, body)| (refs, body))
}

/// [`thaw`], with the number of a shared text (`None` for a text held in its value).
fn thaw_numbered(s: &str) -> Option<(Option<u64>, &str, &str)> {
    if s.as_bytes().first() != Some(&0) {
        // not even the mark's first byte: the common case, decided without a comparison
        return None;
    }
    let rest = s.strip_prefix(mark())?;
    let (number, rest) = match rest.strip_prefix('\u{2}') {
        Some(n) => {
            let n = n.parse().ok()?;
            (Some(n), table::text(n)?)
        }
        None => (None, rest),
    };
    let (len, rest) = rest.split_once('\u{1}')?;
    let len: usize = len.parse().ok()?;
    (rest.len() >= len && rest.is_char_boundary(len)).then(|| {
        let (refs, body) = rest.split_at(len);
        (number, refs, body)
    })
}

/// The `$ref` strings of a frozen subtree, in walk order.
pub fn refs_of(s: &str) -> Option<Vec<String>> {
    let (refs, _) = thaw(s)?;
    if refs.is_empty() {
        return Some(Vec::new());
    }
    serde_json::from_str(refs).ok()
}

/// `m.insert(key, value)` on the object a frozen subtree holds: the member is appended to
/// its text (or, when the object already has `key`, replaced in a thawed copy), and the
/// value's `$ref`s join the subtree's. `None` when `s` is not a frozen object.
pub fn insert_member(s: &str, key: &str, value: &Value) -> Option<Value> {
    let (_, body) = thaw(s)?;
    if !body.starts_with('{') {
        return None;
    }
    let mut quoted = String::new();
    crate::jsonout::write_escaped(&mut quoted, key);
    if body.contains(quoted.as_str()) {
        // the key may be there already: insert into a thawed copy
        let Value::Object(mut m) = serde_json::from_str::<Value>(body).ok()? else {
            return None;
        };
        m.insert(key.to_string(), value.clone());
        return Some(freeze(Value::Object(m)));
    }
    let mut found = refs_of(s)?;
    let mut text = String::with_capacity(body.len() + quoted.len() + 64);
    text.push_str(&body[..body.len() - 1]);
    if body != "{}" {
        text.push(',');
    }
    text.push_str(&quoted);
    text.push(':');
    write_compact_refs(&mut text, value, &mut found);
    text.push('}');
    Some(from_parts(&found, &text))
}

/// A frozen subtree from its `$ref`s and compact text.
pub fn from_parts(found: &[String], body: &str) -> Value {
    let mut out = header(found, body.len());
    out.push_str(body);
    Value::String(out)
}

/// Freezes `m[key]` in place when it is a non-empty container.
pub fn freeze_member(m: &mut Map<String, Value>, key: &str) {
    if let Some(v) = m.get_mut(key) {
        *v = freeze(std::mem::take(v));
    }
}

/// Writes the frozen subtree `s` (a value [`thaw`] reads) as `json.dumps(indent=2)` lays
/// it out at indent `level`; `false` when `s` is not frozen. A shared text (see [`share`])
/// met a second time at one level is laid out once more and kept, on this thread, for the
/// times after (the tools of one resource repeat the same schemas and rows, and are
/// written one after another); [`PRETTY_KEPT`] bytes at most, then forgotten.
pub fn write_pretty_frozen(out: &mut String, s: &str, level: usize) -> bool {
    let Some((number, _, body)) = thaw_numbered(s) else {
        return false;
    };
    let Some(number) = number.filter(|_| body.len() >= PRETTY_FROM) else {
        write_pretty_from_compact(out, body, level);
        return true;
    };
    PRETTY.with(|kept| {
        let mut kept = kept.borrow_mut();
        let key = (number, level);
        match kept.texts.get(&key) {
            Some(Some(text)) => out.push_str(text),
            Some(None) => {
                let start = out.len();
                write_pretty_from_compact(out, body, level);
                let text: Box<str> = out[start..].into();
                kept.bytes += text.len();
                kept.texts.insert(key, Some(text));
                if kept.bytes > PRETTY_KEPT {
                    kept.texts.clear();
                    kept.bytes = 0;
                }
            }
            None => {
                // the entry itself counts
                kept.bytes += 48;
                kept.texts.insert(key, None);
                write_pretty_from_compact(out, body, level);
            }
        }
    });
    true
}

/// Shared texts shorter than this are laid out each time (the lookup would cost as much).
const PRETTY_FROM: usize = 256;
/// The laid-out texts a thread keeps, in bytes, at most.
const PRETTY_KEPT: usize = 16 << 20;

/// Shared texts met at a level (`None`), or met again and laid out (`Some`).
#[derive(Default)]
struct PrettyKept {
    texts: rustc_hash::FxHashMap<(u64, usize), Option<Box<str>>>,
    bytes: usize,
}

thread_local! {
    static PRETTY: std::cell::RefCell<PrettyKept> = std::cell::RefCell::default();
}

/// Writes the compact JSON `body` (as [`write_compact`] made it) the way
/// `json.dumps(indent=2)` lays it out at indent `level`: the same tokens, with line breaks
/// and indentation around members and `": "` after keys.
///
/// The text is read 64 bytes at a time: a block's quotes, backslashes and structural
/// characters (`{}[],:`) become three bit masks, the bits inside strings are found from the
/// quotes by a prefix XOR, and only the structural characters outside strings are visited;
/// the bytes between them are copied in runs. A block holding a backslash (an escape, rare
/// in the texts a build freezes) is read a byte at a time.
pub fn write_pretty_from_compact(out: &mut String, body: &str, level: usize) {
    let b = body.as_bytes();
    let mut at = Layout {
        depth: level,
        run: 0,
        skip: 0,
        in_string: false,
        escaped: false,
    };
    // SAFETY: what is added to the string is ASCII (line breaks, spaces, ": ") and runs
    // of `body` that begin and end next to ASCII bytes (structural characters outside
    // strings) or at its ends, so the string stays UTF-8.
    let v = unsafe { out.as_mut_vec() };
    let mut i = 0;
    while i < b.len() {
        let (block, n) = match b.get(i..i + 64) {
            Some(full) => (Masks::of(full), 64),
            None => {
                // the last bytes, padded with spaces (none of the characters looked for)
                let mut pad = [b' '; 64];
                pad[..b.len() - i].copy_from_slice(&b[i..]);
                (Masks::of(&pad), b.len() - i)
            }
        };
        // the most this block can add: the bytes not yet copied, and for each structural
        // character a line break, its indentation and ": " (the depth grows by one at most
        // per character); then room for the fixed-size copies to overrun
        let count = block.structural.count_ones() as usize;
        v.reserve((i + n - at.run) + count * (3 + 2 * (at.depth + count)) + OVERRUN);
        let mut to = Dst {
            base: v.as_mut_ptr(),
            len: v.len(),
        };
        if block.backslash != 0 || at.escaped {
            for j in i..i + n {
                at.byte(&mut to, b, j);
            }
        } else {
            let carry = if at.in_string { !0 } else { 0 };
            let inside = prefix_xor(block.quote) ^ carry;
            // bit n - 1 is the block's last real byte (a padded block ends in spaces)
            at.in_string = (inside >> (n - 1)) & 1 == 1;
            let mut m = block.structural & !inside;
            while m != 0 {
                at.structural(&mut to, b, i + m.trailing_zeros() as usize);
                m &= m - 1;
            }
        }
        // SAFETY: `to.len` bytes of the buffer are written (the first `v.len()` were)
        // and within the capacity reserved above.
        unsafe { v.set_len(to.len) };
        i += n;
    }
    v.extend_from_slice(&b[at.run.min(b.len())..]);
}

/// Bytes a block may write past what it adds ([`Dst`]'s fixed-size copies).
const OVERRUN: usize = 64;

/// A line break and the most indentation [`Dst::indent`] copies in one go.
const BREAK: &[u8; 64] = b"\n                                                               ";

/// The layout's output: the buffer of the string being written and its length so far.
/// Whoever makes one has reserved room for everything written through it plus
/// [`OVERRUN`] bytes.
struct Dst {
    base: *mut u8,
    len: usize,
}

impl Dst {
    /// Appends `b[from..to]`.
    #[inline(always)]
    fn run(&mut self, b: &[u8], from: usize, to: usize) {
        let n = to - from;
        // SAFETY: `from..to` lies in `b` (the callers' indices are of its bytes, `from`
        // at most `to`), and the room reserved covers `n` bytes plus OVERRUN; a short run
        // is copied as 32 bytes when `b` has 32 from `from`, the extra bytes landing in
        // that reserved room and counted nowhere.
        unsafe {
            let dst = self.base.add(self.len);
            if n <= 32 && from + 32 <= b.len() {
                std::ptr::copy_nonoverlapping(b.as_ptr().add(from), dst, 32);
            } else {
                std::ptr::copy_nonoverlapping(b.as_ptr().add(from), dst, n);
            }
        }
        self.len += n;
    }

    /// Appends a line break and the indentation of `depth` levels.
    #[inline(always)]
    fn indent(&mut self, depth: usize) {
        let n = 1 + 2 * depth;
        // SAFETY: the room reserved covers `n` bytes plus OVERRUN (64): a short
        // indentation is copied as all of BREAK's 64 bytes.
        unsafe {
            let dst = self.base.add(self.len);
            if n <= BREAK.len() {
                std::ptr::copy_nonoverlapping(BREAK.as_ptr(), dst, BREAK.len());
            } else {
                *dst = b'\n';
                std::ptr::write_bytes(dst.add(1), b' ', n - 1);
            }
        }
        self.len += n;
    }

    /// Appends `": "`.
    #[inline(always)]
    fn colon(&mut self) {
        // SAFETY: the room reserved covers these two bytes.
        unsafe {
            let dst = self.base.add(self.len);
            *dst = b':';
            *dst.add(1) = b' ';
        }
        self.len += 2;
    }
}

/// Where [`write_pretty_from_compact`] is in its text.
struct Layout {
    depth: usize,
    /// start of the bytes not yet copied
    run: usize,
    /// structural characters before this index are not visited (the closing half of an
    /// empty container, which is copied as it is)
    skip: usize,
    in_string: bool,
    /// the byte before was a backslash inside a string
    escaped: bool,
}

impl Layout {
    /// One byte, for a block read a byte at a time.
    #[inline]
    fn byte(&mut self, to: &mut Dst, b: &[u8], i: usize) {
        let c = b[i];
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if c == b'\\' {
                self.escaped = true;
            } else if c == b'"' {
                self.in_string = false;
            }
        } else if c == b'"' {
            self.in_string = true;
        } else if matches!(c, b'{' | b'}' | b'[' | b']' | b',' | b':') {
            self.structural(to, b, i);
        }
    }

    /// A structural character outside strings, at `i`.
    #[inline(always)]
    fn structural(&mut self, to: &mut Dst, b: &[u8], i: usize) {
        if i < self.skip {
            return;
        }
        match b[i] {
            c @ (b'{' | b'[') => {
                if b.get(i + 1) == Some(&if c == b'{' { b'}' } else { b']' }) {
                    self.skip = i + 2;
                    return;
                }
                to.run(b, self.run, i + 1);
                self.depth += 1;
                to.indent(self.depth);
                self.run = i + 1;
            }
            b'}' | b']' => {
                to.run(b, self.run, i);
                self.depth = self.depth.saturating_sub(1);
                to.indent(self.depth);
                self.run = i;
            }
            b',' => {
                to.run(b, self.run, i + 1);
                to.indent(self.depth);
                self.run = i + 1;
            }
            _ => {
                // ':'
                to.run(b, self.run, i);
                to.colon();
                self.run = i + 1;
            }
        }
    }
}

/// Bit `k` of each mask stands for byte `k` of a 64-byte block.
struct Masks {
    quote: u64,
    backslash: u64,
    /// `{`, `}`, `[`, `]`, `,` and `:`
    structural: u64,
}

impl Masks {
    /// The masks of the first 64 bytes of `b` (which holds at least 64).
    #[inline]
    fn of(b: &[u8]) -> Masks {
        let b = &b[..64];
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::*;
            let mut m = Masks {
                quote: 0,
                backslash: 0,
                structural: 0,
            };
            // SAFETY: SSE2 is part of the x86_64 baseline; the four 16-byte loads read
            // bytes 0..64 of `b`, which has 64.
            unsafe {
                let q = _mm_set1_epi8(b'"' as i8);
                let bs = _mm_set1_epi8(b'\\' as i8);
                let lower = _mm_set1_epi8(0x20);
                let open = _mm_set1_epi8(b'{' as i8);
                let close = _mm_set1_epi8(b'}' as i8);
                let comma = _mm_set1_epi8(b',' as i8);
                let colon = _mm_set1_epi8(b':' as i8);
                for k in 0..4 {
                    let v = _mm_loadu_si128(b.as_ptr().add(16 * k) as *const __m128i);
                    // '[' | 0x20 == '{' and ']' | 0x20 == '}' (no other byte maps to them)
                    let f = _mm_or_si128(v, lower);
                    let st = _mm_or_si128(
                        _mm_or_si128(_mm_cmpeq_epi8(f, open), _mm_cmpeq_epi8(f, close)),
                        _mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(v, colon)),
                    );
                    let bits = |x: __m128i| (_mm_movemask_epi8(x) as u32 as u64) << (16 * k);
                    m.quote |= bits(_mm_cmpeq_epi8(v, q));
                    m.backslash |= bits(_mm_cmpeq_epi8(v, bs));
                    m.structural |= bits(st);
                }
            }
            m
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let mask = |f: &dyn Fn(u8) -> bool| {
                b.iter()
                    .enumerate()
                    .fold(0u64, |m, (k, &c)| m | (u64::from(f(c)) << k))
            };
            Masks {
                quote: mask(&|c| c == b'"'),
                backslash: mask(&|c| c == b'\\'),
                structural: mask(&|c| matches!(c, b'{' | b'}' | b'[' | b']' | b',' | b':')),
            }
        }
    }
}

/// Bit `k` of the result is the XOR of bits `0..=k` of `x`: after an odd number of quotes.
#[inline]
fn prefix_xor(mut x: u64) -> u64 {
    for s in [1, 2, 4, 8, 16, 32] {
        x ^= x << s;
    }
    x
}

/// The byte-at-a-time layout the block-wise one replaced, kept to test it against.
#[cfg(test)]
fn write_pretty_from_compact_bytewise(out: &mut String, body: &str, level: usize) {
    let b = body.as_bytes();
    let mut depth = level;
    let mut i = 0;
    let mut run = 0; // start of the bytes not yet copied
    while i < b.len() {
        match b[i] {
            b'"' => {
                // to the closing quote: jump between quotes and backslashes (memchr)
                i += 1;
                loop {
                    match memchr::memchr2(b'"', b'\\', &b[i.min(b.len())..]) {
                        Some(o) if b[i + o] == b'"' => {
                            i += o;
                            break;
                        }
                        Some(o) => i += o + 2,
                        None => {
                            i = b.len();
                            break;
                        }
                    }
                }
                i += 1;
            }
            c @ (b'{' | b'[') => {
                let empty = b.get(i + 1) == Some(&if c == b'{' { b'}' } else { b']' });
                if empty {
                    i += 2;
                    continue;
                }
                out.push_str(&body[run..=i]);
                depth += 1;
                super::artifact::write_pretty_indent(out, depth);
                i += 1;
                run = i;
            }
            b'}' | b']' => {
                out.push_str(&body[run..i]);
                depth = depth.saturating_sub(1);
                super::artifact::write_pretty_indent(out, depth);
                run = i;
                i += 1;
            }
            b',' => {
                out.push_str(&body[run..=i]);
                super::artifact::write_pretty_indent(out, depth);
                i += 1;
                run = i;
            }
            b':' => {
                out.push_str(&body[run..i]);
                out.push_str(": ");
                i += 1;
                run = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&body[run.min(b.len())..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::artifact::{to_compact, to_python_pretty};
    use serde_json::json;

    use crate::ingest::build::collection::collect_refs as collect;

    #[test]
    fn a_string_that_imitates_the_mark_is_a_string() {
        let real = mark();
        assert!(
            real.starts_with("\u{0}\u{1}") && real.len() == 19,
            "{real:?}"
        );
        // the real mark with its first digit changed
        let mut near = real.to_string();
        let other = if &near[2..3] == "0" { "1" } else { "0" };
        near.replace_range(2..3, other);
        for fake in [
            // the fixed mark of earlier versions
            "\u{0}\u{1}toolscope-frozen-json\u{1}0\u{1}{\"a\":1".to_string(),
            "\u{0}\u{1}0000000000000000\u{1}0\u{1}[1]".to_string(),
            format!("{near}0\u{1}[1]"),
        ] {
            assert!(thaw(&fake).is_none(), "{fake:?}");
            let v = Value::String(fake.clone());
            assert!(!is_frozen(&v));
            let mut out = String::new();
            crate::ingest::artifact::write_pretty(&mut out, &v, 0);
            assert_eq!(out, serde_json::to_string(&fake).unwrap());
        }
        // what this process freezes does carry the mark
        assert!(is_frozen(&freeze(serde_json::json!([1]))));
    }

    #[test]
    fn shared_text_reads_and_writes_as_the_text_it_replaces() {
        // (sharing is for the whole process: the other tests of this binary may then
        // freeze either way, and must not be able to tell)
        share();
        let tree = json!({
            "fields": [{"name": "id", "schema": {"$ref": "#/components/schemas/Pet"}},
                       {"name": "tag\u{1b}", "x": [1.5, null, true, "a,b:{c}"]}],
            "more": {"$ref": "#/components/schemas/Owner"},
        });
        let (a, b) = (freeze_ref(&tree), freeze_ref(&tree));
        let text = a.as_str().unwrap();
        let rest = text.strip_prefix(mark()).unwrap();
        assert!(rest.starts_with('\u{2}'), "{text:?}");
        assert!(
            text.len() < mark().len() + 22,
            "a number, not the text: {text:?}"
        );
        assert_eq!(a, b, "the same text has one number");
        let inline = {
            let mut refs = Vec::new();
            let mut body = String::new();
            write_compact_refs(&mut body, &tree, &mut refs);
            from_parts(&refs, &body)
        };
        assert_eq!(thaw(text), thaw(inline.as_str().unwrap()));
        assert!(is_frozen(&a));
        assert_eq!(to_python_pretty(&a), to_python_pretty(&tree));
        assert_eq!(to_compact(&a), to_compact(&tree));
        let mut want = Vec::new();
        collect(&tree, &mut want);
        assert_eq!(refs_of(text).unwrap(), want);
        // a shared subtree inside another, and a member added to a shared object
        let outer = freeze(json!({"k": a.clone(), "l": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]}));
        let plain = json!({"k": tree.clone(), "l": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]});
        assert_eq!(to_python_pretty(&outer), to_python_pretty(&plain));
        let added = insert_member(text, "z", &json!(1)).unwrap();
        let mut want = tree.clone();
        want["z"] = json!(1);
        assert_eq!(to_compact(&added), to_compact(&want));
        // short text stays in its value
        let small = freeze(json!([1]));
        assert!(!small.as_str().unwrap()[mark().len()..].starts_with('\u{2}'));
        // a number the table never gave is not a subtree
        let unknown = format!("{}\u{2}{}", mark(), u64::MAX);
        assert!(thaw(&unknown).is_none());
        let mut out = String::new();
        crate::ingest::artifact::write_pretty(&mut out, &Value::String(unknown.clone()), 0);
        assert_eq!(out, serde_json::to_string(&unknown).unwrap());
    }

    #[test]
    fn strings_with_escapes_and_punctuation_lay_out_as_the_tree() {
        let tree = json!({
            "a\\\"{": ["x\\", "\"", "\\\"", ",:[]{}", {"k:": "v,\\"}],
            "b": {"": "\\\\", "c": [[], {}, "\u{1b}\u{202e}"]},
            "d": 1.5
        });
        let frozen = freeze_ref(&tree);
        for level in [0, 1, 3] {
            let (mut a, mut b) = (String::new(), String::new());
            crate::ingest::artifact::write_pretty(&mut a, &tree, level);
            crate::ingest::artifact::write_pretty(&mut b, &frozen, level);
            assert_eq!(a, b);
        }
    }

    /// Any value whose strings are full of what the layout looks for (quotes, backslashes,
    /// brackets, commas, colons), long enough to cross the 64-byte blocks at every offset.
    fn arb_tree() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let text = "[a-z\\\\\"{}\\[\\],:é\u{202e}\n ]{0,90}";
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|i| json!(i)),
            (-1e6f64..1e6).prop_map(|f| json!(f)),
            text.prop_map(Value::String),
        ];
        crate::testutil::arb_json(leaf, text, (4, 48, 6))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        #[test]
        fn the_block_layout_is_the_bytewise_layout_and_the_tree_layout(
            tree in arb_tree(),
            level in 0usize..5,
            shift in 0usize..64,
        ) {
            // shifted by a key of `shift` bytes: every byte lands at every block offset
            let tree = json!({ "k".repeat(shift): tree });
            let body = crate::ingest::artifact::to_compact(&tree);
            let (mut blocks, mut bytes, mut walked) = (String::new(), String::new(), String::new());
            write_pretty_from_compact(&mut blocks, &body, level);
            write_pretty_from_compact_bytewise(&mut bytes, &body, level);
            crate::ingest::artifact::write_pretty(&mut walked, &tree, level);
            proptest::prop_assert_eq!(&blocks, &bytes);
            proptest::prop_assert_eq!(&blocks, &walked);
        }
    }

    #[test]
    fn deep_nesting_lays_out_past_the_short_indentation() {
        // indentation longer than one fixed-size copy (more than 31 levels), with long runs
        let mut tree = json!({"leaf": "x".repeat(100), "n": [1, 2.5, "a\\\"b"]});
        for i in 0..45 {
            tree = if i % 2 == 0 {
                json!([tree, "y".repeat(i * 3), {}])
            } else {
                json!({ format!("k{i}"): tree, "e": [] })
            };
        }
        let body = crate::ingest::artifact::to_compact(&tree);
        for level in [0, 1, 20, 40] {
            let (mut blocks, mut walked) = (String::new(), String::new());
            write_pretty_from_compact(&mut blocks, &body, level);
            crate::ingest::artifact::write_pretty(&mut walked, &tree, level);
            assert_eq!(blocks, walked);
        }
    }

    #[test]
    fn escapes_and_empty_containers_across_a_block_boundary() {
        // a backslash as a block's last byte escapes the next block's first quote; an
        // empty container opens at a block's end and closes at the next one's start
        for pad in 50..70 {
            for tail in [
                json!(["\"x\\", "y", [], {}]),
                json!(["a", {"b": []}, {"c": {}}, "\\\\", "\\\""]),
            ] {
                let tree = json!([{ "p".repeat(pad): tail }, [], {}]);
                let body = crate::ingest::artifact::to_compact(&tree);
                let (mut blocks, mut walked) = (String::new(), String::new());
                write_pretty_from_compact(&mut blocks, &body, 2);
                crate::ingest::artifact::write_pretty(&mut walked, &tree, 2);
                assert_eq!(blocks, walked, "{body}");
            }
        }
    }

    #[test]
    fn a_member_inserted_into_a_frozen_object_is_as_if_inserted_before_freezing() {
        let add = json!([{"$ref": "#/b"}, {"$ref": "#/c"}]);
        for tree in [
            json!({"type": "object", "properties": {"a": {"$ref": "#/a"}}}),
            json!({}),
            // the key exists: replaced in place
            json!({"__refs__": [1], "x": {"$ref": "#/a"}}),
        ] {
            let frozen = freeze_ref(&tree);
            let frozen = if tree == json!({}) {
                // an empty object is not frozen; freeze its text by hand
                frozen_text(&tree)
            } else {
                frozen
            };
            let got = insert_member(frozen.as_str().unwrap(), "__refs__", &add).unwrap();
            let mut want = tree.clone();
            want.as_object_mut()
                .unwrap()
                .insert("__refs__".into(), add.clone());
            assert_eq!(to_compact(&got), to_compact(&want));
            assert_eq!(to_python_pretty(&got), to_python_pretty(&want));
            let mut refs = Vec::new();
            collect(&want, &mut refs);
            assert_eq!(refs_of(got.as_str().unwrap()).unwrap(), refs);
        }
        // not a frozen object
        assert!(insert_member("plain", "k", &add).is_none());
        let arr = freeze(json!([1, 2]));
        assert!(insert_member(arr.as_str().unwrap(), "k", &add).is_none());
    }

    #[test]
    fn frozen_subtrees_serialise_like_the_tree() {
        let sub = json!({"a": [1, 2.5, {"b": "x,y:{}[]\"\\"}, [], {}], "c": {"$ref": "#/x"},
                         "d": {"e": [[1], {"f": null}]}, "é": -1e-7, "t": true});
        let whole = json!({"k": sub.clone(), "l": [sub.clone(), 3], "m": {}});
        let mut frozen = whole.clone();
        let m = frozen.as_object_mut().unwrap();
        freeze_member(m, "k");
        if let Some(Value::Array(a)) = m.get_mut("l") {
            a[0] = freeze(a[0].take());
        }
        freeze_member(m, "m");
        assert!(frozen["k"].as_str().unwrap().starts_with(mark()));
        assert_eq!(frozen["m"], json!({}));
        assert_eq!(to_python_pretty(&frozen), to_python_pretty(&whole));
        assert_eq!(to_compact(&frozen), to_compact(&whole));
        assert_eq!(refs_of(frozen["k"].as_str().unwrap()).unwrap(), vec!["#/x"]);
        // a frozen subtree inside a frozen subtree
        let twice = freeze(frozen.clone());
        assert_eq!(to_python_pretty(&twice), to_python_pretty(&whole));
        assert_eq!(
            refs_of(twice.as_str().unwrap()).unwrap(),
            vec!["#/x", "#/x"]
        );
    }
}
