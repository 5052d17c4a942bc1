//! The validation range of `batchfit_core::confidence`: from every row that
//! `cargo xtask accuracy` compares, per reading and per framework profile,
//! the 10th and 90th percentiles of `(measured − predicted) / predicted`,
//! each source weighing the same, written as `crates/batchfit-core/src/confidence/table.rs`
//! and as a section of docs/accuracy.md.
//!
//! The statistic. A percentile, not a mean and deviation: the errors are
//! skewed and have long tails (a missing term is a one-sided error), and a
//! percentile is a row's own error, not a fitted shape. The 10th and 90th:
//! wide enough to say where most runs fell, narrow enough that one row at
//! −79 % does not set the range. Each source weighs the same (a row of a
//! source with n rows weighs 1/n), as the headline of docs/accuracy.md
//! counts sources, because one long table would otherwise set the range:
//! the low end is the smallest error at or below which at least 10 % of the
//! weight lies, the high end the largest at or above which at least 10 %
//! lies, so that less than 10 % of the weight is outside either end and more
//! than 80 % within. A range needs `MIN_ROWS` rows from `MIN_SOURCES`
//! sources: with fewer sources one source's stack holds a third of the
//! weight or more, and with fewer rows the percentiles are the extremes.

use std::fmt::Write as _;

use batchfit_core::confidence::{Bounds, Cell, Reading};
use batchfit_core::transformer::Framework;

pub const LOW_PERCENTILE: u32 = 10;
pub const HIGH_PERCENTILE: u32 = 90;
pub const MIN_ROWS: u32 = 10;
pub const MIN_SOURCES: u32 = 3;

/// The generated core file, relative to the repository root.
pub const TABLE_PATH: &str = "crates/batchfit-core/src/confidence/table.rs";

/// One validation row, as compared with the current model: its source, the
/// reading it measured, the profile its query names, and both sizes in bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub source: String,
    pub reading: Reading,
    pub profile: Framework,
    pub measured: f64,
    pub predicted: f64,
}

impl Sample {
    /// `(measured − predicted) / predicted` in basis points, computed so that
    /// whole byte counts whose error is a whole number of basis points give it
    /// exactly (one division, last), before the ends are rounded outwards.
    fn basis_points(&self) -> f64 {
        (self.measured - self.predicted) * 10_000.0 / self.predicted
    }
}

/// Every cell: per reading, the pooled cell, then each profile with a row.
pub fn cells(samples: &[Sample]) -> Result<Vec<Cell>, String> {
    if let Some(bad) = samples
        .iter()
        .find(|s| !(s.predicted > 0.0 && s.measured >= 0.0))
    {
        return Err(format!(
            "a validation row of {} has a prediction of {} and a measurement of {} bytes",
            bad.source, bad.predicted, bad.measured
        ));
    }
    let mut out = Vec::new();
    for &reading in Reading::ALL {
        let of_reading: Vec<&Sample> = samples.iter().filter(|s| s.reading == reading).collect();
        if of_reading.is_empty() {
            continue;
        }
        out.push(cell(reading, None, &of_reading)?);
        for &profile in Framework::ALL {
            let rows: Vec<&Sample> = of_reading
                .iter()
                .copied()
                .filter(|s| s.profile == profile)
                .collect();
            if !rows.is_empty() {
                out.push(cell(reading, Some(profile), &rows)?);
            }
        }
    }
    Ok(out)
}

fn cell(reading: Reading, profile: Option<Framework>, rows: &[&Sample]) -> Result<Cell, String> {
    let mut sources: Vec<(&str, u128)> = Vec::new();
    for s in rows {
        match sources.iter_mut().find(|(name, _)| *name == s.source) {
            Some((_, n)) => *n += 1,
            None => sources.push((&s.source, 1)),
        }
    }
    let count = |n: usize| u32::try_from(n).map_err(|_| "more rows than a u32 counts".to_owned());
    let (n_rows, n_sources) = (count(rows.len())?, count(sources.len())?);
    let range = if n_rows >= MIN_ROWS && n_sources >= MIN_SOURCES {
        Some(bounds(rows, &sources)?)
    } else {
        None
    };
    Ok(Cell {
        reading,
        profile,
        rows: n_rows,
        sources: n_sources,
        range,
    })
}

