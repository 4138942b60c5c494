//! The planner's compiled reader: one pass over a plan request's bytes.
//!
//! `Scan::new` validates the whole body as strict JSON (the rules `app.api.body` enforces with
//! orjson: syntax, UTF-8, escapes and unpaired surrogates, numbers a double can hold, a nesting
//! depth) and records it as a tape of nodes with byte ranges. It refuses (returns an error)
//! anything it is not sure orjson would accept the same way, so the caller falls back to the
//! Python path, which gives the answer docs/rules.md describes. The readers then build the core messages of
//! the messages the Python readers' quick paths would read plainly; any other message is handed
//! back by index for the Python reader to read. `survey` is `app.core.turns.survey` over any list
//! of core messages, `findings` is `app.core.diagnostics.findings`. Nothing here decides what is
//! valid: every doubt is a fallback.
//!
//! Memory safety on hostile input: no `unsafe` but the one borrow of the caller's buffer, which
//! stays exported (so it cannot be resized or freed) for as long as the scan lives; every index
//! into the body or the tape is bounds-checked; the parser keeps its own stack (no recursion),
//! and the one recursive builder is bounded by the accepted depth.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

#[cfg(not(feature = "abi3"))]
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::AsPyPointer;
use pyo3::prelude::*;
#[cfg(feature = "abi3")]
use pyo3::types::{PyByteArray, PyBytes};
use pyo3::types::{PyDict, PyFrozenSet, PyList, PySet, PyString, PyTuple};

const OBJ: u8 = 1;
const ARR: u8 = 2;
const STR: u8 = 3;
const INT: u8 = 4;
const FLT: u8 = 5;
const TRU: u8 = 6;
const FAL: u8 = 7;
const NUL: u8 = 8;

/// A string node with at least one escape: its raw bytes are not its value.
const ESCAPED: u8 = 1;

/// The deepest body the scan reads; deeper ones fall back (and bound the value builder's
/// recursion whatever `max_json_depth` is set to).
const DEPTH_CEILING: usize = 256;

#[derive(Clone, Copy)]
struct Node {
    kind: u8,
    flags: u8,
    /// Containers: from the bracket to past the closing one; strings: inside the quotes.
    start: u32,
    end: u32,
    /// The node after this one's subtree.
    next: u32,
}

struct Tape {
    nodes: Vec<Node>,
    /// Byte positions where the text differs from what orjson would write for its value
    /// (whitespace, an escape orjson writes otherwise, a float, `-0`, a repeated key).
    uncanonical: Vec<u32>,
    /// Byte positions of object keys with escapes: lookups compare raw bytes, so an object
    /// holding one is read by Python.
    escaped_keys: Vec<u32>,
}

struct Refused;

fn is_ws(byte: u8) -> bool {
    byte == b' ' || byte == b'\n' || byte == b'\r' || byte == b'\t'
}

fn hex_value(byte: u8) -> Option<u32> {
    match byte {
        b'0'..=b'9' => Some((byte - b'0') as u32),
        b'a'..=b'f' => Some((byte - b'a' + 10) as u32),
        b'A'..=b'F' => Some((byte - b'A' + 10) as u32),
        _ => None,
    }
}

/// Whether any of the 8 bytes is `"`, `\` or below 0x20 (a SWAR test, exact).
fn word_needs_look(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let quote = word ^ (ONES * b'"' as u64);
    let slash = word ^ (ONES * b'\\' as u64);
    let zero_quote = quote.wrapping_sub(ONES) & !quote;
    let zero_slash = slash.wrapping_sub(ONES) & !slash;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word;
    (zero_quote | zero_slash | below_space) & HIGHS != 0
}

struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
    tape: Tape,
}

struct Frame {
    node: usize,
    is_object: bool,
    keys_from: usize,
}

impl<'a> Parser<'a> {
    fn byte(&self) -> Result<u8, Refused> {
        self.bytes.get(self.pos).copied().ok_or(Refused)
    }

    fn skip_ws(&mut self) {
        let start = self.pos;
        while self.pos < self.bytes.len() && is_ws(self.bytes[self.pos]) {
            self.pos += 1;
        }
        if self.pos != start {
            self.tape.uncanonical.push(start as u32);
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), Refused> {
        if self.byte()? != byte {
            return Err(Refused);
        }
        self.pos += 1;
        Ok(())
    }

    fn push(&mut self, kind: u8, flags: u8, start: usize, end: usize) -> usize {
        let index = self.tape.nodes.len();
        self.tape.nodes.push(Node {
            kind,
            flags,
            start: start as u32,
            end: end as u32,
            next: index as u32 + 1,
        });
        index
    }

    /// A string at `pos` (its opening quote); returns its node.
    fn string(&mut self) -> Result<usize, Refused> {
        let bytes = self.bytes;
        let start = self.pos + 1;
        let mut i = start;
        let mut flags = 0;
        loop {
            while i + 8 <= bytes.len() {
                let word = u64::from_le_bytes(bytes[i..i + 8].try_into().map_err(|_| Refused)?);
                if word_needs_look(word) {
                    break;
                }
                i += 8;
            }
            let byte = *bytes.get(i).ok_or(Refused)?;
            if byte == b'"' {
                break;
            }
            if byte < 0x20 {
                return Err(Refused);
            }
            if byte != b'\\' {
                i += 1;
                continue;
            }
            flags = ESCAPED;
            let escape = *bytes.get(i + 1).ok_or(Refused)?;
            match escape {
                b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                b'/' => {
                    self.tape.uncanonical.push(i as u32);
                    i += 2;
                }
                b'u' => {
                    let (code, lower) = self.hex4(i + 2)?;
                    i += 6;
                    if (0xDC00..=0xDFFF).contains(&code) {
                        return Err(Refused);
                    }
                    if (0xD800..=0xDBFF).contains(&code) {
                        if bytes.get(i) != Some(&b'\\') || bytes.get(i + 1) != Some(&b'u') {
                            return Err(Refused);
                        }
                        let (low, _) = self.hex4(i + 2)?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(Refused);
                        }
                        self.tape.uncanonical.push(i as u32);
                        i += 6;
                    } else {
                        // orjson writes \u00XX (lower-case hex) only for control characters
                        // without a short escape; anything else it writes as the character.
                        let short = matches!(code, 0x08 | 0x09 | 0x0A | 0x0C | 0x0D);
                        if code >= 0x20 || short || !lower {
                            self.tape.uncanonical.push(i as u32);
                        }
                    }
                }
                _ => return Err(Refused),
            }
        }
        self.pos = i + 1;
        Ok(self.push(STR, flags, start, i))
    }

    fn hex4(&self, at: usize) -> Result<(u32, bool), Refused> {
        let digits = self.bytes.get(at..at + 4).ok_or(Refused)?;
        let mut code = 0;
        let mut lower = true;
        for &digit in digits {
            code = code * 16 + hex_value(digit).ok_or(Refused)?;
            lower &= !digit.is_ascii_uppercase();
        }
        Ok((code, lower))
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<(), Refused> {
        let start = self.pos;
        let negative = self.byte()? == b'-';
        if negative {
            self.pos += 1;
        }
        let first = self.byte()?;
        let integer_digits = if first == b'0' {
            self.pos += 1;
            1
        } else if first.is_ascii_digit() {
            self.digits()
        } else {
            return Err(Refused);
        };
        let mut float = false;
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(Refused);
            }
            float = true;
        }
        if matches!(self.bytes.get(self.pos), Some(b'e') | Some(b'E')) {
            self.pos += 1;
            if matches!(self.bytes.get(self.pos), Some(b'+') | Some(b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(Refused);
            }
            float = true;
        }
        let end = self.pos;
        if float {
            // orjson refuses a number a double cannot hold; the value itself is Python's to read.
            let text = std::str::from_utf8(&self.bytes[start..end]).map_err(|_| Refused)?;
            let value: f64 = text.parse().map_err(|_| Refused)?;
            if !value.is_finite() {
                return Err(Refused);
            }
            self.tape.uncanonical.push(start as u32);
            self.push(FLT, 0, start, end);
        } else {
            // Beyond 18 digits orjson may read a float: left to the Python path.
            if integer_digits > 18 {
                return Err(Refused);
            }
            if negative && first == b'0' {
                self.tape.uncanonical.push(start as u32);
            }
            self.push(INT, 0, start, end);
        }
        Ok(())
    }

