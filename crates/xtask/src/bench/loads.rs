//! The side-by-side loads of batchfit and gpu_poor (tests/e2e/perf.rs):
//! first paint, first answer and the bytes before it in each profile, what
//! each site fetches without a user action, and the budgets of issues 17 and
//! 31 read from them.

use std::path::Path;

use batchfit_core::import::json::Json;

use super::{
    BYTES_BEFORE_ANSWER_BUDGET, Budget, FETCHED_WITHOUT_ACTION_BUDGET, FIRST_PAINT_SPEEDUP_BUDGET,
    GPU_POOR, PHONE_ANSWER_BUDGET_MS, Site, kb, numbers_by_name, read_json,
};

/// Medians of one site's loads in one network profile, in ms from navigation
/// start, and of the bytes it had fetched by its first answer.
#[derive(Debug)]
struct SiteLoads {
    site: String,
    /// The bodies, as sent, of what had arrived by the first answer.
    bytes_before_answer: f64,
    /// A form input visible, at the next frame.
    paint_ms: f64,
    /// batchfit: the first estimate in the DOM; gpu_poor: its form in the DOM.
    answer_ms: f64,
    /// Chromium's own first-contentful-paint entry.
    first_contentful_paint_ms: f64,
    loads: usize,
}

/// One network profile of the side-by-side load benchmark.
#[derive(Debug)]
struct ProfileLoads {
    name: String,
    /// How fresh each load's browser was: `context` (a new browser context in
    /// one running Chromium, issue 17's method, which the budgets read) or
    /// `browser` (a new Chromium per load).
    fresh: String,
    sites: Vec<SiteLoads>,
}

/// The `fresh` of the loads issue 17's budgets are measured on.
const BUDGETED_LOADS: &str = "context";

impl ProfileLoads {
    fn site(&self, name: &str) -> Option<&SiteLoads> {
        self.sites.iter().find(|s| s.site == name)
    }
}

/// The side-by-side load benchmark's figures (tests/e2e/perf.rs).
#[derive(Debug)]
pub(super) struct LoadFigures {
    page: String,
    profiles: Vec<ProfileLoads>,
    /// Per site: everything it fetched without a user action, as sent.
    fetched_without_action: Vec<(String, f64)>,
    /// Per profile: batchfit's interface after the visitor's first action.
    after_action: Vec<AfterAction>,
}

/// The visitor's first action on batchfit's page in one profile: medians of
/// the ms from the key's event to the interface built, and of the bytes,
/// as sent, fetched in between.
#[derive(Debug)]
struct AfterAction {
    profile: String,
    interface_ms: f64,
    bytes: f64,
    loads: usize,
}

/// Runs the ignored side-by-side test of the end-to-end suite, with gpu_poor
/// when `gpu_poor` (its built site) is given; a failure is reported in the
/// document rather than stopping the other measurements.
pub(super) fn loads_bench(
    root: &Path,
    work: &Path,
    gpu_poor: Option<&Path>,
) -> Result<LoadFigures, String> {
    let out = work.join("loads.json");
    super::run_e2e_bench(
        root,
        "first paint and first answer beside gpu_poor (built dist/, headless Chromium)",
        "first_paint_and_answer",
        ("BATCHFIT_LOADS_OUT", &out),
        gpu_poor.map(|site| ("BATCHFIT_GPU_POOR", site)),
    )?;
    let figures = read_json(&out)?;
    let page = match figures.get("page") {
        Some(Json::String(page)) => page.clone(),
        _ => String::new(),
    };
    let Some(Json::Array(profiles)) = figures.get("profiles") else {
        return Err(format!("{}: no profiles", out.display()));
    };
    let mut parsed = Vec::new();
    for profile in profiles {
        let (Some(Json::String(name)), Some(Json::String(fresh)), Some(Json::Object(sites))) = (
            profile.get("name"),
            profile.get("fresh"),
            profile.get("sites"),
        ) else {
            return Err(format!(
                "{}: a profile without name, fresh or sites",
                out.display()
            ));
        };
        let mut by_site = Vec::new();
        for (site, f) in sites {
            let number = |key: &str| match f.get(key) {
                Some(Json::Number(x)) => Ok(*x),
                _ => Err(format!("{}: {name}, {site}: no {key}", out.display())),
            };
            let loads = match f.get("paint_ms") {
                Some(Json::Array(items)) => items.len(),
                _ => 0,
            };
            by_site.push(SiteLoads {
                site: site.clone(),
                bytes_before_answer: number("bytes_before_answer_median")?,
                paint_ms: number("paint_median_ms")?,
                answer_ms: number("answer_median_ms")?,
                first_contentful_paint_ms: number("first_contentful_paint_median_ms")?,
                loads,
            });
        }
        parsed.push(ProfileLoads {
            name: name.clone(),
            fresh: fresh.clone(),
            sites: by_site,
        });
    }
    let fetched_without_action = figures
        .get("fetched_without_action")
        .map(numbers_by_name)
        .ok_or_else(|| format!("{}: no fetched_without_action", out.display()))?;
    let mut after_action = Vec::new();
    if let Some(Json::Object(by_profile)) = figures.get("after_action") {
        for (profile, f) in by_profile {
            let number = |key: &str| match f.get(key) {
                Some(Json::Number(x)) => Ok(*x),
                _ => Err(format!(
                    "{}: after_action, {profile}: no {key}",
                    out.display()
                )),
            };
            after_action.push(AfterAction {
                profile: profile.clone(),
                interface_ms: number("interface_median_ms")?,
                bytes: number("bytes_median")?,
                loads: match f.get("interface_ms") {
                    Some(Json::Array(items)) => items.len(),
                    _ => 0,
                },
            });
        }
    }
    Ok(LoadFigures {
        page,
        profiles: parsed,
        fetched_without_action,
        after_action,
    })
}

