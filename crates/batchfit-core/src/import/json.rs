//! A small, strict JSON reader (RFC 8259) for pasted config.json files. Hand
//! written to keep the WASM bundle small; it never panics, and nesting deeper
//! than [`MAX_DEPTH`] is rejected instead of overflowing the stack.

use std::fmt;

/// Deeper nesting than any config.json has; guards the recursion.
pub const MAX_DEPTH: usize = 64;

#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<Json>),
    /// Members in document order; a repeated key keeps every occurrence and
    /// [`Json::get`] returns the first.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The member `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Self::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// What kind of value this is, for error messages.
    pub fn kind(&self) -> Kind {
        match self {
            Self::Null => Kind::Null,
            Self::Bool(_) => Kind::Bool,
            Self::Number(_) => Kind::Number,
            Self::String(_) => Kind::String,
            Self::Array(_) => Kind::Array,
            Self::Object(_) => Kind::Object,
        }
    }
}

/// The kinds of JSON value, named in error messages by whoever shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Self::Null,
        Self::Bool,
        Self::Number,
        Self::String,
        Self::Array,
        Self::Object,
    ];

    /// In English, with its article ("an array"), for the CLI.
    pub const fn english(self) -> &'static str {
        match self {
            Self::Null => "null",
            Self::Bool => "true or false",
            Self::Number => "a number",
            Self::String => "a string",
            Self::Array => "an array",
            Self::Object => "an object",
        }
    }
}

/// What the reader expected where the text stopped being JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Expected {
    /// Nesting deeper than [`MAX_DEPTH`].
    LessNesting,
    Value,
    /// A key in double quotes.
    Key,
    Colon,
    CommaOrBrace,
    CommaOrBracket,
    HexDigits,
    ClosingQuote,
    Escape,
    NoControlCharacters,
    Utf8,
    NoLeadingZeros,
    Digit,
    DigitAfterPoint,
    Exponent,
    Number,
    /// `true`, `false` or `null`, spelled out.
    Literal,
    /// The end of the document: something follows the value.
    End,
}

impl Expected {
    pub const ALL: [Expected; 18] = [
        Self::LessNesting,
        Self::Value,
        Self::Key,
        Self::Colon,
        Self::CommaOrBrace,
        Self::CommaOrBracket,
        Self::HexDigits,
        Self::ClosingQuote,
        Self::Escape,
        Self::NoControlCharacters,
        Self::Utf8,
        Self::NoLeadingZeros,
        Self::Digit,
        Self::DigitAfterPoint,
        Self::Exponent,
        Self::Number,
        Self::Literal,
        Self::End,
    ];

    /// In English, for the CLI.
    pub const fn english(self) -> &'static str {
        match self {
            Self::LessNesting => "less deeply nested values",
            Self::Value => "a value",
            Self::Key => "a key in double quotes",
            Self::Colon => "':'",
            Self::CommaOrBrace => "',' or '}'",
            Self::CommaOrBracket => "',' or ']'",
            Self::HexDigits => "four hex digits",
            Self::ClosingQuote => "a closing '\"'",
            Self::Escape => "a valid escape",
            Self::NoControlCharacters => "no control characters in strings",
            Self::Utf8 => "UTF-8",
            Self::NoLeadingZeros => "no leading zeros",
            Self::Digit => "a digit",
            Self::DigitAfterPoint => "a digit after '.'",
            Self::Exponent => "an exponent",
            Self::Number => "a number",
            Self::Literal => "true, false or null",
            Self::End => "the end of the document",
        }
    }
}

/// Where and why the text is not JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    /// Byte offset of the problem.
    pub offset: usize,
    pub expected: Expected,
}

impl fmt::Display for SyntaxError {
    /// Nesting deeper than [`MAX_DEPTH`] is valid JSON, so it is not called
    /// invalid.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.expected {
            Expected::LessNesting => write!(
                f,
                "nested more than {MAX_DEPTH} levels deep at byte {}, which batchfit does not read",
                self.offset
            ),
            _ => write!(
                f,
                "not valid JSON at byte {}: expected {}",
                self.offset,
                self.expected.english()
            ),
        }
    }
}

