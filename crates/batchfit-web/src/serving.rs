//! vLLM's memory plan (`framework=vllm` on a device, `serving::plan`, the
//! same as the CLI's): in place of `generate()`'s estimate, the requests of
//! `max_model_len` tokens served at once, the longest request, the budget's
//! terms and the memory outside it, or the engine's own reason for not
//! starting. Every size carries its bytes in `data-bytes`. The plan is
//! computed and shown by a chunk of its own (`split_serving`), fetched the
//! first time a setup names the engine: no other setup loads its code.

use crate::prelude::*;
use batchfit_core::query::Config;
use batchfit_core::serving::{self, Refusal};
use batchfit_core::transformer::Framework;

use crate::dom::{self, El, el, rx};
use crate::format::{short, times};
use crate::i18n::{self, Lang, group};
use crate::state::State;

/// Whether the page answers with vLLM's plan instead of an estimate: the
/// result card and the sections below then show it alone (`.serving` in
/// the style sheet hides generate()'s answer, step and sweep).
pub fn serves(state: State) -> bool {
    state.config.with(serving::serves)
}

/// The plan of `config`, shown in `lang` (the chunk's code).
#[cfg_attr(batchfit_split, allow(unsafe_code))]
#[cfg_attr(
    batchfit_split,
    wasm_split_helpers::wasm_split(serving, fallible, preload(#[allow(unsafe_code)] preload_serving))
)]
fn view(state: State, config: Config, lang: Lang) -> Result<Vec<El>, dom::ChunkMissing> {
    let Some(plan) = serving::plan(&config) else {
        state.served.set(String::new());
        return Ok(Vec::new());
    };
    let p = i18n::panels(lang);
    let size = |bytes: u128| short(lang, bytes, config.units);
    let sglang = plan.engine == Framework::Sglang;
    let engine = plan.engine_name();
    // The answer, and where the engine would not start, its reason under it.
    let (answer, reason) = match plan.refusal {
        None => (
            (p.serves)(
                &group(lang, plan.concurrent_requests()),
                &group(lang, u128::from(plan.max_model_len)),
            ),
            None,
        ),
        Some(refusal) => {
            let reason = match refusal {
                Refusal::Startup { free, total } => {
                    i18n::Refused::Startup(size(free), size(total), size(plan.budget))
                }
                Refusal::NoCacheMemory => i18n::Refused::NoCacheMemory(size(plan.budget)),
                Refusal::MaxModelLen { needed, estimate } => i18n::Refused::MaxModelLen(
                    group(lang, u128::from(plan.max_model_len)),
                    size(needed),
                    size(plan.kv_cache_pool),
                    group(lang, estimate),
                ),
                Refusal::NotEnoughMemory => i18n::Refused::NotEnoughMemory(size(plan.budget)),
            };
            ((p.serving_refused)(engine), Some((p.refused)(&reason)))
        }
    };
    let term = |testid: &str, label: &str, bytes: u128| {
        // The bar's segments are named by their colour.
        let swatch = match testid {
            "plan-weights" => Some("swatch c-weights"),
            "plan-activation" => Some("swatch c-activations"),
            "plan-pool" => Some("swatch c-kv-cache"),
            _ => None,
        };
        el("li")
            .attr("data-testid", testid)
            .attr("data-bytes", &bytes.to_string())
            .children(swatch.map(|class| el("span").class(class)))
            .child(el("span").text(&format!("{label}: {}", size(bytes))))
    };
    // The phone's bar says it too.
    state.served.set(answer.clone());
    let mut shown = vec![
        el("h3").text(&(p.serving_title)(engine)),
        el("p")
            .class("headline")
            .attr("data-testid", "serving-answer")
            .attr("data-refused", &plan.refusal.is_some().to_string())
            .attr(
                "data-concurrency-hundredths",
                &plan.max_concurrency_hundredths.to_string(),
            )
            .text(&answer),
    ];
    shown.extend(reason.map(|reason| el("p").attr("data-testid", "serving-reason").text(&reason)));
    let linear = (plan.linear_state_per_request > 0).then(|| {
        el("p")
            .attr("data-testid", "serving-state")
            .text(&(p.linear_state)(&size(plan.linear_state_per_request)))
    });
    shown.extend([
        bar(&plan, size),
        el("p")
            .attr("data-testid", "serving-pool")
            .text(&if plan.block_size == 1 {
                (p.kv_tokens)(
                    &size(plan.kv_bytes_per_token),
                    &group(lang, plan.pool_tokens),
                )
            } else if plan.groups.count() > 1 {
                (p.kv_groups)(
                    &size(plan.kv_bytes_per_token),
                    &group(lang, plan.blocks),
                    plan.block_size,
                    plan.groups.count(),
                    &group(lang, plan.pool_tokens),
                    &group(lang, plan.max_seq),
                    plan.groups.linear > 0,
                )
            } else {
                (p.kv_pool)(
                    &size(plan.kv_bytes_per_token),
                    &group(lang, plan.blocks),
                    plan.block_size,
                    &group(lang, plan.pool_tokens),
                )
            }),
        // SGLang's static memory holds the weights and the pool; its
        // activations and CUDA graphs are left outside it, in the reserve.
        el("ul").children(if sglang {
            vec![
                term("plan-weights", p.plan_weights, plan.weights),
                term("plan-pool", p.plan_pool, plan.kv_cache_pool),
                term(
                    "plan-budget",
                    &(p.plan_static)(&i18n::decimal(
                        lang,
                        &format!(
                            "{}.{:03}",
                            plan.fraction_thousandths / 1_000,
                            plan.fraction_thousandths % 1_000
                        ),
                    )),
                    plan.budget,
                ),
                term("plan-reserve", p.plan_reserve, plan.reserve),
                term("plan-outside", p.plan_outside, plan.outside),
            ]
        } else {
            vec![
                term("plan-weights", p.plan_weights, plan.weights),
                term("plan-activation", p.plan_activation, plan.activation_peak),
                term("plan-non-torch", p.plan_non_torch, plan.non_torch),
                term(
                    "plan-graphs",
                    if plan.eager {
                        p.plan_graphs_eager
                    } else {
                        p.plan_graphs
                    },
                    plan.cuda_graphs,
                ),
                term("plan-pool", p.plan_pool, plan.kv_cache_pool),
                term("plan-budget", p.plan_budget, plan.budget),
                term("plan-outside", p.plan_outside, plan.outside),
                term("plan-process", p.plan_process, plan.process()),
            ]
        }),
    ]);
    shown.extend(linear);
    shown.extend(what_ifs(state, lang, &config));
    shown.extend(lengths(lang, &plan));
    shown.extend(devices(lang, &config));
    Ok(shown)
}