/// Issue 31's weights, measured in the browser on the bench's page: what
/// arrived before the first estimate was in the DOM (unthrottled, fresh
/// contexts), and everything fetched without a user action.
pub(super) fn weight_budgets(bundle: &Site, loads: &Result<LoadFigures, String>) -> Vec<Budget> {
    let unthrottled = loads.as_ref().ok().and_then(|figures| {
        figures
            .profiles
            .iter()
            .find(|p| p.fresh == BUDGETED_LOADS && !p.name.starts_with(PHONE))
            .and_then(|p| p.site("batchfit"))
    });
    let fetched = loads.as_ref().ok().and_then(|figures| {
        figures
            .fetched_without_action
            .iter()
            .find(|(site, _)| site == "batchfit")
            .map(|(_, bytes)| *bytes)
    });
    let not_measured = || match loads {
        Err(why) => format!("not measured: {why}"),
        Ok(_) => "not measured".to_owned(),
    };
    vec![
        Budget {
            what: "bytes fetched before the first estimate is in the DOM, as sent (gzip)"
                .to_owned(),
            budget: format!("≤ {} KB", kb(BYTES_BEFORE_ANSWER_BUDGET as u64)),
            measured: unthrottled.map_or_else(not_measured, |s| {
                format!("{} KB", kb(s.bytes_before_answer as u64))
            }),
            within: unthrottled.map(|s| s.bytes_before_answer <= BYTES_BEFORE_ANSWER_BUDGET),
        },
        Budget {
            what: format!(
                "everything fetched without a user action, as sent (gzip; the first load \
                 alone, gzip -9: {} KB)",
                kb(bundle.gzip())
            ),
            budget: format!("≤ {} KB", kb(FETCHED_WITHOUT_ACTION_BUDGET as u64)),
            measured: fetched.map_or_else(not_measured, |b| format!("{} KB", kb(b as u64))),
            within: fetched.map(|b| b <= FETCHED_WITHOUT_ACTION_BUDGET),
        },
    ]
}

/// The start of the phone profile's name (tests/e2e/perf.rs).
const PHONE: &str = "phone";

/// Issue 17's budgets, per network profile, on the loads in fresh browser
/// contexts: batchfit's first paint against gpu_poor's form, and batchfit's
/// first answer against the same form; in the phone profile, issue 31's
/// first answer within 1.5 s.
pub(super) fn load_budgets(loads: &Result<LoadFigures, String>) -> Vec<Budget> {
    let profiles = match loads {
        Ok(figures) => figures
            .profiles
            .iter()
            .filter(|p| p.fresh == BUDGETED_LOADS)
            .map(|p| (p.name.as_str(), Some(p)))
            .collect(),
        Err(_) => vec![("every profile", None)],
    };
    let mut out = Vec::new();
    for (name, profile) in profiles {
        if name.starts_with(PHONE) {
            let ours = profile.and_then(|p| p.site("batchfit"));
            out.push(Budget {
                what: format!("first answer (estimate in the DOM), {name}"),
                budget: format!("≤ {} s", PHONE_ANSWER_BUDGET_MS / 1000.0),
                measured: ours.map_or_else(
                    || "not measured".to_owned(),
                    |s| format!("{:.1} ms", s.answer_ms),
                ),
                within: ours.map(|s| s.answer_ms <= PHONE_ANSWER_BUDGET_MS),
            });
            continue;
        }
        let pair = profile.and_then(|p| Some((p.site("batchfit")?, p.site(GPU_POOR)?)));
        let not_measured = || match (loads, profile) {
            (Err(why), _) => format!("not measured: {why}"),
            _ => format!("not measured: no {GPU_POOR} site (see above)"),
        };
        out.push(Budget {
            what: format!(
                "first paint (a form input visible), {name}: × sooner than {GPU_POOR}'s form"
            ),
            budget: format!("≥ {FIRST_PAINT_SPEEDUP_BUDGET:.1}×"),
            measured: pair.map_or_else(not_measured, |(ours, theirs)| {
                format!(
                    "{:.2}× ({:.1} ms against {:.1} ms)",
                    theirs.paint_ms / ours.paint_ms,
                    ours.paint_ms,
                    theirs.paint_ms
                )
            }),
            within: pair.map(|(ours, theirs)| {
                theirs.paint_ms / ours.paint_ms >= FIRST_PAINT_SPEEDUP_BUDGET
            }),
        });
        out.push(Budget {
            what: format!(
                "first answer (estimate in the DOM), {name}: against {GPU_POOR}'s empty form"
            ),
            budget: "no later".to_owned(),
            measured: pair.map_or_else(not_measured, |(ours, theirs)| {
                format!(
                    "{:.1} ms against {:.1} ms",
                    ours.answer_ms, theirs.answer_ms
                )
            }),
            within: pair.map(|(ours, theirs)| ours.answer_ms <= theirs.answer_ms),
        });
    }
    out
}

