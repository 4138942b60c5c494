//! The Gemini dialect's quick reader: `app.formats.gemini.read_plain`, content by content.
//!
//! An id-less call is named from the SHA-256 of its content's compact JSON, and an id-less
//! response answers a call of the model content before it, so the contents are read in order
//! with the calls of the one before. A content's own bytes stand for its compact JSON only when
//! they are exactly orjson's; otherwise, and for an image part (`inlineData`, `fileData`) or
//! anything the quick path does not read plainly, the whole list is handed back (`Unread`).

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use sha2::{Digest, Sha256};

use crate::records::{Kit, Read, Unread};
use crate::scan::Scan;
use crate::tape::*;

/// A call of the content read before: its name and id.
type Call = (Vec<u8>, PyObject);

impl Scan {
    /// The core messages of every content, appended to `out`; Unread when Python must read them.
    pub(crate) fn gemini(&self, kit: &Kit<'_>, messages: &[usize], out: &PyList) -> Read<()> {
        let mut previous: Vec<Call> = Vec::new();
        for (index, &node) in messages.iter().enumerate() {
            previous = self.gemini_content(kit, node, index, &previous, out)?;
        }
        Ok(())
    }

    /// `content_hash`: the first 12 hex digits of SHA-256 of the content's compact JSON.
    fn content_hash(&self, node: usize) -> Read<String> {
        let digest = Sha256::digest(self.canonical(node)?);
        Ok(digest.iter().take(6).map(|byte| format!("{byte:02x}")).collect())
    }

    fn generated_id(&self, kit: &Kit<'_>, name: &[u8], k: usize, digest: &str) -> Read<PyObject> {
        let name = std::str::from_utf8(name).map_err(|_| Unread)?;
        Ok(PyString::new(kit.py, &format!("{name}#{k}:{digest}")).into_py(kit.py))
    }

    /// A string's decoded bytes (a name, compared and hashed as Python's str would be).
    fn decoded_bytes(&self, node: usize) -> Read<Vec<u8>> {
        let found = self.node(node)?;
        if found.kind != STR {
            return Err(Unread);
        }
        let mut out = String::new();
        self.decode_into(found, &mut out)?;
        Ok(out.into_bytes())
    }

    /// An optional id: None when absent or null, a non-empty string, or Unread.
    fn optional_id(&self, kit: &Kit<'_>, node: Option<usize>) -> Read<Option<PyObject>> {
        match node {
            Some(found) if self.node(found)?.kind != NUL => Ok(Some(self.id(kit, Some(found))?)),
            _ => Ok(None),
        }
    }

