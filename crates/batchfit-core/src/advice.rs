//! What to change, as the page and the CLI list it: the smallest changes
//! that fit ([`memory::fixes`]), bounded by what the user has (`max_gpus`,
//! `host_gb`), the fixes that fit even at the pessimistic end of the
//! validation range ([`confidence::fit`]) first.

use crate::confidence;
use crate::memory::{self, Fix, Target};
use crate::query::{Config, Form};

/// One fix, with what the page and the CLI say beside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Advice {
    pub fix: Fix,
    /// The fix fits its device even at the pessimistic end of the
    /// validation range, or has no range (the napkin forms), where the
    /// estimate is the only answer; false: it fits only towards the
    /// optimistic end.
    pub fits_pessimistic: bool,
    /// The host RAM the fix's offloads need, over the job's processes on
    /// one host ([`memory::host_memory`]); 0 without offload.
    pub host_memory: u128,
}

/// Whether `config` fits its device at the pessimistic end of its
/// validation range (by the estimate where it has none), and with `host`
/// the host's RAM where given.
fn fits_pessimistic(config: &Config, host: bool) -> bool {
    let Some(device) = config.device.map(|d| d.usable_bytes()) else {
        return false;
    };
    let e = memory::estimate(config);
    let required = confidence::fit(config, &e).map_or(e.required, |fit| fit.pessimistic);
    required <= device && (!host || memory::fits_host(config, e.cpu_memory))
}

/// The smallest changes that make `config` fit, at most [`memory::FIXES`]:
/// first those that fit at the pessimistic end of the validation range
/// (searched for that end, so they keep a margin where the range says
/// batchfit may be low), then those that fit only by the estimate, each
/// group the least costly first. Empty where `config` fits by the
/// estimate or has no device.
pub fn fixes(config: &Config) -> Vec<Advice> {
    let on_device = |c: &Config| fits_pessimistic(c, false);
    let with_host = |c: &Config| fits_pessimistic(c, true);
    let mut sure = memory::fixes_for(
        config,
        &Target {
            device: &on_device,
            fits: &with_host,
        },
    );
    // The estimate's own search only fills what the pessimistic one left:
    // with five sure fixes it would add none, and is not run.
    let likely: Vec<Fix> = if sure.len() < memory::FIXES {
        memory::fixes(config)
            .into_iter()
            .filter(|fix| !sure.iter().any(|s| s.config == fix.config))
            .collect()
    } else {
        Vec::new()
    };
    let advice = |fix: Fix, fits_pessimistic: bool| Advice {
        fits_pessimistic,
        host_memory: memory::host_memory(&fix.config, fix.estimate.cpu_memory),
        fix,
    };
    sure.truncate(memory::FIXES);
    // Every fix of the pessimistic search passed `with_host` there.
    let mut out: Vec<Advice> = sure.into_iter().map(|fix| advice(fix, true)).collect();
    let room = memory::FIXES - out.len();
    let mut rest: Vec<Advice> = likely
        .into_iter()
        .map(|fix| {
            let sure = with_host(&fix.config);
            advice(fix, sure)
        })
        .collect();
    // A fix of the estimate's search that fits at the pessimistic end after
    // all ranks with the sure ones.
    rest.sort_by_key(|a| !a.fits_pessimistic);
    out.extend(rest.into_iter().take(room));
    out
}

/// The parameters form's hand-off (issue 28): where the model states alone
/// exceed the device, no batch of that form fits, and its only levers are
/// the batch and the precision. The transformer form has the rest (ZeRO
/// over GPUs, offload, 8-bit optimizers, LoRA): the same device, batch and
/// task on the published dense decoder nearest in parameter count, its
/// architecture as published. `None` outside the parameters form.
pub fn transformer_hand_off(config: &Config) -> Option<Config> {
    use crate::parameters::Optimizer;
    use crate::transformer::{Kind, Mode, Recipe, parameter_count};
    if config.form != Form::Parameters {
        return None;
    }
    let wanted = u128::from(config.parameters.params);
    let preset = crate::presets::MODELS
        .iter()
        .filter(|m| m.arch.kind == Kind::Decoder && !m.arch.moe())
        .min_by_key(|m| parameter_count(&m.arch).total.abs_diff(wanted))?;
    let mut handed = *config;
    handed.form = Form::Transformer;
    handed.model = Some(preset);
    handed.transformer.arch = preset.arch;
    handed.transformer.batch = config.parameters.batch;
    if config.parameters.optimizer == Optimizer::None {
        handed.transformer.mode = Mode::Inference;
    }
    if config.parameters.precision == crate::Precision::Fp32 {
        handed.transformer.recipe = Recipe::Fp32;
    }
    Some(crate::query::rules::normalize(handed))
}

#[cfg(test)]
mod tests;
