//! The parts of the memory as one list: the page's bar, legend and timeline,
//! and the CLI's breakdown, each walk it (the page adds the colours and the
//! words, the CLI its labels).

use super::{AtPeak, Estimate};

/// One part of the memory a configuration needs, in the order of the bar:
/// the tensors alive at the peak, then what is added to them up to the
/// required memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Component {
    Weights,
    Gradients,
    OptimizerStates,
    OptimizerStep,
    /// Framework buffers alive through the step (DeepSpeed's gradient bucket).
    Buffers,
    KvCache,
    Activations,
    /// The caching allocator's reserved but unused bytes at the peak.
    AllocatorCache,
    /// The CUDA context and libraries' workspaces.
    Overhead,
    /// The safety margin the user asked for.
    Margin,
}

impl Component {
    /// Every component, in the order of the bar.
    pub const ALL: [Component; 10] = [
        Self::Weights,
        Self::Gradients,
        Self::OptimizerStates,
        Self::OptimizerStep,
        Self::Buffers,
        Self::KvCache,
        Self::Activations,
        Self::AllocatorCache,
        Self::Overhead,
        Self::Margin,
    ];

    /// The tensors: what `torch.cuda.memory_allocated()` counts, the parts
    /// of [`AtPeak`] and of every timeline point.
    pub const TENSORS: [Component; 7] = [
        Self::Weights,
        Self::Gradients,
        Self::OptimizerStates,
        Self::OptimizerStep,
        Self::Buffers,
        Self::KvCache,
        Self::Activations,
    ];

    /// The name the CLI's JSON and the page's test ids are built from.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Weights => "weights",
            Self::Gradients => "gradients",
            Self::OptimizerStates => "optimizer_states",
            Self::OptimizerStep => "optimizer_step",
            Self::Buffers => "buffers",
            Self::KvCache => "kv_cache",
            Self::Activations => "activations",
            Self::AllocatorCache => "allocator_cache",
            Self::Overhead => "overhead",
            Self::Margin => "margin",
        }
    }

    /// Whether the component lies beyond the tensors: added to the peak of
    /// allocated memory to reach the required memory.
    pub const fn beyond_tensors(self) -> bool {
        matches!(self, Self::AllocatorCache | Self::Overhead | Self::Margin)
    }
}

impl AtPeak {
    /// The bytes of one tensor component at this moment; 0 for a component
    /// beyond the tensors.
    pub fn of(&self, component: Component) -> u128 {
        match component {
            Component::Weights => self.weights,
            Component::Gradients => self.gradients,
            Component::OptimizerStates => self.optimizer_states,
            Component::OptimizerStep => self.optimizer_step,
            Component::Buffers => self.buffers,
            Component::KvCache => self.kv_cache,
            Component::Activations => self.activations,
            Component::AllocatorCache | Component::Overhead | Component::Margin => 0,
        }
    }
}

impl Estimate {
    /// A component's own size: for a tensor the whole term, whether or not
    /// all of it is alive at the peak ([`Self::at_peak`] says what is).
    pub fn own(&self, component: Component) -> u128 {
        match component {
            Component::Weights => self.weights,
            Component::Gradients => self.gradients,
            Component::OptimizerStates => self.optimizer_states,
            Component::OptimizerStep => self.optimizer_step,
            Component::Buffers => self.buffers,
            Component::KvCache => self.kv_cache,
            Component::Activations => self.activations,
            Component::AllocatorCache => self.allocator_cache(),
            Component::Overhead => self.overhead,
            Component::Margin => self.margin_bytes(),
        }
    }

    /// The bar: each component's bytes at the peak (the tensors alive then,
    /// the allocator's cache, the overhead and the margin), in order. They
    /// sum exactly to `required`.
    pub fn bar(&self) -> [(Component, u128); 10] {
        Component::ALL.map(|c| {
            let bytes = if c.beyond_tensors() {
                self.own(c)
            } else {
                self.at_peak.of(c)
            };
            (c, bytes)
        })
    }
}
