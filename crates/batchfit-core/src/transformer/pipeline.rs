//! Pipeline and context parallelism (issue 14): which layers each pipeline
//! stage holds, how many micro-batches' activations it keeps in flight under
//! each schedule, and the settings' URL fields. docs/model.md, "Pipeline
//! parallelism" and "Context parallelism", derives each term.
//!
//! ```
//! use batchfit_core::transformer::pipeline::{self, Schedule};
//!
//! // 1F1B (PipeDream-Flush): stage i of p holds p − i micro-batches.
//! assert_eq!(pipeline::one_f_one_b_in_flight(4, 0, 8), 4);
//! assert_eq!(pipeline::one_f_one_b_in_flight(4, 3, 8), 1);
//! assert_eq!(Schedule::parse("gpipe"), Some(Schedule::Gpipe));
//! ```

use super::architecture::{Architecture, Span};
use crate::choice::choice;
use crate::fields::{Bound, ParamError, Problem, Range, WholeField, whole};
use crate::param::Param;

choice! {
    /// The order a pipeline runs its micro-batches' forward and backward passes.
    pub enum Schedule {
        /// One forward, one backward (PipeDream-Flush; Narayanan et al. 2021,
        /// §2.2.1): Megatron-Core's `forward_backward_pipelining_without_interleaving`,
        /// torch.distributed.pipelining `Schedule1F1B`.
        OneFOneB = "1f1b",
        /// Megatron-Core's interleaved 1F1B over `vpp` model chunks per rank
        /// (Narayanan et al. 2021, §2.2.2).
        Interleaved = "interleaved",
        /// Every forward pass, then every backward pass (Huang et al. 2019):
        /// torch.distributed.pipelining `ScheduleGPipe`.
        Gpipe = "gpipe",
    }
    default OneFOneB
}

choice! {
    /// How context parallelism splits attention over its ranks.
    pub enum CpKind {
        /// Ring attention: each rank keeps its share of the sequence and K/V
        /// blocks travel round the ring (Megatron-Core through Transformer
        /// Engine's `AttnFuncWithCPAndKVP2P`; torchtitan's `context_parallel`).
        Ring = "ring",
        /// DeepSpeed-Ulysses: an all-to-all turns a sequence split into a
        /// head split around the attention (Jacobs et al. 2023).
        Ulysses = "ulysses",
    }
    default Ring
}

/// Pipeline-parallel degree: stages, each on its own GPUs.
pub const PP: WholeField = whole(Param::Pp, 1, 128, 1);
/// Model chunks per pipeline rank under the interleaved schedule.
pub const VPP: WholeField = whole(Param::Vpp, 1, 32, 1);
/// Micro-batches per step; 0 derives them (the accumulation steps of
/// `global_batch`, else `pp`).
pub const MICROBATCHES: WholeField = whole(Param::Microbatches, 0, 1_000, 0);
/// Context-parallel degree: ranks the sequence is split over.
pub const CP: WholeField = whole(Param::Cp, 1, 1_024, 1);
/// Layers of one virtual stage in `pp_layout`.
pub const LAYOUT_ENTRY: WholeField = whole(Param::PpLayout, 0, 10_000, 0);

/// Virtual stages a `pp_layout` can list.
pub const MAX_LAYOUT: usize = 128;

/// Layers per virtual stage, as `pp_layout` lists them (`8,8,8,8`); empty
/// is the even split.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    len: u16,
    layers: [u16; MAX_LAYOUT],
}

impl Default for Layout {
    fn default() -> Self {
        Self {
            len: 0,
            layers: [0; MAX_LAYOUT],
        }
    }
}

