//! The command line as clap reads it: the subcommands, their options, the
//! help with examples and exit codes, and shell completions
//! (`batchfit completions bash|zsh|fish`).

use clap::{Args as ClapArgs, CommandFactory, Parser, Subcommand, ValueEnum};

use batchfit_core::measured::Reading;

const EXAMPLES: &str = "\
Examples:
  batchfit 'form=transformer&model=llama-3.1-8b&batch=4&seq=4096&gpu=h100-80gb'
  batchfit --json 'https://example.org/batchfit/?form=parameters&params=7B&gpu=rtx-4090'
  batchfit check 'form=transformer&model=qwen2.5-7b&lora_rank=16' --gpu rtx-4090 --strict
  batchfit devices 'form=transformer&model=llama-3.1-70b&recipe=bf16&zero=3&gpus=8'
  batchfit compare 'model=llama-3.1-8b&form=transformer' 'model=llama-3.1-8b&form=transformer&lora_rank=16'
  batchfit measured 'form=transformer&model=llama-3.1-8b' run.log --reading allocated
  batchfit --deepspeed ds_config.json --training-args args.json 'model=llama-3.1-8b&gpu=h100-80gb'
  batchfit completions bash > /etc/bash_completion.d/batchfit

Exit codes: 0 ok (`check`: it fits, with --strict even at the validation
range's pessimistic end); 1 (`check` only) it does not fit; 2 bad input.
The query format: docs/url-parameters.md; the commands: docs/cli.md.";

/// The estimate of the batchfit page, from its URL query string or a whole
/// URL: every term of training or inference memory, the three readings
/// (peak allocated, peak reserved, nvidia-smi), the largest batch that
/// fits and what would make it fit.
#[derive(Parser, Debug)]
#[command(
    name = "batchfit",
    version,
    after_help = EXAMPLES,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// The page's URL query string, or a whole URL.
    #[arg(value_name = "QUERY_OR_URL")]
    pub query: Option<String>,
    /// The report as JSON, every size in integer bytes.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub files: Files,
    #[command(subcommand)]
    pub command: Option<Sub>,
}

/// Configuration files read onto the query (docs/cli.md, "Configuration
/// files"); the query's own parameters override theirs.
#[derive(ClapArgs, Debug, Default, Clone)]
pub struct Files {
    /// A DeepSpeed config (ds_config.json).
    #[arg(long, value_name = "FILE", global = true)]
    pub deepspeed: Option<String>,
    /// Hugging Face TrainingArguments as JSON.
    #[arg(long = "training-args", value_name = "FILE", global = true)]
    pub training_args: Option<String>,
    /// A model's config.json.
    #[arg(long, value_name = "FILE", global = true)]
    pub config: Option<String>,
    /// Print on stderr the query the files make.
    #[arg(short, long, global = true)]
    pub verbose: bool,
}

impl Files {
    pub fn any(&self) -> bool {
        self.deepspeed.is_some() || self.training_args.is_some() || self.config.is_some()
    }
}

#[derive(Subcommand, Debug)]
pub enum Sub {
    /// The model and device presets with their ids.
    Presets {
        #[arg(long)]
        json: bool,
    },
    /// One line: does it fit? Exit 0 if it does, 1 if not.
    #[command(
        after_help = "Example:\n  batchfit check 'form=transformer&model=llama-3.1-8b&lora_rank=16&recompute=full' --gpu rtx-4090 --strict\n\nExit codes: 0 it fits (with --strict, even at the validation range's pessimistic end); 1 it does not; 2 bad input."
    )]
    Check {
        #[arg(value_name = "QUERY_OR_URL")]
        query: Option<String>,
        /// The device to check against, replacing the query's.
        #[arg(long, value_name = "ID")]
        gpu: Option<String>,
        /// Fit even at the validation range's pessimistic end.
        #[arg(long)]
        strict: bool,
    },
    /// Every device preset: the required memory, whether it fits, the
    /// largest batch.
    #[command(
        after_help = "Example:\n  batchfit devices 'form=transformer&model=llama-3.1-70b&recipe=bf16&zero=3&gpus=8' --json\n\nExit codes: 0 the table; 2 bad input."
    )]
    Devices {
        #[arg(value_name = "QUERY_OR_URL")]
        query: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Two setups side by side, term by term: two queries, or one whose
    /// second setup's parameters start with `b.`.
    #[command(
        after_help = "Examples:\n  batchfit compare 'form=transformer&model=llama-3.1-8b' 'form=transformer&model=llama-3.1-8b&lora_rank=16'\n  batchfit compare 'form=transformer&model=llama-3.1-8b&b.lora_rank=16'\n\nExit codes: 0 the comparison; 2 bad input (in either setup)."
    )]
    Compare {
        #[arg(value_name = "QUERY_OR_URL", num_args = 1..=2, required = true)]
        queries: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// A run's printed memory (a file, or - for stdin) beside the estimate;
    /// with `framework=vllm` or `sglang`, the server's start-up log beside its plan.
    #[command(
        after_help = "Example:\n  python train.py 2>&1 | batchfit measured 'form=transformer&model=llama-3.1-8b&batch=4' - --reading reserved\n\nExit codes: 0 the comparison; 2 bad input (the query, or text with no reading or start-up log line, naming its line)."
    )]
    Measured {
        #[arg(value_name = "QUERY_OR_URL")]
        query: String,
        /// The file with what the run printed, or - for stdin.
        #[arg(value_name = "FILE")]
        file: String,
        /// What a number without a label is.
        #[arg(long, value_enum)]
        reading: Option<ReadingArg>,
        #[arg(long)]
        json: bool,
    },
    /// A shell's completion script, on stdout.
    #[command(
        after_help = "Examples:\n  batchfit completions bash > ~/.local/share/bash-completion/completions/batchfit\n  batchfit completions zsh > ~/.zfunc/_batchfit\n  batchfit completions fish > ~/.config/fish/completions/batchfit.fish"
    )]
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// `--reading`'s values, as `batchfit_core::measured::Reading` spells them.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum ReadingArg {
    Allocated,
    Reserved,
    #[value(name = "nvidia_smi")]
    NvidiaSmi,
}

impl From<ReadingArg> for Reading {
    fn from(reading: ReadingArg) -> Self {
        match reading {
            ReadingArg::Allocated => Reading::Allocated,
            ReadingArg::Reserved => Reading::Reserved,
            ReadingArg::NvidiaSmi => Reading::NvidiaSmi,
        }
    }
}

/// Writes the completion script of `shell` to stdout.
pub fn completions(shell: clap_complete::Shell) {
    clap_complete::generate(
        shell,
        &mut Cli::command(),
        "batchfit",
        &mut std::io::stdout(),
    );
}
