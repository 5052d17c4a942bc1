// Runs before the app arrives: the loading message and the title in the
// visitor's language, by the app's own rule (?lang=, else the browser's
// language). A file, not inline script: the page's Content-Security-Policy
// runs only scripts from its own origin. The app removes #boot when it mounts.
(function () {
  var asked = new URLSearchParams(location.search).get("lang");
  var browser = (navigator.language || "en").slice(0, 2).toLowerCase();
  var lang = asked === "en" || asked === "es" ? asked : browser === "es" ? "es" : "en";
  var root = document.documentElement;
  root.lang = lang;
  root.setAttribute("data-boot-lang", lang);
  if (lang === "es") document.title = "batchfit — ¿cabe este lote?";
})();
