//! What the user does with the model, as the first screen asks it (issue 28):
//! a full fine-tune, LoRA, QLoRA or inference. Not a URL parameter of its
//! own: each is a set of the parameters that state it (`mode`, `lora_rank`,
//! `base_quant`, and the settings the recipe brings), read from and written
//! into them, so that a link says the same thing whichever way it was made.

use super::bounds::LORA_RANK;
use super::input::TransformerInput;
use super::options::{BaseQuant, Mode, Recipe};
use crate::choice::choice;

choice! {
    /// The four ways a model is used that the first screen offers.
    pub enum Method {
        /// Every weight trained.
        Full = "full",
        /// Adapters over a frozen 16-bit base.
        Lora = "lora",
        /// Adapters over a base quantized by bitsandbytes.
        Qlora = "qlora",
        /// Generation: no gradient, no optimizer state.
        Inference = "inference",
    }
    default Full
}

/// The rank the adapters take when none is set: PEFT's examples' and the
/// QLoRA paper's usual 16 (`LoraConfig(r=16)`).
const RANK: u64 = 16;

impl Method {
    /// The method `t` states.
    pub fn of(t: &TransformerInput) -> Self {
        match (t.mode, t.lora_rank, t.base_quant) {
            (Mode::Inference, ..) => Self::Inference,
            (_, 0, _) => Self::Full,
            (_, _, BaseQuant::None) => Self::Lora,
            _ => Self::Qlora,
        }
    }

    /// `t` changed to state this method, keeping what the method leaves
    /// free (a rank already set, a 4-bit code already chosen). Afterwards
    /// `Method::of(t) == self`.
    pub fn apply(self, t: &mut TransformerInput) {
        match self {
            Self::Inference => t.mode = Mode::Inference,
            Self::Full => {
                t.mode = Mode::Train;
                t.lora_rank = LORA_RANK.default;
                t.base_quant = BaseQuant::None;
                t.double_quant = false;
                t.prepare_kbit = false;
                // The recipe the framework trains a whole model in, where
                // adapters had moved it to a BF16 base.
                t.recipe = t.framework.defaults().recipe;
            }
            Self::Lora => {
                t.mode = Mode::Train;
                t.add_adapters();
                t.base_quant = BaseQuant::None;
                t.double_quant = false;
                t.prepare_kbit = false;
            }
            Self::Qlora => {
                t.mode = Mode::Train;
                t.add_adapters();
                if t.base_quant == BaseQuant::None {
                    t.base_quant = BaseQuant::Nf4;
                    t.double_quant = true;
                }
                // peft/utils/other.py `prepare_model_for_kbit_training(model,
                // use_gradient_checkpointing=True)`: the QLoRA recipe turns
                // on gradient checkpointing, after casting what stays
                // unquantized to FP32 (docs/model.md §3.8, `prepare_kbit`).
                t.recompute_each_layer();
                t.prepare_kbit = true;
            }
        }
    }
}

impl TransformerInput {
    /// Adapters over the frozen base: LoRA of rank 16 (or the rank as set),
    /// the base loaded in BF16 (a PEFT model over
    /// `torch_dtype=torch.bfloat16`) where the recipe would keep it in FP32.
    pub fn add_adapters(&mut self) {
        if self.lora_rank == 0 {
            self.lora_rank = RANK;
        }
        if matches!(self.recipe, Recipe::Fp32 | Recipe::Amp | Recipe::Fsdp) {
            self.recipe = Recipe::Bf16;
        }
    }
}
