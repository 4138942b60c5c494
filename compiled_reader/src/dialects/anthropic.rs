//! The Anthropic dialect's quick reader: `app.formats.anthropic.read_plain`; a compaction
//! block, an image, a document or a server tool's result is left to Python (whether a compaction
//! block is the artifact depends on the messages after it; the others count tokens the Python
//! side counts).

use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use crate::records::{Kit, Read, Unread};
use crate::scan::Scan;
use crate::tape::*;


impl Scan {
    /// `app.formats.anthropic.read_plain`: the core messages of one caller message, in order.
    pub(crate) fn anthropic<'py>(&self, kit: &Kit<'py>, node: usize, index: usize) -> Read<Vec<PyObject>> {
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
                    // A server tool's result block (`web_search_tool_result`, …) counts its
                    // compact JSON, which only the Python side writes.
                    kind if kind.ends_with(b"_tool_result") => return Err(Unread),
                    _ => {}
                }
            }
            let message = kit.assistant_message(&text, calls, injected, index, blocks.len())?;
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
                // An image is counted by its header, and a document by its text or as one,
                // which only the Python side reads.
                b"tool_use" | b"image" | b"document" => return Err(Unread),
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

}