    fn literal(&mut self, word: &[u8], kind: u8) -> Result<(), Refused> {
        let start = self.pos;
        if self.bytes.get(start..start + word.len()) != Some(word) {
            return Err(Refused);
        }
        self.pos += word.len();
        self.push(kind, 0, start, self.pos);
        Ok(())
    }

    /// A key of the innermost object, checked against its earlier keys.
    fn key(&mut self, keys: &mut Vec<(u32, u32)>, keys_from: usize) -> Result<(), Refused> {
        if self.byte()? != b'"' {
            return Err(Refused);
        }
        let node = self.string()?;
        let Node { start, end, flags, .. } = self.tape.nodes[node];
        if flags & ESCAPED != 0 {
            self.tape.escaped_keys.push(start);
            self.tape.uncanonical.push(start);
        }
        let earlier = &keys[keys_from..];
        if earlier.len() >= 64 {
            self.tape.uncanonical.push(start);
        } else {
            let text = &self.bytes[start as usize..end as usize];
            if earlier.iter().any(|&(s, e)| &self.bytes[s as usize..e as usize] == text) {
                self.tape.uncanonical.push(start);
            }
            keys.push((start, end));
        }
        self.skip_ws();
        self.expect(b':')?;
        self.skip_ws();
        Ok(())
    }

    fn parse(mut self, max_depth: usize) -> Result<Tape, Refused> {
        let mut stack: Vec<Frame> = Vec::new();
        let mut keys: Vec<(u32, u32)> = Vec::new();
        self.skip_ws();
        'value: loop {
            match self.byte()? {
                open @ (b'{' | b'[') => {
                    let is_object = open == b'{';
                    if stack.len() + 1 > max_depth {
                        return Err(Refused);
                    }
                    let node = self.push(if is_object { OBJ } else { ARR }, 0, self.pos, 0);
                    self.pos += 1;
                    let keys_from = keys.len();
                    stack.push(Frame { node, is_object, keys_from });
                    self.skip_ws();
                    let close = if is_object { b'}' } else { b']' };
                    if self.byte()? != close {
                        if is_object {
                            self.key(&mut keys, keys_from)?;
                        }
                        continue 'value;
                    }
                }
                b'"' => {
                    self.string()?;
                }
                b'-' | b'0'..=b'9' => self.number()?,
                b't' => self.literal(b"true", TRU)?,
                b'f' => self.literal(b"false", FAL)?,
                b'n' => self.literal(b"null", NUL)?,
                _ => return Err(Refused),
            }
            // After a value (or an empty container's opening): close containers or go on.
            loop {
                self.skip_ws();
                let frame = match stack.last() {
                    Some(frame) => frame,
                    None => break 'value,
                };
                let (node, is_object, keys_from) = (frame.node, frame.is_object, frame.keys_from);
                let byte = self.byte()?;
                if byte == b',' {
                    self.pos += 1;
                    self.skip_ws();
                    if is_object {
                        self.key(&mut keys, keys_from)?;
                    }
                    continue 'value;
                }
                if byte != if is_object { b'}' } else { b']' } {
                    return Err(Refused);
                }
                self.pos += 1;
                let next = self.tape.nodes.len() as u32;
                let container = &mut self.tape.nodes[node];
                container.end = self.pos as u32;
                container.next = next;
                keys.truncate(keys_from);
                stack.pop();
            }
        }
        if self.pos != self.bytes.len() {
            return Err(Refused);
        }
        // Keys record their start after the escapes inside them: put the positions in order.
        self.tape.uncanonical.sort_unstable();
        self.tape.escaped_keys.sort_unstable();
        Ok(self.tape)
    }
}

fn parse(bytes: &[u8], max_depth: usize) -> Result<Tape, Refused> {
    if bytes.len() >= u32::MAX as usize {
        return Err(Refused);
    }
    std::str::from_utf8(bytes).map_err(|_| Refused)?;
    let parser = Parser {
        bytes,
        pos: 0,
        tape: Tape {
            nodes: Vec::with_capacity(bytes.len() / 32 + 16),
            uncanonical: Vec::new(),
            escaped_keys: Vec::new(),
        },
    };
    let tape = parser.parse(max_depth.min(DEPTH_CEILING))?;
    match tape.nodes.first() {
        Some(node) if node.kind == OBJ => Ok(tape),
        _ => Err(Refused),
    }
}

/// Whether any recorded position lies in `start..end` (`positions` ascending).
fn any_within(positions: &[u32], start: u32, end: u32) -> bool {
    let first = positions.partition_point(|&p| p < start);
    positions.get(first).map_or(false, |&p| p < end)
}

/// The string of UTF-8 `bytes`, validated by Python's decoder as it decodes them rather than
/// first by Rust's as well (a second pass over every long text: 0.4 to 0.5 ms of reading 10,000
/// native messages).
fn decoded(py: Python<'_>, bytes: &[u8]) -> Read<PyObject> {
    // SAFETY: Python reads `bytes.len()` bytes from a live slice, validating them (strict).
    unsafe {
        let made = ffi::PyUnicode_DecodeUTF8(
            bytes.as_ptr() as *const std::os::raw::c_char,
            bytes.len() as ffi::Py_ssize_t,
            std::ptr::null(),
        );
        if made.is_null() {
            ffi::PyErr_Clear();
            return Err(Unread);
        }
        Ok(PyObject::from_owned_ptr(py, made))
    }
}

/// A named-tuple class the readers build instances of, checked once to be a subclass of tuple.
struct RecordClass {
    class: PyObject,
    alloc: ffi::allocfunc,
}

impl RecordClass {
    fn of(py: Python<'_>, class: &PyAny) -> PyResult<Self> {
        let pointer = class.as_ptr();
        // SAFETY: type checks and slot lookups on a live object the caller holds.
        unsafe {
            let tuple = std::ptr::addr_of_mut!(ffi::PyTuple_Type);
            if ffi::PyType_Check(pointer) == 0
                || ffi::PyType_IsSubtype(pointer as *mut ffi::PyTypeObject, tuple) == 0
            {
                return Err(PyTypeError::new_err("a record class must be a subclass of tuple"));
            }
            let slot = ffi::PyType_GetSlot(pointer as *mut ffi::PyTypeObject, ffi::Py_tp_alloc);
            let alloc: ffi::allocfunc =
                if slot.is_null() { ffi::PyType_GenericAlloc } else { std::mem::transmute(slot) };
            Ok(RecordClass { class: class.into_py(py), alloc })
        }
    }