/// The plan as a bar: the weights, the profiling peak and the pool side by
/// side, their widths their shares of the budget (the two terms not
/// estimated are 0 and drawn as nothing). Where the first ones exceed the
/// budget (vLLM refuses), the bar spans their sum and a mark shows where the
/// budget ends.
fn bar(plan: &serving::Plan, size: impl Fn(u128) -> String) -> El {
    let taken = plan.weights + plan.activation_peak + plan.non_torch + plan.cuda_graphs;
    let whole = (taken + plan.kv_cache_pool).max(plan.budget).max(1);
    let percent = |bytes: u128| crate::format::percent(bytes, whole);
    let segment = |class: &str, bytes: u128| {
        el("span")
            .class(class)
            .attr("data-bytes", &bytes.to_string())
            .attr("title", &size(bytes))
            .style("width", &percent(bytes))
    };
    let mut bar = el("div")
        .class("plan-bar")
        .attr("data-testid", "plan-bar")
        .children([
            segment("c-weights", plan.weights),
            segment("c-activations", plan.activation_peak),
            segment("c-kv-cache", plan.kv_cache_pool),
        ]);
    if whole > plan.budget {
        bar = bar.child(
            el("span")
                .class("plan-budget-mark")
                .style("left", &percent(plan.budget)),
        );
    }
    bar
}

