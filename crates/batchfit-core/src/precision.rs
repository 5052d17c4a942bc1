use std::fmt;
use std::str::FromStr;

/// The number format of a tensor, as the user picks it in the forms and the URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    Fp32,
    Fp16,
    Bf16,
    Int8,
}

impl Precision {
    /// Every precision, in the order the forms list them.
    pub const ALL: [Precision; 4] = [Self::Fp32, Self::Fp16, Self::Bf16, Self::Int8];
    /// The URL spellings of [`Precision::ALL`], for error messages.
    pub const NAMES: &'static [&'static str] = &["fp32", "fp16", "bf16", "int8"];

    /// Bytes per element: IEEE binary32 is 4, binary16 and bfloat16 are 2, int8 is 1.
    pub const fn bytes(self) -> u64 {
        match self {
            Self::Fp32 => 4,
            Self::Fp16 | Self::Bf16 => 2,
            Self::Int8 => 1,
        }
    }

    /// The spelling used in URLs and on the command line.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Fp32 => "fp32",
            Self::Fp16 => "fp16",
            Self::Bf16 => "bf16",
            Self::Int8 => "int8",
        }
    }

    /// The spelling people read: "FP32", "BF16", …
    pub const fn label(self) -> &'static str {
        match self {
            Self::Fp32 => "FP32",
            Self::Fp16 => "FP16",
            Self::Bf16 => "BF16",
            Self::Int8 => "INT8",
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Parsing accepts the URL spelling in any letter case.
impl FromStr for Precision {
    type Err = ();

    fn from_str(text: &str) -> Result<Self, ()> {
        Self::ALL
            .into_iter()
            .find(|p| p.name().eq_ignore_ascii_case(text.trim()))
            .ok_or(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bytes_match_the_formats() {
        let expected = [("fp32", 4), ("fp16", 2), ("bf16", 2), ("int8", 1)];
        for (precision, (name, bytes)) in Precision::ALL.into_iter().zip(expected) {
            assert_eq!(precision.name(), name);
            assert_eq!(precision.bytes(), bytes);
            assert_eq!(name.parse::<Precision>(), Ok(precision));
            assert_eq!(name.to_uppercase().parse::<Precision>(), Ok(precision));
        }
        assert_eq!(Precision::NAMES, Precision::ALL.map(Precision::name));
        assert!("fp8".parse::<Precision>().is_err());
        assert!("".parse::<Precision>().is_err());
    }
}
