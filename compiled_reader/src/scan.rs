//! `Scan`: one body's tape, its top-level fields, its caller messages, and the way values are read.
//!
//! The tape decides what is JSON; this module decides what a caller message's value is (a string,
//! a flag, an id, arguments as orjson would build them) or that it is not read here (`Unread`), and
//! dispatches each caller message to its dialect's quick reader. The Python side asks it for the
//! top-level fields' bytes, each message's span, and the core messages.

#[cfg(not(feature = "abi3"))]
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
#[cfg(feature = "abi3")]
use pyo3::types::{PyByteArray, PyBytes};
use pyo3::types::{PyDict, PyList};

use crate::records::{Kit, Read, Unread};
use crate::survey::Surveyor;
use crate::tape::*;

#[pyclass(module = "cwp_compiled_reader")]
pub(crate) struct Scan {
    #[cfg(not(feature = "abi3"))]
    pub(crate) buffer: PyBuffer<u8>,
    /// The stable ABI (interpreters newer than PyO3 0.17 knows) has no buffer protocol: the body
    /// is copied once, which costs its size in memory and keeps the borrow safe.
    #[cfg(feature = "abi3")]
    pub(crate) body: Vec<u8>,
    pub(crate) tape: Tape,
    /// The top-level object's fields: (key node, value node).
    pub(crate) fields: Vec<(usize, usize)>,
    /// The tape nodes of the `messages` array's elements (the last `messages` key's).
    pub(crate) messages: Option<Vec<usize>>,
    /// Each caller message's bytes and whether orjson would write them back as they are.
    pub(crate) spans: Vec<(u32, u32, bool)>,
    /// Set by `release`: each caller message's block count, once the tape is gone.
    pub(crate) block_counts: Option<Vec<isize>>,
}

