//! The Python objects the readers build: core `Message`s, `ToolCall`s and survey records.
//!
//! The records are named tuples made directly by their class's allocator (the intermediate tuple
//! and the call cost more than the reading), every object owned so a temporary goes as soon as it
//! is used, and short strings shared as orjson shares dict keys. A message the quick path does not
//! read is `Unread`: Python reads it instead.

use std::cell::RefCell;
use std::collections::HashMap;

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use pyo3::AsPyPointer;

use crate::survey::Surveyor;

/// The string of UTF-8 `bytes`, validated by Python's decoder as it decodes them rather than
/// first by Rust's as well (a second pass over every long text: 0.4 to 0.5 ms of reading 10,000
/// native messages).
pub(crate) fn decoded(py: Python<'_>, bytes: &[u8]) -> Read<PyObject> {
    // SAFETY: Python only reads `bytes.len()` bytes from a live slice (and validates them: strict
    // errors); a null result is an error, cleared here, and anything else a new owned reference.
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
pub(crate) struct RecordClass {
    pub(crate) class: PyObject,
    pub(crate) alloc: ffi::allocfunc,
}

impl RecordClass {
    pub(crate) fn of(py: Python<'_>, class: &PyAny) -> PyResult<Self> {
        let pointer = class.as_ptr();
        // SAFETY: `pointer` is a live object the caller holds; it is read as a type object only
        // after `PyType_Check`, and a non-null `tp_alloc` slot is an `allocfunc` by CPython's
        // definition, so the transmute gives it back its own type.
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
    pub(crate) fn make<const N: usize>(&self, py: Python<'_>, items: [PyObject; N]) -> PyResult<PyObject> {
        self.make_with_tail(py, items, &[])
    }

    /// `make`, followed by `tail`: the defaults of the fields a reader does not set (those the
    /// class has past the ones this module knows).
    pub(crate) fn make_with_tail<const N: usize>(
        &self,
        py: Python<'_>,
        items: [PyObject; N],
        tail: &[PyObject],
    ) -> PyResult<PyObject> {
        let size = N + tail.len();
        // SAFETY: `alloc` is the tuple subclass's allocator, asked for exactly `size` items, and
        // each item is set once on the new object (refcount 1) before anything else can see it.
        unsafe {
            let made = (self.alloc)(self.class.as_ptr() as *mut ffi::PyTypeObject, size as ffi::Py_ssize_t);
            if made.is_null() {
                return Err(PyErr::fetch(py));
            }
            let made = PyObject::from_owned_ptr(py, made);
            let all = items.into_iter().chain(tail.iter().map(|item| item.clone_ref(py)));
            for (at, item) in all.enumerate() {
                if ffi::PyTuple_SetItem(made.as_ptr(), at as ffi::Py_ssize_t, item.into_ptr()) != 0 {
                    return Err(PyErr::fetch(py));
                }
            }
            Ok(made)
        }
    }
}

/// The fields of `Message` the readers set; the class's later fields take their defaults.
pub(crate) const MESSAGE_FIELDS: usize = 11;

/// The defaults of a record class's fields past its first `known` (a field added at the end of
/// `Message` with a default: its readers here set none of them).
fn field_defaults_after(py: Python<'_>, class: &PyAny, known: usize) -> PyResult<Vec<PyObject>> {
    if class.is_none() {
        return Ok(Vec::new());
    }
    let fields: Vec<String> = class.getattr("_fields")?.extract()?;
    let defaults = class.getattr("_field_defaults")?;
    let mut tail = Vec::new();
    for name in fields.iter().skip(known) {
        tail.push(defaults.get_item(name.as_str())?.into_py(py));
    }
    Ok(tail)
}

pub(crate) fn record_class(py: Python<'_>, class: &PyAny) -> PyResult<Option<RecordClass>> {
    if class.is_none() { Ok(None) } else { RecordClass::of(py, class).map(Some) }
}

/// What the readers build with: the core types and shared constants, from Python. Every object
/// is built owned (not in the GIL pool), so a temporary is freed as soon as it is used, not when
/// the whole read is done: reading 50,000 messages should hold the messages, not their scaffolding.
pub(crate) struct Kit<'py> {
    pub(crate) py: Python<'py>,
    /// None where only strings are read (`Scan::fields`).
    pub(crate) message: Option<RecordClass>,
    /// The defaults of `Message`'s fields past `MESSAGE_FIELDS`, set on every message built.
    pub(crate) message_tail: Vec<PyObject>,
    pub(crate) tool_call: Option<RecordClass>,
    pub(crate) empty: PyObject,
    pub(crate) no_blocks: PyObject,
    pub(crate) roles: [PyObject; 4],
    pub(crate) yes: PyObject,
    pub(crate) no: PyObject,
    /// Short strings already built (tool names, argument keys, ids): one object for each
    /// text, as orjson shares its dict keys, instead of one per occurrence.
    pub(crate) short: RefCell<HashMap<Vec<u8>, PyObject>>,
    /// The survey of the messages built, while every caller message is read here.
    pub(crate) surveyor: RefCell<Option<Surveyor<'py>>>,
    /// The (id, name) of the calls built since the last message, for the surveyor.
    pub(crate) pending_calls: RefCell<Vec<(PyObject, PyObject)>>,
}

/// The longest string `Kit::short` shares, and how many it keeps at once.
pub(crate) const SHORT_TEXT: usize = 32;
pub(crate) const SHORT_KEPT: usize = 4096;

pub(crate) const ROLES: [&str; 4] = ["user", "assistant", "tool", "system"];

impl<'py> Kit<'py> {
    pub(crate) fn of(py: Python<'py>, message: &'py PyAny, tool_call: &'py PyAny) -> PyResult<Self> {
        Ok(Kit {
            py,
            message: record_class(py, message)?,
            message_tail: field_defaults_after(py, message, MESSAGE_FIELDS)?,
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
    pub(crate) fn text(&self, text: &str) -> PyObject {
        let py = self.py;
        if text.len() > SHORT_TEXT {
            return PyString::new(py, text).into_py(py);
        }
        let mut short = self.short.borrow_mut();
        if let Some(found) = short.get(text.as_bytes()) {
            return found.clone_ref(py);
        }
        let made: PyObject = PyString::new(py, text).into_py(py);
        if short.len() >= SHORT_KEPT {
            // Full: begin again rather than stop sharing. A result's id follows its call's
            // closely, so the recent texts are the ones met again: past the first 4,096, each
            // result would otherwise hold an id of its own (1.4 MiB of 29,764 on the benchmark's
            // 33.7 MiB body).
            short.clear();
        }
        short.insert(text.as_bytes().to_vec(), made.clone_ref(py));
        made
    }

    /// The string of UTF-8 `bytes` (Unread where they are not): decoded by Python when long,
    /// shared through `text` when short.
    pub(crate) fn text_of(&self, bytes: &[u8]) -> Read<PyObject> {
        if bytes.len() > SHORT_TEXT {
            return decoded(self.py, bytes);
        }
        Ok(self.text(std::str::from_utf8(bytes).map_err(|_| Unread)?))
    }

    pub(crate) fn flag(&self, value: bool) -> PyObject {
        if value { self.yes.clone_ref(self.py) } else { self.no.clone_ref(self.py) }
    }

    /// `ToolCall(id, name, None, arguments)`.
    pub(crate) fn tool_call(&self, id: PyObject, name: PyObject, arguments: PyObject) -> Read<PyObject> {
        self.tool_call_at(id, name, None, arguments)
    }

    /// `ToolCall(id, name, source, arguments)`: `source` the caller index holding the call, where
    /// the format's core message spans several (a Responses run).
    pub(crate) fn tool_call_at(
        &self,
        id: PyObject,
        name: PyObject,
        source: Option<usize>,
        arguments: PyObject,
    ) -> Read<PyObject> {
        let py = self.py;
        if self.surveyor.borrow().is_some() {
            self.pending_calls.borrow_mut().push((id.clone_ref(py), name.clone_ref(py)));
        }
        let class = self.tool_call.as_ref().ok_or(Unread)?;
        let source = source.map_or_else(|| py.None(), |at| at.into_py(py));
        class.make(py, [id, name, source, arguments]).map_err(|_| Unread)
    }

    /// The assistant core message of caller message `index`, holding all of its `count` blocks
    /// (or parts) in order: its text and its calls, as the block formats' readers build it.
    pub(crate) fn assistant_message(
        &self,
        text: &str,
        calls: Vec<PyObject>,
        injected: bool,
        index: usize,
        count: usize,
    ) -> Read<PyObject> {
        let py = self.py;
        let positions: Vec<PyObject> = (0..count).map(|p| p.into_py(py)).collect();
        self.message(
            "assistant",
            PyString::new(py, text).into_py(py),
            PyTuple::new(py, calls).into_py(py),
            py.None(),
            py.None(),
            injected,
            false,
            index,
            PyTuple::new(py, positions).into_py(py),
        )
        .map_err(|_| Unread)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn message(
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
        self.message_to(
            role, content, calls, call_id, tool_name, injected, not_dispatched, index, blocks, None,
        )
    }

    /// `message`, with the last caller index the core message spans (`source_end`), when it
    /// spans several.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn message_to(
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
        source_end: Option<usize>,
    ) -> PyResult<PyObject> {
        let py = self.py;
        let index: PyObject = index.into_py(py);
        let source_end: PyObject = source_end.map_or_else(|| py.None(), |end| end.into_py(py));
        let mut surveyor = self.surveyor.borrow_mut();
        if let Some(found) = surveyor.as_mut() {
            let made = std::mem::take(&mut *self.pending_calls.borrow_mut());
            let end = if source_end.is_none(py) { None } else { Some(source_end.as_ref(py)) };
            let added = content.as_ref(py).len().and_then(|size| {
                found.add(role, size, Some(index.as_ref(py)), end, call_id.as_ref(py), &made)
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
        // No images, no extra texts: a message holding an image, a document or a server-side
        // tool's result is read in Python.
        let images = self.no_blocks.clone_ref(py);
        class.make_with_tail(
            py,
            [
                role, content, calls, call_id, tool_name, injected, not_dispatched, index, blocks,
                source_end, images,
            ],
            &self.message_tail,
        )
    }
}

/// One message the quick path does not read: Python reads it (or refuses the request).
pub(crate) struct Unread;

pub(crate) type Read<T> = Result<T, Unread>;
