//! The activations form: the rule of thumb's six inputs and the checkpointing switch.

use batchfit_core::Precision;
use batchfit_core::activations::{self, ActivationsInput, Multiplier};
use batchfit_core::fields::{WholeField, format_hundredths};
use leptos::prelude::*;

use crate::field::{Check, NumberField};

/// The raw text of each field, as typed: validated on every read, never coerced.
#[derive(Clone, Copy, Debug)]
pub struct ActivationsFields {
    pub batch: RwSignal<String>,
    pub seq: RwSignal<String>,
    pub hidden: RwSignal<String>,
    pub layers: RwSignal<String>,
    pub k: RwSignal<String>,
    pub precision: RwSignal<Precision>,
    pub checkpointing: RwSignal<bool>,
}

impl ActivationsFields {
    pub fn new(input: &ActivationsInput) -> Self {
        Self {
            batch: RwSignal::new(input.batch.to_string()),
            seq: RwSignal::new(input.seq.to_string()),
            hidden: RwSignal::new(input.hidden.to_string()),
            layers: RwSignal::new(input.layers.to_string()),
            k: RwSignal::new(format_hundredths(input.k.hundredths())),
            precision: RwSignal::new(input.precision),
            checkpointing: RwSignal::new(input.checkpointing),
        }
    }

    /// The validated input, or `Err` while any field holds invalid text (each field
    /// shows its own message).
    pub fn validated(&self) -> Result<ActivationsInput, ()> {
        let whole = |field: &WholeField, text: RwSignal<String>| {
            text.with(|t| field.parse(t)).map_err(drop)
        };
        Ok(ActivationsInput {
            batch: whole(&activations::BATCH, self.batch)?,
            seq: whole(&activations::SEQ, self.seq)?,
            hidden: whole(&activations::HIDDEN, self.hidden)?,
            layers: whole(&activations::LAYERS, self.layers)?,
            precision: self.precision.get(),
            k: Multiplier::from_hundredths(self.k.with(|t| activations::K.parse(t)).map_err(drop)?),
            checkpointing: self.checkpointing.get(),
        })
    }
}

#[component]
pub fn ActivationsForm(fields: ActivationsFields) -> impl IntoView {
    let precision = fields.precision;
    let checkpointing = fields.checkpointing;
    view! {
        <form class="form" on:submit=|ev| ev.prevent_default()>
            <NumberField check=Check::Whole(activations::BATCH) text=fields.batch
                label="Batch size" unit="samples" hint="Samples per step on one device." />
            <NumberField check=Check::Whole(activations::SEQ) text=fields.seq
                label="Sequence length" unit="tokens" hint="Tokens per sample." />
            <NumberField check=Check::Whole(activations::HIDDEN) text=fields.hidden
                label="Hidden size" unit="" hint="Model width (d_model)." />
            <NumberField check=Check::Whole(activations::LAYERS) text=fields.layers
                label="Layers" unit="" hint="Transformer blocks." />
            <div class="field">
                <label for="precision">"Precision"</label>
                <select id="precision" name="precision"
                    prop:value=move || precision.get().name()
                    on:change=move |ev| {
                        if let Ok(p) = event_target_value(&ev).parse() {
                            precision.set(p);
                        }
                    }
                >
                    {Precision::ALL.map(|p| view! {
                        <option value=p.name()>{format!("{} ({} bytes)", p.label(), p.bytes())}</option>
                    })}
                </select>
                <p class="hint">"Bytes per stored activation value."</p>
            </div>
            <NumberField check=Check::Hundredths(activations::K) text=fields.k
                label="Multiplier k" unit="×" hint="Hidden-sized tensors kept per token per layer; about 10." />
            <div class="field checkbox">
                <label>
                    <input type="checkbox" name="ckpt"
                        prop:checked=move || checkpointing.get()
                        on:change=move |ev| checkpointing.set(event_target_checked(&ev))
                    />
                    " Gradient checkpointing"
                </label>
                <p class="hint">"Keep only about √layers layers' activations; recompute the rest."</p>
            </div>
        </form>
    }
}
