//! The Bedrock dialect's quick reader: `app.formats.bedrock.read_plain`, message by message.
//!
//! Read here: string content, and content blocks of the kinds the reader reads (`text`,
//! `toolUse`, `toolResult`). A message holding any other block (an image, which is counted by its
//! header; a cache point or a document, which travel with a neighbour) or anything the quick path
//! does not read plainly is handed back by index (`Unread`) for the Python reader.

use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};

use crate::records::{Kit, Read, Unread};
use crate::scan::Scan;
use crate::tape::*;

impl Scan {
    /// The core messages of one caller message, in order.
    pub(crate) fn bedrock(&self, kit: &Kit<'_>, node: usize, index: usize) -> Read<Vec<PyObject>> {
        let py = kit.py;
        let none = || py.None();
        let no_blocks = || kit.no_blocks.clone_ref(py);
        self.message_object(node)?;
        if self.has(node, b"injected")? {
            return Err(Unread);
        }
        let role = self.plain_str(self.get(node, b"role")?)?;
        let content = self.get(node, b"content")?.ok_or(Unread)?;
        let content_node = self.node(content)?;
        if content_node.kind == STR {
            let role = match role {
                b"user" => "user",
                b"assistant" => "assistant",
                _ => return Err(Unread),
            };
            let text = self.string(kit, content)?;
            let message = kit
                .message(role, text, no_blocks(), none(), none(), false, false, index, no_blocks())
                .map_err(|_| Unread)?;
            return Ok(vec![message]);
        }
        if content_node.kind != ARR {
            return Err(Unread);
        }
        let blocks = self.elements(content)?;
        if role == b"assistant" {
            let mut text = String::new();
            let mut calls = Vec::new();
            for &block in &blocks {
                if self.node(block)?.kind != OBJ {
                    return Err(Unread);
                }
                if let Some(piece) = self.get(block, b"text")? {
                    self.plain_text_block(block, piece, &mut text)?;
                } else if let Some(used) = self.get(block, b"toolUse")? {
                    if self.node(used)?.kind != OBJ || self.has(block, b"toolResult")? {
                        return Err(Unread);
                    }
                    if let Some(kind) = self.get(used, b"type")? {
                        if self.node(kind)?.kind == STR && self.plain_str(Some(kind))? == b"server_tool_use" {
                            continue;
                        }
                    }
                    let call_id = self.id(kit, self.get(used, b"toolUseId")?)?;
                    let name = self.name(kit, self.get(used, b"name")?)?;
                    let input = self.arguments(kit, used, b"input")?;
                    calls.push(kit.tool_call(call_id, name, input)?);
                } else {
                    // An image (counted by its header) or a kindless block: read in Python.
                    return Err(Unread);
                }
            }
            let message = kit.assistant_message(&text, calls, false, index, blocks.len())?;
            return Ok(vec![message]);
        }
        if role != b"user" || blocks.is_empty() {
            return Err(Unread);
        }
        // (text, injected, position) of each text block; the results are built first.
        let mut texts: Vec<(PyObject, bool, usize)> = Vec::new();
        let mut results: Vec<(PyObject, PyObject, bool, usize)> = Vec::new();
        for (position, &block) in blocks.iter().enumerate() {
            if self.node(block)?.kind != OBJ {
                return Err(Unread);
            }
            if let Some(piece) = self.get(block, b"text")? {
                let mut text = String::new();
                let injected = self.plain_text_block(block, piece, &mut text)?;
                texts.push((PyString::new(py, &text).into_py(py), injected, position));
            } else if let Some(result) = self.get(block, b"toolResult")? {
                if self.node(result)?.kind != OBJ || self.has(block, b"toolUse")? {
                    return Err(Unread);
                }
                let call_id = self.id(kit, self.get(result, b"toolUseId")?)?;
                let not_dispatched = self.flag(self.get(result, b"not_dispatched")?, false)?;
                let mut text = String::new();
                if let Some(body) = self.get(result, b"content")? {
                    if self.node(body)?.kind != ARR {
                        return Err(Unread);
                    }
                    for item in self.elements(body)? {
                        if self.node(item)?.kind != OBJ {
                            return Err(Unread);
                        }
                        if let Some(piece) = self.get(item, b"text")? {
                            let piece = self.node(piece)?;
                            if piece.kind != STR || self.has(item, b"json")? {
                                return Err(Unread);
                            }
                            self.decode_into(piece, &mut text)?;
                        } else if let Some(json) = self.get(item, b"json")? {
                            text.push_str(std::str::from_utf8(self.canonical(json)?).map_err(|_| Unread)?);
                        } else if self.has(item, b"image")? || self.has(item, b"document")? {
                            // An image counted by its header, a document by its text or as one:
                            // only the Python side counts them.
                            return Err(Unread);
                        }
                    }
                }
                results.push((PyString::new(py, &text).into_py(py), call_id, not_dispatched, position));
            } else {
                // A block that travels with a neighbour (a cache point, an image, a document)
                // or a kindless one: read in Python.
                return Err(Unread);
            }
        }
        let mut out = Vec::with_capacity(results.len() + texts.len());
        for (body, call_id, not_dispatched, position) in results {
            let positions = PyTuple::new(py, [position]).into_py(py);
            out.push(
                kit.message("tool", body, no_blocks(), call_id, none(), false, not_dispatched, index, positions)
                    .map_err(|_| Unread)?,
            );
        }
        for (text, injected, position) in texts {
            let positions = PyTuple::new(py, [position]).into_py(py);
            out.push(
                kit.message("user", text, no_blocks(), none(), none(), injected, false, index, positions)
                    .map_err(|_| Unread)?,
            );
        }
        Ok(out)
    }

    /// A `text` block's text appended to `text`; its `injected` flag. Unread for a text that is
    /// not a string, a bad flag, or a block holding a call or a result as well.
    fn plain_text_block(&self, block: usize, piece: usize, text: &mut String) -> Read<bool> {
        let piece = self.node(piece)?;
        if piece.kind != STR {
            return Err(Unread);
        }
        let mut injected = false;
        if self.keys(block)?.len() != 1 {
            injected = self.flag(self.get(block, b"injected")?, false)?;
            if self.has(block, b"toolResult")? || self.has(block, b"toolUse")? {
                return Err(Unread);
            }
        }
        self.decode_into(piece, text)?;
        Ok(injected)
    }
}
