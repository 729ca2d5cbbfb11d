/* Metric run page: the progress bar, the status line and the time left follow the run without a reload.
   Polls the run's API resource (same-origin session cookie); when the run is done, the page
   goes on to the report; when it failed, the status line says why. Without this script the
   page reloads itself (a <noscript> refresh). */
(function () {
  "use strict";
  var box = document.getElementById("run-progress-box");
  if (!box || !window.fetch) { return; }
  var bar = document.getElementById("run-progress");
  var line = document.getElementById("run-status-line");
  var link = document.getElementById("run-report-link");
  var timeLeft = document.getElementById("run-time-left");
  var cancel = document.getElementById("run-cancel");
  var url = box.getAttribute("data-poll-url");
  var reportUrl = box.getAttribute("data-report-url");
  var every = parseInt(box.getAttribute("data-poll-ms"), 10) || 1000;

  function show(run) {
    var percent = Math.round((run.progress || 0) * 100);
    bar.value = percent;
    bar.textContent = percent + "%";
    if (line.textContent !== run.status_line) { line.textContent = run.status_line; }
    if (timeLeft) {
      timeLeft.textContent = run.time_left || "";
      timeLeft.hidden = !run.time_left;
    }
    var finished = ["done", "failed", "cancelled"].indexOf(run.status) >= 0;
    if (cancel && finished) { cancel.hidden = true; }
    if (run.status === "done") {
      link.hidden = false;
      window.location.assign(reportUrl);
      return false;
    }
    return !finished;
  }

  function poll() {
    fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.json();
      })
      .then(function (run) { if (show(run)) { window.setTimeout(poll, every); } })
      .catch(function () { window.setTimeout(poll, every * 3); });
  }
  window.setTimeout(poll, every);
}());
