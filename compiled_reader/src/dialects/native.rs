//! The native dialect's quick reader: `app.formats.native.read_plain`, message for message.

use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::records::{Kit, Read, Unread};
use crate::scan::Scan;
use crate::tape::*;


impl Scan {
    /// `app.formats.native.read_plain`.
    pub(crate) fn native<'py>(&self, kit: &Kit<'py>, node: usize, index: usize) -> Read<PyObject> {
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

}
