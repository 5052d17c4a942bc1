//! Integer arithmetic shared by the model's modules, a leaf that imports nothing.

/// `n / d` rounded up, in 64-bit arithmetic when both fit, as byte counts do
/// by far: a 128-bit division is a library call (`__udivti3`) on every target,
/// and the search for the largest batch divides at every step
/// (docs/performance-log.md). A zero `d` counts as 1, so that no count of
/// ranks or blocks can make the model panic.
pub(crate) fn div_ceil(n: u128, d: u128) -> u128 {
    let d = d.max(1);
    match (u64::try_from(n), u64::try_from(d)) {
        (Ok(n), Ok(d)) => u128::from(n.div_ceil(d)),
        _ => n.div_ceil(d),
    }
}

#[cfg(test)]
mod tests {
    use super::div_ceil;

    #[test]
    fn rounds_up_in_both_widths_and_treats_a_zero_divisor_as_one() {
        assert_eq!(div_ceil(7, 2), 4);
        assert_eq!(div_ceil(8, 2), 4);
        assert_eq!(div_ceil(0, 3), 0);
        assert_eq!(div_ceil(5, 0), 5);
        let big = u128::from(u64::MAX) * 3 + 1;
        assert_eq!(div_ceil(big, 3), u128::from(u64::MAX) + 1);
    }
}
