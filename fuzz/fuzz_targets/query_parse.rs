//! Any text as a URL query: reading never panics, and what batchfit writes back
//! for the configuration it read is read again exactly, without a problem. The
//! page rewrites the address bar with `to_query` on every edit, so a link that
//! drifted on each round trip would change what a shared link shows.

#![no_main]

use batchfit_core::query;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let parsed = query::parse(&text);
    // The page's notice and the CLI print every problem.
    for problem in &parsed.problems {
        assert!(!problem.to_string().is_empty());
    }
    let written = query::to_query(&parsed.config);
    let back = query::parse(&written);
    assert!(
        back.problems.is_empty(),
        "{written:?} reads back with problems: {:?}",
        back.problems
    );
    assert_eq!(back.config, parsed.config, "{text:?} → {written:?}");
});