    /// `tuple.__new__(class, items)`, made as that makes it (the class's own allocation, then
    /// each item) without the intermediate tuple and the call: reading 10,000 native messages
    /// took 2.4 to 3.3 ms less (of 16).
    fn make<const N: usize>(&self, py: Python<'_>, items: [PyObject; N]) -> PyResult<PyObject> {
        // SAFETY: `alloc` is the tuple subclass's allocator, asked for exactly N items, and each
        // item is set once on the new object (refcount 1) before anything else can see it.
        unsafe {
            let made = (self.alloc)(self.class.as_ptr() as *mut ffi::PyTypeObject, N as ffi::Py_ssize_t);
            if made.is_null() {
                return Err(PyErr::fetch(py));
            }
            let made = PyObject::from_owned_ptr(py, made);
            for (at, item) in items.into_iter().enumerate() {
                if ffi::PyTuple_SetItem(made.as_ptr(), at as ffi::Py_ssize_t, item.into_ptr()) != 0 {
                    return Err(PyErr::fetch(py));
                }
            }
            Ok(made)
        }
    }
}

fn record_class(py: Python<'_>, class: &PyAny) -> PyResult<Option<RecordClass>> {
    if class.is_none() { Ok(None) } else { RecordClass::of(py, class).map(Some) }
}

/// What the readers build with: the core types and shared constants, from Python. Every object
/// is built owned (not in the GIL pool), so a temporary is freed as soon as it is used, not when
/// the whole read is done: reading 50,000 messages should hold the messages, not their scaffolding.
struct Kit<'py> {
    py: Python<'py>,
    /// None where only strings are read (`Scan::fields`).
    message: Option<RecordClass>,
    tool_call: Option<RecordClass>,
    empty: PyObject,
    no_blocks: PyObject,
    roles: [PyObject; 4],
    yes: PyObject,
    no: PyObject,
    /// Short strings already built (tool names, argument keys, ids): one object for each
    /// text, as orjson shares its dict keys, instead of one per occurrence.
    short: RefCell<HashMap<Vec<u8>, PyObject>>,
    /// The survey of the messages built, while every caller message is read here.
    surveyor: RefCell<Option<Surveyor<'py>>>,
    /// The (id, name) of the calls built since the last message, for the surveyor.
    pending_calls: RefCell<Vec<(PyObject, PyObject)>>,
}

/// The longest string `Kit::short` shares, and how many it keeps.
const SHORT_TEXT: usize = 32;
const SHORT_KEPT: usize = 4096;

const ROLES: [&str; 4] = ["user", "assistant", "tool", "system"];

impl<'py> Kit<'py> {
    fn of(py: Python<'py>, message: &'py PyAny, tool_call: &'py PyAny) -> PyResult<Self> {
        Ok(Kit {
            py,
            message: record_class(py, message)?,
            tool_call: record_class(py, tool_call)?,
            empty: PyString::new(py, "").into_py(py),
            no_blocks: PyTuple::empty(py).into_py(py),
            roles: ROLES.map(|role| PyString::new(py, role).into_py(py)),
            yes: true.into_py(py),
            no: false.into_py(py),
            short: RefCell::new(HashMap::new()),
            surveyor: RefCell::new(None),
            pending_calls: RefCell::new(Vec::new()),
        })
    }

    /// The string `text`, shared with its earlier occurrences when it is short.
    fn text(&self, text: &str) -> PyObject {
        let py = self.py;
        if text.len() > SHORT_TEXT {
            return PyString::new(py, text).into_py(py);
        }
        let mut short = self.short.borrow_mut();
        if let Some(found) = short.get(text.as_bytes()) {
            return found.clone_ref(py);
        }
        let made: PyObject = PyString::new(py, text).into_py(py);
        if short.len() < SHORT_KEPT {
            short.insert(text.as_bytes().to_vec(), made.clone_ref(py));
        }
        made
    }

    fn flag(&self, value: bool) -> PyObject {
        if value { self.yes.clone_ref(self.py) } else { self.no.clone_ref(self.py) }
    }

    /// `ToolCall(id, name, None, arguments)`.
    fn tool_call(&self, id: PyObject, name: PyObject, arguments: PyObject) -> Read<PyObject> {
        let py = self.py;
        if self.surveyor.borrow().is_some() {
            self.pending_calls.borrow_mut().push((id.clone_ref(py), name.clone_ref(py)));
        }
        let class = self.tool_call.as_ref().ok_or(Unread)?;
        class.make(py, [id, name, py.None(), arguments]).map_err(|_| Unread)
    }

    #[allow(clippy::too_many_arguments)]
    fn message(
        &self,
        role: &str,
        content: PyObject,
        calls: PyObject,
        call_id: PyObject,
        tool_name: PyObject,
        injected: bool,
        not_dispatched: bool,
        index: usize,
        blocks: PyObject,
    ) -> PyResult<PyObject> {
        let py = self.py;
        let index: PyObject = index.into_py(py);
        let mut surveyor = self.surveyor.borrow_mut();
        if let Some(found) = surveyor.as_mut() {
            let made = std::mem::take(&mut *self.pending_calls.borrow_mut());
            let added = content.as_ref(py).len().and_then(|size| {
                found.add(role, size, Some(index.as_ref(py)), None, call_id.as_ref(py), &made)
            });
            if added.is_err() {
                *surveyor = None;
            }
        }
        drop(surveyor);
        let role = match ROLES.iter().position(|&known| known == role) {
            Some(at) => self.roles[at].clone_ref(py),
            None => PyString::new(py, role).into_py(py),
        };
        let flags = [self.flag(injected), self.flag(not_dispatched)];
        let [injected, not_dispatched] = flags;
        let class = self.message.as_ref().ok_or_else(|| PyTypeError::new_err("no message class"))?;
        // `source_end` None and no images: a message holding an image is read in Python.
        let images = self.no_blocks.clone_ref(py);
        class.make(
            py,
            [
                role, content, calls, call_id, tool_name, injected, not_dispatched, index, blocks,
                py.None(), images,
            ],
        )
    }
}

/// One message the quick path does not read: Python reads it (or refuses the request).
struct Unread;

type Read<T> = Result<T, Unread>;

#[pyclass(module = "cwp_compiled_reader")]
struct Scan {
    #[cfg(not(feature = "abi3"))]
    buffer: PyBuffer<u8>,
    /// The stable ABI (interpreters newer than PyO3 0.17 knows) has no buffer protocol: the body
    /// is copied once, which costs its size in memory and keeps the borrow safe.
    #[cfg(feature = "abi3")]
    body: Vec<u8>,
    tape: Tape,
    /// The top-level object's fields: (key node, value node).
    fields: Vec<(usize, usize)>,
    /// The tape nodes of the `messages` array's elements (the last `messages` key's).
    messages: Option<Vec<usize>>,
    /// Each caller message's bytes and whether orjson would write them back as they are.
    spans: Vec<(u32, u32, bool)>,
    /// Set by `release`: each caller message's block count, once the tape is gone.
    block_counts: Option<Vec<isize>>,
}

impl Scan {
    #[cfg(not(feature = "abi3"))]
    fn bytes(&self) -> &[u8] {
        // The buffer stays exported while `self` lives: a bytearray cannot be resized or freed
        // under an export, so the pointer and length stay valid.
        unsafe { std::slice::from_raw_parts(self.buffer.buf_ptr() as *const u8, self.buffer.len_bytes()) }
    }

    #[cfg(feature = "abi3")]
    fn bytes(&self) -> &[u8] {
        &self.body
    }

    /// The text of bytes `start..end` (validated again: the caller could have written to its
    /// buffer since the scan, and a refusal is all that can come of it).
    fn text(&self, start: u32, end: u32) -> Read<&str> {
        let bytes = self.bytes().get(start as usize..end as usize).ok_or(Unread)?;
        std::str::from_utf8(bytes).map_err(|_| Unread)
    }

