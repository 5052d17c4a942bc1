//! The URL query format: the one configuration language of batchfit. The page reads
//! it on load and writes it back as the user types, shared links carry it, and the
//! CLI takes it as its argument. This module is its single source of truth; the
//! format is a public contract, documented in `docs/url-parameters.md`.
//!
//! Reading never fails: a bad or unknown parameter is reported as a
//! [`ParamError`] and its field keeps its default, so a link that is partly wrong
//! still opens a working page. The CLI treats any problem as fatal instead.

use crate::Precision;
use crate::activations::{self, ActivationsInput, Multiplier};
use crate::fields::{ParamError, Problem};
use crate::units::Units;

/// Which of the three forms is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Form {
    #[default]
    Activations,
}

impl Form {
    pub const NAMES: &'static [&'static str] = &["activations"];

    pub const fn name(self) -> &'static str {
        match self {
            Self::Activations => "activations",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        text.trim()
            .eq_ignore_ascii_case("activations")
            .then_some(Self::Activations)
    }
}

/// Everything a URL can say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Config {
    pub form: Form,
    pub activations: ActivationsInput,
    pub units: Units,
}

/// A parsed query: the configuration to use and what was wrong with the query.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub config: Config,
    /// In the order the parameters appear in the query.
    pub problems: Vec<ParamError>,
}

/// Names every parameter this version understands, in the order [`to_query`] writes them.
pub const PARAMETERS: &[&str] = &[
    "form",
    "batch",
    "seq",
    "hidden",
    "layers",
    "precision",
    "k",
    "ckpt",
    "units",
];

/// Values a yes/no parameter accepts.
const SWITCH_NAMES: &[&str] = &["0", "1"];

/// The query part of `text`: everything after the first `?` (or all of it when
/// there is none) and before any `#`. Accepts a bare query or a whole URL.
pub fn query_part(text: &str) -> &str {
    let text = text.trim();
    let query = text.split_once('?').map_or(text, |(_, q)| q);
    query.split_once('#').map_or(query, |(q, _)| q)
}

/// Reads a query string (with or without its leading `?`, or a whole URL).
pub fn parse(text: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let mut seen: Vec<&'static str> = Vec::new();
    for (raw_name, value) in pairs(query_part(text)) {
        let Some(&name) = PARAMETERS.iter().find(|&&known| known == raw_name) else {
            parsed.problems.push(ParamError::new(raw_name, Problem::Unknown));
            continue;
        };
        if seen.contains(&name) {
            parsed.problems.push(ParamError::new(name, Problem::Duplicate));
            continue;
        }
        seen.push(name);
        if let Err(problem) = apply(&mut parsed.config, name, &value) {
            parsed.problems.push(problem);
        }
    }
    parsed
}

/// Sets one known parameter on `config`, leaving it untouched on error.
fn apply(config: &mut Config, name: &'static str, value: &str) -> Result<(), ParamError> {
    let not_an_option = |allowed| ParamError::new(name, Problem::NotAnOption { allowed });
    let act = &mut config.activations;
    match name {
        "form" => config.form = Form::parse(value).ok_or_else(|| not_an_option(Form::NAMES))?,
        "batch" => act.batch = activations::BATCH.parse(value)?,
        "seq" => act.seq = activations::SEQ.parse(value)?,
        "hidden" => act.hidden = activations::HIDDEN.parse(value)?,
        "layers" => act.layers = activations::LAYERS.parse(value)?,
        "k" => act.k = Multiplier::from_hundredths(activations::K.parse(value)?),
        "precision" => {
            act.precision = value
                .parse::<Precision>()
                .map_err(|()| not_an_option(Precision::NAMES))?;
        }
        "ckpt" => act.checkpointing = parse_switch(value).ok_or_else(|| not_an_option(SWITCH_NAMES))?,
        "units" => config.units = value.parse().map_err(|()| not_an_option(Units::NAMES))?,
        _ => unreachable!("every name in PARAMETERS is handled"),
    }
    Ok(())
}

fn parse_switch(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "on" | "yes" => Some(true),
        "0" | "false" | "off" | "no" => Some(false),
        _ => None,
    }
}

/// Writes `config` as a query string (no leading `?`), every parameter of the
/// current form in the order of [`PARAMETERS`]; `units` only when not the default.
pub fn to_query(config: &Config) -> String {
    let act = &config.activations;
    let mut pairs: Vec<(&str, String)> = vec![
        ("form", config.form.name().to_owned()),
        ("batch", act.batch.to_string()),
        ("seq", act.seq.to_string()),
        ("hidden", act.hidden.to_string()),
        ("layers", act.layers.to_string()),
        ("precision", act.precision.name().to_owned()),
        ("k", crate::fields::format_hundredths(act.k.hundredths())),
        ("ckpt", u8::from(act.checkpointing).to_string()),
    ];
    if config.units != Units::default() {
        pairs.push(("units", config.units.name().to_owned()));
    }
    pairs
        .iter()
        .map(|(name, value)| format!("{name}={}", encode(value)))
        .collect::<Vec<_>>()
        .join("&")
}

