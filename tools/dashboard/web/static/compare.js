// The compare page: a filter (only changed, cost, study, language, exact
// counts only) reloads the page with it, so that the address names what
// is shown.
(function () {
  "use strict";
  var form = document.getElementById("compare-form");
  if (!form) return;
  Array.prototype.forEach.call(form.querySelectorAll(".filter"), function (control) {
    control.addEventListener("change", function () { form.submit(); });
  });
})();
