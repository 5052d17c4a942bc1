// Served only while `cargo xtask dist` takes its snapshots of the built page
// (crates/xtask/src/prerender.rs); never part of dist/. Once the app has
// replaced the page's stand-in, it writes what every field shows into the
// markup (the app sets values as properties, which markup does not carry),
// keeps the part of the page above the fold that needs no answer (the top
// bar, the form switch, the inputs, the results' title), and posts it back.
// The server answers with the next page to snapshot, or nothing.
(function () {
  function snapshot() {
    if (performance.getEntriesByName("batchfit:interface").length === 0) {
      setTimeout(snapshot, 20);
      return;
    }
    document.querySelectorAll("input, select, textarea").forEach(function (field) {
      if (field.type === "checkbox") field.toggleAttribute("checked", field.checked);
      else if (field.tagName === "SELECT")
        Array.from(field.options).forEach(function (o) { o.toggleAttribute("selected", o.selected); });
      else if (field.tagName === "TEXTAREA") field.textContent = field.value;
      else field.setAttribute("value", field.value);
    });
    var shell = document.createElement("div");
    shell.append(
      document.querySelector("body > header.top-bar").cloneNode(true),
      document.querySelector("body > .page").cloneNode(true)
    );
    var main = shell.querySelector("main.layout");
    while (main.nextSibling) main.nextSibling.remove();
    var results = main.querySelector("section.results");
    var loading = document.createElement("p");
    loading.setAttribute("data-shell-loading", "");
    // The first screen (an address with nothing but the language) has one
    // answer, the same for every visitor: its headline and verdict, and the
    // phone bar's, stay in the shell (`shell-answer`); boot.js shows them
    // only on that address, and the loading line everywhere else.
    var first = [...new URLSearchParams(location.search).keys()].join() === "lang";
    // The headline and the verdict only: how sure, and the rest, come
    // with the app.
    var answer = function (element) {
      var copy = element.cloneNode(true);
      copy.classList.add("shell-answer");
      copy.querySelectorAll(".additions, .confidence").forEach(function (e) { e.remove(); });
      return copy;
    };
    var kept = first ? [answer(results.querySelector(".summary"))] : [];
    results.replaceChildren(results.querySelector("h2"), ...kept, loading);
    // The phone's sticky summary keeps its box, without the answer but there.
    var mini = shell.querySelector(".mini-summary");
    var box = document.createElement("div");
    box.className = mini.className;
    box.setAttribute("aria-hidden", "true");
    if (first) box.append(...[...mini.children].map(answer));
    mini.replaceWith(box);
    // What the first paint cannot show stays out of the HTML: a long list's
    // options but the one shown (boot.js adds the address's), and the
    // fields inside closed <details> (their summary keeps the box; the app
    // brings them when it replaces the shell).
    // Only the long lists, which the CSS sizes (`width: 100%`): a short one
    // may be as wide as its widest option.
    shell.querySelectorAll("select").forEach(function (select) {
      if (select.options.length < 6) return;
      Array.from(select.options).forEach(function (o) { if (!o.selected) o.remove(); });
    });
    // Groups the setup hides (another mode's, LoRA's without a rank): the
    // shell never shows them (boot.js keeps what the app rendered visible).
    // A field of the form's first screen that another setup shows (the
    // generated tokens in inference, a typed capacity) stays, hidden: the
    // module's first part shows it where the app does.
    main.querySelectorAll("[hidden]").forEach(function (e) {
      if (!e.matches(".field") || e.closest("details")) e.remove();
    });
    shell.querySelectorAll("details:not([open])").forEach(function (details) {
      Array.from(details.children).forEach(function (c) { if (c.tagName !== "SUMMARY") c.remove(); });
    });
    // The app's section markers (empty comments) mean nothing without it.
    var walker = document.createTreeWalker(shell, NodeFilter.SHOW_COMMENT);
    var comments = [];
    while (walker.nextNode()) comments.push(walker.currentNode);
    comments.forEach(function (c) { c.remove(); });
    // Tests find the app's elements by data-testid: the shell has none.
    shell.querySelectorAll("[data-testid]").forEach(function (e) { e.removeAttribute("data-testid"); });
    fetch("./__prerender" + location.search, { method: "POST", body: shell.innerHTML })
      .then(function (r) { return r.text(); })
      .then(function (next) { if (next) location.replace(next); });
  }
  snapshot();
})();
