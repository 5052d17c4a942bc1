use super::*;

const WORKED: &str = "form=activations&batch=16&seq=2048&hidden=4096&layers=32&precision=bf16&k=10";

#[test]
fn the_documented_example_parses_without_problems() {
    let parsed = parse(WORKED);
    assert_eq!(parsed.problems, []);
    assert_eq!(parsed.config, Config::default());
    assert_eq!(activations::estimate(&parsed.config.activations).total, 85_899_345_920);
}