/// Parses one JSON document (surrounding whitespace allowed).
pub fn parse(text: &str) -> Result<Json, SyntaxError> {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        at: 0,
    };
    let value = reader.value(0)?;
    reader.skip_space();
    if reader.at != reader.bytes.len() {
        return Err(reader.error(Expected::End));
    }
    Ok(value)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn error(&self, expected: Expected) -> SyntaxError {
        SyntaxError {
            offset: self.at,
            expected,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        let found = self.peek() == Some(byte);
        if found {
            self.at += 1;
        }
        found
    }

    fn literal(&mut self, word: &'static str, value: Json) -> Result<Json, SyntaxError> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(self.error(Expected::Literal))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, SyntaxError> {
        if depth > MAX_DEPTH {
            return Err(self.error(Expected::LessNesting));
        }
        self.skip_space();
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => self.string().map(Json::String),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            _ => Err(self.error(Expected::Value)),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, SyntaxError> {
        self.at += 1;
        let mut members = Vec::new();
        self.skip_space();
        if self.eat(b'}') {
            return Ok(Json::Object(members));
        }
        loop {
            self.skip_space();
            if self.peek() != Some(b'"') {
                return Err(self.error(Expected::Key));
            }
            let key = self.string()?;
            self.skip_space();
            if !self.eat(b':') {
                return Err(self.error(Expected::Colon));
            }
            members.push((key, self.value(depth + 1)?));
            self.skip_space();
            if self.eat(b'}') {
                return Ok(Json::Object(members));
            }
            if !self.eat(b',') {
                return Err(self.error(Expected::CommaOrBrace));
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Json, SyntaxError> {
        self.at += 1;
        let mut items = Vec::new();
        self.skip_space();
        if self.eat(b']') {
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value(depth + 1)?);
            self.skip_space();
            if self.eat(b']') {
                return Ok(Json::Array(items));
            }
            if !self.eat(b',') {
                return Err(self.error(Expected::CommaOrBracket));
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let digits = self
            .bytes
            .get(self.at..self.at + 4)
            .ok_or_else(|| self.error(Expected::HexDigits))?;
        let text = std::str::from_utf8(digits).map_err(|_| self.error(Expected::HexDigits))?;
        let value = u32::from_str_radix(text, 16).map_err(|_| self.error(Expected::HexDigits))?;
        self.at += 4;
        Ok(value)
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        self.at += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(byte) = self.peek() else {
                return Err(self.error(Expected::ClosingQuote));
            };
            self.at += 1;
            match byte {
                b'"' => break,
                b'\\' => {
                    let escape = self.peek().ok_or_else(|| self.error(Expected::Escape))?;
                    self.at += 1;
                    let decoded = match escape {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let first = self.hex4()?;
                            let code = if (0xD800..0xDC00).contains(&first)
                                && self.bytes[self.at..].starts_with(b"\\u")
                            {
                                self.at += 2;
                                let second = self.hex4()?;
                                0x10000
                                    + ((first - 0xD800) << 10)
                                    + (second.wrapping_sub(0xDC00) & 0x3FF)
                            } else {
                                first
                            };
                            char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
                        }
                        _ => return Err(self.error(Expected::Escape)),
                    };
                    let mut buffer = [0; 4];
                    out.extend_from_slice(decoded.encode_utf8(&mut buffer).as_bytes());
                }
                0x00..=0x1F => return Err(self.error(Expected::NoControlCharacters)),
                other => out.push(other),
            }
        }
        // The input is a &str, and escapes add valid UTF-8: this cannot fail.
        String::from_utf8(out).map_err(|_| self.error(Expected::Utf8))
    }

    fn number(&mut self) -> Result<Json, SyntaxError> {
        let start = self.at;
        self.eat(b'-');
        let digits = |reader: &mut Self| {
            let from = reader.at;
            while matches!(reader.peek(), Some(b'0'..=b'9')) {
                reader.at += 1;
            }
            reader.at - from
        };
        if self.eat(b'0') {
            if matches!(self.peek(), Some(b'0'..=b'9')) {
                return Err(self.error(Expected::NoLeadingZeros));
            }
        } else if digits(self) == 0 {
            return Err(self.error(Expected::Digit));
        }
        if self.eat(b'.') && digits(self) == 0 {
            return Err(self.error(Expected::DigitAfterPoint));
        }
        if self.eat(b'e') || self.eat(b'E') {
            if !self.eat(b'+') {
                self.eat(b'-');
            }
            if digits(self) == 0 {
                return Err(self.error(Expected::Exponent));
            }
        }
        let text = std::str::from_utf8(&self.bytes[start..self.at])
            .map_err(|_| self.error(Expected::Number))?;
        let value = crate::decimal::parse(text).ok_or_else(|| self.error(Expected::Number))?;
        Ok(Json::Number(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_config_shaped_documents() {
        let doc = parse(r#" {"a": 1, "b": [true, false, null], "c": {"d": "x\"y\u00e9\ud83d\ude00"}, "e": -1.5e3} "#).expect("valid");
        assert_eq!(doc.get("a"), Some(&Json::Number(1.0)));
        assert_eq!(
            doc.get("b"),
            Some(&Json::Array(vec![
                Json::Bool(true),
                Json::Bool(false),
                Json::Null
            ]))
        );
        assert_eq!(
            doc.get("c").and_then(|c| c.get("d")),
            Some(&Json::String("x\"yé😀".into()))
        );
        assert_eq!(doc.get("e"), Some(&Json::Number(-1500.0)));
        assert_eq!(doc.get("zz"), None);
    }

    #[test]
    fn rejects_what_is_not_json_with_an_offset() {
        for (text, offset) in [
            ("", 0),
            ("{", 1),
            ("{\"a\" 1}", 5),
            ("{\"a\": 1,}", 8),
            ("[1 2]", 3),
            ("01", 1),
            ("1.", 2),
            ("tru", 0),
            ("\"abc", 4),
            ("{} x", 3),
            ("{'a': 1}", 1),
            ("\"\\x\"", 3),
            ("NaN", 0),
        ] {
            assert_eq!(parse(text).map_err(|e| e.offset), Err(offset), "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_parses_or_names_an_offset_inside_it(text in "[\\[\\]{}\",:0-9eE.+\\-tfnrul\\\\ a-z\u{e9}]{0,64}") {
            if let Err(error) = parse(&text) {
                proptest::prop_assert!(error.offset <= text.len());
            }
        }

        #[test]
        fn any_text_imports_or_names_its_problem(text in ".{0,200}") {
            let _ = crate::import::hf::import(&text).map_err(|e| e.to_string());
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000);
        let error = parse(&deep).expect_err("too deep");
        assert_eq!(error.expected, Expected::LessNesting);
        // It is valid JSON that batchfit does not follow, and says so.
        let said = error.to_string();
        assert!(
            said.starts_with("nested more than 64 levels deep at byte"),
            "{said}"
        );
        assert!(!said.contains("not valid"), "{said}");
        let fine = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&fine).is_ok());
    }
}