    /// One content's core messages appended to `out`; its calls (none for a user content).
    fn gemini_content(
        &self,
        kit: &Kit<'_>,
        node: usize,
        index: usize,
        previous: &[Call],
        out: &PyList,
    ) -> Read<Vec<Call>> {
        let py = kit.py;
        let none = || py.None();
        let no_blocks = || kit.no_blocks.clone_ref(py);
        self.message_object(node)?;
        let role: &[u8] = match self.get(node, b"role")? {
            None => b"user",
            found => self.plain_str(found)?,
        };
        let parts_node = self.get(node, b"parts")?.ok_or(Unread)?;
        if self.node(parts_node)?.kind != ARR {
            return Err(Unread);
        }
        let injected = self.flag(self.get(node, b"injected")?, false)?;
        let parts = self.elements(parts_node)?;
        let mut text = String::new();
        if role == b"model" {
            let mut named: Vec<(Option<PyObject>, Vec<u8>, PyObject, PyObject)> = Vec::new();
            for &part in &parts {
                if self.node(part)?.kind != OBJ {
                    return Err(Unread);
                }
                // An image is counted by its part's resolution, which only the Python side reads.
                if self.has(part, b"inlineData")? || self.has(part, b"fileData")? {
                    return Err(Unread);
                }
                if let Some(piece) = self.get_set(part, b"text")? {
                    let piece = self.node(piece)?;
                    if piece.kind != STR {
                        return Err(Unread);
                    }
                    if !self.flag(self.get_set(part, b"thought")?, false)? {
                        self.decode_into(piece, &mut text)?;
                    }
                }
                if let Some(call) = self.get_set(part, b"functionCall")? {
                    if self.node(call)?.kind != OBJ {
                        return Err(Unread);
                    }
                    let call_id = self.optional_id(kit, self.get(call, b"id")?)?;
                    let name_node = self.get(call, b"name")?.ok_or(Unread)?;
                    let name = self.name(kit, Some(name_node))?;
                    let arguments = self.arguments(kit, call, b"args")?;
                    named.push((call_id, self.decoded_bytes(name_node)?, name, arguments));
                }
                if self.get_set(part, b"functionResponse")?.is_some()
                    || self.has(part, b"function_call")?
                    || self.has(part, b"function_response")?
                {
                    return Err(Unread);
                }
            }
            let mut seen: Vec<(Vec<u8>, usize)> = Vec::new();
            let mut digest: Option<String> = None;
            let mut calls = Vec::new();
            let mut made: Vec<Call> = Vec::new();
            for (call_id, name_bytes, name, arguments) in named {
                let k = occurrence(&mut seen, &name_bytes);
                let call_id = match call_id {
                    Some(found) => found,
                    None => {
                        if digest.is_none() {
                            digest = Some(self.content_hash(node)?);
                        }
                        let digest = digest.as_deref().ok_or(Unread)?;
                        self.generated_id(kit, &name_bytes, k, digest)?
                    }
                };
                made.push((name_bytes, call_id.clone_ref(py)));
                calls.push(kit.tool_call(call_id, name, arguments)?);
            }
            let message = kit.assistant_message(&text, calls, injected, index, parts.len())?;
            out.append(message).map_err(|_| Unread)?;
            return Ok(made);
        }
        if role != b"user" {
            return Err(Unread);
        }
        let mut results: Vec<(PyObject, PyObject, PyObject, bool, usize)> = Vec::new();
        let mut user_parts: Vec<PyObject> = Vec::new();
        let mut seen: Vec<(Vec<u8>, usize)> = Vec::new();
        let mut digest: Option<String> = None;
        for (position, &part) in parts.iter().enumerate() {
            if self.node(part)?.kind != OBJ {
                return Err(Unread);
            }
            if self.get_set(part, b"functionCall")?.is_some()
                || self.has(part, b"function_call")?
                || self.has(part, b"function_response")?
            {
                return Err(Unread);
            }
            let piece = self.get_set(part, b"text")?;
            if let Some(response_part) = self.get_set(part, b"functionResponse")? {
                if self.node(response_part)?.kind != OBJ || piece.is_some() {
                    return Err(Unread);
                }
                let name_node = self.get(response_part, b"name")?.ok_or(Unread)?;
                let name = self.name(kit, Some(name_node))?;
                let call_id = self.optional_id(kit, self.get(response_part, b"id")?)?;
                let response = self.get_set(response_part, b"response")?;
                if let Some(found) = response {
                    if self.node(found)?.kind != OBJ {
                        return Err(Unread);
                    }
                }
                let not_dispatched = self.flag(self.get(response_part, b"not_dispatched")?, false)?;
                // The response's own parts may hold images, which only the Python side counts.
                if self.kind(self.get(response_part, b"parts")?)? == ARR {
                    return Err(Unread);
                }
                let name_bytes = self.decoded_bytes(name_node)?;
                let k = occurrence(&mut seen, &name_bytes);
                let call_id = match call_id {
                    Some(found) => found,
                    None => {
                        let answered = previous.iter().filter(|(known, _)| *known == name_bytes).nth(k - 1);
                        match answered {
                            Some((_, id)) => id.clone_ref(py),
                            None => {
                                if digest.is_none() {
                                    digest = Some(self.content_hash(node)?);
                                }
                                let digest = digest.as_deref().ok_or(Unread)?;
                                self.generated_id(kit, &name_bytes, k, digest)?
                            }
                        }
                    }
                };
                let text = self.response_text(kit, response)?;
                results.push((text, call_id, name, not_dispatched, position));
                continue;
            }
            if let Some(piece) = piece {
                let piece = self.node(piece)?;
                if piece.kind != STR {
                    return Err(Unread);
                }
                self.decode_into(piece, &mut text)?;
            }
            if self.has(part, b"inlineData")? || self.has(part, b"fileData")? {
                return Err(Unread);
            }
            user_parts.push(position.into_py(py));
        }
        for (body, call_id, name, not_dispatched, position) in results {
            let positions = PyTuple::new(py, [position]).into_py(py);
            let message = kit
                .message("tool", body, no_blocks(), call_id, name, false, not_dispatched, index, positions)
                .map_err(|_| Unread)?;
            out.append(message).map_err(|_| Unread)?;
        }
        if !user_parts.is_empty() || parts.is_empty() {
            let message = kit
                .message(
                    "user",
                    PyString::new(py, &text).into_py(py),
                    no_blocks(),
                    none(),
                    none(),
                    injected,
                    false,
                    index,
                    PyTuple::new(py, user_parts).into_py(py),
                )
                .map_err(|_| Unread)?;
            out.append(message).map_err(|_| Unread)?;
        }
        Ok(Vec::new())
    }

    /// `response_text`: `output` when it is the response's one key and a string, else the
    /// response's compact JSON; "" when there is none.
    fn response_text(&self, kit: &Kit<'_>, response: Option<usize>) -> Read<PyObject> {
        let py = kit.py;
        let response = match response {
            None => return Ok(kit.empty.clone_ref(py)),
            Some(found) => found,
        };
        if self.keys(response)? == [&b"output"[..]] {
            let output = self.get(response, b"output")?.ok_or(Unread)?;
            if self.node(output)?.kind == STR {
                return self.string(kit, output);
            }
        }
        let text = std::str::from_utf8(self.canonical(response)?).map_err(|_| Unread)?;
        Ok(PyString::new(py, text).into_py(py))
    }
}

/// How many times `name` has come so far in one content, this time included: the `k` of a
/// generated id (the `k`-th call of that name, or the `k`-th response to one).
fn occurrence(seen: &mut Vec<(Vec<u8>, usize)>, name: &[u8]) -> usize {
    match seen.iter_mut().find(|(known, _)| known.as_slice() == name) {
        Some((_, count)) => {
            *count += 1;
            *count
        }
        None => {
            seen.push((name.to_vec(), 1));
            1
        }
    }
}
