//! The JSON tape: whether a body is JSON orjson would read the same way, and where each value is.
//!
//! `parse` validates the whole body as strict JSON (syntax, UTF-8, escapes and unpaired
//! surrogates, numbers a double can hold, a nesting depth) and records it as a flat tape of nodes
//! with byte ranges, in one pass with its own stack (no recursion, whatever the depth). It refuses
//! anything it is not sure orjson would accept the same way, and notes where the text differs from
//! what orjson would write back (so a message's own bytes can stand in the window only when they
//! are exactly orjson's). Nothing here needs Python: the unit tests below run under `cargo test`.

pub(crate) const OBJ: u8 = 1;
pub(crate) const ARR: u8 = 2;
pub(crate) const STR: u8 = 3;
pub(crate) const INT: u8 = 4;
pub(crate) const FLT: u8 = 5;
pub(crate) const TRU: u8 = 6;
pub(crate) const FAL: u8 = 7;
pub(crate) const NUL: u8 = 8;

/// A string node with at least one escape: its raw bytes are not its value.
pub(crate) const ESCAPED: u8 = 1;

/// The deepest body the scan reads; deeper ones fall back (and bound the value builder's
/// recursion whatever `max_json_depth` is set to).
pub(crate) const DEPTH_CEILING: usize = 256;

#[derive(Clone, Copy)]
pub(crate) struct Node {
    pub(crate) kind: u8,
    pub(crate) flags: u8,
    /// Containers: from the bracket to past the closing one; strings: inside the quotes.
    pub(crate) start: u32,
    pub(crate) end: u32,
    /// The node after this one's subtree.
    pub(crate) next: u32,
}

pub(crate) struct Tape {
    pub(crate) nodes: Vec<Node>,
    /// Byte positions where the text differs from what orjson would write for its value
    /// (whitespace, an escape orjson writes otherwise, a float, `-0`, a repeated key).
    pub(crate) uncanonical: Vec<u32>,
    /// Byte positions of object keys with escapes: lookups compare raw bytes, so an object
    /// holding one is read by Python.
    pub(crate) escaped_keys: Vec<u32>,
}

pub(crate) struct Refused;

pub(crate) fn is_ws(byte: u8) -> bool {
    byte == b' ' || byte == b'\n' || byte == b'\r' || byte == b'\t'
}

pub(crate) fn hex_value(byte: u8) -> Option<u32> {
    match byte {
        b'0'..=b'9' => Some((byte - b'0') as u32),
        b'a'..=b'f' => Some((byte - b'a' + 10) as u32),
        b'A'..=b'F' => Some((byte - b'A' + 10) as u32),
        _ => None,
    }
}

/// Whether any of the 8 bytes is `"`, `\` or below 0x20 (a SWAR test, exact).
pub(crate) fn word_needs_look(word: u64) -> bool {
    pub(crate) const ONES: u64 = 0x0101_0101_0101_0101;
    pub(crate) const HIGHS: u64 = 0x8080_8080_8080_8080;
    let quote = word ^ (ONES * b'"' as u64);
    let slash = word ^ (ONES * b'\\' as u64);
    let zero_quote = quote.wrapping_sub(ONES) & !quote;
    let zero_slash = slash.wrapping_sub(ONES) & !slash;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word;
    (zero_quote | zero_slash | below_space) & HIGHS != 0
}

pub(crate) struct Parser<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) pos: usize,
    pub(crate) tape: Tape,
}

pub(crate) struct Frame {
    pub(crate) node: usize,
    pub(crate) is_object: bool,
    pub(crate) keys_from: usize,
}

impl<'a> Parser<'a> {
    pub(crate) fn byte(&self) -> Result<u8, Refused> {
        self.bytes.get(self.pos).copied().ok_or(Refused)
    }