    fn node(&self, index: usize) -> Read<Node> {
        self.tape.nodes.get(index).copied().ok_or(Unread)
    }

    /// The value node of `key` in object `object` (the last one, as a Python dict keeps it).
    fn get(&self, object: usize, key: &[u8]) -> Read<Option<usize>> {
        let bytes = self.bytes();
        let end = self.node(object)?.next as usize;
        let mut at = object + 1;
        let mut found = None;
        while at < end {
            let name = self.node(at)?;
            let value = at + 1;
            if bytes.get(name.start as usize..name.end as usize) == Some(key) {
                found = Some(value);
            }
            at = self.node(value)?.next as usize;
        }
        Ok(found)
    }

    fn elements(&self, array: usize) -> Read<Vec<usize>> {
        let end = self.node(array)?.next as usize;
        let mut at = array + 1;
        let mut out = Vec::new();
        while at < end {
            out.push(at);
            at = self.node(at)?.next as usize;
        }
        Ok(out)
    }

    fn kind(&self, node: Option<usize>) -> Read<u8> {
        match node {
            None => Ok(0),
            Some(index) => Ok(self.node(index)?.kind),
        }
    }

    /// The raw bytes of a string node without escapes; Unread for anything else.
    fn plain_str(&self, node: Option<usize>) -> Read<&[u8]> {
        let node = self.node(node.ok_or(Unread)?)?;
        if node.kind != STR || node.flags & ESCAPED != 0 {
            return Err(Unread);
        }
        self.bytes().get(node.start as usize..node.end as usize).ok_or(Unread)
    }