/// The source-weighted percentiles, exactly: each row weighs L / n of its
/// source's n rows, L the least common multiple of the sources' row counts,
/// so the weights are whole and each source's sum to L.
fn bounds(rows: &[&Sample], sources: &[(&str, u128)]) -> Result<Bounds, String> {
    let too_many = || "the sources' row counts have no common multiple in a u128".to_owned();
    let mut lcm: u128 = 1;
    for &(_, n) in sources {
        lcm = (lcm / gcd(lcm, n)).checked_mul(n).ok_or_else(too_many)?;
    }
    // The total weight, and 100 × it, must fit.
    let total = lcm
        .checked_mul(sources.len() as u128)
        .filter(|t| t.checked_mul(100).is_some())
        .ok_or_else(too_many)?;
    let mut weighted: Vec<(f64, u128)> = rows
        .iter()
        .map(|s| {
            let n = sources
                .iter()
                .find(|(name, _)| *name == s.source)
                .map_or(1, |&(_, n)| n);
            (s.basis_points(), lcm / n)
        })
        .collect();
    weighted.sort_by(|a, b| a.0.total_cmp(&b.0));
    // The weight at or beyond a row holds `percent` % of the total.
    let reaches = |cumulative: u128, percent: u32| cumulative * 100 >= u128::from(percent) * total;
    let mut below = 0;
    let low = weighted
        .iter()
        .find(|(_, w)| {
            below += w;
            reaches(below, LOW_PERCENTILE)
        })
        .map(|&(e, _)| e);
    let mut above = 0;
    let high = weighted
        .iter()
        .rev()
        .find(|(_, w)| {
            above += w;
            reaches(above, 100 - HIGH_PERCENTILE)
        })
        .map(|&(e, _)| e);
    let (Some(low), Some(high)) = (low, high) else {
        return Err("a cell with a range has no rows".into());
    };
    Ok(Bounds {
        low: whole_basis_points(low.floor())?,
        high: whole_basis_points(high.ceil())?,
    })
}

/// How often the range holds a row it did not see: for each source, the
/// cells computed without that source's rows, and each of its rows checked
/// against the range the page would show for it (its profile's, or every
/// profile's pooled where its own are too few). Rows with no range at all
/// (too few rows of their reading elsewhere) are not counted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coverage {
    /// Rows that had a range, and those whose measurement fell inside it.
    pub rows: usize,
    pub inside: usize,
    /// The share inside with each source weighing the same.
    pub weighted: f64,
    pub sources: usize,
}

pub fn held_out_coverage(samples: &[Sample]) -> Result<Coverage, String> {
    let mut names: Vec<&str> = samples.iter().map(|s| s.source.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let (mut rows, mut inside, mut weighted, mut sources) = (0, 0, 0.0, 0);
    for name in names {
        let others: Vec<Sample> = samples
            .iter()
            .filter(|s| s.source != name)
            .cloned()
            .collect();
        let cells = cells(&others)?;
        let range_of = |s: &Sample| {
            let find = |profile| {
                cells
                    .iter()
                    .find(|c| c.reading == s.reading && c.profile == profile)
                    .and_then(|c| c.range)
            };
            find(Some(s.profile)).or_else(|| find(None))
        };
        let checked: Vec<bool> = samples
            .iter()
            .filter(|s| s.source == name)
            .filter_map(|s| {
                let b = range_of(s)?;
                let error = s.basis_points();
                Some(f64::from(b.low) <= error && error <= f64::from(b.high))
            })
            .collect();
        if checked.is_empty() {
            continue;
        }
        let held = checked.iter().filter(|&&x| x).count();
        rows += checked.len();
        inside += held;
        weighted += held as f64 / checked.len() as f64;
        sources += 1;
    }
    Ok(Coverage {
        rows,
        inside,
        weighted: if sources == 0 {
            0.0
        } else {
            weighted / sources as f64
        },
        sources,
    })
}

fn gcd(a: u128, b: u128) -> u128 {
    if b == 0 { a } else { gcd(b, a % b) }
}

fn whole_basis_points(value: f64) -> Result<i32, String> {
    if value.is_finite() && value >= f64::from(i32::MIN) && value <= f64::from(i32::MAX) {
        Ok(value as i32)
    } else {
        Err(format!("an error of {value} basis points is out of range"))
    }
}

/// The generated `table.rs`.
pub fn table_rs(cells: &[Cell]) -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(
        w,
        "//! Generated by `cargo xtask accuracy` (crates/xtask/src/confidence.rs) from\n\
         //! validation/measurements.csv, validation/preregistered.csv and\n\
         //! validation/gpu-measurements.csv; do not edit by hand. `cargo xtask\n\
         //! accuracy --check` fails when it differs from what the rows give.\n"
    );
    let _ = writeln!(w, "use super::{{Bounds, Cell, Reading}};");
    let _ = writeln!(w, "use crate::transformer::Framework;\n");
    let consts = [
        (
            "LOW_PERCENTILE",
            LOW_PERCENTILE,
            "The percentile of a range's low end.",
        ),
        (
            "HIGH_PERCENTILE",
            HIGH_PERCENTILE,
            "The percentile of a range's high end.",
        ),
        (
            "MIN_ROWS",
            MIN_ROWS,
            "The fewest rows a cell needs for a range.",
        ),
        (
            "MIN_SOURCES",
            MIN_SOURCES,
            "The fewest sources a cell needs for a range.",
        ),
    ];
    for (name, value, doc) in consts {
        let _ = writeln!(w, "/// {doc}\npub const {name}: u32 = {value};");
    }
    let _ = writeln!(
        w,
        "\n/// Per reading: every profile pooled, then each profile with a row.\n\
         #[rustfmt::skip]\n\
         pub const CELLS: &[Cell] = &["
    );
    for c in cells {
        let profile = c
            .profile
            .map_or("None".to_owned(), |p| format!("Some(Framework::{p:?})"));
        let range = c.range.map_or("None".to_owned(), |b| {
            format!("Some(Bounds {{ low: {}, high: {} }})", b.low, b.high)
        });
        let _ = writeln!(
            w,
            "    Cell {{ reading: Reading::{:?}, profile: {profile}, rows: {}, sources: {}, range: {range} }},",
            c.reading, c.rows, c.sources
        );
    }
    let _ = writeln!(w, "];");
    out
}