    pub(crate) fn skip_ws(&mut self) {
        let start = self.pos;
        while self.pos < self.bytes.len() && is_ws(self.bytes[self.pos]) {
            self.pos += 1;
        }
        if self.pos != start {
            self.tape.uncanonical.push(start as u32);
        }
    }

    pub(crate) fn expect(&mut self, byte: u8) -> Result<(), Refused> {
        if self.byte()? != byte {
            return Err(Refused);
        }
        self.pos += 1;
        Ok(())
    }

    pub(crate) fn push(&mut self, kind: u8, flags: u8, start: usize, end: usize) -> usize {
        let index = self.tape.nodes.len();
        self.tape.nodes.push(Node {
            kind,
            flags,
            start: start as u32,
            end: end as u32,
            next: index as u32 + 1,
        });
        index
    }

    /// A string at `pos` (its opening quote); returns its node.
    pub(crate) fn string(&mut self) -> Result<usize, Refused> {
        let bytes = self.bytes;
        let start = self.pos + 1;
        let mut i = start;
        let mut flags = 0;
        loop {
            while i + 8 <= bytes.len() {
                let word = u64::from_le_bytes(bytes[i..i + 8].try_into().map_err(|_| Refused)?);
                if word_needs_look(word) {
                    break;
                }
                i += 8;
            }
            let byte = *bytes.get(i).ok_or(Refused)?;
            if byte == b'"' {
                break;
            }
            if byte < 0x20 {
                return Err(Refused);
            }
            if byte != b'\\' {
                i += 1;
                continue;
            }
            flags = ESCAPED;
            let escape = *bytes.get(i + 1).ok_or(Refused)?;
            match escape {
                b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                b'/' => {
                    self.tape.uncanonical.push(i as u32);
                    i += 2;
                }
                b'u' => {
                    let (code, lower) = self.hex4(i + 2)?;
                    i += 6;
                    if (0xDC00..=0xDFFF).contains(&code) {
                        return Err(Refused);
                    }
                    if (0xD800..=0xDBFF).contains(&code) {
                        if bytes.get(i) != Some(&b'\\') || bytes.get(i + 1) != Some(&b'u') {
                            return Err(Refused);
                        }
                        let (low, _) = self.hex4(i + 2)?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(Refused);
                        }
                        self.tape.uncanonical.push(i as u32);
                        i += 6;
                    } else {
                        // orjson writes \u00XX (lower-case hex) only for control characters
                        // without a short escape; anything else it writes as the character.
                        let short = matches!(code, 0x08 | 0x09 | 0x0A | 0x0C | 0x0D);
                        if code >= 0x20 || short || !lower {
                            self.tape.uncanonical.push(i as u32);
                        }
                    }
                }
                _ => return Err(Refused),
            }
        }
        self.pos = i + 1;
        Ok(self.push(STR, flags, start, i))
    }

    pub(crate) fn hex4(&self, at: usize) -> Result<(u32, bool), Refused> {
        let digits = self.bytes.get(at..at + 4).ok_or(Refused)?;
        let mut code = 0;
        let mut lower = true;
        for &digit in digits {
            code = code * 16 + hex_value(digit).ok_or(Refused)?;
            lower &= !digit.is_ascii_uppercase();
        }
        Ok((code, lower))
    }

    pub(crate) fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        self.pos - start
    }

    pub(crate) fn number(&mut self) -> Result<(), Refused> {
        let start = self.pos;
        let negative = self.byte()? == b'-';
        if negative {
            self.pos += 1;
        }
        let first = self.byte()?;
        let integer_digits = if first == b'0' {
            self.pos += 1;
            1
        } else if first.is_ascii_digit() {
            self.digits()
        } else {
            return Err(Refused);
        };
        let mut float = false;
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(Refused);
            }
            float = true;
        }
        if matches!(self.bytes.get(self.pos), Some(b'e') | Some(b'E')) {
            self.pos += 1;
            if matches!(self.bytes.get(self.pos), Some(b'+') | Some(b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(Refused);
            }
            float = true;
        }
        let end = self.pos;
        if float {
            // orjson refuses a number a double cannot hold; the value itself is Python's to read.
            let text = std::str::from_utf8(&self.bytes[start..end]).map_err(|_| Refused)?;
            let value: f64 = text.parse().map_err(|_| Refused)?;
            if !value.is_finite() {
                return Err(Refused);
            }
            self.tape.uncanonical.push(start as u32);
            self.push(FLT, 0, start, end);
        } else {
            // Beyond 18 digits orjson may read a float: left to the Python path.
            if integer_digits > 18 {
                return Err(Refused);
            }
            if negative && first == b'0' {
                self.tape.uncanonical.push(start as u32);
            }
            self.push(INT, 0, start, end);
        }
        Ok(())
    }

    pub(crate) fn literal(&mut self, word: &[u8], kind: u8) -> Result<(), Refused> {
        let start = self.pos;
        if self.bytes.get(start..start + word.len()) != Some(word) {
            return Err(Refused);
        }
        self.pos += word.len();
        self.push(kind, 0, start, self.pos);
        Ok(())
    }

    /// A key of the innermost object, checked against its earlier keys.
    pub(crate) fn key(&mut self, keys: &mut Vec<(u32, u32)>, keys_from: usize) -> Result<(), Refused> {
        if self.byte()? != b'"' {
            return Err(Refused);
        }
        let node = self.string()?;
        let Node { start, end, flags, .. } = self.tape.nodes[node];
        if flags & ESCAPED != 0 {
            self.tape.escaped_keys.push(start);
            self.tape.uncanonical.push(start);
        }
        let earlier = &keys[keys_from..];
        if earlier.len() >= 64 {
            self.tape.uncanonical.push(start);
        } else {
            let text = &self.bytes[start as usize..end as usize];
            if earlier.iter().any(|&(s, e)| &self.bytes[s as usize..e as usize] == text) {
                self.tape.uncanonical.push(start);
            }
            keys.push((start, end));
        }
        self.skip_ws();
        self.expect(b':')?;
        self.skip_ws();
        Ok(())
    }

    pub(crate) fn parse(mut self, max_depth: usize) -> Result<Tape, Refused> {
        let mut stack: Vec<Frame> = Vec::new();
        let mut keys: Vec<(u32, u32)> = Vec::new();
        self.skip_ws();
        'value: loop {
            match self.byte()? {
                open @ (b'{' | b'[') => {
                    let is_object = open == b'{';
                    if stack.len() + 1 > max_depth {
                        return Err(Refused);
                    }
                    let node = self.push(if is_object { OBJ } else { ARR }, 0, self.pos, 0);
                    self.pos += 1;
                    let keys_from = keys.len();
                    stack.push(Frame { node, is_object, keys_from });
                    self.skip_ws();
                    let close = if is_object { b'}' } else { b']' };
                    if self.byte()? != close {
                        if is_object {
                            self.key(&mut keys, keys_from)?;
                        }
                        continue 'value;
                    }
                }
                b'"' => {
                    self.string()?;
                }
                b'-' | b'0'..=b'9' => self.number()?,
                b't' => self.literal(b"true", TRU)?,
                b'f' => self.literal(b"false", FAL)?,
                b'n' => self.literal(b"null", NUL)?,
                _ => return Err(Refused),
            }
            // After a value (or an empty container's opening): close containers or go on.
            loop {
                self.skip_ws();
                let frame = match stack.last() {
                    Some(frame) => frame,
                    None => break 'value,
                };
                let (node, is_object, keys_from) = (frame.node, frame.is_object, frame.keys_from);
                let byte = self.byte()?;
                if byte == b',' {
                    self.pos += 1;
                    self.skip_ws();
                    if is_object {
                        self.key(&mut keys, keys_from)?;
                    }
                    continue 'value;
                }
                if byte != if is_object { b'}' } else { b']' } {
                    return Err(Refused);
                }
                self.pos += 1;
                let next = self.tape.nodes.len() as u32;
                let container = &mut self.tape.nodes[node];
                container.end = self.pos as u32;
                container.next = next;
                keys.truncate(keys_from);
                stack.pop();
            }
        }
        if self.pos != self.bytes.len() {
            return Err(Refused);
        }
        // Keys record their start after the escapes inside them: put the positions in order.
        self.tape.uncanonical.sort_unstable();
        self.tape.escaped_keys.sort_unstable();
        Ok(self.tape)
    }
}