    /// A string node's value appended to `out`.
    fn decode_into(&self, node: Node, out: &mut String) -> Read<()> {
        let text = self.text(node.start, node.end)?;
        if node.flags & ESCAPED == 0 {
            out.push_str(text);
            return Ok(());
        }
        let bytes = text.as_bytes();
        let mut i = 0;
        let mut run = 0;
        while i < bytes.len() {
            if bytes[i] != b'\\' {
                i += 1;
                continue;
            }
            out.push_str(text.get(run..i).ok_or(Unread)?);
            let escape = *bytes.get(i + 1).ok_or(Unread)?;
            i += 2;
            let decoded = match escape {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    let code = hex4(bytes, i)?;
                    i += 4;
                    let code = if (0xD800..=0xDBFF).contains(&code) {
                        let low = hex4(bytes, i + 2)?;
                        i += 6;
                        0x10000 + ((code - 0xD800) << 10) + (low.wrapping_sub(0xDC00) & 0x3FF)
                    } else {
                        code
                    };
                    char::from_u32(code).ok_or(Unread)?
                }
                _ => return Err(Unread),
            };
            out.push(decoded);
            run = i;
        }
        out.push_str(text.get(run..).ok_or(Unread)?);
        Ok(())
    }

    fn string<'py>(&self, kit: &Kit<'py>, node: usize) -> Read<PyObject> {
        let node = self.node(node)?;
        if node.kind != STR {
            return Err(Unread);
        }
        if node.flags & ESCAPED == 0 {
            let bytes = self.bytes().get(node.start as usize..node.end as usize).ok_or(Unread)?;
            if bytes.len() > SHORT_TEXT {
                return decoded(kit.py, bytes);
            }
            return Ok(kit.text(std::str::from_utf8(bytes).map_err(|_| Unread)?));
        }
        let mut out = String::new();
        self.decode_into(node, &mut out)?;
        Ok(kit.text(&out))
    }

    /// A non-empty string (an id), or Unread.
    fn id<'py>(&self, kit: &Kit<'py>, node: Option<usize>) -> Read<PyObject> {
        let index = node.ok_or(Unread)?;
        let found = self.node(index)?;
        if found.kind != STR || found.start == found.end {
            return Err(Unread);
        }
        self.string(kit, index)
    }

    /// A string (possibly empty), or Unread.
    fn name<'py>(&self, kit: &Kit<'py>, node: Option<usize>) -> Read<PyObject> {
        self.string(kit, node.ok_or(Unread)?)
    }

    /// A JSON boolean; `absent` when the key is missing; Unread for anything else.
    fn flag(&self, node: Option<usize>, absent: bool) -> Read<bool> {
        match self.kind(node)? {
            0 => Ok(absent),
            TRU => Ok(true),
            FAL => Ok(false),
            _ => Err(Unread),
        }
    }

    /// A JSON value as orjson would build it (the arguments of a call, as sent).
    fn value<'py>(&self, kit: &Kit<'py>, index: usize) -> Read<PyObject> {
        let py = kit.py;
        let node = self.node(index)?;
        Ok(match node.kind {
            STR => self.string(kit, index)?,
            INT => {
                let text = self.text(node.start, node.end)?;
                text.parse::<i64>().map_err(|_| Unread)?.into_py(py)
            }
            FLT => {
                let text = self.text(node.start, node.end)?;
                text.parse::<f64>().map_err(|_| Unread)?.into_py(py)
            }
            TRU => true.into_py(py),
            FAL => false.into_py(py),
            NUL => py.None(),
            ARR => {
                let list = PyList::empty(py);
                for element in self.elements(index)? {
                    list.append(self.value(kit, element)?).map_err(|_| Unread)?;
                }
                list.into_py(py)
            }
            OBJ => {
                let dict = PyDict::new(py);
                let end = node.next as usize;
                let mut at = index + 1;
                while at < end {
                    let key = self.string(kit, at)?;
                    dict.set_item(key, self.value(kit, at + 1)?).map_err(|_| Unread)?;
                    at = self.node(at + 1)?.next as usize;
                }
                dict.into_py(py)
            }
            _ => return Err(Unread),
        })
    }

    /// `item.get(key, "")`: the arguments as sent, "" when absent.
    fn arguments<'py>(&self, kit: &Kit<'py>, object: usize, key: &[u8]) -> Read<PyObject> {
        match self.get(object, key)? {
            None => Ok(kit.empty.clone_ref(kit.py)),
            Some(node) => self.value(kit, node),
        }
    }

    /// How many content blocks caller message `index` holds; -1 when its content is no array.
    fn count_blocks(&self, index: usize) -> isize {
        let node = match self.messages.as_ref().and_then(|messages| messages.get(index)) {
            Some(&node) => node,
            None => return -1,
        };
        let content = match self.node(node).ok().filter(|n| n.kind == OBJ) {
            Some(_) => self.get(node, b"content").ok().flatten(),
            None => None,
        };
        match content {
            Some(value) if self.node(value).map_or(false, |n| n.kind == ARR) => {
                self.elements(value).map_or(-1, |e| e.len() as isize)
            }
            _ => -1,
        }
    }


    fn message_spans(&self) -> Vec<(u32, u32, bool)> {
        let messages = match &self.messages {
            Some(messages) => messages,
            None => return Vec::new(),
        };
        messages
            .iter()
            .map(|&index| {
                let node = self.tape.nodes[index];
                let (start, end) = if node.kind == STR {
                    (node.start - 1, node.end + 1)
                } else {
                    (node.start, node.end)
                };
                (start, end, !any_within(&self.tape.uncanonical, start, end))
            })
            .collect()
    }

    /// The message's object node, or Unread when Python must read it (not an object, or a key
    /// with an escape somewhere inside).
    fn message_object(&self, node: usize) -> Read<Node> {
        let found = self.node(node)?;
        if found.kind != OBJ || any_within(&self.tape.escaped_keys, found.start, found.end) {
            return Err(Unread);
        }
        Ok(found)
    }

    /// `app.formats.native.read_plain`.
    fn native<'py>(&self, kit: &Kit<'py>, node: usize, index: usize) -> Read<PyObject> {
        let py = kit.py;
        self.message_object(node)?;
        let role = self.plain_str(self.get(node, b"role")?)?;
        let content = match self.get(node, b"content")? {
            None => kit.empty.clone_ref(py),
            Some(value) if self.node(value)?.kind == NUL => kit.empty.clone_ref(py),
            Some(value) => self.string(kit, value)?,
        };
        let injected = self.flag(self.get(node, b"injected")?, false)?;
        let items = self.get(node, b"tool_calls")?;
        let no_items = match self.kind(items)? {
            0 | NUL => true,
            ARR => self.elements(items.ok_or(Unread)?)?.is_empty(),
            _ => return Err(Unread),
        };
        let message = |role: &str, calls: PyObject, id: PyObject, name: PyObject, nd: bool| {
            kit.message(role, content.clone_ref(py), calls, id, name, injected, nd, index, kit.no_blocks.clone_ref(py))
                .map_err(|_| Unread)
        };
        match role {
            b"tool" => {
                if !no_items {
                    return Err(Unread);
                }
                let call_id = self.id(kit, self.get(node, b"tool_call_id")?)?;
                let name = match self.get(node, b"tool_name")? {
                    None => py.None(),
                    Some(value) if self.node(value)?.kind == NUL => py.None(),
                    Some(value) => self.string(kit, value)?,
                };
                let not_dispatched = self.flag(self.get(node, b"not_dispatched")?, false)?;
                message("tool", kit.no_blocks.clone_ref(py), call_id, name, not_dispatched)
            }
            b"assistant" => {
                let mut calls = Vec::new();
                if !no_items {
                    for item in self.elements(items.ok_or(Unread)?)? {
                        if self.node(item)?.kind != OBJ {
                            return Err(Unread);
                        }
                        let call_id = self.id(kit, self.get(item, b"id")?)?;
                        let name = self.name(kit, self.get(item, b"name")?)?;
                        let arguments = self.arguments(kit, item, b"arguments")?;
                        calls.push(
                            kit.tool_call(call_id, name, arguments)?,
                        );
                    }
                }
                let calls = PyTuple::new(py, calls).into_py(py);
                message("assistant", calls, py.None(), py.None(), false)
            }
            b"user" | b"system" if no_items => {
                let role = if role == b"user" { "user" } else { "system" };
                message(role, kit.no_blocks.clone_ref(py), py.None(), py.None(), false)
            }
            _ => Err(Unread),
        }
    }

    /// `app.formats.openai.read_plain`.
    fn openai<'py>(&self, kit: &Kit<'py>, node: usize, index: usize) -> Read<PyObject> {
        let py = kit.py;
        self.message_object(node)?;
        let role = self.plain_str(self.get(node, b"role")?)?;
        let content = self.get(node, b"content")?;
        let injected = self.flag(self.get(node, b"injected")?, false)?;
        if !matches!(self.kind(self.get(node, b"function_call")?)?, 0 | NUL) {
            return Err(Unread);
        }
        let items = self.get(node, b"tool_calls")?;
        let items_absent = matches!(self.kind(items)?, 0 | NUL);
        let no_blocks = || kit.no_blocks.clone_ref(py);
        let build = |role: &str, content: PyObject, calls: PyObject, id: PyObject, nd: bool| {
            kit.message(role, content, calls, id, py.None(), injected, nd, index, no_blocks())
                .map_err(|_| Unread)
        };
        match role {
            b"tool" => {
                if !items_absent {
                    return Err(Unread);
                }
                let content = self.string(kit, content.ok_or(Unread)?)?;
                let call_id = self.id(kit, self.get(node, b"tool_call_id")?)?;
                let not_dispatched = self.flag(self.get(node, b"not_dispatched")?, false)?;
                build("tool", content, no_blocks(), call_id, not_dispatched)
            }
            b"assistant" => {
                let content = match content {
                    None => kit.empty.clone_ref(py),
                    Some(value) if self.node(value)?.kind == NUL => kit.empty.clone_ref(py),
                    Some(value) => self.string(kit, value)?,
                };
                let mut calls = Vec::new();
                if !items_absent {
                    let items = items.ok_or(Unread)?;
                    if self.node(items)?.kind != ARR {
                        return Err(Unread);
                    }
                    for item in self.elements(items)? {
                        if self.node(item)?.kind != OBJ
                            || self.plain_str(self.get(item, b"type")?)? != b"function"
                        {
                            return Err(Unread);
                        }
                        let call_id = self.id(kit, self.get(item, b"id")?)?;
                        let function = self.get(item, b"function")?.ok_or(Unread)?;
                        if self.node(function)?.kind != OBJ {
                            return Err(Unread);
                        }
                        let name = self.name(kit, self.get(function, b"name")?)?;
                        let arguments = self.arguments(kit, function, b"arguments")?;
                        calls.push(
                            kit.tool_call(call_id, name, arguments)?,
                        );
                    }
                }
                let calls = PyTuple::new(py, calls).into_py(py);
                build("assistant", content, calls, py.None(), false)
            }
            b"user" | b"system" | b"developer" if items_absent => {
                let content = self.string(kit, content.ok_or(Unread)?)?;
                let role = if role == b"user" { "user" } else { "system" };
                build(role, content, no_blocks(), py.None(), false)
            }
            _ => Err(Unread),
        }
    }

    /// `app.formats.anthropic.read_plain`: the core messages of one caller message, in order.
    fn anthropic<'py>(&self, kit: &Kit<'py>, node: usize, index: usize) -> Read<Vec<PyObject>> {
        let py = kit.py;
        self.message_object(node)?;
        let role = self.plain_str(self.get(node, b"role")?)?;
        let content = self.get(node, b"content")?.ok_or(Unread)?;
        let injected = self.flag(self.get(node, b"injected")?, false)?;
        let content_node = self.node(content)?;
        let none = || py.None();
        if content_node.kind == STR {
            let role = match role {
                b"user" => "user",
                b"assistant" => "assistant",
                _ => return Err(Unread),
            };
            let text = self.string(kit, content)?;
            let blocks = kit.no_blocks.clone_ref(py);
            let calls = kit.no_blocks.clone_ref(py);
            return Ok(vec![kit
                .message(role, text, calls, none(), none(), injected, false, index, blocks)
                .map_err(|_| Unread)?]);
        }
        if content_node.kind != ARR {
            return Err(Unread);
        }
        let blocks = self.elements(content)?;
        let mut text = String::new();
        if role == b"assistant" {
            let mut calls = Vec::new();
            for &block in &blocks {
                if self.node(block)?.kind != OBJ {
                    return Err(Unread);
                }
                match self.plain_str(self.get(block, b"type")?)? {
                    b"text" => {
                        let piece = self.node(self.get(block, b"text")?.ok_or(Unread)?)?;
                        if piece.kind != STR {
                            return Err(Unread);
                        }
                        self.decode_into(piece, &mut text)?;
                    }
                    b"tool_use" => {
                        let call_id = self.id(kit, self.get(block, b"id")?)?;
                        let name = self.name(kit, self.get(block, b"name")?)?;
                        let input = self.arguments(kit, block, b"input")?;
                        calls.push(
                            kit.tool_call(call_id, name, input)?,
                        );
                    }
                    // Whether a compaction block is the transcript's artifact depends on the
                    // messages after it: the Python side reads the whole request. An image is
                    // counted by its header, which only the Python side reads.
                    b"tool_result" | b"compaction" | b"image" => return Err(Unread),
                    _ => {}
                }
            }
            let positions: Vec<PyObject> = (0..blocks.len()).map(|p| p.into_py(py)).collect();
            let message = kit
                .message(
                    "assistant",
                    PyString::new(py, &text).into_py(py),
                    PyTuple::new(py, calls).into_py(py),
                    none(),
                    none(),
                    injected,
                    false,
                    index,
                    PyTuple::new(py, positions).into_py(py),
                )
                .map_err(|_| Unread)?;
            return Ok(vec![message]);
        }
        if role != b"user" {
            return Err(Unread);
        }
        let mut out = Vec::new();
        let mut user_blocks: Vec<PyObject> = Vec::new();
        for (position, &block) in blocks.iter().enumerate() {
            if self.node(block)?.kind != OBJ {
                return Err(Unread);
            }
            match self.plain_str(self.get(block, b"type")?)? {
                b"tool_result" => {
                    let call_id = self.id(kit, self.get(block, b"tool_use_id")?)?;
                    let body = match self.get(block, b"content")? {
                        None => kit.empty.clone_ref(py),
                        Some(value) => self.string(kit, value)?,
                    };
                    let not_dispatched = self.flag(self.get(block, b"not_dispatched")?, false)?;
                    let positions = PyTuple::new(py, [position]).into_py(py);
                    let calls = kit.no_blocks.clone_ref(py);
                    out.push(
                        kit.message(
                            "tool", body, calls, call_id, none(), false, not_dispatched, index,
                            positions,
                        )
                        .map_err(|_| Unread)?,
                    );
                    continue;
                }
                b"text" => {
                    let piece = self.node(self.get(block, b"text")?.ok_or(Unread)?)?;
                    if piece.kind != STR {
                        return Err(Unread);
                    }
                    self.decode_into(piece, &mut text)?;
                }
                // An image is counted by its header, which only the Python side reads.
                b"tool_use" | b"image" => return Err(Unread),
                _ => {}
            }
            user_blocks.push(position.into_py(py));
        }
        if !user_blocks.is_empty() || blocks.is_empty() {
            let calls = kit.no_blocks.clone_ref(py);
            out.push(
                kit.message(
                    "user",
                    PyString::new(py, &text).into_py(py),
                    calls,
                    none(),
                    none(),
                    injected,
                    false,
                    index,
                    PyTuple::new(py, user_blocks).into_py(py),
                )
                .map_err(|_| Unread)?,
            );
        }
        Ok(out)
    }

    /// What `app.formats.detect` reads of a message, as bytes: two messages with the same
    /// signature give every rule of `detect_format` the same answer.
    fn signature(&self, node: usize, index: usize, out: &mut Vec<u8>) {
        let unique = |out: &mut Vec<u8>| {
            out.clear();
            out.extend_from_slice(b"#");
            out.extend_from_slice(&index.to_le_bytes());
        };
        let message = match self.message_object(node) {
            Ok(found) => found,
            Err(Unread) => return unique(out),
        };
        let _ = message;
        let value_of = |out: &mut Vec<u8>, node: Option<usize>| -> Read<()> {
            match node {
                None => out.push(0),
                Some(index) => {
                    let found = self.node(index)?;
                    out.push(found.kind);
                    if found.kind == STR {
                        if found.flags & ESCAPED != 0 {
                            return Err(Unread);
                        }
                        let text = self.bytes().get(found.start as usize..found.end as usize).ok_or(Unread)?;
                        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
                        out.extend_from_slice(text);
                    }
                }
            }
            Ok(())
        };
        let result: Read<()> = (|| {
            value_of(out, self.get(node, b"type")?)?;
            value_of(out, self.get(node, b"role")?)?;
            out.push(self.get(node, b"parts")?.is_some() as u8);
            let content = self.get(node, b"content")?;
            out.push(self.kind(content)?);
            if self.kind(content)? == ARR {
                for block in self.elements(content.ok_or(Unread)?)? {
                    let kind = self.node(block)?.kind;
                    out.push(kind);
                    if kind == OBJ {
                        value_of(out, self.get(block, b"type")?)?;
                        let mut present = 0u8;
                        for (bit, key) in [
                            &b"text"[..],
                            b"toolUse",
                            b"toolResult",
                            b"reasoningContent",
                            b"image",
                            b"document",
                            b"cachePoint",
                        ]
                        .iter()
                        .enumerate()
                        {
                            if self.get(block, key)?.is_some() {
                                present |= 1 << bit;
                            }
                        }
                        out.push(present);
                    }
                }
            }
            let calls = self.get(node, b"tool_calls")?;
            out.push(self.kind(calls)?);
            if self.kind(calls)? == ARR {
                for call in self.elements(calls.ok_or(Unread)?)? {
                    let kind = self.node(call)?.kind;
                    out.push(kind);
                    if kind == OBJ {
                        out.push(self.get(call, b"function")?.is_some() as u8);
                    }
                }
            }
            Ok(())
        })();
        if result.is_err() {
            unique(out);
        }
    }
}

