// Runs before the app arrives, at the end of <body>: the page's language and
// title by the app's own rule (?lang=, else the browser's language), and the
// form shell `cargo xtask dist` pre-rendered for the address's form and that
// language (crates/xtask/src/prerender.rs), shown with the address's values;
// the others are removed. A file, not inline script: the page's
// Content-Security-Policy runs only scripts from its own origin. The app
// replaces the shell (or, under `trunk serve`, #boot) when it mounts.
(function () {
  var query = new URLSearchParams(location.search);
  var asked = query.get("lang");
  var browser = (navigator.language || "en").slice(0, 2).toLowerCase();
  var lang = asked === "en" || asked === "es" ? asked : browser === "es" ? "es" : "en";
  var root = document.documentElement;
  root.lang = lang;
  root.setAttribute("data-boot-lang", lang);
  if (lang === "es") document.title = "batchfit — ¿cabe este lote?";
  var shells = [].slice.call(document.querySelectorAll(".shell"));
  var mine = shells.filter(function (s) { return s.lang === lang; });
  // The app's rule (query::FIRST_SCREEN): an address that names no setup
  // parameter opens the first screen, the transformer shell as pre-rendered;
  // one that names a setup parameter without a form, the rule of thumb. A
  // setup parameter is `form` or a field's name; lang, units and embed are
  // the page's.
  var setup = false;
  query.forEach(function (value, name) {
    var field = /^(lang|units|embed)$/.test(name) ? null : document.querySelector('.shell [name="' + CSS.escape(name) + '"]');
    if (name === "form" || field) setup = true;
  });
  var form = setup ? query.get("form") || "activations" : "transformer";
  var shell = mine.filter(function (s) { return s.getAttribute("data-form") === form; })[0] || mine[0];
  shells.forEach(function (s) { if (s !== shell) s.remove(); });
  if (!shell) return;
  // The first screen's answer, computed when the site was built
  // (prerender.js), stands on that address alone; elsewhere, the loading line.
  var answered = !setup && !query.has("units") && !query.has("embed");
  [].forEach.call(shell.querySelectorAll(answered ? ".boot-loading" : ".shell-answer"), function (e) { e.remove(); });
  // The transformer shell shows the first screen's picks: on another
  // address, a pick the address does not name is not known yet.
  if (setup && form === "transformer") {
    ["model", "gpu", "method"].forEach(function (name) {
      var field = shell.querySelector('select[name="' + name + '"]');
      if (!field || query.has(name)) return;
      // The blank option alone is the default, so that the app does not
      // take it for the visitor's pick (lib.rs `take_stand_in`).
      [].forEach.call(field.options, function (o) { o.defaultSelected = false; });
      field.add(new Option("", "", true, true));
    });
  }
  // The address's values become the fields' defaults: the app replays only
  // what differs from them, the visitor's own edits (lib.rs).
  [].forEach.call(shell.querySelectorAll("[name]"), function (field) {
    var value = query.get(field.name);
    if (value === null) return;
    if (field.type === "checkbox") field.defaultChecked = value === "1";
    else if (field.tagName !== "SELECT") field.defaultValue = value;
    else if (field.value !== value) {
      // The shell keeps only each list's shown option: another is added,
      // named by its value until the app names it.
      [].forEach.call(field.options, function (o) { o.defaultSelected = false; });
      field.add(new Option(value, value, true, true));
    }
  });
  var embed = query.get("embed");
  if (embed === "1" || embed === "compact") {
    shell.querySelector(".top-bar").remove();
    shell.querySelector(".page").classList.add("embed");
  }
  // The compact embed is the answer alone (lib.rs): no tabs, no form.
  if (embed === "compact") {
    shell.querySelector(".page").classList.add("compact");
    [".tabs", ".inputs"].forEach(function (part) { shell.querySelector(part).remove(); });
  }
  shell.hidden = false;
})();

// A module that cannot be fetched or started (the network, a deployment
// cut short) would leave "Loading…" standing for ever, under a form that
// does not answer. Until the app has started, an error of a script or of
// the loader's promise says so in place of the loading lines, in the
// page's language; the first screen's answer, built with the site, stays.
(function () {
  var started = false;
  addEventListener("TrunkApplicationStarted", function () { started = true; });
  function failed(event) {
    var resource = event.type === "error" && !(event instanceof ErrorEvent);
    if (started || (resource && event.target.tagName !== "SCRIPT")) return;
    var es = document.documentElement.lang === "es";
    var short = es ? "La calculadora no se cargó" : "The calculator did not load";
    var long = short + (es ? ": compruebe la conexión y vuelva a cargar la página." : ": check the connection, then reload the page.");
    document.querySelectorAll(".shell .results").forEach(function (results) {
      if (!results.querySelector(".boot-loading")) results.appendChild(document.createElement("p")).className = "boot-loading";
    });
    document.querySelectorAll(".boot-loading").forEach(function (line) {
      var whole = line.tagName === "P";
      line.className = "boot-failed";
      line.textContent = whole ? long : short;
      if (whole) {
        line.setAttribute("role", "alert");
        line.setAttribute("data-testid", "module-failed");
      }
    });
  }
  addEventListener("error", failed, true);
  addEventListener("unhandledrejection", failed);
})();

// The visitor's first action: a pointer, a key, a wheel, a touch, a scroll
// or a focus. The module writes the address's answer into the shell at once
// and fetches the interface (the forms, every section) only then (lib.rs
// `start`), so a visitor who reads the answer loads nothing more. Recorded
// from here, before the module, so that an action it did not see still
// counts: <html data-acted>, and the event `batchfit:acted` on window.
(function () {
  var kinds = ["pointerdown", "pointermove", "keydown", "wheel", "touchstart", "scroll", "focusin"];
  var options = { capture: true, passive: true };
  function acted() {
    kinds.forEach(function (kind) { removeEventListener(kind, acted, options); });
    document.documentElement.setAttribute("data-acted", "");
    dispatchEvent(new Event("batchfit:acted"));
  }
  kinds.forEach(function (kind) { addEventListener(kind, acted, options); });
})();
