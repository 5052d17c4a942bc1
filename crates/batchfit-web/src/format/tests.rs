use super::*;

#[test]
fn swatches_in_the_stylesheet_have_the_charts_colours() {
    let css = include_str!("../../../../style/main.css").to_ascii_lowercase();
    for component in Component::ALL {
        let rule = format!(
            ".{} {{ background: {}; }}",
            swatch_class(component),
            crate::charts::color_hex(component).to_ascii_lowercase()
        );
        assert!(css.contains(&rule), "style/main.css lacks `{rule}`");
    }
}

/// The presets that are descriptions read in the page's language; the
/// names of products stay, and the English ones are the core's.
#[test]
fn device_descriptions_follow_the_language() {
    use batchfit_core::presets::DEVICES;
    for preset in DEVICES {
        assert_eq!(preset_name(Lang::En, preset), preset.name, "{}", preset.id);
    }
    let cpu = DEVICES
        .iter()
        .find(|d| d.id == "cpu-16gb")
        .expect("a CPU preset");
    assert_eq!(preset_name(Lang::Es, cpu), "CPU, 16 GB de RAM");
    let apple = DEVICES
        .iter()
        .find(|d| d.id == "apple-64gb")
        .expect("an Apple preset");
    assert_eq!(
        preset_name(Lang::Es, apple),
        "Apple silicon, 64 GB de memoria unificada"
    );
    let h100 = DEVICES
        .iter()
        .find(|d| d.id == "h100-80gb")
        .expect("an H100");
    assert_eq!(preset_name(Lang::Es, h100), preset_name(Lang::En, h100));
}

#[test]
fn prose_sizes_have_three_significant_figures() {
    for (bytes, want) in [
        (98_400_000_000, "98.4 GB"),
        (5_368_709_120, "5.37 GB"),
        (171_798_691_840, "172 GB"),
        (999, "999 B"),
    ] {
        assert_eq!(short(Lang::En, bytes, Units::Decimal), want);
        // Spanish writes the decimal comma (issue 28): "98,4 GB".
        assert_eq!(
            short(Lang::Es, bytes, Units::Decimal),
            want.replace('.', ",")
        );
    }
}

/// A need said to fit is printed rounded down, never above the capacity it
/// fits: 25.75 GB on a 25.76 GB card reads 25.7, not 25.8 (issue 28).
#[test]
fn a_need_that_fits_is_never_printed_above_the_capacity() {
    assert_eq!(short(Lang::En, 25_750_000_000, Units::Decimal), "25.8 GB");
    assert_eq!(
        short_down(Lang::En, 25_750_000_000, Units::Decimal),
        "25.7 GB"
    );
    assert_eq!(
        short_down(Lang::Es, 25_750_000_000, Units::Decimal),
        "25,7 GB"
    );
}

/// A share as CSS reads it: hundredths of a percent, rounded down; a whole
/// of nothing and parts past any width never panic.
#[test]
fn a_share_reads_as_a_css_percentage() {
    assert_eq!(percent(1, 3), "33.33%");
    assert_eq!(percent(2, 3), "66.66%");
    assert_eq!(percent(80, 80), "100.00%");
    assert_eq!(percent(0, 0), "0.00%");
    assert_eq!(percent(5, 0), "500.00%");
    assert_eq!(percent(79_645_851_648, 473_551_659_008), "16.81%");
    assert!(percent(u128::MAX, 1).ends_with('%'));
}