#[pymethods]
impl Scan {
    /// Scan `body` (bytes or bytearray); ValueError when the Python path must read it.
    #[new]
    fn new(body: &PyAny, max_depth: usize) -> PyResult<Self> {
        #[cfg(not(feature = "abi3"))]
        let buffer = PyBuffer::<u8>::get(body)?;
        #[cfg(not(feature = "abi3"))]
        if !buffer.is_c_contiguous() {
            return Err(PyValueError::new_err("not a contiguous buffer"));
        }
        #[cfg(not(feature = "abi3"))]
        let bytes = unsafe { std::slice::from_raw_parts(buffer.buf_ptr() as *const u8, buffer.len_bytes()) };
        #[cfg(feature = "abi3")]
        let body: Vec<u8> = if let Ok(bytes) = body.downcast::<PyBytes>() {
            bytes.as_bytes().to_vec()
        } else {
            body.downcast::<PyByteArray>()?.to_vec()
        };
        #[cfg(feature = "abi3")]
        let bytes = &body[..];
        let tape = parse(bytes, max_depth).map_err(|_| PyValueError::new_err("not read"))?;
        let mut scan = Scan {
            #[cfg(not(feature = "abi3"))]
            buffer,
            #[cfg(feature = "abi3")]
            body,
            tape,
            fields: Vec::new(),
            messages: None,
            spans: Vec::new(),
            block_counts: None,
        };
        let end = scan.tape.nodes[0].next as usize;
        let mut at = 1;
        let mut messages = None;
        while at < end {
            let value = at + 1;
            scan.fields.push((at, value));
            let key = scan.tape.nodes[at];
            if scan.bytes().get(key.start as usize..key.end as usize) == Some(&b"messages"[..]) && key.flags & ESCAPED == 0 {
                messages = Some(value);
            }
            at = scan.tape.nodes[value].next as usize;
        }
        if let Some(value) = messages {
            if scan.tape.nodes[value].kind == ARR {
                scan.messages = scan.elements(value).ok();
            }
        }
        scan.spans = scan.message_spans();
        Ok(scan)
    }

    /// Let the tape go (the messages are read; the window needs only the spans and block
    /// counts): planning a large body should not hold its tape as well. Reading stops here.
    fn release(&mut self) {
        let count = self.spans.len();
        self.block_counts = Some((0..count).map(|index| self.count_blocks(index)).collect());
        self.tape = Tape { nodes: Vec::new(), uncanonical: Vec::new(), escaped_keys: Vec::new() };
        self.fields = Vec::new();
    }

