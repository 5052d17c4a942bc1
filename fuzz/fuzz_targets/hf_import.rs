//! Any bytes pasted as a config.json: importing never panics, and an imported
//! architecture goes through the URL (the page puts it there) and the estimate
//! unchanged and without a problem.

#![no_main]

use batchfit_core::import::hf;
use batchfit_core::memory;
use batchfit_core::query::{self, Config, Form};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let arch = match hf::import(&text) {
        Ok(arch) => arch,
        // The page shows the message under the text box.
        Err(error) => {
            assert!(!error.to_string().is_empty());
            return;
        }
    };
    let mut config = Config {
        form: Form::Transformer,
        ..Config::default()
    };
    config.transformer.arch = arch;
    // As the page holds it once its fields are read back: each parameter a
    // rule says does not apply (a vision model's vocabulary) at its reset.
    let config = query::rules::normalize(config.synced());
    let arch = config.transformer.arch;
    let written = query::to_query(&config);
    let back = query::parse(&written);
    assert!(
        back.problems.is_empty(),
        "{written:?} reads back with problems: {:?}",
        back.problems
    );
    assert_eq!(back.config.transformer.arch, arch, "{written:?}");
    let estimate = memory::estimate(&back.config);
    assert!(estimate.required >= estimate.total, "{written:?}");
});