/// Splits `a=1&b=2` into decoded pairs; empty segments are skipped, a segment
/// without `=` is a parameter with an empty value.
fn pairs(query: &str) -> impl Iterator<Item = (String, String)> + '_ {
    query.split('&').filter(|s| !s.is_empty()).map(|segment| {
        let (name, value) = segment.split_once('=').unwrap_or((segment, ""));
        (decode(name), decode(value))
    })
}

/// `application/x-www-form-urlencoded` decoding: `+` is a space, `%XX` a byte;
/// a malformed escape stays as typed and invalid UTF-8 becomes U+FFFD, so any
/// input decodes to some string.
pub fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes.get(i + 1..i + 3).and_then(|h| {
                    let h = std::str::from_utf8(h).ok()?;
                    u8::from_str_radix(h, 16).ok()
                });
                if let Some(byte) = hex {
                    out.push(byte);
                    i += 2;
                } else {
                    out.push(b'%');
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Percent-encodes everything but unreserved characters (RFC 3986 §2.3).
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORKED: &str = "form=activations&batch=16&seq=2048&hidden=4096&layers=32&precision=bf16&k=10";

    #[test]
    fn the_documented_example_parses_without_problems() {
        let parsed = parse(WORKED);
        assert_eq!(parsed.problems, []);
        assert_eq!(parsed.config, Config::default());
        assert_eq!(activations::estimate(&parsed.config.activations).total, 85_899_345_920);
    }

    #[test]
    fn whole_urls_and_leading_question_marks_are_accepted() {
        for text in [
            format!("?{WORKED}"),
            format!("https://example.org/some/sub/path/?{WORKED}#results"),
            format!("  {WORKED}  "),
        ] {
            assert_eq!(parse(&text), parse(WORKED), "{text}");
        }
    }

    #[test]
    fn writing_then_reading_gives_back_the_config() {
        let config = Config {
            activations: ActivationsInput {
                batch: 3,
                precision: Precision::Fp32,
                k: Multiplier::from_hundredths(1234),
                checkpointing: true,
                ..ActivationsInput::default()
            },
            units: Units::Binary,
            ..Config::default()
        };
        let query = to_query(&config);
        assert_eq!(query, "form=activations&batch=3&seq=2048&hidden=4096&layers=32&precision=fp32&k=12.34&ckpt=1&units=gib");
        assert_eq!(parse(&query), Parsed { config, problems: vec![] });
    }

    #[test]
    fn bad_values_keep_defaults_and_are_named() {
        let parsed = parse("batch=-1&seq=abc&layers=&precision=fp8&zzz=1&batch=4&ckpt=maybe&units=tb&form=nope");
        assert_eq!(parsed.config, Config::default());
        let named: Vec<(&str, &Problem)> =
            parsed.problems.iter().map(|p| (p.name.as_str(), &p.problem)).collect();
        assert_eq!(
            named,
            [
                ("batch", &activations::BATCH.range()),
                ("seq", &Problem::NotANumber),
                ("layers", &Problem::Empty),
                ("precision", &Problem::NotAnOption { allowed: Precision::NAMES }),
                ("zzz", &Problem::Unknown),
                ("batch", &Problem::Duplicate),
                ("ckpt", &Problem::NotAnOption { allowed: SWITCH_NAMES }),
                ("units", &Problem::NotAnOption { allowed: Units::NAMES }),
                ("form", &Problem::NotAnOption { allowed: Form::NAMES }),
            ]
        );
    }

    #[test]
    fn hostile_text_decodes_to_plain_strings() {
        assert_eq!(decode("%3Cscript%3E+x"), "<script> x");
        assert_eq!(decode("%ff%fe"), "\u{fffd}\u{fffd}");
        assert_eq!(decode("%zz%4"), "%zz%4");
        assert_eq!(decode("100%"), "100%");
        let parsed = parse("batch=%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E&%3Cscript%3E=1");
        assert_eq!(parsed.problems[0], ParamError::new("batch", Problem::NotANumber));
        assert_eq!(parsed.problems[1], ParamError::new("<script>", Problem::Unknown));
    }

    #[test]
    fn encoding_round_trips() {
        for text in ["a b&c=d", "ñ%", "<img src=x>", ""] {
            assert_eq!(decode(&encode(text)), text);
        }
    }
}
