//! How the CLI's text writes sizes and differences, shared by the report
//! and the subcommands.

use batchfit_core::fields::group_thousands;
use batchfit_core::units::{self, Units};

/// A size in the chosen units: "1.20 GB", "512.00 MiB".
pub fn size(bytes: u128, units: Units) -> String {
    units::format_bytes(bytes, units)
}

/// Tenths of a percent with their sign: "−0.1 %", "+12.5 %".
pub fn signed_percent(tenths: i128) -> String {
    let sign = if tenths < 0 { "−" } else { "+" };
    let a = tenths.unsigned_abs();
    format!("{sign}{}.{} %", a / 10, a % 10)
}

/// A difference with its sign: "+1.20 GB", "−512.00 MiB", "0 B".
pub fn signed_size(bytes: i128, units: Units) -> String {
    let sign = match bytes {
        0 => "",
        ..0 => "−",
        _ => "+",
    };
    format!("{sign}{}", size(bytes.unsigned_abs(), units))
}

/// Bytes with thousands separators.
pub fn group_bytes(bytes: u128) -> String {
    u64::try_from(bytes).map_or_else(|_| bytes.to_string(), group_thousands)
}

/// One labelled size of a breakdown, with its exact bytes.
pub fn line(out: &mut String, label: &str, bytes: u128, units: Units) {
    out.push_str(&format!(
        "  {label:<28}{:>14}   ({} bytes)\n",
        size(bytes, units),
        group_bytes(bytes)
    ));
}
