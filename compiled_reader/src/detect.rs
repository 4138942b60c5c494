//! Detection: which messages `app.formats.detect` must see to answer as over all of them.
//!
//! Two messages with the same signature (the fields the detector reads, as bytes) get the same
//! answer from every rule of `detect_format`, so Python runs it over one message per signature.

use crate::records::{Read, Unread};
use crate::scan::Scan;
use crate::tape::*;

impl Scan {
    /// What `app.formats.detect` reads of a message, as bytes: two messages with the same
    /// signature give every rule of `detect_format` the same answer.
    pub(crate) fn signature(&self, node: usize, index: usize, out: &mut Vec<u8>) {
        let unique = |out: &mut Vec<u8>| {
            out.clear();
            out.extend_from_slice(b"#");
            out.extend_from_slice(&index.to_le_bytes());
        };
        let message = match self.message_object(node) {
            Ok(found) => found,
            Err(Unread) => return unique(out),
        };
        let _ = message;
        let value_of = |out: &mut Vec<u8>, node: Option<usize>| -> Read<()> {
            match node {
                None => out.push(0),
                Some(index) => {
                    let found = self.node(index)?;
                    out.push(found.kind);
                    if found.kind == STR {
                        if found.flags & ESCAPED != 0 {
                            return Err(Unread);
                        }
                        let text = self.bytes().get(found.start as usize..found.end as usize).ok_or(Unread)?;
                        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
                        out.extend_from_slice(text);
                    }
                }
            }
            Ok(())
        };
        let result: Read<()> = (|| {
            value_of(out, self.get(node, b"type")?)?;
            value_of(out, self.get(node, b"role")?)?;
            out.push(self.get(node, b"parts")?.is_some() as u8);
            let content = self.get(node, b"content")?;
            out.push(self.kind(content)?);
            if self.kind(content)? == ARR {
                for block in self.elements(content.ok_or(Unread)?)? {
                    let kind = self.node(block)?.kind;
                    out.push(kind);
                    if kind == OBJ {
                        value_of(out, self.get(block, b"type")?)?;
                        let mut present = 0u8;
                        for (bit, key) in [
                            &b"text"[..],
                            b"toolUse",
                            b"toolResult",
                            b"reasoningContent",
                            b"image",
                            b"document",
                            b"cachePoint",
                        ]
                        .iter()
                        .enumerate()
                        {
                            if self.get(block, key)?.is_some() {
                                present |= 1 << bit;
                            }
                        }
                        out.push(present);
                    }
                }
            }
            let calls = self.get(node, b"tool_calls")?;
            out.push(self.kind(calls)?);
            if self.kind(calls)? == ARR {
                for call in self.elements(calls.ok_or(Unread)?)? {
                    let kind = self.node(call)?.kind;
                    out.push(kind);
                    if kind == OBJ {
                        out.push(self.get(call, b"function")?.is_some() as u8);
                    }
                }
            }
            Ok(())
        })();
        if result.is_err() {
            unique(out);
        }
    }
}