/// The side-by-side table: each site's medians per network profile, and
/// gpu_poor's over batchfit's.
pub(super) fn loads_section(loads: &Result<LoadFigures, String>) -> String {
    let mut out = String::from(
        "## First paint and first answer beside gpu_poor (issues 17 and 31)\n\n\
         `tests/e2e/perf.rs` (`first_paint_and_answer_beside_gpu_poor`): batchfit's `dist/` and \
         gpu_poor's published build (below), each served gzipped (`gzip -9`) from 127.0.0.1, \
         the two sites interleaved, in each profile (Chromium's \
         `Network.emulateNetworkConditions`, and for issue 31's phone \
         `Emulation.setCPUThrottlingRate` 4 as well), each load twice over: in a **fresh browser \
         context** (`Target.createBrowserContext`: its own HTTP and code cache, as an \
         incognito window) of one headless Chromium kept running, issue 17's method and the \
         one its budgets read (driven over the DevTools Protocol itself, \
         `tests/src/devtools.rs`, as chromedriver refuses that command), and in a **fresh \
         browser** (a new Chromium and profile per load, through chromedriver), whose \
         start-up shares the machine with the page's first frames. A script installed before \
         navigation (`Page.addScriptToEvaluateOnNewDocument`) watches the document with a \
         MutationObserver: **first paint** is the first frame (`requestAnimationFrame`) after a \
         form input is visible (batchfit: the pre-rendered shell boot.js shows; gpu_poor: \
         its form, once React has rendered it); **first answer** is batchfit's first estimate \
         in the DOM (the results' headline, \"Needs … GB\", which the module writes into the \
         shell before it builds the interface), and gpu_poor's form in the DOM (its form is empty: it has no answer \
         before the visitor picks a model). Chromium's own first contentful paint is shown \
         beside them. gpu_poor's request to Google's analytics (another origin) is blocked. \
         Medians, in ms from navigation start. **KB before the answer** is the bodies, as sent \
         (gzipped), of the document and of every resource whose response had ended when the \
         answer was in the DOM (Resource Timing's `encodedBodySize`).\n\n",
    );
    let figures = match loads {
        Ok(figures) => figures,
        Err(why) => {
            out.push_str(&format!("Not measured in this run: {why}\n\n"));
            return out;
        }
    };
    out.push_str(&format!(
        "batchfit's page: `{}`.\n\n\
         | profile | a fresh | site | loads | first paint | first answer | first contentful paint | KB before the answer |\n\
         |---|---|---|---:|---:|---:|---:|---:|\n",
        figures.page
    ));
    for profile in &figures.profiles {
        for site in &profile.sites {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {:.1} | {:.1} | {:.1} | {} |\n",
                profile.name,
                profile.fresh,
                site.site,
                site.loads,
                site.paint_ms,
                site.answer_ms,
                site.first_contentful_paint_ms,
                kb(site.bytes_before_answer as u64)
            ));
        }
    }
    out.push_str(&format!(
        "\n| profile | a fresh | first paint, {GPU_POOR} ÷ batchfit | first answer, {GPU_POOR} ÷ batchfit |\n\
         |---|---|---:|---:|\n"
    ));
    for profile in &figures.profiles {
        let ratio = |pick: fn(&SiteLoads) -> f64| match (
            profile.site("batchfit"),
            profile.site(GPU_POOR),
        ) {
            (Some(ours), Some(theirs)) => format!("{:.2}×", pick(theirs) / pick(ours)),
            _ => format!("no {GPU_POOR} site"),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            profile.name,
            profile.fresh,
            ratio(|s| s.paint_ms),
            ratio(|s| s.answer_ms)
        ));
    }
    out.push_str("\nEverything each site fetched without a user action (one load in a fresh context, unthrottled, read once its answer was in the DOM and no response had ended for a second), as sent: ");
    let fetched: Vec<String> = figures
        .fetched_without_action
        .iter()
        .map(|(site, bytes)| format!("{site} {} KB", kb(*bytes as u64)))
        .collect();
    out.push_str(&fetched.join(", "));
    out.push_str(".\n\n");
    if !figures.after_action.is_empty() {
        out.push_str(
            "batchfit's interface is fetched at the visitor's first action (issue 31). What a \
             visitor who acts waits for: a key press once the answer is in the DOM and nothing \
             has been fetched for half a second, in a fresh context; the ms from the key's event \
             to the interface built in place of the shell (`batchfit:interface`), and the KB, \
             as sent, fetched in between (medians).\n\n\
             | profile | loads | the interface after the first action | KB fetched |\n\
             |---|---:|---:|---:|\n",
        );
        for a in &figures.after_action {
            out.push_str(&format!(
                "| {} | {} | {:.1} ms | {} |\n",
                a.profile,
                a.loads,
                a.interface_ms,
                kb(a.bytes as u64)
            ));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(name: &str, paint_ms: f64, answer_ms: f64) -> SiteLoads {
        SiteLoads {
            site: name.to_owned(),
            bytes_before_answer: 150_000.0,
            paint_ms,
            answer_ms,
            first_contentful_paint_ms: paint_ms,
            loads: 15,
        }
    }

    #[test]
    fn load_budgets_compare_each_profile_with_gpu_poor() {
        let loads = Ok(LoadFigures {
            page: "/".to_owned(),
            profiles: vec![
                ProfileLoads {
                    name: "unthrottled".to_owned(),
                    fresh: "context".to_owned(),
                    sites: vec![site("batchfit", 50.0, 160.0), site(GPU_POOR, 100.0, 170.0)],
                },
                // Shown, not budgeted: it would fail both.
                ProfileLoads {
                    name: "unthrottled".to_owned(),
                    fresh: "browser".to_owned(),
                    sites: vec![site("batchfit", 90.0, 400.0), site(GPU_POOR, 100.0, 170.0)],
                },
                ProfileLoads {
                    name: "slow".to_owned(),
                    fresh: "context".to_owned(),
                    sites: vec![site("batchfit", 60.0, 300.0), site(GPU_POOR, 100.0, 250.0)],
                },
                ProfileLoads {
                    name: "alone".to_owned(),
                    fresh: "context".to_owned(),
                    sites: vec![site("batchfit", 60.0, 300.0)],
                },
                // Issue 31's phone: its own budget, gpu_poor or not.
                ProfileLoads {
                    name: format!("{PHONE}: slow"),
                    fresh: "context".to_owned(),
                    sites: vec![
                        site("batchfit", 600.0, 1_600.0),
                        site(GPU_POOR, 100.0, 250.0),
                    ],
                },
            ],
            fetched_without_action: vec![("batchfit".to_owned(), 198_500.0)],
            after_action: Vec::new(),
        });
        let verdicts: Vec<(String, Option<bool>)> = load_budgets(&loads)
            .into_iter()
            .map(|b| (b.measured, b.within))
            .collect();
        assert_eq!(
            verdicts,
            [
                ("2.00× (50.0 ms against 100.0 ms)".to_owned(), Some(true)),
                ("160.0 ms against 170.0 ms".to_owned(), Some(true)),
                ("1.67× (60.0 ms against 100.0 ms)".to_owned(), Some(false)),
                ("300.0 ms against 250.0 ms".to_owned(), Some(false)),
                (
                    "not measured: no gpu_poor site (see above)".to_owned(),
                    None
                ),
                (
                    "not measured: no gpu_poor site (see above)".to_owned(),
                    None
                ),
                ("1600.0 ms".to_owned(), Some(false)),
            ]
        );
        let weights: Vec<(String, Option<bool>)> = weight_budgets(
            &Site {
                files: Vec::new(),
                on_demand: Vec::new(),
                interface: Vec::new(),
                elsewhere: Vec::new(),
            },
            &loads,
        )
        .into_iter()
        .map(|b| (b.measured, b.within))
        .collect();
        assert_eq!(
            weights,
            [
                ("150.0 KB".to_owned(), Some(false)),
                ("198.5 KB".to_owned(), Some(true)),
            ]
        );
        let failed = load_budgets(&Err("no browser".to_owned()));
        assert_eq!(failed.len(), 2);
        assert!(
            failed
                .iter()
                .all(|b| b.within.is_none() && b.measured.contains("no browser"))
        );
    }
}