    /// Caller message `index`'s (start, end) bytes and whether orjson would write them back as
    /// they are.
    fn span(&self, index: usize) -> PyResult<(usize, usize, bool)> {
        let &(start, end, canonical) = self
            .spans
            .get(index)
            .ok_or_else(|| PyIndexError::new_err("no such message"))?;
        Ok((start as usize, end as usize, canonical))
    }

    /// The top-level fields in order: (key, start, end) of each value's bytes.
    fn fields(&self, py: Python<'_>) -> PyResult<Vec<(PyObject, usize, usize)>> {
        let kit = Kit::of(py, py.None().into_ref(py), py.None().into_ref(py))?;
        let mut out = Vec::new();
        for &(key, value) in &self.fields {
            let name = self.string(&kit, key).map_err(|_| PyValueError::new_err("bad key"))?;
            let node = self.tape.nodes[value];
            let (start, end) = if node.kind == STR {
                (node.start as usize - 1, node.end as usize + 1)
            } else {
                (node.start as usize, node.end as usize)
            };
            out.push((name, start, end));
        }
        Ok(out)
    }

    /// Whether the last `messages` field is an array (None when it is not, or absent).
    fn message_count(&self) -> Option<usize> {
        self.messages.as_ref().map(Vec::len)
    }

    /// Every caller message's `span`, in order.
    fn spans(&self) -> Vec<(usize, usize, bool)> {
        self.spans.iter().map(|&(start, end, canonical)| (start as usize, end as usize, canonical)).collect()
    }

    /// How many content blocks caller message `index` holds; -1 when its content is no array.
    fn block_count(&self, index: usize) -> isize {
        match &self.block_counts {
            Some(counts) => counts.get(index).copied().unwrap_or(-1),
            None => self.count_blocks(index),
        }
    }
    /// The first message of each distinct detection signature, in order.
    fn detection_samples(&self) -> Vec<usize> {
        let messages = match &self.messages {
            Some(messages) => messages,
            None => return Vec::new(),
        };
        let mut seen = std::collections::HashSet::new();
        let mut samples = Vec::new();
        let mut signature = Vec::new();
        for (index, &node) in messages.iter().enumerate() {
            signature.clear();
            self.signature(node, index, &mut signature);
            if seen.insert(signature.clone()) {
                samples.push(index);
            }
        }
        samples
    }

    /// The core messages in `format` (native, openai, anthropic), in order: a caller index
    /// stands where the quick path did not read that caller message.
    fn read(
        &self,
        py: Python<'_>,
        format: &str,
        message: &PyAny,
        tool_call: &PyAny,
    ) -> PyResult<PyObject> {
        let kit = Kit::of(py, message, tool_call)?;
        self.read_with(&kit, format)
    }

    /// `read`, and `app.core.turns.survey` of the messages read (built as `survey` of
    /// `segment`s) when every caller message was read here, else None.
    fn read_surveyed(
        &self,
        py: Python<'_>,
        format: &str,
        message: &PyAny,
        tool_call: &PyAny,
        segment: &PyAny,
        survey: &PyAny,
    ) -> PyResult<(PyObject, PyObject)> {
        let kit = Kit::of(py, message, tool_call)?;
        *kit.surveyor.borrow_mut() = Some(Surveyor::new(py, segment)?);
        let read = self.read_with(&kit, format)?;
        let surveyed = match kit.surveyor.borrow_mut().take() {
            Some(surveyor) => surveyor.finish(survey)?,
            None => py.None(),
        };
        Ok((read, surveyed))
    }
}

impl Scan {
    fn read_with(&self, kit: &Kit<'_>, format: &str) -> PyResult<PyObject> {
        let py = kit.py;
        if self.block_counts.is_some() {
            return Err(PyValueError::new_err("released"));
        }
        let messages = self.messages.as_ref().ok_or_else(|| PyValueError::new_err("no messages"))?;
        let out = PyList::empty(py);
        for (index, &node) in messages.iter().enumerate() {
            let read = match format {
                "native" => self.native(kit, node, index).map(|m| vec![m]),
                "openai" => self.openai(kit, node, index).map(|m| vec![m]),
                "anthropic" => self.anthropic(kit, node, index),
                _ => return Err(PyValueError::new_err("format not read here")),
            };
            match read {
                Ok(found) => {
                    for item in found {
                        out.append(item)?;
                    }
                }
                Err(Unread) => {
                    // The survey counts positions: with a message read in Python it is the
                    // Python side's to take.
                    *kit.surveyor.borrow_mut() = None;
                    out.append(index)?;
                }
            }
        }
        Ok(out.into_py(py))
    }
}

fn hex4(bytes: &[u8], at: usize) -> Read<u32> {
    let digits = bytes.get(at..at + 4).ok_or(Unread)?;
    let mut code = 0;
    for &digit in digits {
        code = code * 16 + hex_value(digit).ok_or(Unread)?;
    }
    Ok(code)
}

/// `app.core.turns.survey`, gathered one core message at a time (by `survey` from the messages'
/// fields, or by `Scan::read` as it builds them).
struct Surveyor<'py> {
    py: Python<'py>,
    segment: RecordClass,
    segments: Vec<PyObject>,
    callers: &'py PyList,
    span_ends: &'py PyDict,
    answered: &'py PySet,
    system_turns: &'py PySet,
    calls_by_turn: &'py PyDict,
    call_names: &'py PyDict,
    /// The call ids of the current turn (turns only go forward, so this is the one to add to).
    turn_calls: Option<&'py PyList>,
    turn: i64,
    start: usize,
    size: usize,
    count: usize,
}

impl<'py> Surveyor<'py> {
    fn new(py: Python<'py>, segment: &PyAny) -> PyResult<Self> {
        Ok(Surveyor {
            py,
            segment: RecordClass::of(py, segment)?,
            segments: Vec::new(),
            callers: PyList::empty(py),
            span_ends: PyDict::new(py),
            answered: PySet::empty(py)?,
            system_turns: PySet::empty(py)?,
            calls_by_turn: PyDict::new(py),
            call_names: PyDict::new(py),
            turn_calls: None,
            turn: -1,
            start: 0,
            size: 0,
            count: 0,
        })
    }

    // Built owned, not in the GIL pool: each temporary goes as soon as it is used.
    fn close_segment(&mut self, end: usize) -> PyResult<()> {
        let py = self.py;
        let fields = [self.turn.into_py(py), self.start.into_py(py), end.into_py(py), self.size.into_py(py)];
        let made = self.segment.make(py, fields)?;
        self.segments.push(made);
        Ok(())
    }

    /// The next core message: its role, content length, `source` (None for its own position),
    /// `source_end`, `tool_call_id` and the (id, name) of each of its `tool_calls`.
    fn add(
        &mut self,
        role: &str,
        size: usize,
        source: Option<&PyAny>,
        source_end: Option<&PyAny>,
        call_id: &PyAny,
        calls: &[(PyObject, PyObject)],
    ) -> PyResult<()> {
        let py = self.py;
        let position = self.count;
        self.count += 1;
        let is_tool = role == "tool";
        if !is_tool || self.turn < 0 {
            if self.turn >= 0 {
                self.close_segment(position)?;
            }
            self.turn += 1;
            self.turn_calls = None;
            self.start = position;
            self.size = 0;
        }
        self.size += size;
        match source {
            None => self.callers.append(position)?,
            Some(source) => self.callers.append(source)?,
        }
        if let Some(source_end) = source_end {
            self.span_ends.set_item(position, source_end)?;
        }
        if is_tool {
            if call_id.is_true()? {
                self.answered.add(call_id)?;
            }
        } else if role == "system" {
            self.system_turns.add(self.turn)?;
        } else if !calls.is_empty() {
            let made = match self.turn_calls {
                Some(found) => found,
                None => {
                    let fresh = PyList::empty(py);
                    self.calls_by_turn.set_item(self.turn, fresh)?;
                    self.turn_calls = Some(fresh);
                    fresh
                }
            };
            for (id, _) in calls {
                made.append(id)?;
            }
            for (id, name) in calls {
                if name.as_ref(py).is_true()? && !self.call_names.contains(id)? {
                    self.call_names.set_item(id, name)?;
                }
            }
        }
        Ok(())
    }