impl Layout {
    /// Reads `8,8,8,8` (spaces allowed; empty is the even split).
    pub fn parse(text: &str) -> Result<Self, ParamError> {
        let mut layout = Self::default();
        if text.trim().is_empty() {
            return Ok(layout);
        }
        for (i, entry) in text.split(',').enumerate() {
            let layers = LAYOUT_ENTRY.parse(entry)?;
            let slot = layout.layers.get_mut(i).ok_or_else(|| {
                ParamError::new(
                    Param::PpLayout,
                    Problem::OutOfRange {
                        range: Range {
                            min: Bound::Whole(1),
                            max: Bound::Whole(MAX_LAYOUT as u64),
                        },
                    },
                )
            })?;
            // LAYOUT_ENTRY's bound fits 16 bits.
            *slot = u16::try_from(layers).unwrap_or(u16::MAX);
            layout.len += 1;
        }
        Ok(layout)
    }

    /// The layers of each virtual stage.
    pub fn entries(&self) -> &[u16] {
        &self.layers[..usize::from(self.len)]
    }

    /// No layout given: the even split.
    pub fn is_even(&self) -> bool {
        self.len == 0
    }

    /// Written as [`Self::parse`] reads it.
    pub fn text(&self) -> String {
        self.entries()
            .iter()
            .map(u16::to_string)
            .collect::<Vec<_>>()
            .join(",")
    }

    /// The sum of the entries.
    pub fn total(&self) -> u64 {
        self.entries().iter().map(|&n| u64::from(n)).sum()
    }
}

/// Which stage's memory is the answer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StageChoice {
    /// The stage with the highest peak (what is compared with the device).
    #[default]
    Peak,
    First,
    /// Megatron-LM logs memory on the last rank.
    Last,
    Index(u64),
}

impl StageChoice {
    /// Reads `first`, `last` or a stage index from 0; empty is the peak.
    pub fn parse(text: &str) -> Result<Self, ParamError> {
        let text = text.trim();
        if text.is_empty() {
            return Ok(Self::Peak);
        }
        if text.eq_ignore_ascii_case("first") {
            return Ok(Self::First);
        }
        if text.eq_ignore_ascii_case("last") {
            return Ok(Self::Last);
        }
        STAGE_INDEX.parse(text).map(Self::Index)
    }

    /// Written as [`Self::parse`] reads it.
    pub fn text(&self) -> String {
        match self {
            Self::Peak => String::new(),
            Self::First => "first".to_owned(),
            Self::Last => "last".to_owned(),
            Self::Index(i) => i.to_string(),
        }
    }

    /// The stage index out of `pp`, or `None` for the peak.
    pub fn index(&self, pp: u64) -> Option<u64> {
        match *self {
            Self::Peak => None,
            Self::First => Some(0),
            Self::Last => Some(pp.saturating_sub(1)),
            Self::Index(i) => Some(i.min(pp.saturating_sub(1))),
        }
    }
}

/// A stage index in `pp_stage` (bounded by [`PP`]; checked against `pp`).
pub const STAGE_INDEX: WholeField = whole(Param::PpStage, 0, PP.max - 1, 0);

/// One model chunk on a pipeline rank: a run of consecutive layers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Chunk {
    /// The model's index (from 0) of the chunk's first layer: where its
    /// MoE layers fall, and where a partial checkpointing plan counts from.
    pub first: u64,
    /// Layers with a dense FFN and with a MoE block.
    pub dense: u64,
    pub moe: u64,
    /// The chunk begins the model: the embedding is on it.
    pub embedding: bool,
    /// The chunk ends the model: the final norm, the output head and the loss.
    pub head: bool,
}

impl Chunk {
    pub fn layers(&self) -> u64 {
        self.dense + self.moe
    }

    /// The model's layers the chunk holds.
    pub fn span(&self) -> Span {
        Span {
            first: self.first,
            end: self.first + self.layers(),
        }
    }
}

/// One pipeline rank: its chunks (one without interleaving), in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rank {
    pub index: u64,
    pub chunks: Vec<Chunk>,
}

