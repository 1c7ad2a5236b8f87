// memvault web view: live updates. The pages work without this script;
// with it, a notice offers to reload when the vault changes (a write, a
// file edited, a commit). It never reloads by itself: someone reading or
// typing keeps their place.
(function () {
  "use strict";
  if (!window.EventSource) {
    return;
  }
  var es = new EventSource("/events");
  es.addEventListener("change", function () {
    var live = document.getElementById("live");
    if (live) {
      live.hidden = false;
    }
  });
})();
