//! Statistics of percentage errors: medians, summaries, groups and headlines.

/// Signed percentage error of an estimate against a measurement.
pub fn percent_error(estimate: f64, measured: f64) -> f64 {
    (estimate - measured) / measured * 100.0
}

/// The median of `values` (mean of the middle two for an even count), `None` if empty.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// Absolute-error statistics of a group of rows.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub rows: usize,
    /// Median absolute percentage error.
    pub median: f64,
    /// The signed error of the row furthest off.
    pub worst: f64,
    /// Shares of rows (0–1) whose absolute error is at most 10 % and 30 %.
    pub within_10: f64,
    pub within_30: f64,
}

/// The statistics of signed percentage errors; `None` for no rows.
pub fn summarize(errors: &[f64]) -> Option<Summary> {
    let absolute: Vec<f64> = errors.iter().map(|e| e.abs()).collect();
    let median = median(&absolute)?;
    let worst = errors
        .iter()
        .copied()
        .max_by(|a, b| a.abs().total_cmp(&b.abs()))?;
    let share = |limit: f64| {
        absolute.iter().filter(|&&e| e <= limit).count() as f64 / absolute.len() as f64
    };
    Some(Summary {
        rows: errors.len(),
        median,
        worst,
        within_10: share(10.0),
        within_30: share(30.0),
    })
}

/// Signed errors grouped by key, groups in order of first appearance.
pub fn group_by<K: PartialEq + Clone>(
    items: impl IntoIterator<Item = (K, f64)>,
) -> Vec<(K, Vec<f64>)> {
    let mut groups: Vec<(K, Vec<f64>)> = Vec::new();
    for (key, error) in items {
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, errors)) => errors.push(error),
            None => groups.push((key, vec![error])),
        }
    }
    groups
}

/// The headline of a set of sources: the median over sources of each
/// source's median absolute error (so that no one large table dominates),
/// and the shares of all their rows within 10 % and 30 %.
#[derive(Clone, Debug, PartialEq)]
pub struct Headline {
    pub sources: usize,
    pub median_of_medians: f64,
    /// Over the rows of all the sources together.
    pub rows: Summary,
}

/// The headline over `groups` (one per source, of signed errors); `None` when
/// no source has a row.
pub fn headline<K>(groups: &[(K, Vec<f64>)]) -> Option<Headline> {
    let medians: Vec<f64> = groups
        .iter()
        .filter_map(|(_, errors)| summarize(errors).map(|s| s.median))
        .collect();
    let all: Vec<f64> = groups.iter().flat_map(|(_, e)| e.iter().copied()).collect();
    Some(Headline {
        sources: medians.len(),
        median_of_medians: median(&medians)?,
        rows: summarize(&all)?,
    })
}