/// A signed percentage from basis points: "-6.25 %".
fn percent(basis_points: i32) -> String {
    let sign = if basis_points < 0 { "−" } else { "+" };
    let abs = basis_points.unsigned_abs();
    format!("{sign}{}.{:02} %", abs / 100, abs % 100)
}

/// The docs/accuracy.md section.
pub fn markdown(cells: &[Cell], coverage: &Coverage) -> String {
    let mut out = String::new();
    let w = &mut out;
    let _ = writeln!(w, "\n## How sure is \"fits\"\n");
    let _ = writeln!(
        w,
        "batchfit shows, next to the answer (`batchfit_core::confidence`), the range of bytes that runs like this \
         one measured: the estimate's reading × (1 + low) … × (1 + high), where low and high are \
         the {LOW_PERCENTILE}th and {HIGH_PERCENTILE}th percentiles of the signed error \
         (measured − predicted) / predicted of the rows compared above (the current model, \
         pre-registered rows included as they are now, our own GPU runs as one more source), over \
         the rows whose query names the configuration's framework profile. Each source weighs the \
         same (a row of a source with n rows weighs 1/n), so less than {LOW_PERCENTILE} % of the \
         weight lies below the low end, less than {} % above the high end. A positive error is a \
         run that used more than batchfit predicted: the high end is the pessimistic one. A \
         profile with fewer than {MIN_ROWS} rows or {MIN_SOURCES} sources for a reading takes the \
         range of every profile pooled (\"any\"), and says so. Rows are counted by the reading \
         they measured: allocator statistics and rows whose metric is not stated as allocated, \
         `max_memory_reserved` as reserved, device-wide rows (nvidia-smi, NVML) as nvidia-smi, \
         compared there with batchfit's own nvidia-smi reading (its default overhead, not the \
         context a source measured, because that is the number the range is applied to); rows \
         that add the memory outside PyTorch to the peak allocated match none of the three and are \
         left out. The verdict compares `required` at each end with the device: \"fits\" when \
         even the pessimistic end fits, \"does not fit\" when not even the optimistic end does, \
         \"fits only at the optimistic end\" between (the estimate fits and the pessimistic end \
         does not, or the estimate does not fit and the optimistic end does). `required` is nvidia-smi's reading plus the margin, \
         so the verdict takes nvidia-smi's range; where that reading has no range, the reserved \
         bytes' range with the overhead as set, then the allocated bytes' with the allocator's \
         cache and the overhead as estimated, and says which. The ends never exclude the estimate \
         itself: where every row of a range measured above it (or every one below), the estimate \
         is the optimistic (or pessimistic) end, so validation data can make \"fits\" less sure, \
         never surer than the estimate. Generated into `{TABLE_PATH}` by the same command; \
         `cargo xtask accuracy --check` fails when either file differs from what the rows give.\n",
        100 - HIGH_PERCENTILE
    );
    let _ = writeln!(
        w,
        "**Does the range hold runs it has not seen?** Each source in turn left out, the ranges \
         computed from the others, and each of its rows checked against the range the page \
         would show it (its profile's, or every profile's pooled): {} of {} rows measured inside \
         ({:.0} %), {:.0} % with each of the {} sources weighing the same. Built to hold more \
         than {} % of the weight it comes from, the range holds this much of what it did not \
         come from.\n",
        coverage.inside,
        coverage.rows,
        coverage.inside as f64 * 100.0 / coverage.rows.max(1) as f64,
        coverage.weighted * 100.0,
        coverage.sources,
        HIGH_PERCENTILE - LOW_PERCENTILE,
    );
    let _ = writeln!(
        w,
        "| reading | profile | rows | sources | low ({LOW_PERCENTILE}th percentile) | high ({HIGH_PERCENTILE}th percentile) |"
    );
    let _ = writeln!(w, "|---|---|---:|---:|---:|---:|");
    for c in cells {
        let profile = c.profile.map_or("any", |p| p.name());
        let (low, high) = match (c.range, c.profile) {
            (Some(b), _) => (percent(b.low), percent(b.high)),
            (None, Some(_)) => ("too few: any".to_owned(), "too few: any".to_owned()),
            (None, None) => ("too few".to_owned(), "too few".to_owned()),
        };
        let _ = writeln!(
            w,
            "| {} | {profile} | {} | {} | {low} | {high} |",
            c.reading.name(),
            c.rows,
            c.sources
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(source: &str, reading: Reading, profile: Framework, error_bp: i32) -> Sample {
        Sample {
            source: source.to_owned(),
            reading,
            profile,
            measured: 1e9 * (10_000.0 + f64::from(error_bp)) / 10_000.0,
            predicted: 1e9,
        }
    }

    #[test]
    fn the_held_out_range_is_made_without_the_row_s_source() {
        // Eleven sources of one row each, errors −5 % … +5 %. Leaving one out,
        // the others' range runs from their lowest to their highest but one
        // (ten rows: the first and the last hold 10 % each), so both ends
        // fall outside when they are the ones left out.
        let rows: Vec<Sample> = (0..11)
            .map(|i| {
                sample(
                    &format!("S{i:02}"),
                    Reading::Allocated,
                    Framework::Custom,
                    -500 + 100 * i,
                )
            })
            .collect();
        let c = held_out_coverage(&rows).expect("coverage");
        assert_eq!((c.rows, c.inside, c.sources), (11, 9, 11), "{c:?}");
        assert!((c.weighted - 9.0 / 11.0).abs() < 1e-12);
        // A source whose reading has no range elsewhere is not counted.
        let mut more = rows.clone();
        more.push(sample("lone", Reading::Reserved, Framework::Custom, 0));
        assert_eq!(held_out_coverage(&more).expect("coverage").rows, 11);
    }

    #[test]
    fn equal_sources_give_the_row_percentiles() {
        // Ten sources of one row each, errors −5 % … +4 %: at least 10 % of
        // the weight at or below −5 % (the first row), at or above +4 %.
        let rows: Vec<Sample> = (0..10)
            .map(|i| {
                sample(
                    &format!("S{i}"),
                    Reading::Allocated,
                    Framework::Custom,
                    -500 + 100 * i,
                )
            })
            .collect();
        let all = cells(&rows).expect("cells");
        assert_eq!(all.len(), 2, "{all:?}");
        assert_eq!(all[0].profile, None);
        assert_eq!(all[1].profile, Some(Framework::Custom));
        for c in &all {
            assert_eq!((c.rows, c.sources), (10, 10));
            assert_eq!(
                c.range,
                Some(Bounds {
                    low: -500,
                    high: 400
                })
            );
        }
        // Twenty rows of twenty sources: the second from each end.
        let rows: Vec<Sample> = (0..20)
            .map(|i| {
                sample(
                    &format!("S{i}"),
                    Reading::Reserved,
                    Framework::Megatron,
                    i * 10,
                )
            })
            .collect();
        let c = cells(&rows).expect("cells")[0];
        assert_eq!(c.range, Some(Bounds { low: 10, high: 180 }));
    }

    #[test]
    fn a_long_source_weighs_as_one() {
        // Source A: 20 rows at +30 %; B, C, D, E: one row each at −10 %, −5 %,
        // 0 %, +5 %. Weights: A's rows 1/20 each, 5 sources in all. From below:
        // −10 % alone holds 1 of 5 ≥ 10 %. From above: A's +30 % holds 1 of 5.
        let mut rows: Vec<Sample> = (0..20)
            .map(|_| sample("A", Reading::NvidiaSmi, Framework::HfTrainer, 3000))
            .collect();
        for (name, e) in [("B", -1000), ("C", -500), ("D", 0), ("E", 500)] {
            rows.push(sample(name, Reading::NvidiaSmi, Framework::HfTrainer, e));
        }
        let c = cells(&rows).expect("cells")[0];
        assert_eq!((c.rows, c.sources), (24, 5));
        assert_eq!(
            c.range,
            Some(Bounds {
                low: -1000,
                high: 3000
            })
        );
        // A at −50 % instead: its fifth of the weight sets the low end, and
        // E's +5 %, a fifth too, the high end (unweighted, the top 10 % of 24
        // rows would be three rows, reaching down to C's −5 %).
        for row in rows.iter_mut().filter(|r| r.source == "A") {
            row.measured = 0.5e9;
        }
        let c = cells(&rows).expect("cells")[0];
        assert_eq!(
            c.range,
            Some(Bounds {
                low: -5000,
                high: 500
            })
        );
    }

    #[test]
    fn thin_profiles_have_counts_and_no_range() {
        let mut rows: Vec<Sample> = (0..12)
            .map(|i| {
                sample(
                    &format!("S{}", i % 4),
                    Reading::Allocated,
                    Framework::Custom,
                    i,
                )
            })
            .collect();
        // Megatron: 9 rows of 3 sources, one short of the rows needed.
        rows.extend((0..9).map(|i| {
            sample(
                &format!("M{}", i % 3),
                Reading::Allocated,
                Framework::Megatron,
                -i,
            )
        }));
        let all = cells(&rows).expect("cells");
        let megatron = all
            .iter()
            .find(|c| c.profile == Some(Framework::Megatron))
            .expect("a cell");
        assert_eq!(
            (megatron.rows, megatron.sources, megatron.range),
            (9, 3, None)
        );
        let pooled = all[0];
        assert_eq!((pooled.rows, pooled.sources), (21, 7));
        assert!(pooled.range.is_some());
        let custom = all
            .iter()
            .find(|c| c.profile == Some(Framework::Custom))
            .expect("a cell");
        assert_eq!((custom.rows, custom.sources), (12, 4));
        assert!(custom.range.is_some());
    }

    #[test]
    fn ends_round_outwards_and_bad_rows_are_errors() {
        let rows: Vec<Sample> = (0..10)
            .map(|i| Sample {
                source: format!("S{i}"),
                reading: Reading::Allocated,
                profile: Framework::Custom,
                // −3.333… % and +3.333… %.
                measured: if i < 5 { 29.0 } else { 31.0 },
                predicted: 30.0,
            })
            .collect();
        let c = cells(&rows).expect("cells")[0];
        assert_eq!(
            c.range,
            Some(Bounds {
                low: -334,
                high: 334
            })
        );
        let mut bad = rows.clone();
        bad[0].predicted = 0.0;
        assert!(cells(&bad).is_err());
    }

    #[test]
    fn the_table_is_rust_the_core_reads() {
        let cells = vec![
            Cell {
                reading: Reading::Allocated,
                profile: None,
                rows: 12,
                sources: 4,
                range: Some(Bounds {
                    low: -600,
                    high: 400,
                }),
            },
            Cell {
                reading: Reading::Allocated,
                profile: Some(Framework::HfGenerate),
                rows: 2,
                sources: 1,
                range: None,
            },
        ];
        let text = table_rs(&cells);
        assert!(text.contains(
            "    Cell { reading: Reading::Allocated, profile: None, rows: 12, sources: 4, range: Some(Bounds { low: -600, high: 400 }) },\n"
        ));
        assert!(text.contains(
            "    Cell { reading: Reading::Allocated, profile: Some(Framework::HfGenerate), rows: 2, sources: 1, range: None },\n"
        ));
        assert!(text.contains("pub const MIN_ROWS: u32 = 10;"));
        let coverage = Coverage {
            rows: 8,
            inside: 6,
            weighted: 0.7,
            sources: 4,
        };
        let docs = markdown(&cells, &coverage);
        assert!(
            docs.contains("6 of 8 rows measured inside (75 %), 70 % with each of the 4 sources"),
            "{docs}"
        );
        assert!(
            docs.contains("| allocated | any | 12 | 4 | −6.00 % | +4.00 % |"),
            "{docs}"
        );
        assert!(docs.contains("| allocated | hf_generate | 2 | 1 | too few: any | too few: any |"));
    }
}