    fn finish(mut self, survey: &PyAny) -> PyResult<PyObject> {
        let py = self.py;
        if self.count > 0 {
            self.close_segment(self.count)?;
        }
        let frozenset = py.get_type::<PyFrozenSet>();
        RecordClass::of(py, survey)?.make(
            py,
            [
                PyTuple::new(py, self.segments).into_py(py),
                self.callers.into_py(py),
                self.span_ends.into_py(py),
                frozenset.call1((self.answered,))?.into_py(py),
                frozenset.call1((self.system_turns,))?.into_py(py),
                self.calls_by_turn.into_py(py),
                self.call_names.into_py(py),
            ],
        )
    }
}

/// `app.core.turns.survey` over core messages (any list of `Message`), built as its `Survey`.
#[pyfunction]
fn survey(
    py: Python<'_>,
    messages: &PyAny,
    segment: &PyAny,
    survey: &PyAny,
) -> PyResult<PyObject> {
    let mut surveyor = Surveyor::new(py, segment)?;
    let mut calls: Vec<(PyObject, PyObject)> = Vec::new();
    for item in messages.iter()? {
        let message: &PyTuple = item?.downcast()?;
        let role: &PyString = message.get_item(0)?.downcast()?;
        let source = message.get_item(7)?;
        let source_end = message.get_item(9)?;
        calls.clear();
        let made = message.get_item(2)?;
        if made.is_true()? {
            for call in made.iter()? {
                let call: &PyTuple = call?.downcast()?;
                calls.push((call.get_item(0)?.into_py(py), call.get_item(1)?.into_py(py)));
            }
        }
        surveyor.add(
            role.to_str()?,
            message.get_item(1)?.len()?,
            Some(source).filter(|found| !found.is_none()),
            Some(source_end).filter(|found| !found.is_none()),
            message.get_item(3)?,
            &calls,
        )?;
    }
    surveyor.finish(survey)
}

/// A call id as `findings` keys it: its text, hashed by Python's own (randomised, cached) string
/// hash instead of hashing the text again (with SipHash over the text, and no room reserved, the
/// pass took 2.7 ms over 10,000 native messages; this way 0.65 ms).
#[derive(Clone, Copy)]
struct Id<'a> {
    hash: isize,
    text: &'a str,
}

impl<'a> Id<'a> {
    fn of(value: &'a PyAny) -> PyResult<Self> {
        let text = value.downcast::<PyString>()?.to_str()?;
        Ok(Id { hash: value.hash()?, text })
    }
}

impl PartialEq for Id<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Eq for Id<'_> {}

impl std::hash::Hash for Id<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        state.write_isize(self.hash);
    }
}

/// The hasher of `Id`s: their hash is already made.
#[derive(Default)]
struct Prehashed(u64);

impl std::hash::Hasher for Prehashed {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_isize(&mut self, value: isize) {
        self.0 = value as u64;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

type IdMap<'a, V> = HashMap<Id<'a>, V, std::hash::BuildHasherDefault<Prehashed>>;
type IdSet<'a> = HashSet<Id<'a>, std::hash::BuildHasherDefault<Prehashed>>;

/// `app.core.diagnostics.findings` over core messages (any sequence of `Message`), each built as
/// a `finding`: the same findings in the same order.
#[pyfunction]
fn findings(py: Python<'_>, messages: &PyAny, finding: &PyAny) -> PyResult<PyObject> {
    let finding = RecordClass::of(py, finding)?;
    let out = PyList::empty(py);
    let none = py.None();
    let add = |index: PyObject, code: &str, subject: PyObject, name: PyObject, position: isize| {
        let code = PyString::new(py, code).into_py(py);
        out.append(finding.make(py, [index, code, subject, name, position.into_py(py)])?)
    };
    let count = messages.len()?;
    let mut call_turns: IdMap<'_, i64> = IdMap::with_capacity_and_hasher(count, Default::default());
    let mut answered_by_result = IdSet::with_capacity_and_hasher(count, Default::default());
    let mut answered = IdSet::with_capacity_and_hasher(count, Default::default());
    // (turn, caller index, the message's calls) of each message making calls
    let mut calling: Vec<(i64, PyObject, &PyTuple)> = Vec::new();
    let mut turn: i64 = -1;
    for (position, item) in messages.iter()?.enumerate() {
        let message: &PyTuple = item?.downcast()?;
        let role = message.get_item(0)?.downcast::<PyString>()?.to_str()?;
        let is_tool = role == "tool";
        if !is_tool || turn < 0 {
            turn += 1;
        }
        let source = message.get_item(7)?;
        let index = || if source.is_none() { position.into_py(py) } else { source.into_py(py) };
        if is_tool {
            let found = message.get_item(3)?;
            if found.is_none() {
                continue;
            }
            let call_id = Id::of(found)?;
            if call_id.text.is_empty() {
                continue;
            }
            answered.insert(call_id);
            if message.get_item(6)?.is_true()? {
                continue;
            }
            match call_turns.get(&call_id) {
                None => add(index(), "orphan-result", found.into_py(py), none.clone_ref(py), -1)?,
                Some(&call_turn) if call_turn != turn => {
                    add(index(), "result-outside-its-turn", found.into_py(py), none.clone_ref(py), -1)?
                }
                Some(_) => {}
            }
            if !answered_by_result.insert(call_id) {
                add(index(), "duplicate-result", found.into_py(py), none.clone_ref(py), -1)?;
            }
            continue;
        }
        let calls: &PyTuple = message.get_item(2)?.downcast()?;
        if !calls.is_empty() {
            for call in calls.iter() {
                let call: &PyTuple = call.downcast()?;
                call_turns.insert(Id::of(call.get_item(0)?)?, turn);
            }
            calling.push((turn, index(), calls));
        } else if (role == "user" || role == "system") && message.get_item(1)?.len()? == 0 {
            let subject = message.get_item(0)?.into_py(py);
            add(index(), "empty-message", subject, none.clone_ref(py), position as isize)?;
        }
    }
    for (call_turn, index, calls) in calling {
        if call_turn == turn {
            continue; // the transcript's last turn may still be waiting for its results
        }
        for call in calls.iter() {
            let call: &PyTuple = call.downcast()?;
            let id = call.get_item(0)?;
            if answered.contains(&Id::of(id)?) {
                continue;
            }
            let source = call.get_item(2)?;
            let at = if source.is_none() { index.clone_ref(py) } else { source.into_py(py) };
            add(at, "unanswered-call", id.into_py(py), call.get_item(1)?.into_py(py), -1)?;
        }
    }
    Ok(out.into_py(py))
}

#[pymodule]
fn cwp_compiled_reader(_py: Python<'_>, module: &PyModule) -> PyResult<()> {
    module.add_class::<Scan>()?;
    module.add_function(wrap_pyfunction!(survey, module)?)?;
    module.add_function(wrap_pyfunction!(findings, module)?)?;
    Ok(())
}
