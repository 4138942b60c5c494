//! The Responses dialect's quick reader: `app.formats.responses.read` over items its quick path
//! (`read_plain`) reads, with the runs of assistant-side items gathered into one core message as
//! the Python reader gathers them.
//!
//! A run spans items, so one item Python must read (a compaction item, whose role depends on the
//! items after it; an image or a file; a paired call or a server-side tool's item, whose
//! output counts; anything its quick path does not read plainly) hands
//! the whole list back (`Unread`), and the Python reader reads it.

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use crate::records::{Kit, Read, Unread};
use crate::scan::Scan;
use crate::tape::*;

/// What one item gives: a core message (built once the run before it is, so the survey takes
/// the messages in order), or a part of an assistant run (its call; its text is gathered).
enum Item {
    Message(Pending),
    RunPart(Option<PyObject>),
}

struct Pending {
    role: &'static str,
    content: PyObject,
    call_id: PyObject,
    injected: bool,
    not_dispatched: bool,
}

impl Scan {
    /// The core messages of every item, appended to `out`; Unread when Python must read them.
    pub(crate) fn responses(&self, kit: &Kit<'_>, messages: &[usize], out: &PyList) -> Read<()> {
        let py = kit.py;
        let mut run: Option<(usize, usize)> = None;
        let mut text = String::new();
        let mut calls: Vec<PyObject> = Vec::new();
        for (index, &node) in messages.iter().enumerate() {
            match self.responses_item(kit, node, index, &mut text)? {
                Item::RunPart(call) => {
                    run = Some(match run {
                        None => (index, index),
                        Some((start, _)) => (start, index),
                    });
                    if let Some(call) = call {
                        calls.push(call);
                    }
                }
                Item::Message(pending) => {
                    if let Some((start, end)) = run.take() {
                        let made = self.run_message(kit, start, end, &text, std::mem::take(&mut calls))?;
                        out.append(made).map_err(|_| Unread)?;
                        text.clear();
                    }
                    let no_blocks = || kit.no_blocks.clone_ref(py);
                    let message = kit
                        .message(
                            pending.role, pending.content, no_blocks(), pending.call_id, py.None(),
                            pending.injected, pending.not_dispatched, index, no_blocks(),
                        )
                        .map_err(|_| Unread)?;
                    out.append(message).map_err(|_| Unread)?;
                }
            }
        }
        if let Some((start, end)) = run {
            out.append(self.run_message(kit, start, end, &text, calls)?).map_err(|_| Unread)?;
        }
        Ok(())
    }

    /// `run_message`: the one core assistant message of items `start ..= end`.
    fn run_message(
        &self,
        kit: &Kit<'_>,
        start: usize,
        end: usize,
        text: &str,
        calls: Vec<PyObject>,
    ) -> Read<PyObject> {
        let py = kit.py;
        let none = || py.None();
        kit.message_to(
            "assistant",
            PyString::new(py, text).into_py(py),
            PyTuple::new(py, calls).into_py(py),
            none(),
            none(),
            false,
            false,
            start,
            kit.no_blocks.clone_ref(py),
            if end == start { None } else { Some(end) },
        )
        .map_err(|_| Unread)
    }

    /// `app.formats.responses.read_plain` of one item; a run part's text is appended to `text`.
    fn responses_item(
        &self,
        kit: &Kit<'_>,
        node: usize,
        index: usize,
        text: &mut String,
    ) -> Read<Item> {
        let py = kit.py;
        let none = || py.None();
        self.message_object(node)?;
        let item_type: &[u8] = match self.get(node, b"type")? {
            None => b"message",
            found => self.plain_str(found)?,
        };
        match item_type {
            b"function_call_output" | b"custom_tool_call_output" => {
                let call_id = self.id(kit, self.get(node, b"call_id")?)?;
                let output = self.get(node, b"output")?.ok_or(Unread)?;
                if self.node(output)?.kind != STR {
                    return Err(Unread);
                }
                let output = self.string(kit, output)?;
                let not_dispatched = self.flag(self.get(node, b"not_dispatched")?, false)?;
                let pending = Pending { role: "tool", content: output, call_id, injected: false, not_dispatched };
                return Ok(Item::Message(pending));
            }
            b"function_call" | b"custom_tool_call" => {
                let call_id = self.id(kit, self.get(node, b"call_id")?)?;
                let name = self.name(kit, self.get(node, b"name")?)?;
                let key: &[u8] = if item_type == b"function_call" { b"arguments" } else { b"input" };
                let arguments = self.arguments(kit, node, key)?;
                let call = kit.tool_call_at(call_id, name, Some(index), arguments)?;
                return Ok(Item::RunPart(Some(call)));
            }
            b"reasoning" => return Ok(Item::RunPart(None)),
            b"message" => {}
            _ => return Err(Unread),
        }
        let role = self.plain_str(self.get(node, b"role")?)?;
        let injected = self.flag(self.get(node, b"injected")?, false)?;
        let content = self.get(node, b"content")?.ok_or(Unread)?;
        let mut own = String::new();
        let found = if role == b"assistant" { &mut *text } else { &mut own };
        match self.node(content)?.kind {
            STR => self.decode_into(self.node(content)?, found)?,
            ARR => {
                for part in self.elements(content)? {
                    if self.node(part)?.kind != OBJ {
                        return Err(Unread);
                    }
                    let key: &[u8] = match self.plain_str(self.get(part, b"type")?)? {
                        b"input_text" | b"output_text" => b"text",
                        b"refusal" => b"refusal",
                        // An image is counted from its URL and a file as one, which only the
                        // Python side counts.
                        b"input_image" | b"input_file" => return Err(Unread),
                        _ => continue,
                    };
                    let piece = self.node(self.get(part, key)?.ok_or(Unread)?)?;
                    if piece.kind != STR {
                        return Err(Unread);
                    }
                    self.decode_into(piece, found)?;
                }
            }
            _ => return Err(Unread),
        }
        let role = match role {
            b"assistant" => return Ok(Item::RunPart(None)),
            b"user" => "user",
            b"system" | b"developer" => "system",
            _ => return Err(Unread),
        };
        let content = PyString::new(py, &own).into_py(py);
        Ok(Item::Message(Pending { role, content, call_id: none(), injected, not_dispatched: false }))
    }
}