/// What would make the setup start or serve more (`serving::what_ifs`),
/// each a link that applies it.
fn what_ifs(state: State, lang: Lang, config: &Config) -> Vec<El> {
    let p = i18n::panels(lang);
    let found = serving::what_ifs(config);
    if found.is_empty() {
        return Vec::new();
    }
    let items = found.into_iter().map(|w| {
        // As the engine's command line spells them.
        let sglang = w.plan.engine == Framework::Sglang;
        let flag = match w.change {
            serving::Change::KvFp8 if sglang => "--kv-cache-dtype fp8_e4m3".to_owned(),
            serving::Change::KvFp8 => "--kv-cache-dtype fp8".to_owned(),
            serving::Change::Int4 => p.serving_int4.to_owned(),
            serving::Change::Tp(tp) if sglang => format!("--tp-size {tp}"),
            serving::Change::Tp(tp) => format!("--tensor-parallel-size {tp}"),
            serving::Change::Utilization95 => i18n::decimal(lang, "--gpu-memory-utilization 0.95"),
            serving::Change::MaxModelLen(len) => format!("--max-model-len {len}"),
        };
        let serves = (p.serves)(
            &group(lang, w.plan.concurrent_requests()),
            &group(lang, u128::from(w.plan.max_model_len)),
        );
        let changed = w.config;
        el("li")
            .attr("data-change", w.change.name())
            .child(state.link_to(changed).text(&format!("{flag}: {serves}")))
    });
    vec![
        el("h4").text(p.serving_what_ifs),
        el("ul")
            .class("serving-what-ifs")
            .attr("data-testid", "serving-what-ifs")
            .children(items),
    ]
}

/// A table of `header` and `rows`, the row of `current` marked.
fn table(testid: &str, header: [&str; 3], rows: Vec<([String; 3], bool)>) -> El {
    let cells = |tag: &str, texts: &[String; 3]| {
        texts
            .iter()
            .map(move |t| el(tag).text(t))
            .collect::<Vec<_>>()
    };
    el("table")
        .class("serving-table")
        .attr("data-testid", testid)
        .child(el("thead").child(el("tr").children(cells("th", &header.map(str::to_owned)))))
        .child(
            el("tbody").children(rows.into_iter().map(|(texts, current)| {
                let row = el("tr").children(cells("td", &texts));
                if current {
                    row.attr("aria-current", "true")
                } else {
                    row
                }
            })),
        )
}

/// The plan over request lengths (`serving::sweep`).
fn lengths(lang: Lang, plan: &serving::Plan) -> Vec<El> {
    let p = i18n::panels(lang);
    let rows = serving::sweep(plan)
        .into_iter()
        .map(|row| {
            let requests = if row.fits {
                group(lang, row.requests)
            } else if plan.engine == Framework::Sglang {
                p.serving_does_not_fit.to_owned()
            } else {
                p.serving_does_not_start.to_owned()
            };
            (
                [
                    group(lang, u128::from(row.max_model_len)),
                    requests,
                    times(lang, row.concurrency_hundredths),
                ],
                row.max_model_len == plan.max_model_len,
            )
        })
        .collect();
    vec![
        el("h4").text(p.serving_lengths),
        table(
            "serving-lengths",
            // Breakable after its underscores (zero-width spaces), not mid-word.
            [
                "max_\u{200b}model_\u{200b}len",
                p.serving_requests,
                p.serving_concurrency,
            ],
            rows,
        ),
    ]
}

/// The plan on each GPU preset (`serving::devices`).
fn devices(lang: Lang, config: &Config) -> Vec<El> {
    let p = i18n::panels(lang);
    let rows = serving::devices(config)
        .into_iter()
        .map(|(device, plan)| {
            let requests = match plan.refusal {
                None => group(lang, plan.concurrent_requests()),
                Some(_) => p.serving_does_not_start.to_owned(),
            };
            (
                [
                    crate::format::preset_name(lang, device),
                    requests,
                    group(lang, plan.max_seq),
                ],
                config.device == Some(batchfit_core::presets::Device::Preset(device)),
            )
        })
        .collect();
    vec![
        el("h4").text(p.serving_devices),
        table(
            "serving-devices",
            [p.serving_gpu, p.serving_requests, p.serving_longest],
            rows,
        ),
    ]
}

pub fn serving(state: State) -> El {
    let chunk = dom::chunk!(preload_serving);
    el("section")
        .class("serving")
        .attr("data-testid", "serving")
        .rebuild(
            rx(move || {
                let shown = serves(state);
                (
                    shown.then(|| state.config.get()),
                    shown && chunk.ready(),
                    state.lang.get(),
                )
            }),
            Box::new(move |(setup, ready, lang)| match (setup, ready) {
                (Some(config), true) => dom::now(view(state, *config, *lang)),
                (Some(_), false) => vec![dom::chunk_status(
                    chunk.failed(),
                    i18n::tr(state.lang, |w| w.answer.loading),
                )],
                (None, _) => Vec::new(),
            }),
        )
}
