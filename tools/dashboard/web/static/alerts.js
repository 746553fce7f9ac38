// The alerts page: the state filter reloads the page with it, so that the
// address names what is shown; signed in, a range's box ticks its alerts
// for a bulk triage.
(function () {
  "use strict";
  var state = document.getElementById("state");
  if (state) state.addEventListener("change", function () { state.form.submit(); });
  Array.prototype.forEach.call(document.querySelectorAll("input.pick-group"), function (box) {
    box.addEventListener("change", function () {
      var group = box.closest("tbody");
      Array.prototype.forEach.call(group.querySelectorAll('input[name="id"]'), function (id) { id.checked = box.checked; });
    });
  });
})();
