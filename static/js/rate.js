/* Rater screen shortcuts (protocol.md#rater-screen). The page works without this script; it only adds:
   keys 0-3 choose a score, Enter submits, an optional "submit as soon as I choose",
   and a count of the seconds the page was visible (the server keeps the lower of its own
   figure and this one). */
(function () {
  "use strict";
  var form = document.getElementById("score-form");
  if (!form) { return; }
  var AUTO_SUBMIT_KEY = "comve.submitOnChoose";
  var SECONDS_PREFIX = "comve.seconds.";
  var ARROWS = ["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"];
  var assignment = form.elements.assignment.value;
  var secondsField = form.elements.seconds;
  var autoSubmit = document.getElementById("auto-submit");
  var submitting = false;
  var arrowKeyDown = false;

  function storage(kind) {
    try { return window[kind]; } catch (e) { return null; }  // blocked storage: work without it
  }
  var local = storage("localStorage");
  var session = storage("sessionStorage");

  Array.prototype.forEach.call(document.querySelectorAll("[data-js-only]"), function (el) {
    el.hidden = false;
  });

  // Seconds on this item: carried over reloads of the same item in this tab.
  var secondsKey = SECONDS_PREFIX + assignment;
  var carried = 0;
  if (session) {
    carried = parseFloat(session.getItem(secondsKey)) || 0;
    for (var i = session.length - 1; i >= 0; i--) {
      var key = session.key(i);
      if (key && key.indexOf(SECONDS_PREFIX) === 0 && key !== secondsKey) { session.removeItem(key); }
    }
  }
  var visibleSince = document.visibilityState === "visible" ? performance.now() : null;
  function secondsSoFar() {
    return carried + (visibleSince === null ? 0 : (performance.now() - visibleSince) / 1000);
  }
  function saveSeconds() {
    if (session) { session.setItem(secondsKey, secondsSoFar().toFixed(1)); }
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "hidden") {
      carried = secondsSoFar();
      visibleSince = null;
      saveSeconds();
    } else if (visibleSince === null) {
      visibleSince = performance.now();
    }
  });
  window.addEventListener("pagehide", saveSeconds);
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) { submitting = false; }  // back from the next page: the form is live again
  });

  if (autoSubmit && local) {
    autoSubmit.checked = local.getItem(AUTO_SUBMIT_KEY) === "1";
    autoSubmit.addEventListener("change", function () {
      local.setItem(AUTO_SUBMIT_KEY, autoSubmit.checked ? "1" : "0");
    });
  }

  function submitScore() {
    if (typeof form.requestSubmit === "function") { form.requestSubmit(); } else { form.submit(); }
  }

  form.addEventListener("submit", function (event) {
    if (submitting) { event.preventDefault(); return; }  // a double press stores one rating anyway
    submitting = true;
    secondsField.value = secondsSoFar().toFixed(1);
    saveSeconds();
  });

  // Moving through the choices with the arrow keys must not submit each one it passes.
  form.addEventListener("keydown", function (event) {
    arrowKeyDown = ARROWS.indexOf(event.key) !== -1;
  });
  form.addEventListener("change", function (event) {
    var chosen = event.target.name === "score";
    if (chosen && autoSubmit && autoSubmit.checked && !arrowKeyDown) { submitScore(); }
    arrowKeyDown = false;
  });

  function typingInto(target) {
    return target.isContentEditable || /^(TEXTAREA|SELECT)$/.test(target.tagName) ||
      (target.tagName === "INPUT" && !/^(radio|checkbox)$/.test(target.type));
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || typingInto(event.target)) { return; }
    var radio = /^[0-3]$/.test(event.key) ? document.getElementById("score-" + event.key) : null;
    if (radio) {
      event.preventDefault();
      radio.checked = true;
      radio.focus();
      radio.dispatchEvent(new Event("change", { bubbles: true }));
      return;
    }
    var onChoice = event.target.name === "score";
    var onPage = event.target === document.body || event.target.id === "main";
    if (event.key === "Enter" && (onChoice || onPage)) {
      event.preventDefault();
      submitScore();
    }
  });
}());