impl Scan {
    #[cfg(not(feature = "abi3"))]
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: `buffer` holds the caller's buffer exported (checked C-contiguous in `new`) for
        // as long as `self` lives, and a bytes or bytearray cannot be resized or freed under an
        // export, so `len_bytes` bytes from `buf_ptr` stay valid for the borrow of `self`.
        unsafe { std::slice::from_raw_parts(self.buffer.buf_ptr() as *const u8, self.buffer.len_bytes()) }
    }

    #[cfg(feature = "abi3")]
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.body
    }

    /// The text of bytes `start..end` (validated again: the caller could have written to its
    /// buffer since the scan, and a refusal is all that can come of it).
    pub(crate) fn text(&self, start: u32, end: u32) -> Read<&str> {
        let bytes = self.bytes().get(start as usize..end as usize).ok_or(Unread)?;
        std::str::from_utf8(bytes).map_err(|_| Unread)
    }

    pub(crate) fn node(&self, index: usize) -> Read<Node> {
        self.tape.nodes.get(index).copied().ok_or(Unread)
    }

    /// The value node of `key` in object `object` (the last one, as a Python dict keeps it).
    pub(crate) fn get(&self, object: usize, key: &[u8]) -> Read<Option<usize>> {
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

    pub(crate) fn elements(&self, array: usize) -> Read<Vec<usize>> {
        let end = self.node(array)?.next as usize;
        let mut at = array + 1;
        let mut out = Vec::new();
        while at < end {
            out.push(at);
            at = self.node(at)?.next as usize;
        }
        Ok(out)
    }

    pub(crate) fn kind(&self, node: Option<usize>) -> Read<u8> {
        match node {
            None => Ok(0),
            Some(index) => Ok(self.node(index)?.kind),
        }
    }

    /// The raw bytes of a string node without escapes; Unread for anything else.
    pub(crate) fn plain_str(&self, node: Option<usize>) -> Read<&[u8]> {
        let node = self.node(node.ok_or(Unread)?)?;
        if node.kind != STR || node.flags & ESCAPED != 0 {
            return Err(Unread);
        }
        self.bytes().get(node.start as usize..node.end as usize).ok_or(Unread)
    }

    /// A string node's value appended to `out`.
    pub(crate) fn decode_into(&self, node: Node, out: &mut String) -> Read<()> {
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

    pub(crate) fn string<'py>(&self, kit: &Kit<'py>, node: usize) -> Read<PyObject> {
        let node = self.node(node)?;
        if node.kind != STR {
            return Err(Unread);
        }
        if node.flags & ESCAPED == 0 {
            let bytes = self.bytes().get(node.start as usize..node.end as usize).ok_or(Unread)?;
            return kit.text_of(bytes);
        }
        let mut out = String::new();
        self.decode_into(node, &mut out)?;
        Ok(kit.text(&out))
    }

    /// A non-empty string (an id), or Unread.
    pub(crate) fn id<'py>(&self, kit: &Kit<'py>, node: Option<usize>) -> Read<PyObject> {
        let index = node.ok_or(Unread)?;
        let found = self.node(index)?;
        if found.kind != STR || found.start == found.end {
            return Err(Unread);
        }
        self.string(kit, index)
    }

    /// A string (possibly empty), or Unread.
    pub(crate) fn name<'py>(&self, kit: &Kit<'py>, node: Option<usize>) -> Read<PyObject> {
        self.string(kit, node.ok_or(Unread)?)
    }

    /// A JSON boolean; `absent` when the key is missing; Unread for anything else.
    pub(crate) fn flag(&self, node: Option<usize>, absent: bool) -> Read<bool> {
        match self.kind(node)? {
            0 => Ok(absent),
            TRU => Ok(true),
            FAL => Ok(false),
            _ => Err(Unread),
        }
    }

    /// A JSON value as orjson would build it (the arguments of a call, as sent).
    pub(crate) fn value<'py>(&self, kit: &Kit<'py>, index: usize) -> Read<PyObject> {
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

    /// `item.get(key, "")`: the arguments as sent, "" when absent. An object or array written as
    /// orjson writes it is kept as that text, not built: the arguments are read only to count
    /// tokens, as their compact JSON (`app.core.tokens.arguments_text`, which takes a string as
    /// it is), so the text counted is the same, and the object trees are not held (7.0 against
    /// 1.2 MiB on the benchmark's 33.7 MiB body, where short ones are shared; more where a
    /// call's arguments are larger).
    pub(crate) fn arguments<'py>(&self, kit: &Kit<'py>, object: usize, key: &[u8]) -> Read<PyObject> {
        match self.get(object, key)? {
            None => Ok(kit.empty.clone_ref(kit.py)),
            Some(node) => match self.node(node)?.kind {
                OBJ | ARR => match self.canonical(node) {
                    Ok(bytes) => kit.text_of(bytes),
                    Err(_) => self.value(kit, node),
                },
                _ => self.value(kit, node),
            },
        }
    }

    /// How many content blocks (Gemini: parts) caller message `index` holds; -1 when they are no
    /// array.
    pub(crate) fn count_blocks(&self, index: usize) -> isize {
        let node = match self.messages.as_ref().and_then(|messages| messages.get(index)) {
            Some(&node) => node,
            None => return -1,
        };
        // Anthropic's and Bedrock's blocks are `content`, Gemini's parts `parts`.
        let content = match self.node(node).ok().filter(|n| n.kind == OBJ) {
            Some(_) => match self.get(node, b"content").ok().flatten() {
                Some(found) => Some(found),
                None => self.get(node, b"parts").ok().flatten(),
            },
            None => None,
        };
        match content {
            Some(value) if self.node(value).map_or(false, |n| n.kind == ARR) => {
                self.elements(value).map_or(-1, |e| e.len() as isize)
            }
            _ => -1,
        }
    }


    pub(crate) fn message_spans(&self) -> Vec<(u32, u32, bool)> {
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
    pub(crate) fn message_object(&self, node: usize) -> Read<Node> {
        let found = self.node(node)?;
        if found.kind != OBJ || any_within(&self.tape.escaped_keys, found.start, found.end) {
            return Err(Unread);
        }
        Ok(found)
    }

    /// A value's own bytes (a string's with its quotes) when they are exactly what `orjson.dumps`
    /// writes for its parsed value; Unread otherwise (Python writes it).
    pub(crate) fn canonical(&self, node: usize) -> Read<&[u8]> {
        let found = self.node(node)?;
        let (start, end) =
            if found.kind == STR { (found.start - 1, found.end + 1) } else { (found.start, found.end) };
        if any_within(&self.tape.uncanonical, start, end) {
            return Err(Unread);
        }
        self.bytes().get(start as usize..end as usize).ok_or(Unread)
    }

    /// Whether object `object` has `key` (`key in value` of the parsed dict).
    pub(crate) fn has(&self, object: usize, key: &[u8]) -> Read<bool> {
        Ok(self.get(object, key)?.is_some())
    }

    /// The value of `key` unless it is absent or null (`value.get(key) is not None`).
    pub(crate) fn get_set(&self, object: usize, key: &[u8]) -> Read<Option<usize>> {
        Ok(match self.get(object, key)? {
            Some(value) if self.node(value)?.kind != NUL => Some(value),
            _ => None,
        })
    }

    /// Object `object`'s keys, each once (`len` and iteration of the parsed dict); Unread when
    /// a key repeats.
    pub(crate) fn keys(&self, object: usize) -> Read<Vec<&[u8]>> {
        let bytes = self.bytes();
        let end = self.node(object)?.next as usize;
        let mut at = object + 1;
        let mut found: Vec<&[u8]> = Vec::new();
        while at < end {
            let name = self.node(at)?;
            let key = bytes.get(name.start as usize..name.end as usize).ok_or(Unread)?;
            if name.flags & ESCAPED != 0 || found.contains(&key) {
                return Err(Unread);
            }
            found.push(key);
            at = self.node(at + 1)?.next as usize;
        }
        Ok(found)
    }
}

