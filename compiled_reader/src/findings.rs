//! The findings: `app.core.diagnostics.findings` computed here, the same findings in the same order.

use std::collections::HashMap;

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};
use pyo3::AsPyPointer;

use crate::records::RecordClass;

/// A call id as `findings` keys it: the Python string, hashed by Python's own (randomised,
/// cached) string hash instead of hashing the text again (with SipHash over the text, and no room
/// reserved, the pass took 2.7 ms over 10,000 native messages; this way 0.65 ms). The string
/// object rather than its text: 16 bytes a key instead of 24, in maps sized for every message
/// (1 MiB less on 53,150 messages, at a large body's peak), and a call and its result usually
/// share the object, so most comparisons are of one pointer.
#[derive(Clone, Copy)]
pub(crate) struct Id<'a> {
    pub(crate) hash: isize,
    pub(crate) text: &'a PyString,
}

impl<'a> Id<'a> {
    pub(crate) fn of(value: &'a PyAny) -> PyResult<Self> {
        let text = value.downcast::<PyString>()?;
        text.to_str()?; // refused as before where it is no UTF-8
        Ok(Id { hash: value.hash()?, text })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.text.to_str().map_or(false, str::is_empty)
    }
}

impl PartialEq for Id<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.text.as_ptr() == other.text.as_ptr()
            || matches!((self.text.to_str(), other.text.to_str()), (Ok(a), Ok(b)) if a == b)
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
pub(crate) struct Prehashed(u64);

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

/// How a call occurrence was answered (`ANSWERED`, `BY_RESULT` in `app.core.diagnostics`).
const ANSWERED: u8 = 1;
const BY_RESULT: u8 = 2;

pub(crate) type IdMap<'a, V> = HashMap<Id<'a>, V, std::hash::BuildHasherDefault<Prehashed>>;

/// `app.core.diagnostics.findings` over core messages (any sequence of `Message`), each built as
/// a `finding`: the same findings in the same order.
#[pyfunction]
pub(crate) fn findings(py: Python<'_>, messages: &PyAny, finding: &PyAny) -> PyResult<PyObject> {
    let finding = RecordClass::of(py, finding)?;
    let out = PyList::empty(py);
    let none = py.None();
    let add = |index: PyObject, code: &str, subject: PyObject, name: PyObject, position: isize| {
        let code = PyString::new(py, code).into_py(py);
        out.append(finding.make(py, [index, code, subject, name, position.into_py(py)])?)
    };
    let count = messages.len()?;
    // Results are matched to calls per occurrence: a result answers the nearest call before it
    // with its id. Call id -> its latest call so far (an occurrence number).
    let mut nearest: IdMap<'_, usize> = IdMap::with_capacity_and_hasher(count, Default::default());
    // Occurrence -> the turn of its call, and how it was answered (0: not yet; ANSWERED: by a
    // `not_dispatched` message only; BY_RESULT: by a result message, so a second is a duplicate).
    let mut turns: Vec<i64> = Vec::new();
    let mut states: Vec<u8> = Vec::new();
    // The ids a result answered before any call had them.
    let mut orphans: IdMap<'_, ()> = IdMap::default();
    // (turn, caller index, the message's calls, its first occurrence) of each message making calls
    let mut calling: Vec<(i64, PyObject, &PyTuple, usize)> = Vec::new();
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
            if call_id.is_empty() {
                continue;
            }
            let not_dispatched = message.get_item(6)?.is_true()?;
            let Some(&occurrence) = nearest.get(&call_id) else {
                if not_dispatched {
                    continue;
                }
                add(index(), "orphan-result", found.into_py(py), none.clone_ref(py), -1)?;
                if orphans.insert(call_id, ()).is_some() {
                    add(index(), "duplicate-result", found.into_py(py), none.clone_ref(py), -1)?;
                }
                continue;
            };
            let state = states[occurrence];
            if not_dispatched {
                if state == 0 {
                    states[occurrence] = ANSWERED;
                }
                continue;
            }
            if turns[occurrence] != turn {
                add(index(), "result-outside-its-turn", found.into_py(py), none.clone_ref(py), -1)?;
            }
            if state == BY_RESULT {
                add(index(), "duplicate-result", found.into_py(py), none.clone_ref(py), -1)?;
            }
            states[occurrence] = BY_RESULT;
            continue;
        }
        let calls: &PyTuple = message.get_item(2)?.downcast()?;
        if !calls.is_empty() {
            calling.push((turn, index(), calls, turns.len()));
            for call in calls.iter() {
                let call: &PyTuple = call.downcast()?;
                let id = call.get_item(0)?;
                if nearest.insert(Id::of(id)?, turns.len()).is_some() {
                    let at = call.get_item(2)?;
                    let at = if at.is_none() { index() } else { at.into_py(py) };
                    add(at, "duplicate-call-id", id.into_py(py), none.clone_ref(py), -1)?;
                }
                turns.push(turn);
                states.push(0);
            }
        } else if (role == "user" || role == "system") && message.get_item(1)?.len()? == 0 {
            let subject = message.get_item(0)?.into_py(py);
            add(index(), "empty-message", subject, none.clone_ref(py), position as isize)?;
        }
    }
    for (call_turn, index, calls, first) in calling {
        if call_turn == turn {
            continue; // the transcript's last turn may still be waiting for its results
        }
        for (offset, call) in calls.iter().enumerate() {
            if states[first + offset] != 0 {
                continue;
            }
            let call: &PyTuple = call.downcast()?;
            let id = call.get_item(0)?;
            let source = call.get_item(2)?;
            let at = if source.is_none() { index.clone_ref(py) } else { source.into_py(py) };
            add(at, "unanswered-call", id.into_py(py), call.get_item(1)?.into_py(py), -1)?;
        }
    }
    Ok(out.into_py(py))
}