impl Rank {
    /// Every chunk of the rank together (what its model states hold), from
    /// its first chunk's first layer.
    pub fn whole(&self) -> Chunk {
        let start = Chunk {
            first: self.chunks.first().map_or(0, |c| c.first),
            ..Chunk::default()
        };
        self.chunks.iter().fold(start, |all, c| Chunk {
            first: all.first,
            dense: all.dense + c.dense,
            moe: all.moe + c.moe,
            embedding: all.embedding || c.embedding,
            head: all.head || c.head,
        })
    }
}

/// Layers of each virtual stage: the layout, or `layers / stages` each.
/// Megatron-Core places virtual stage k on rank k mod p as its chunk ⌊k/p⌋
/// (megatron/core/transformer/transformer_block.py `get_num_layers_to_build`
/// with the virtual pipeline rank; Narayanan et al. 2021, §2.2.2, Figure 4).
pub fn ranks(arch: &Architecture, pp: u64, vpp: u64, layout: &Layout) -> Vec<Rank> {
    let stages = pp.max(1) * vpp.max(1);
    let per_stage: Vec<u64> = if layout.is_even() {
        (0..stages).map(|_| arch.layers / stages).collect()
    } else {
        layout.entries().iter().map(|&n| u64::from(n)).collect()
    };
    let mut ranks: Vec<Rank> = (0..pp.max(1))
        .map(|index| Rank {
            index,
            chunks: Vec::new(),
        })
        .collect();
    let mut start = 0u64;
    let last = per_stage.len().saturating_sub(1);
    let count = ranks.len().max(1);
    for (k, &layers) in per_stage.iter().enumerate() {
        let end = start + layers;
        let moe = arch.placement().between(start, end);
        let chunk = Chunk {
            first: start,
            dense: layers - moe,
            moe,
            embedding: k == 0,
            head: k == last,
        };
        if let Some(rank) = ranks.get_mut(k % count) {
            rank.chunks.push(chunk);
        }
        start = end;
    }
    ranks
}

/// 1F1B: stage `rank` of `pp` runs pp − rank − 1 warm-up forward passes and
/// then one forward before each backward, so it holds pp − rank micro-batches
/// at once, or every one when there are fewer (Narayanan et al. 2021, §2.2.1;
/// megatron/core/pipeline_parallel/schedules.py `get_pp_rank_microbatches`:
/// `num_warmup_microbatches = pipeline_parallel_size -
/// pipeline_parallel_rank - 1`, capped at the micro-batches).
pub fn one_f_one_b_in_flight(pp: u64, rank: u64, microbatches: u64) -> u64 {
    pp.saturating_sub(rank).min(microbatches)
}

