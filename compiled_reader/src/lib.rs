//! The planner's compiled reader: one pass over a plan request's bytes.
//!
//! `Scan::new` validates the whole body as strict JSON (the rules `app.api.body` enforces with
//! orjson: syntax, UTF-8, escapes and unpaired surrogates, numbers a double can hold, a nesting
//! depth) and records it as a tape of nodes with byte ranges. It refuses (returns an error)
//! anything it is not sure orjson would accept the same way, so the caller falls back to the
//! Python path, which gives the answer docs/rules.md describes. The readers then build the core
//! messages of the messages the Python readers' quick paths would read plainly; any other message is handed
//! back by index for the Python reader to read. `survey` is `app.core.turns.survey` over any list
//! of core messages, `findings` is `app.core.diagnostics.findings`. Nothing here decides what is
//! valid: every doubt is a fallback.
//!
//! Memory safety on hostile input: four `unsafe` blocks, each with its reason beside it: the
//! borrow of the caller's buffer (`Scan::bytes`, exported for as long as the scan lives, so it
//! cannot be resized or freed), Python's UTF-8 decoder over a live slice (`records::decoded`), and
//! the records made by their class's own allocator (`RecordClass::of` and `make`). Every index
//! into the body or the tape is bounds-checked; the parser keeps its own stack (no recursion), and
//! the one recursive builder is bounded by the accepted depth.
//!
//! The modules, by what they decide: `tape` (what is JSON orjson reads the same way), `scan` (the
//! body's fields and caller messages, and how a value is read), `dialects` (each dialect's quick
//! reader), `detect` (which messages the format detector must see), `records` (the Python objects
//! built), `survey` and `findings` (the two passes over core messages done here).

mod detect;
mod dialects;
mod findings;
mod records;
mod scan;
mod survey;
mod tape;

use pyo3::prelude::*;

#[pymodule]
fn cwp_compiled_reader(_py: Python<'_>, module: &PyModule) -> PyResult<()> {
    module.add_class::<scan::Scan>()?;
    module.add_function(wrap_pyfunction!(survey::survey, module)?)?;
    module.add_function(wrap_pyfunction!(findings::findings, module)?)?;
    Ok(())
}