#[pymethods]
impl Scan {
    /// Scan `body` (bytes or bytearray); ValueError when the Python path must read it.
    #[new]
    pub(crate) fn new(body: &PyAny, max_depth: usize) -> PyResult<Self> {
        #[cfg(not(feature = "abi3"))]
        let buffer = PyBuffer::<u8>::get(body)?;
        #[cfg(not(feature = "abi3"))]
        if !buffer.is_c_contiguous() {
            return Err(PyValueError::new_err("not a contiguous buffer"));
        }
        #[cfg(feature = "abi3")]
        let body: Vec<u8> = if let Ok(bytes) = body.downcast::<PyBytes>() {
            bytes.as_bytes().to_vec()
        } else {
            body.downcast::<PyByteArray>()?.to_vec()
        };
        let empty = Tape { nodes: Vec::new(), uncanonical: Vec::new(), escaped_keys: Vec::new() };
        let mut scan = Scan {
            #[cfg(not(feature = "abi3"))]
            buffer,
            #[cfg(feature = "abi3")]
            body,
            tape: empty,
            fields: Vec::new(),
            messages: None,
            spans: Vec::new(),
            block_counts: None,
        };
        scan.tape = parse(scan.bytes(), max_depth).map_err(|_| PyValueError::new_err("not read"))?;
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
    pub(crate) fn release(&mut self) {
        let count = self.spans.len();
        self.block_counts = Some((0..count).map(|index| self.count_blocks(index)).collect());
        self.tape = Tape { nodes: Vec::new(), uncanonical: Vec::new(), escaped_keys: Vec::new() };
        self.fields = Vec::new();
    }

    /// Caller message `index`'s (start, end) bytes and whether orjson would write them back as
    /// they are.
    pub(crate) fn span(&self, index: usize) -> PyResult<(usize, usize, bool)> {
        let &(start, end, canonical) = self
            .spans
            .get(index)
            .ok_or_else(|| PyIndexError::new_err("no such message"))?;
        Ok((start as usize, end as usize, canonical))
    }

    /// The top-level fields in order: (key, start, end) of each value's bytes.
    pub(crate) fn fields(&self, py: Python<'_>) -> PyResult<Vec<(PyObject, usize, usize)>> {
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
    pub(crate) fn message_count(&self) -> Option<usize> {
        self.messages.as_ref().map(Vec::len)
    }

    /// Every caller message's `span`, in order.
    pub(crate) fn spans(&self) -> Vec<(usize, usize, bool)> {
        self.spans.iter().map(|&(start, end, canonical)| (start as usize, end as usize, canonical)).collect()
    }

    /// How many content blocks (Gemini: parts) caller message `index` holds; -1 when they are no
    /// array.
    pub(crate) fn block_count(&self, index: usize) -> isize {
        match &self.block_counts {
            Some(counts) => counts.get(index).copied().unwrap_or(-1),
            None => self.count_blocks(index),
        }
    }
    /// The first message of each distinct detection signature, in order.
    pub(crate) fn detection_samples(&self) -> Vec<usize> {
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

    /// The core messages in `format` (any but `auto`), in order: a caller index stands where the
    /// quick path did not read that caller message; None for a Responses or Gemini list handed
    /// back whole.
    pub(crate) fn read(
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
    pub(crate) fn read_surveyed(
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
    pub(crate) fn read_with(&self, kit: &Kit<'_>, format: &str) -> PyResult<PyObject> {
        let py = kit.py;
        if self.block_counts.is_some() {
            return Err(PyValueError::new_err("released"));
        }
        let messages = self.messages.as_ref().ok_or_else(|| PyValueError::new_err("no messages"))?;
        let out = PyList::empty(py);
        if format == "responses" || format == "gemini" {
            let read = if format == "responses" {
                self.responses(kit, messages, out)
            } else {
                self.gemini(kit, messages, out)
            };
            if read.is_err() {
                // Handed back whole: Python reads every message, and takes the survey.
                *kit.surveyor.borrow_mut() = None;
                return Ok(py.None());
            }
            return Ok(out.into_py(py));
        }
        for (index, &node) in messages.iter().enumerate() {
            let read = match format {
                "native" => self.native(kit, node, index).map(|m| vec![m]),
                "openai" => self.openai(kit, node, index).map(|m| vec![m]),
                "anthropic" => self.anthropic(kit, node, index),
                "bedrock" => self.bedrock(kit, node, index),
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

pub(crate) fn hex4(bytes: &[u8], at: usize) -> Read<u32> {
    let digits = bytes.get(at..at + 4).ok_or(Unread)?;
    let mut code = 0;
    for &digit in digits {
        code = code * 16 + hex_value(digit).ok_or(Unread)?;
    }
    Ok(code)
}