/// The most activation bytes rank `rank` holds at once under Megatron-Core's
/// interleaved schedule, where `weight(c)` is what one micro-batch of its
/// chunk c keeps. megatron/core/pipeline_parallel/schedules.py
/// `get_pp_rank_microbatches`: `num_warmup_microbatches = (pp - rank - 1) *
/// 2 + (num_model_chunks - 1) * microbatch_group_size_per_vp_stage` (pp by
/// default), capped at microbatches × chunks (then every forward pass runs
/// first); after the warm-up each forward pass is followed by a backward
/// pass. `get_model_chunk_id`: forward k runs chunk ⌊(k mod p·v)/p⌋, backward
/// k chunk v − 1 − ⌊(k mod p·v)/p⌋. The set in flight repeats every p·v
/// steps, so one period of the steady state finds its largest.
pub fn interleaved_peak(
    pp: u64,
    vpp: u64,
    rank: u64,
    microbatches: u64,
    weight: impl Fn(u64) -> u128,
) -> u128 {
    let (p, v) = (pp.max(1), vpp.max(1));
    let total = microbatches.saturating_mul(v);
    let warmup = (2 * (p - rank.min(p - 1) - 1) + (v - 1) * p).min(total);
    let period = p * v;
    let forward_chunk = |k: u64| (k % period) / p;
    let backward_chunk = |k: u64| v - 1 - (k % period) / p;
    let mut held: u128 = (0..warmup).map(|k| weight(forward_chunk(k))).sum();
    let mut peak = held;
    for j in 0..(total - warmup).min(period) {
        held += weight(forward_chunk(warmup + j));
        peak = peak.max(held);
        held = held.saturating_sub(weight(backward_chunk(j)));
    }
    peak
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_hold_their_layers_embedding_and_head() {
        let arch = Architecture::default(); // 32 dense layers
        let ranks = ranks(&arch, 4, 1, &Layout::default());
        let layers: Vec<u64> = ranks.iter().map(|r| r.whole().layers()).collect();
        assert_eq!(layers, [8, 8, 8, 8]);
        assert!(ranks[0].whole().embedding && !ranks[0].whole().head);
        assert!(ranks[3].whole().head && !ranks[3].whole().embedding);
        // Interleaved: virtual stage k on rank k mod p.
        let ranks = super::ranks(&arch, 2, 2, &Layout::parse("7,9,6,10").unwrap());
        assert_eq!(
            ranks[0]
                .chunks
                .iter()
                .map(Chunk::layers)
                .collect::<Vec<_>>(),
            [7, 6]
        );
        assert_eq!(
            ranks[1]
                .chunks
                .iter()
                .map(Chunk::layers)
                .collect::<Vec<_>>(),
            [9, 10]
        );
        assert!(ranks[0].chunks[0].embedding && ranks[1].chunks[1].head);
    }

    #[test]
    fn moe_layers_fall_in_their_stages() {
        // DeepSeek-V3's pattern: 3 dense layers, then MoE.
        let arch = Architecture {
            layers: 8,
            experts: 8,
            first_dense_layers: 3,
            ..Architecture::default()
        };
        let ranks = ranks(&arch, 2, 1, &Layout::default());
        assert_eq!((ranks[0].chunks[0].dense, ranks[0].chunks[0].moe), (3, 1));
        assert_eq!((ranks[1].chunks[0].dense, ranks[1].chunks[0].moe), (0, 4));
        assert_eq!(ranks[1].chunks[0].span(), Span { first: 4, end: 8 });
    }

    /// Narayanan et al. 2021 / Korthikanti et al. 2022 §4.2.3: with p·v
    /// chunks of equal size, the first rank of the interleaved schedule
    /// holds p·(1 + (p − 1)/(p·v)) micro-batches' worth of its L/p layers,
    /// that is v·p + p − 1 chunk-micro-batches.
    #[test]
    fn interleaved_first_rank_matches_the_published_count() {
        for (p, v, m) in [(4u64, 2u64, 8u64), (4, 4, 16), (8, 3, 24), (2, 2, 4)] {
            let peak = interleaved_peak(p, v, 0, m, |_| 1);
            assert_eq!(peak, u128::from(v * p + p - 1), "p={p} v={v} m={m}");
            // The last rank: (v − 1)·p warm-up passes and one more.
            let last = interleaved_peak(p, v, p - 1, m, |_| 1);
            assert_eq!(last, u128::from((v - 1) * p + 1));
        }
        // Fewer micro-batches than the warm-up: all of them, every chunk.
        assert_eq!(interleaved_peak(4, 2, 0, 2, |_| 1), 4);
    }

    #[test]
    fn layouts_and_stage_choices_read_back() {
        let layout = Layout::parse("8, 8,8,8").unwrap();
        assert_eq!(layout.text(), "8,8,8,8");
        assert_eq!(layout.total(), 32);
        assert!(Layout::parse("8,x").is_err());
        assert!(Layout::parse("-1").is_err());
        assert_eq!(StageChoice::parse("LAST"), Ok(StageChoice::Last));
        assert_eq!(StageChoice::parse("2"), Ok(StageChoice::Index(2)));
        assert_eq!(StageChoice::Index(9).index(4), Some(3));
        assert!(StageChoice::parse("middle").is_err());
    }
}
