//! The OpenAI dialect's quick reader: `app.formats.openai.read_plain`, message for message.

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::records::{Kit, Read, Unread};
use crate::scan::Scan;
use crate::tape::*;


impl Scan {
    /// `app.formats.openai.read_plain`.
    pub(crate) fn openai<'py>(&self, kit: &Kit<'py>, node: usize, index: usize) -> Read<PyObject> {
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

}
