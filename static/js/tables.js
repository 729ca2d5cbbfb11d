/* Wide tables (issue 20): a table wider than its box scrolls inside it (.table-wrap). This marks
   such a box so that CSS shows it: a "scroll sideways" hint above it while there is more to the
   right, and a shadow on the side that has more. Without this script the table still scrolls. */
(function () {
  "use strict";
  var boxes = document.querySelectorAll(".table-wrap");
  if (!boxes.length) { return; }

  function update(box) {
    var more = box.scrollWidth - box.clientWidth;
    var frame = box.parentNode;
    frame.classList.toggle("scrolls", more > 1);
    frame.classList.toggle("more-right", box.scrollLeft < more - 1);
    frame.classList.toggle("more-left", box.scrollLeft > 1);
  }

  Array.prototype.forEach.call(boxes, function (box) {
    var frame = document.createElement("div");
    frame.className = "table-frame";
    box.parentNode.insertBefore(frame, box);
    var hint = document.createElement("p");
    hint.className = "scroll-hint";
    hint.setAttribute("aria-hidden", "true");  // what it says is what a screen reader's table navigation already gives
    hint.textContent = "Scroll sideways for more \u2192";
    frame.appendChild(hint);
    frame.appendChild(box);
    box.addEventListener("scroll", function () { update(box); }, { passive: true });
    update(box);
  });
  window.addEventListener("resize", function () { Array.prototype.forEach.call(boxes, update); });
}());
