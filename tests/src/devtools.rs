//! One headless Chromium driven over the DevTools Protocol itself, without
//! chromedriver, for loads that each need a fresh browser *context*: a new
//! `Target.createBrowserContext` has its own HTTP cache, code cache and
//! storage, as an incognito window does, inside a browser that is already
//! running. chromedriver refuses that command ("Not allowed": it is the
//! browser's, and chromedriver only forwards a page's commands), so the
//! harness speaks the protocol on the browser's own WebSocket endpoint.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

use crate::tool;

/// A running headless Chromium and the WebSocket to its browser endpoint.
#[derive(Debug)]
pub struct DevTools {
    chromium: Child,
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    last_id: u64,
    profile: PathBuf,
}

/// A page in a browser context of its own; commands to it carry its session.
#[derive(Debug)]
pub struct Tab {
    context: String,
    session: String,
}

impl DevTools {
    /// Starts Chromium with the same switches as [`crate::Browser`] and
    /// connects to the endpoint it prints (`DevTools listening on ws://…`).
    pub fn start(width: u32, height: u32) -> Self {
        let chromium = tool("CHROMIUM", "chromium");
        let profile =
            std::env::temp_dir().join(format!("batchfit-devtools-{}", std::process::id()));
        let mut child = Command::new(&chromium)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
                "--remote-debugging-port=0",
                // Blink's preferredColorScheme: 1 is light.
                "--blink-settings=preferredColorScheme=1",
            ])
            .arg(format!("--window-size={width},{height}"))
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", chromium.display()));
        let stderr = child.stderr.take().expect("Chromium's stderr, piped");
        let mut lines = BufReader::new(stderr).lines();
        let endpoint = lines
            .by_ref()
            .map_while(Result::ok)
            .find_map(|line| {
                line.strip_prefix("DevTools listening on ")
                    .map(|url| url.trim().to_owned())
            })
            .expect("Chromium printed no DevTools endpoint");
        // Keep reading, so that Chromium never waits on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        let (socket, _) = tungstenite::connect(endpoint.as_str())
            .unwrap_or_else(|e| panic!("connect to {endpoint}: {e}"));
        Self {
            chromium: child,
            socket,
            last_id: 0,
            profile,
        }
    }

    /// Runs `method` on the browser, or on the page of `tab` when given, and
    /// returns its result; the events that arrive meanwhile are skipped.
    pub fn call(&mut self, tab: Option<&Tab>, method: &str, params: Value) -> Value {
        self.try_call(tab, method, params)
            .unwrap_or_else(|error| panic!("{method}: {error}"))
    }

    /// Like [`DevTools::call`], with the protocol's error as the `Err`.
    pub fn try_call(
        &mut self,
        tab: Option<&Tab>,
        method: &str,
        params: Value,
    ) -> Result<Value, Value> {
        self.last_id += 1;
        let id = self.last_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if let Some(tab) = tab {
            message["sessionId"] = json!(tab.session);
        }
        self.socket
            .send(Message::text(message.to_string()))
            .unwrap_or_else(|e| panic!("send {method}: {e}"));
        loop {
            let reply = self
                .socket
                .read()
                .unwrap_or_else(|e| panic!("read the reply to {method}: {e}"));
            let Message::Text(text) = reply else {
                continue;
            };
            let reply: Value = serde_json::from_str(text.as_str())
                .unwrap_or_else(|e| panic!("{method}: a reply that is not JSON: {e}"));
            if reply["id"] == id {
                return match reply.get("error") {
                    Some(error) => Err(error.clone()),
                    None => Ok(reply["result"].clone()),
                };
            }
        }
    }

    /// A blank page in a new browser context, `width` × `height` CSS pixels.
    pub fn new_tab(&mut self, width: u32, height: u32) -> Tab {
        let context = self.call(None, "Target.createBrowserContext", json!({}))["browserContextId"]
            .as_str()
            .expect("a browserContextId")
            .to_owned();
        let target = self.call(
            None,
            "Target.createTarget",
            json!({
                "url": "about:blank",
                "browserContextId": context,
                "width": width,
                "height": height,
            }),
        )["targetId"]
            .as_str()
            .expect("a targetId")
            .to_owned();
        let session = self.call(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target, "flatten": true }),
        )["sessionId"]
            .as_str()
            .expect("a sessionId")
            .to_owned();
        Tab { context, session }
    }

    /// Closes the tab's page and forgets its context (cache and storage).
    pub fn close_tab(&mut self, tab: Tab) {
        self.call(
            None,
            "Target.disposeBrowserContext",
            json!({ "browserContextId": tab.context }),
        );
    }

    /// Evaluates `expression` in the tab's page and returns its value;
    /// `None` when the page has no context to run it in (while it navigates)
    /// or the expression threw.
    pub fn evaluate(&mut self, tab: &Tab, expression: &str) -> Option<Value> {
        let result = self
            .try_call(
                Some(tab),
                "Runtime.evaluate",
                json!({ "expression": expression, "returnByValue": true }),
            )
            .ok()?;
        if result.get("exceptionDetails").is_some() {
            return None;
        }
        Some(result["result"]["value"].clone())
    }
}

impl Drop for DevTools {
    fn drop(&mut self) {
        let _ = self.chromium.kill();
        let _ = self.chromium.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}
