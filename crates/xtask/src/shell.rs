//! Running commands: each step prints what it runs and fails with its name.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One command to run, with a name for the progress line and the error.
#[derive(Debug)]
pub struct Step {
    name: String,
    program: OsString,
    args: Vec<OsString>,
    envs: Vec<(OsString, OsString)>,
    cwd: Option<PathBuf>,
}

impl Step {
    pub fn new(name: impl Into<String>, program: impl AsRef<OsStr>) -> Self {
        Self {
            name: name.into(),
            program: program.as_ref().to_owned(),
            args: Vec::new(),
            envs: Vec::new(),
            cwd: None,
        }
    }

    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> Self {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.envs
            .push((key.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    pub fn cwd(mut self, dir: &Path) -> Self {
        self.cwd = Some(dir.to_owned());
        self
    }

    /// Runs the step with `path` as `PATH`; Ok when it exits with status 0.
    pub fn run_with_path(&self, path: &OsStr) -> Result<(), String> {
        println!("xtask: ── {} ──", self.name);
        let mut command = Command::new(&self.program);
        command.args(&self.args).env("PATH", path);
        for (key, value) in &self.envs {
            command.env(key, value);
        }
        if let Some(dir) = &self.cwd {
            command.current_dir(dir);
        }
        let status = command
            .status()
            .map_err(|e| format!("{}: could not start {:?}: {e}", self.name, self.program))?;
        if status.success() {
            Ok(())
        } else {
            Err(format!("{} failed ({status})", self.name))
        }
    }
}

/// A `cargo` step.
pub fn cargo<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(name: &str, args: I) -> Step {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    Step::new(name, cargo).args(args)
}

/// The standard output of a command, if it runs and succeeds.
pub fn output_of(program: impl AsRef<OsStr>, args: &[&str], path: &OsStr) -> Option<String> {
    let out = Command::new(program)
        .args(args)
        .env("PATH", path)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}