pub(crate) fn parse(bytes: &[u8], max_depth: usize) -> Result<Tape, Refused> {
    if bytes.len() >= u32::MAX as usize {
        return Err(Refused);
    }
    std::str::from_utf8(bytes).map_err(|_| Refused)?;
    let parser = Parser {
        bytes,
        pos: 0,
        tape: Tape {
            nodes: Vec::with_capacity(bytes.len() / 32 + 16),
            uncanonical: Vec::new(),
            escaped_keys: Vec::new(),
        },
    };
    let tape = parser.parse(max_depth.min(DEPTH_CEILING))?;
    match tape.nodes.first() {
        Some(node) if node.kind == OBJ => Ok(tape),
        _ => Err(Refused),
    }
}

/// Whether any recorded position lies in `start..end` (`positions` ascending).
pub(crate) fn any_within(positions: &[u32], start: u32, end: u32) -> bool {
    let first = positions.partition_point(|&p| p < start);
    positions.get(first).map_or(false, |&p| p < end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tape(text: &str) -> Tape {
        match parse(text.as_bytes(), 64) {
            Ok(tape) => tape,
            Err(Refused) => panic!("refused: {text}"),
        }
    }

    fn refused(text: &[u8]) -> bool {
        parse(text, 64).is_err()
    }

    fn kinds(text: &str) -> Vec<u8> {
        tape(text).nodes.iter().map(|node| node.kind).collect()
    }

    #[test]
    fn nodes_in_document_order_with_their_ranges() {
        let text = r#"{"a":[1,"x",true,false,null,2.5],"b":{}}"#;
        let found = tape(text);
        assert_eq!(kinds(text), vec![OBJ, STR, ARR, INT, STR, TRU, FAL, NUL, FLT, STR, OBJ]);
        let array = found.nodes[2];
        assert_eq!(&text[array.start as usize..array.end as usize], r#"[1,"x",true,false,null,2.5]"#);
        assert_eq!(array.next, 9, "the array's subtree ends before key b");
        let string = found.nodes[4];
        assert_eq!(&text[string.start as usize..string.end as usize], "x", "inside the quotes");
        assert_eq!(found.nodes[0].next as usize, found.nodes.len());
    }

    #[test]
    fn only_an_object_at_the_top() {
        assert!(refused(b"[]"));
        assert!(refused(b"\"x\""));
        assert!(refused(b"1"));
        assert!(!refused(b" {} "));
    }

    #[test]
    fn syntax_errors_are_refused() {
        for text in [
            &b"{"[..], b"{\"a\"}", b"{\"a\":}", b"{\"a\":1,}", b"{\"a\":[1,]}", b"{,}", b"{\"a\":1}x",
            b"{\"a\":01}", b"{\"a\":1.}", b"{\"a\":.5}", b"{\"a\":1e}", b"{\"a\":+1}", b"{\"a\":tru}",
            b"{\"a\":NaN}", b"{'a':1}", b"{\"a\":\"\x01\"}", b"{\"a\":\"\\x\"}", b"{\"a\":\"open}",
        ] {
            assert!(refused(text), "{}", String::from_utf8_lossy(text));
        }
    }

    #[test]
    fn invalid_utf8_and_lone_surrogates_are_refused() {
        assert!(refused(b"{\"a\":\"\xff\"}"));
        assert!(refused(br#"{"a":"\ud800"}"#));
        assert!(refused(br#"{"a":"\udc00"}"#));
        assert!(refused(br#"{"a":"\ud800\u0041"}"#));
        assert!(!refused(br#"{"a":"\ud83d\ude00"}"#));
    }

    #[test]
    fn numbers_orjson_might_read_otherwise_are_refused() {
        assert!(refused(b"{\"a\":1e400}"), "past a double");
        assert!(refused(b"{\"a\":1234567890123456789}"), "19 digits: orjson may read a float");
        assert!(!refused(b"{\"a\":123456789012345678}"));
        assert!(!refused(b"{\"a\":-0.5e-3}"));
    }

    #[test]
    fn depth_is_bounded() {
        let deep = |depth: usize| format!("{}{}{}", "{\"a\":".repeat(depth), "1", "}".repeat(depth));
        assert!(parse(deep(8).as_bytes(), 8).is_ok());
        assert!(parse(deep(9).as_bytes(), 8).is_err());
        let past_ceiling = deep(DEPTH_CEILING + 1);
        assert!(parse(past_ceiling.as_bytes(), usize::MAX).is_err(), "the ceiling holds");
    }

    #[test]
    fn escapes_are_flagged_and_keys_with_escapes_recorded() {
        let found = tape(r#"{"k\u0065y":"a\nb","plain":"c"}"#);
        assert_eq!(found.nodes[1].flags, ESCAPED);
        assert_eq!(found.nodes[2].flags, ESCAPED);
        assert_eq!(found.nodes[4].flags, 0);
        assert_eq!(found.escaped_keys, vec![found.nodes[1].start]);
    }

    #[test]
    fn canonical_text_has_no_uncanonical_positions() {
        assert!(tape(r#"{"a":[1,"x\n\"\\",{"b":null}],"c":-1}"#).uncanonical.is_empty());
    }

    #[test]
    fn what_orjson_writes_otherwise_is_uncanonical() {
        for text in [
            r#"{ "a":1}"#,          // whitespace
            r#"{"a":1.0}"#,         // a float
            r#"{"a":-0}"#,          // -0
            r#"{"a":"\/"}"#,        // an escaped solidus
            r#"{"a":"\u0041"}"#,    // an escape of a printable character
            r#"{"a":"\u001F"}"#,    // upper-case hex
            r#"{"a":"\u000a"}"#,    // a control character with a short escape
            r#"{"a":1,"a":2}"#,     // a repeated key
        ] {
            assert!(!tape(text).uncanonical.is_empty(), "{text}");
        }
        assert!(tape(r#"{"a":"\u001f"}"#).uncanonical.is_empty(), "orjson's own escape");
    }

    #[test]
    fn positions_are_sorted_and_searched_by_range() {
        let found = tape(r#"{"b":1.5, "k\u0061":{"z": 2}}"#);
        assert!(found.uncanonical.windows(2).all(|pair| pair[0] <= pair[1]));
        let inner = found.nodes[4];
        assert!(any_within(&found.uncanonical, inner.start, inner.end), "the space after z's colon");
        assert!(!any_within(&found.uncanonical, 0, 1));
    }

    #[test]
    fn the_word_test_is_exact() {
        for byte in 0u8..=255 {
            let word = u64::from_le_bytes([b'a', b'a', b'a', byte, b'a', b'a', b'a', b'a']);
            assert_eq!(word_needs_look(word), byte == b'"' || byte == b'\\' || byte < 0x20, "{byte}");
        }
    }

    #[test]
    fn long_strings_cross_word_boundaries() {
        let long = "x".repeat(37);
        let text = format!(r#"{{"a":"{long}\"{long}"}}"#);
        let found = tape(&text);
        let string = found.nodes[2];
        assert_eq!(string.end - string.start, 37 * 2 + 2);
        assert_eq!(string.flags, ESCAPED);
    }
}
