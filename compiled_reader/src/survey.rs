//! The survey: `app.core.turns.survey` computed here, message by message.
//!
//! Taken while the messages are read (or over any list of core messages), so the planner does not
//! walk the transcript again in Python; the differential tests hold it to the Python survey.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyFrozenSet, PyList, PySet, PyString, PyTuple};

use crate::records::RecordClass;

/// `app.core.turns.survey`, gathered one core message at a time (by `survey` from the messages'
/// fields, or by `Scan::read` as it builds them).
pub(crate) struct Surveyor<'py> {
    pub(crate) py: Python<'py>,
    pub(crate) segment: RecordClass,
    pub(crate) segments: Vec<PyObject>,
    pub(crate) callers: &'py PyList,
    pub(crate) span_ends: &'py PyDict,
    pub(crate) answered: &'py PySet,
    pub(crate) system_turns: &'py PySet,
    /// `Survey.unanswered_calls`: turn -> the ids of its calls no `tool` message answers.
    pub(crate) unanswered_calls: &'py PyDict,
    /// Call id -> the turn of its latest call, while no `tool` message answers it.
    pub(crate) waiting: &'py PyDict,
    pub(crate) call_names: &'py PyDict,
    pub(crate) turn: i64,
    pub(crate) start: usize,
    /// The last segment's `end`, which is the next one's `start`: one int object for both (tens
    /// of thousands of them on a large body, alive through the plan).
    pub(crate) last_end: Option<PyObject>,
    pub(crate) size: usize,
    pub(crate) count: usize,
}

impl<'py> Surveyor<'py> {
    pub(crate) fn new(py: Python<'py>, segment: &PyAny) -> PyResult<Self> {
        Ok(Surveyor {
            py,
            segment: RecordClass::of(py, segment)?,
            segments: Vec::new(),
            callers: PyList::empty(py),
            span_ends: PyDict::new(py),
            answered: PySet::empty(py)?,
            system_turns: PySet::empty(py)?,
            unanswered_calls: PyDict::new(py),
            waiting: PyDict::new(py),
            call_names: PyDict::new(py),
            turn: -1,
            start: 0,
            last_end: None,
            size: 0,
            count: 0,
        })
    }

    // Built owned, not in the GIL pool: each temporary goes as soon as it is used.
    pub(crate) fn close_segment(&mut self, end: usize) -> PyResult<()> {
        let py = self.py;
        let start = self.last_end.take().unwrap_or_else(|| self.start.into_py(py));
        let end_object = end.into_py(py);
        self.last_end = Some(end_object.clone_ref(py));
        let fields = [self.turn.into_py(py), start, end_object, self.size.into_py(py)];
        let made = self.segment.make(py, fields)?;
        self.segments.push(made);
        Ok(())
    }

    /// The next core message: its role, content length, `source` (None for its own position),
    /// `source_end`, `tool_call_id` and the (id, name) of each of its `tool_calls`.
    pub(crate) fn add(
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
                if self.waiting.contains(call_id)? {
                    self.waiting.del_item(call_id)?;
                }
            }
        } else if role == "system" {
            self.system_turns.add(self.turn)?;
        } else if !calls.is_empty() {
            for (id, _) in calls {
                // A later call with the id: no later `tool` message can answer the earlier one.
                if let Some(earlier) = self.waiting.get_item(id) {
                    self.unanswered(earlier, id.as_ref(py))?;
                }
                self.waiting.set_item(id, self.turn)?;
            }
            for (id, name) in calls {
                if name.as_ref(py).is_true()? && !self.call_names.contains(id)? {
                    self.call_names.set_item(id, name)?;
                }
            }
        }
        Ok(())
    }

    /// Adds `id` to the unanswered calls of turn `turn`.
    fn unanswered(&self, turn: &PyAny, id: &PyAny) -> PyResult<()> {
        match self.unanswered_calls.get_item(turn) {
            Some(ids) => ids.downcast::<PyList>()?.append(id),
            None => self.unanswered_calls.set_item(turn, PyList::new(self.py, [id])),
        }
    }

    pub(crate) fn finish(mut self, survey: &PyAny) -> PyResult<PyObject> {
        let py = self.py;
        if self.count > 0 {
            self.close_segment(self.count)?;
        }
        for (id, turn) in self.waiting.iter() {
            self.unanswered(turn, id)?;
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
                self.unanswered_calls.into_py(py),
                self.call_names.into_py(py),
            ],
        )
    }
}

/// `app.core.turns.survey` over core messages (any list of `Message`), built as its `Survey`.
#[pyfunction]
pub(crate) fn survey(
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
